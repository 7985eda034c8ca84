"""Search speed on realistic query mixes; a script, not a test (pytest collects ``test_*.py``).

    .venv/bin/python -m tests.benchmarks.bench_queries [--sizes 1000,10000,100000] [--runs 7]

Each corpus is generated once into ``$TMPDIR/memhooks-bench-queries/`` (kept between runs:
100,000 notes take a while to write) with word frequencies following Zipf's law: a
vocabulary of common English and developer words at the head, then generated words, a
word of rank r drawn with probability ∝ 1/r, and a few notes with CJK lines. For each
size it measures, as medians of ``--runs`` interleaved runs, each next to its baseline in
the same run:

1. one-shot ``memhooks search`` per query mix vs ``grep -ril -E`` and ``rg -il`` over the
   same files (the project folder and MEMORY.md);
2. a pre-prompt event in a running ``memhooks session`` per mix (the prompt goes through
   auto-search as a harness's would), median and p95;
3. the index build (a search with no index file): wall time and the process's peak RSS;
4. the UserPromptSubmit hook command through the session process vs ``python -c pass``,
   after a SessionStart hook, once the session process listens and right after
   SessionStart (while it is still starting); the session process's peak RSS.

Query mixes: ``rare`` (three words found in a few notes), ``common+rare`` (a word on tens
of thousands of lines at 10,000 notes, and two rare ones), ``mixed`` (ranks ~300, ~3,000,
~30,000), ``cjk`` (a phrase of two CJK words), ``literal`` (``.env``, in a note in a
hundred; grep and rg get it with ``-F``), ``literal, common`` (``->``, in a note in
seven), ``prompt`` (a long question as a user types it; the one-shot search and grep get
the terms auto-search keeps). Every third word of a note is written as code or prose has
it (`PUNCTUATED`).
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.bench_speed import (
    ENV,
    MEMHOOKS,
    PY,
    REPO,
    _vm_hwm,
    _wait_socket,
    median_ms,
    p95_ms,
)
from tests.processes import session_processes

CACHE = Path(tempfile.gettempdir()) / "memhooks-bench-queries"
#: Bump when the generator changes, so a cached corpus is generated anew.
CORPUS_VERSION = 2
_HEAD = """
    the to and a of in is for it on test that with build this error be file run not we
    deploy as at config fix from by add are use was update server check data version have
    but or new can should when an if all set user log one change so no api will do there
    after code db merge release job queue cache port time now also branch need more request
    issue start first patch only out make up retry timeout into script path case note step
    failing keep last week touch decided because module env token client local docker
    image worker schema migration default value session review ci lint commit health
    """
HEAD = _HEAD.split()
#: What every third word becomes: itself, or a piece of code or prose around it.
PUNCTUATED = [
    *["{a}"] * 12,
    "{a}.",
    "{a},",
    "`{a}`",
    "({a})",
    "{a}_{b}",
    "{a}.{b}",
    "{a}/{b}.py",
    "--{a}",
    "{a}()",
    "{a}={n}",
    "v1.{n}.0",
    "https://{a}.example.com/{b}",
    "{a}'s",
]
#: A line a note in a hundred holds (the literal mix searches it).
RARE_LITERALS = "copy .env.example to .env and build with c++ (see #1234, %s)"
WORDS_PER_LINE = 12
NOTE_BYTES = 2000


def _vocab(rng: random.Random, n: int) -> list[str]:
    seen = set(HEAD)
    out = list(HEAD)
    letters = "abcdefghijklmnopqrstuvwxyz"
    while len(out) < n:
        w = "".join(rng.choices(letters, k=rng.randint(4, 10)))
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


def _cjk_vocab(rng: random.Random, n: int) -> list[str]:
    chars = [chr(0x4E00 + rng.randrange(0x5000)) for _ in range(600)]
    return ["".join(rng.choices(chars, k=rng.randint(2, 3))) for _ in range(n)]


def _zipf(n: int) -> list[float]:
    return list(itertools.accumulate(1 / r for r in range(1, n + 1)))


class Corpus:
    """A generated memory root of `notes` notes (see the module's docstring)."""

    def __init__(self, notes: int, seed: int = 11) -> None:
        self.notes = notes
        rng = random.Random(seed)
        self.vocab = _vocab(rng, 60_000)
        self.cjk = _cjk_vocab(rng, 3_000)
        self.base = CACHE / f"v{CORPUS_VERSION}-{notes}"
        self.root = self.base / "root"
        self.project = self.base / "proj"
        if not (self.base / "done").exists():
            shutil.rmtree(self.base, ignore_errors=True)
            self._generate(rng)
            (self.base / "done").write_text("")
        from memhooks.memory import slug_for

        self.slug = slug_for(str(self.project))
        self.folder = self.root / "projects" / self.slug

    def _generate(self, rng: random.Random) -> None:
        from memhooks.memory import slug_for

        (self.project / ".git").mkdir(parents=True)
        folder = self.root / "projects" / slug_for(str(self.project))
        (folder / "notes").mkdir(parents=True)
        (folder / "daily").mkdir(parents=True)
        vocab, weights = self.vocab, _zipf(len(self.vocab))
        cjk, cjk_weights = self.cjk, _zipf(len(self.cjk))

        def body() -> str:
            n = NOTE_BYTES // 6
            words = rng.choices(vocab, cum_weights=weights, k=n)
            for i in range(0, n, 3):  # punctuation, as notes on code have it
                a, b = words[i], words[i - 1]
                words[i] = rng.choice(PUNCTUATED).format(a=a, b=b, n=i % 97)
            lines = [
                " ".join(words[i : i + WORDS_PER_LINE])
                for i in range(0, n, WORDS_PER_LINE)
            ]
            if rng.random() < 0.01:
                lines.insert(rng.randrange(len(lines)), RARE_LITERALS)
            if rng.random() < 0.15:
                lines.insert(rng.randrange(len(lines)), f"{words[0]}->{words[1]}()")
            if rng.random() < 0.05:
                for _ in range(3):
                    lines.insert(
                        rng.randrange(len(lines)),
                        "".join(rng.choices(cjk, cum_weights=cjk_weights, k=8)),
                    )
            return "\n".join(lines) + "\n"

        for i in range(self.notes):
            name = rng.choices(vocab, cum_weights=weights)[0]
            (folder / "notes" / f"{name}-{i}.md").write_text(body())
        for d in range(60):
            (
                folder / "daily" / f"2026-{1 + d // 28:02d}-{1 + d % 28:02d}.md"
            ).write_text(f"### 09:00 — work\n{body()}")
        (self.root / "MEMORY.md").write_text(
            "- Run the tests before pushing.\n- Prefer small commits.\n"
        )

    def mixes(self) -> dict[str, str]:
        """Query mixes by name (words picked by rank in the Zipf vocabulary)."""
        v, c = self.vocab, self.cjk
        return {
            "rare": f"{v[20_000]} {v[31_000]} {v[45_000]}",
            "common+rare": f"test {v[22_000]} {v[37_000]}",
            "mixed": f"{v[300]} {v[3_000]} {v[30_000]}",
            "cjk": f"{c[40]}{c[200]}",
            "literal": ".env",
            "literal, common": "->",
            "prompt": (
                f"Why does the {v[25_000]} test keep failing after we changed the "
                f"{v[900]} config? Check what we decided about {v[12_000]} and the "
                f"{v[2_500]} error last week before you touch the build."
            ),
        }

    def files(self) -> list[str]:
        """What grep and rg search: the project folder and MEMORY.md."""
        return [str(self.folder), str(self.root / "MEMORY.md")]


def _terms(query: str) -> list[str]:
    # What a search gets of a mix: a prompt's terms as auto-search keeps them.
    from memhooks.hooks.autosearch import significant_terms

    return significant_terms(query) if len(query.split()) > 6 else query.split()


def _run(cmd: list[str], env: dict[str, str], stdin: str | None = None) -> float:
    return _timed(cmd, env, stdin)[0]


def _timed(
    cmd: list[str], env: dict[str, str], stdin: str | None = None
) -> tuple[float, float]:
    """Wall time and CPU time (user + system, every thread) of one run of `cmd`: on a
    machine others load too, CPU time is what a comparison can still trust."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(
        cmd, input=stdin, capture_output=True, text=True, env=env, check=False
    )
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _build(c: Corpus, env: dict[str, str]) -> tuple[float, int, int]:
    """(seconds, peak RSS in KB, index bytes) of a search that builds the index file."""
    shutil.rmtree(c.root / ".index", ignore_errors=True)
    t = time.perf_counter()
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%M", MEMHOOKS, "search", "--root", str(c.root)]
        + ["--slug", c.slug, "anything"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    took = time.perf_counter() - t
    size = sum(p.stat().st_size for p in (c.root / ".index").glob("*.mhix"))
    return took, int(out.stderr.strip().splitlines()[-1]), size


def _one_shot(c: Corpus, env: dict[str, str], runs: int) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for name, query in c.mixes().items():
        terms = _terms(query)
        # A literal is looked for as typed (-F), words as alternatives.
        fixed = ["-F"] if "literal" in name else []
        pattern = "|".join(terms)
        cmds = {
            "search": [MEMHOOKS, "search", "--root", str(c.root), "--slug", c.slug]
            + ["--", *terms],
            "grep": ["grep", "-ril", *(fixed or ["-E"]), "-e", pattern, *c.files()],
            "rg": ["rg", "-il", *fixed, "-e", pattern, *c.files()],
        }
        times: dict[str, list[float]] = {k: [] for k in cmds}
        cpu: dict[str, list[float]] = {k: [] for k in cmds}
        for _ in range(runs):
            for k, cmd in cmds.items():
                wall, used = _timed(cmd, env)
                times[k].append(wall)
                cpu[k].append(used)
        out[name] = {k: median_ms(v) for k, v in times.items()}
        out[name] |= {f"{k}_cpu": median_ms(v) for k, v in cpu.items()}
    return out


def _session(
    c: Corpus, env: dict[str, str], runs: int
) -> tuple[dict[str, tuple[float, float]], int, float]:
    """Per mix the median and p95 of a pre-prompt event; the process's peak RSS (KB) and
    how long its session-start took (it reads the corpus and opens the index)."""
    proc = subprocess.Popen(
        [PY, "-m", "memhooks.hooks", "session", "--root", str(c.root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdin and proc.stdout

    def event(kind: str, prompt: str, r: int) -> float:
        assert proc.stdin and proc.stdout
        # A new session id per event: auto-search leaves out hits it showed before.
        ev = {"event": kind, "session_id": f"s{r}", "cwd": str(c.project)}
        t = time.perf_counter()
        proc.stdin.write(json.dumps(ev | {"prompt": prompt}) + "\n")
        proc.stdin.flush()
        proc.stdout.readline()
        return time.perf_counter() - t

    started = event("session-start", "", 0)
    event("pre-prompt", "warm up the first search", 0)
    times: dict[str, list[float]] = {k: [] for k in c.mixes()}
    for r in range(runs * 3):
        for name, query in c.mixes().items():
            times[name].append(event("pre-prompt", query, r))
    rss = _vm_hwm(proc.pid)
    proc.stdin.close()
    proc.wait(timeout=30)
    proc.stdout.close()
    return {k: (median_ms(v), p95_ms(v)) for k, v in times.items()}, rss, started


def _hook(c: Corpus, env: dict[str, str], sid: str, event: str, **more: str) -> float:
    """Seconds of one hook command of session `sid` in `c`'s project, as a harness runs
    it (the root from `env`'s MEMHOOKS_HOME)."""
    payload = {"session_id": sid, "cwd": str(c.project), "hook_event_name": event}
    return _run([MEMHOOKS, "hook"], env, json.dumps(payload | more))


def _hooks(c: Corpus, env: dict[str, str], runs: int) -> dict[str, float]:
    """The prompt hook through the session process: after it listens, and while it is
    still starting (the prompt right after SessionStart), vs `python -c pass`."""
    fast = {**env, "MEMHOOKS_SESSION_PROCESS": "1"}
    query = c.mixes()["prompt"]
    nop, ready, starting, rss = [], [], [], []
    for r in range(runs):
        sid = f"bench-{c.notes}-{r}-{os.getpid()}"
        hook = functools.partial(_hook, c, fast, sid)
        nop.append(_run([PY, "-c", "pass"], env))
        hook("SessionStart", source="startup")
        starting.append(hook("UserPromptSubmit", prompt=query))
        _wait_socket(c.root, sid)
        for _ in range(3):
            nop.append(_run([PY, "-c", "pass"], env))
            ready.append(hook("UserPromptSubmit", prompt=query))
        rss.append(_session_rss(c.root, sid))
        hook("SessionEnd", reason="other")
    return {
        "python_ms": median_ms(nop),
        "python_p95_ms": p95_ms(nop),
        "ready_ms": median_ms(ready),
        "ready_p95_ms": p95_ms(ready),
        "starting_ms": median_ms(starting),
        "starting_p95_ms": p95_ms(starting),
        "hook_session_rss_kb": max(rss),
    }


def _session_rss(root: Path, sid: str) -> int:
    """Peak RSS of the session process a SessionStart hook started for `sid`."""
    pids = session_processes(root, sid)
    return _vm_hwm(pids[0]) if pids else 0


def bench(notes: int, runs: int, *, build: bool = True) -> dict[str, object]:
    t = time.perf_counter()
    c = Corpus(notes)
    generated = time.perf_counter() - t
    env = {**ENV, "MEMHOOKS_HOME": str(c.root)}
    if build or not (c.root / ".index").is_dir():
        build_s, build_rss, index_bytes = _build(c, env)
    else:
        build_s, build_rss, index_bytes = float("nan"), 0, 0
    lines = subprocess.run(
        ["grep", "-rihc", "-w", "test", str(c.folder)],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    one_shot = _one_shot(c, env, runs)
    session, session_rss, session_start = _session(c, env, runs)
    hooks = _hooks(c, env, max(3, runs // 2)) if notes <= 10_000 else {}
    return {
        "generated_s": generated,
        "build_s": build_s,
        "build_rss_kb": build_rss,
        "index_bytes": index_bytes,
        "test_lines": sum(int(n) for n in lines),
        "one_shot": one_shot,
        "session": session,
        "session_rss_kb": session_rss,
        "session_start_s": session_start,
        "hooks": hooks,
        "mixes": c.mixes(),
    }


def report(rows: dict[int, dict[str, object]], runs: int) -> str:
    out = [
        (
            f"medians of {runs} interleaved runs (session: {3 * runs} events per mix); "
            f"{os.cpu_count()} cores; python {sys.version.split()[0]}"
        ),
        "",
        (
            "| notes | mix | search one-shot | grep -ril | ratio | rg -il | ratio "
            "| CPU: search / grep / rg | CPU ratio to grep | pre-prompt in session (p95) |"
        ),
        "|" + "---|" * 10,
    ]
    for n, r in rows.items():
        one_shot = r["one_shot"]
        session = r["session"]
        assert isinstance(one_shot, dict) and isinstance(session, dict)
        for mix, t in one_shot.items():
            med, p95 = session[mix]
            out.append(
                f"| {n:,} | {mix} | {t['search']:.0f} ms | {t['grep']:.0f} ms "
                f"| {t['search'] / t['grep']:.2f}× | {t['rg']:.0f} ms "
                f"| {t['search'] / t['rg']:.2f}× "
                f"| {t['search_cpu']:.0f} / {t['grep_cpu']:.0f} / {t['rg_cpu']:.0f} ms "
                f"| {t['search_cpu'] / max(t['grep_cpu'], 1e-3):.2f}× "
                f"| {med:.1f} ms ({p95:.1f}) |"
            )
    out += [
        "",
        (
            "| notes | lines with `test` | index build | build peak RSS | index file "
            "| session start | session RSS |"
        ),
        "|" + "---|" * 7,
    ]
    for n, r in rows.items():
        out.append(
            f"| {n:,} | {r['test_lines']:,} | {r['build_s']:.2f} s "
            f"| {r['build_rss_kb'] / 1024:.0f} MB "  # type: ignore[operator]
            f"| {r['index_bytes'] / 2**20:.0f} MB "  # type: ignore[operator]
            f"| {r['session_start_s']:.2f} s "
            f"| {r['session_rss_kb'] / 1024:.0f} MB |"  # type: ignore[operator]
        )
    out += [
        "",
        (
            "| notes | prompt hook, session ready (p95) | while it starts (p95) "
            "| python -c pass (p95) | ratio ready (p95) | ratio starting (p95) "
            "| session process RSS |"
        ),
        "|" + "---|" * 7,
    ]
    for n, r in rows.items():
        h = r["hooks"]
        assert isinstance(h, dict)
        if not h:
            continue
        py, py95 = h["python_ms"], h["python_p95_ms"]
        out.append(
            f"| {n:,} | {h['ready_ms']:.0f} ms ({h['ready_p95_ms']:.0f}) "
            f"| {h['starting_ms']:.0f} ms ({h['starting_p95_ms']:.0f}) "
            f"| {py:.0f} ms ({py95:.0f}) "
            f"| {h['ready_ms'] / py:.1f}× ({h['ready_p95_ms'] / py:.1f}×) "
            f"| {h['starting_ms'] / py:.1f}× ({h['starting_p95_ms'] / py:.1f}×) "
            f"| {h['hook_session_rss_kb'] / 1024:.0f} MB |"
        )
    first = next(iter(rows.values()))["mixes"]
    assert isinstance(first, dict)
    out += ["", "Mixes (at every size):"]
    out += [f"- {k}: `{v}`" for k, v in first.items()]
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument(
        "--keep-index",
        action="store_true",
        help="use the index file a previous run built (no build time measured)",
    )
    args = ap.parse_args()
    if shutil.which("rg") is None:
        # A column of the report: without it, the run would fail after building the corpus.
        sys.exit("bench_queries: needs ripgrep (rg) on PATH: apt install ripgrep")
    subprocess.run(
        [PY, "-m", "compileall", "-q", str(REPO / "hooks"), str(REPO / "memory")],
        env=ENV,
        capture_output=True,
        check=False,
    )
    rows = {}
    for n in args.sizes.split(","):
        rows[int(n)] = bench(int(n), args.runs, build=not args.keep_index)
        print(f"{n} notes done", file=sys.stderr, flush=True)
    print(report(rows, args.runs))


if __name__ == "__main__":
    main()

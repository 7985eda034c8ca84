"""How fast memhooks is where it counts; a script, not a test (pytest collects ``test_*.py``).

    .venv/bin/python -m tests.benchmarks.bench_speed [--sizes 100,1000,10000] [--runs 15] [--against DIR]

For each size it generates a memory root of that many notes (~2 KB each, plus 60 daily
logs) and measures, as medians over ``--runs`` interleaved runs, each next to a baseline
measured in the same run:

1. one-shot ``memhooks search`` vs ``grep -ril -E 'a|b|c'`` over the same files;
2. search inside a running ``memhooks session`` (pre-prompt round trip per event);
3. a Claude Code UserPromptSubmit hook command with auto-search (whole process, through the
   session process that SessionStart starts) vs ``python -c pass`` of the same venv: the
   first prompt of a session, sent as SessionStart's hook exits and 0.2 s later (as
   `claude -p` sends it), and one sent once the process is ready; the same hook with no
   session process (in-process fallback); SessionStart; with ``--against DIR`` (a folder
   holding another memhooks package, as for `bench_against`), the same prompt hooks of
   that version too, run by run with this checkout's, and each version's session
   process's CPU time (user + system, from /proc) as its first prompt's hook returns;
4. peak RSS of the hook command and of the session process;
5. all of it per size, so growth shows.

Python files are byte-compiled first and the environment's PYTHONDONTWRITEBYTECODE is
dropped for the measured processes: a user's install has .pyc files. MEMHOOKS_SEMANTIC=off
measures the default install (without the [semantic] extra).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PY = sys.executable
MEMHOOKS = str(Path(PY).parent / "memhooks")
# The default install: no [semantic] extra at work (a session process would load a model).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {
    "MEMHOOKS_SEMANTIC": "off"
}
COMMON = [
    "redis",
    "port",
    "conflict",
    "deploy",
    "celery",
    "pool",
    "timeout",
    "invoice",
    "stripe",
    "webhook",
    "retry",
    "cache",
    "token",
    "session",
    "build",
    "test",
    "lint",
    "docker",
    "compose",
    "kafka",
    "queue",
    "migration",
    "schema",
    "index",
    "backup",
]
QUERIES = ["redis port conflict", "celery visibility timeout", "stripe webhook retry"]


def _words(rng: random.Random, n: int) -> list[str]:
    vocab = [
        "".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 10)))
        for _ in range(20_000)
    ]
    return vocab[:n]


def make_root(base: Path, notes: int, seed: int = 7) -> tuple[Path, Path, str]:
    """A root with `notes` notes of ~2 KB and 60 daily logs; returns (root, project, slug)."""
    from memhooks.memory import slug_for

    rng = random.Random(seed)
    vocab = _words(rng, 20_000)
    project = base / "proj"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    slug = slug_for(str(project))
    root = base / "root"
    folder = root / "projects" / slug
    (folder / "notes").mkdir(parents=True, exist_ok=True)
    (folder / "daily").mkdir(parents=True, exist_ok=True)

    def body() -> str:
        lines, size = [], 0
        while size < 2000:
            words = [
                rng.choice(COMMON) if rng.random() < 0.02 else rng.choice(vocab)
                for _ in range(12)
            ]
            line = " ".join(words)
            lines.append(line)
            size += len(line) + 1
        return "\n".join(lines) + "\n"

    for i in range(notes):
        (folder / "notes" / f"{rng.choice(vocab)}-{i}.md").write_text(body())
    for d in range(60):
        (folder / "daily" / f"2026-{1 + d // 28:02d}-{1 + d % 28:02d}.md").write_text(
            f"### 09:00 — work\n{body()}"
        )
    (root / "MEMORY.md").write_text(
        "- Run the tests before pushing.\n- Prefer small commits.\n"
    )
    return root, project, slug


def timed(
    cmd: list[str], *, stdin: str | None = None, env: dict[str, str] | None = None
) -> float:
    start = time.perf_counter()
    subprocess.run(
        cmd, input=stdin, capture_output=True, text=True, env=env or ENV, check=False
    )
    return time.perf_counter() - start


def peak_rss_kb(cmd: list[str], stdin: str | None, env: dict[str, str]) -> int:
    """Peak RSS of one run of `cmd`, from /usr/bin/time -f %M."""
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *cmd],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    return int(out.stderr.strip().splitlines()[-1])


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def p95_ms(samples: list[float]) -> float:
    return sorted(samples)[max(0, int(len(samples) * 0.95) - 1)] * 1000


def bench_size(notes: int, runs: int, against: Path | None) -> dict[str, float]:
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix=f"memhooks-bench-{notes}-") as tmp:
        root, project, slug = make_root(Path(tmp), notes)
        # A file changed less than 2 s before an index build is read again by every
        # search until the next build (memory.layered.RACY_NS): a user's notes are older.
        time.sleep(2.1)
        env = {**ENV, "MEMHOOKS_HOME": str(root)}
        files = str(root / "projects" / slug)

        # 1. one-shot search vs grep, interleaved; the first search builds the index file
        out["first_search_ms"] = 1000 * timed(
            [MEMHOOKS, "search", "--root", str(root), "--slug", slug, "redis"], env=env
        )
        grep, search = [], []
        for r in range(runs):
            q = QUERIES[r % len(QUERIES)].split()
            grep.append(
                timed(
                    ["grep", "-ril", "-E", "|".join(q), files, str(root / "MEMORY.md")]
                )
            )
            search.append(
                timed(
                    [MEMHOOKS, "search", "--root", str(root), "--slug", slug, *q],
                    env=env,
                )
            )
        out["grep_ms"], out["search_ms"] = median_ms(grep), median_ms(search)

        # 3. hook commands vs python -c pass
        nop = [timed([PY, "-c", "pass"]) for _ in range(runs)]
        out["python_ms"] = median_ms(nop)
        fast_env = {**env, "MEMHOOKS_SESSION_PROCESS": "1"}
        slow_env = {**env, "MEMHOOKS_SESSION_PROCESS": "0"}
        # This checkout and, with --against, another version of memhooks, run by run.
        versions = {"this": fast_env}
        if against is not None:
            versions["other"] = {**fast_env, "PYTHONPATH": str(against)}
        got: dict[str, dict[str, list[float]]] = {v: {} for v in versions}
        prompt_slow = []
        for r in range(runs):
            for version, venv in versions.items():
                for name, t in _session_hooks(
                    project, f"{version}-{notes}-{r}", r, venv
                ):
                    got[version].setdefault(name, []).append(t)
            prompt = _event(f"bench-{notes}-{r}", project, "UserPromptSubmit", r)
            prompt_slow.append(timed([MEMHOOKS, "hook"], stdin=prompt, env=slow_env))
            if r == 0:
                out["hook_rss_kb"] = peak_rss_kb([MEMHOOKS, "hook"], prompt, fast_env)
                fallback = prompt.replace("bench-", "rss-")  # no session process here
                out["hook_fallback_rss_kb"] = peak_rss_kb(
                    [MEMHOOKS, "hook"], fallback, slow_env
                )
        this = got["this"]
        out["start_ms"] = median_ms(this["start"])
        out["prompt_ms"], out["prompt_p95_ms"] = (
            median_ms(this["ready"]),
            p95_ms(this["ready"]),
        )
        out["prompt_fallback_ms"] = median_ms(prompt_slow)
        for version, times in got.items():
            for name in (
                "first",
                "first_later",
                "ready",
                "first_cpu",
                "first_later_cpu",
            ):
                key = f"{version}_{name}"
                out[key], out[key + "_p95"] = (
                    median_ms(times[name]),
                    p95_ms(times[name]),
                )
        out["load"] = os.getloadavg()[0]

        # 2. + 4. inside a session process: per-event latency and its peak RSS, with
        # the index file the searches above wrote, then building it itself
        out["session_event_ms"], out["session_event_p95_ms"], out["session_rss_kb"] = (
            _session(root, project, env, runs)
        )
        shutil.rmtree(root / ".index")
        out["session_build_rss_kb"] = _session(root, project, env, 1)[2]
    return out


#: How long after SessionStart's hook exits `claude -p` starts the prompt's hook (measured
#: with Claude Code 2.1.197: 0.2 s); the benchmark also sends it at once.
HARNESS_GAP = 0.2


def _event(sid: str, project: Path, name: str, r: int) -> str:
    fields: dict[str, str] = {
        "SessionStart": {"source": "startup"},
        "UserPromptSubmit": {"prompt": f"why does the {QUERIES[r % 3]} happen again?"},
        "SessionEnd": {"reason": "other"},
    }[name]
    return json.dumps(
        {"session_id": sid, "cwd": str(project), "hook_event_name": name, **fields}
    )


def _session_hooks(
    project: Path, sid: str, r: int, env: dict[str, str]
) -> list[tuple[str, float]]:
    """Two sessions' hook commands: (what was timed, seconds)."""
    hook = [MEMHOOKS, "hook"]
    out = [
        ("start", timed(hook, stdin=_event(sid, project, "SessionStart", r), env=env))
    ]
    # The first prompt meets a session process that is still starting: at once, and
    # as `claude -p` sends it.
    prompt = _event(sid, project, "UserPromptSubmit", r)
    out.append(("first", timed(hook, stdin=prompt, env=env)))
    out.append(("first_cpu", _session_cpu(env["MEMHOOKS_HOME"])))
    # A model answers in seconds: meanwhile the process reads its corpus (after its
    # first answer), and the next prompt finds it ready.
    time.sleep(3)
    again = prompt.replace("happen again", "keep happening")
    out.append(("ready", timed(hook, stdin=again, env=env)))
    timed(hook, stdin=_event(sid, project, "SessionEnd", r), env=env)
    later = sid + "-later"
    timed(hook, stdin=_event(later, project, "SessionStart", r), env=env)
    time.sleep(HARNESS_GAP)
    prompt = _event(later, project, "UserPromptSubmit", r)
    out.append(("first_later", timed(hook, stdin=prompt, env=env)))
    out.append(("first_later_cpu", _session_cpu(env["MEMHOOKS_HOME"])))
    timed(hook, stdin=_event(later, project, "SessionEnd", r), env=env)
    return out


def _session_cpu(root: str) -> float:
    """CPU time (user + system, s) of the newest session process a hook forked for
    `root`, so far: read as the first prompt's hook returns, what that answer cost it."""
    tick = os.sysconf("SC_CLK_TCK")
    newest = (-1, float("nan"))
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/comm") as comm:
                if comm.read().strip() != "memhooks-serve":
                    continue
            with open(f"/proc/{pid}/environ", "rb") as environ:
                if f"MEMHOOKS_HOME={root}\0".encode() not in environ.read():
                    continue
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile, or another user's
            continue
        started, cpu = int(fields[19]), (int(fields[11]) + int(fields[12])) / tick
        newest = max(newest, (started, cpu))
    return newest[1]


def _session(
    root: Path, project: Path, env: dict[str, str], runs: int
) -> tuple[float, float, int]:
    """Median and p95 of a pre-prompt event in a `memhooks session`, and its peak RSS."""
    proc = subprocess.Popen(
        [PY, "-m", "memhooks.hooks", "session", "--root", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdin and proc.stdout
    per_event = []
    for r in range(runs * 4 + 1):
        event = {
            "event": "pre-prompt" if r else "session-start",
            "session_id": "s",
            "cwd": str(project),
            "prompt": f"{QUERIES[r % 3]} {random.Random(r).choice(COMMON)} {r}",
        }
        t = time.perf_counter()
        proc.stdin.write(json.dumps(event) + "\n")
        proc.stdin.flush()
        proc.stdout.readline()
        if r:
            per_event.append(time.perf_counter() - t)
    rss = _vm_hwm(proc.pid)
    proc.stdin.close()
    proc.wait(timeout=10)
    proc.stdout.close()
    return median_ms(per_event), p95_ms(per_event), rss


def _vm_hwm(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def _wait_socket(root: Path, sid: str) -> None:
    """Wait until the session process of `sid` has its socket (`bench_queries`)."""
    from memhooks.hooks.wire import socket_path

    path = socket_path(str(root), sid)
    deadline = time.monotonic() + 10
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument(
        "--against",
        type=Path,
        help="a folder holding another memhooks package (see bench_against): its "
        "prompt hooks are timed too, run by run with this checkout's",
    )
    args = ap.parse_args()
    against = args.against.resolve() if args.against else None
    folders = [REPO / "hooks", REPO / "memory", *([against] if against else [])]
    subprocess.run(
        [PY, "-m", "compileall", "-q", *map(str, folders)],
        env=ENV,
        capture_output=True,
        check=False,
    )
    sizes = [int(n) for n in args.sizes.split(",")]
    rows = {n: bench_size(n, args.runs, against) for n in sizes}
    print(
        f"medians of {args.runs} runs; machine: {os.cpu_count()} cores; python {sys.version.split()[0]}"
    )
    print(
        "| notes | search one-shot | grep -ril | ratio | first search (builds the index) "
        "| search in session (p95) | RSS session / building the index |"
    )
    print("|" + "---|" * 7)
    for n, r in rows.items():
        print(
            f"| {n:,} | {r['search_ms']:.0f} ms | {r['grep_ms']:.0f} ms "
            f"| {r['search_ms'] / r['grep_ms']:.2f}× | {r['first_search_ms']:.0f} ms "
            f"| {r['session_event_ms']:.1f} ms ({r['session_event_p95_ms']:.1f}) "
            f"| {r['session_rss_kb'] / 1024:.0f} / {r['session_build_rss_kb'] / 1024:.0f} MB |"
        )
    print()
    print(
        "| notes | prompt hook (p95) | python -c pass | ratio (p95) "
        "| first prompt, at once (p95) | ratio | first prompt, 0.2 s later (p95) "
        "| ratio | prompt hook, no session process | SessionStart | ratio "
        "| RSS hook / fallback |"
    )
    print("|" + "---|" * 12)
    for n, r in rows.items():
        py = r["python_ms"]
        print(
            f"| {n:,} | {r['prompt_ms']:.0f} ms ({r['prompt_p95_ms']:.0f}) | {py:.0f} ms "
            f"| {r['prompt_ms'] / py:.1f}× ({r['prompt_p95_ms'] / py:.1f}×) "
            f"| {_cell(r, 'this_first', py)} | {_cell(r, 'this_first_later', py)} "
            f"| {r['prompt_fallback_ms']:.0f} ms | {r['start_ms']:.0f} ms "
            f"| {r['start_ms'] / py:.1f}× "
            f"| {r['hook_rss_kb'] / 1024:.0f} / {r['hook_fallback_rss_kb'] / 1024:.0f} MB |"
        )
    if against is None:
        return
    print()
    print(f"Prompt hooks of {against} (other) and this checkout, run by run:")
    print(
        "| notes | version | first prompt, at once (p95) | ratio "
        "| first prompt, 0.2 s later (p95) | ratio | ready (p95) | ratio "
        "| session process CPU by the first answer, at once / later "
        "| python -c pass | load average |"
    )
    print("|" + "---|" * 11)
    for n, r in rows.items():
        for v in ("other", "this"):
            print(
                f"| {n:,} | {v} | {_cell(r, v + '_first', r['python_ms'])} "
                f"| {_cell(r, v + '_first_later', r['python_ms'])} "
                f"| {_cell(r, v + '_ready', r['python_ms'])} "
                f"| {r[v + '_first_cpu']:.0f} / {r[v + '_first_later_cpu']:.0f} ms "
                f"| {r['python_ms']:.0f} ms | {r['load']:.1f} |"
            )


def _cell(r: dict[str, float], key: str, base: float) -> str:
    # "median ms (p95) | ratio (p95 ratio)" against `base`
    m, p = r[key], r[key + "_p95"]
    return f"{m:.0f} ms ({p:.0f}) | {m / base:.1f}× ({p / base:.1f}×)"


if __name__ == "__main__":
    main()

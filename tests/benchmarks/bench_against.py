"""One-shot search of this checkout against another version of memhooks and grep, in one run;
a script, not a test (pytest collects ``test_*.py``).

    git archive main memory hooks | tar -x -C /tmp/base/memhooks && touch /tmp/base/memhooks/__init__.py
    .venv/bin/python -m tests.benchmarks.bench_against /tmp/base [--notes 10000] [--runs 7] [--build|--session|--hooks]

The other version runs from that folder (put first on ``PYTHONPATH``, same interpreter and
packages), on the corpora and query mixes of `tests.benchmarks.bench_queries`; the three
commands alternate run by run, so a load that comes and goes weighs on each alike. Both
versions read one index file, built once before the first run, when they file it alike (the
same `memory.segment.VERSION`); else the other searches a root of its own, its notes hard
links to the corpus', its index file its own. With ``--build``, it times instead the search that builds the
index file (none there) with each version: wall time, CPU time and peak RSS. With
``--session``, it times instead a pre-prompt event per mix in a session process of each
version (both running, events sent to each in turn, `3 * runs` per mix): the wall time
of the round trip and the process's CPU time (every thread, from /proc). With ``--hooks``,
it times instead the prompt hooks of a session as a harness runs them, with each version: a
SessionStart hook, a UserPromptSubmit hook at once (the session process starting), then
three more, one after another, against ``python -c pass``.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tests.benchmarks.bench_queries import Corpus, _terms, _timed
from tests.benchmarks.bench_speed import ENV, PY, _wait_socket, p95_ms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("other", type=Path, help="a folder holding a memhooks package")
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--build", action="store_true", help="time the index build")
    ap.add_argument(
        "--session", action="store_true", help="time pre-prompt in a session process"
    )
    ap.add_argument(
        "--hooks", action="store_true", help="time the prompt hooks after SessionStart"
    )
    args = ap.parse_args()
    compileall.compile_dir(args.other, quiet=1)
    c = Corpus(args.notes)
    env = {**ENV, "MEMHOOKS_HOME": str(c.root)}
    other = {**env, "PYTHONPATH": str(args.other.resolve())}
    search = [PY, "-m", "memhooks.hooks", "search", "--root", str(c.root)]
    search += ["--slug", c.slug]
    if args.build:
        _builds(c, [*search, "anything"], {"other": other, "this": env}, args.runs)
        return
    if args.session:
        _sessions(c, {"other": other, "this": env}, 3 * args.runs)
        return
    if args.hooks:
        _hooks(c, {"other": other, "this": env}, args.runs)
        return
    theirs = [*search]
    if _version(other) != _version(env):
        theirs[theirs.index("--root") + 1] = str(_linked_root(c))
    for cmd, where in ((search, env), (theirs, other)):
        subprocess.run([*cmd, "anything"], env=where, capture_output=True, check=False)
    print(f"{args.notes:,} notes, medians of {args.runs} interleaved runs")
    print("| mix | other | this | grep -ril | other / grep | this / grep |")
    print("|---|---|---|---|---|---|")
    for mix, query in c.mixes().items():
        terms = _terms(query)
        # A literal is looked for as typed (-F), words as alternatives.
        fixed = "-F" if "literal" in mix else "-E"
        grep = ["grep", "-ril", fixed, "-e", "|".join(terms), *c.files()]
        words = ["--", *terms]
        cmds = [([*theirs, *words], other), ([*search, *words], env), (grep, env)]
        times: list[list[float]] = [[], [], []]
        for _ in range(args.runs):
            for (cmd, where), out in zip(cmds, times, strict=True):
                out.append(_timed(cmd, where)[0])
        o, t, g = (1000 * statistics.median(x) for x in times)
        print(
            f"| {mix} | {o:.0f} ms | {t:.0f} ms | {g:.0f} ms | {o / g:.2f}× | {t / g:.2f}× |"
        )
    sys.stdout.flush()


def _version(env: dict[str, str]) -> str:
    """The index file's VERSION of the memhooks that `env` runs."""
    code = "from memhooks.memory import segment; print(segment.VERSION)"
    return subprocess.run(
        [PY, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout


def _linked_root(c: Corpus) -> Path:
    """A copy of the corpus' root beside it, its notes hard links, without the index."""
    root = c.root.with_name("root-other")
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(
        c.root, root, copy_function=os.link, ignore=shutil.ignore_patterns(".index")
    )
    return root


def _builds(
    c: Corpus, search: list[str], envs: dict[str, dict[str, str]], runs: int
) -> None:
    """Medians of the search that builds the index file, each version in turn."""
    got: dict[str, list[tuple[float, ...]]] = {k: [] for k in envs}
    for _ in range(runs):
        for name, env in envs.items():
            shutil.rmtree(c.root / ".index", ignore_errors=True)
            timed = ["/usr/bin/time", "-f", "%e %U %S %M", *search]
            out = subprocess.run(
                timed, env=env, capture_output=True, text=True, check=False
            )
            wall, user, system, rss = out.stderr.split()[-4:]
            got[name].append(
                (float(wall), float(user) + float(system), int(rss) / 1024)
            )
    print(f"{c.notes:,} notes, index build, medians of {runs} interleaved runs")
    print("| version | wall | CPU (user + sys) | peak RSS |")
    print("|---|---|---|---|")
    for name, rows in got.items():
        wall, cpu, rss = (statistics.median(col) for col in zip(*rows, strict=True))
        print(f"| {name} | {wall:.2f} s | {cpu:.2f} s | {rss:.0f} MB |")
    sys.stdout.flush()


def _sessions(c: Corpus, envs: dict[str, dict[str, str]], events: int) -> None:
    """Medians of a pre-prompt event per mix in a session process of each version."""
    procs = {
        name: subprocess.Popen(
            [PY, "-m", "memhooks.hooks", "session", "--root", str(c.root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for name, env in envs.items()
    }

    def send(
        proc: subprocess.Popen[str], kind: str, prompt: str, sid: str
    ) -> tuple[float, float]:
        assert proc.stdin and proc.stdout
        # A new session id per event: auto-search leaves out hits it showed before.
        ev = {"event": kind, "session_id": sid, "cwd": str(c.project), "prompt": prompt}
        cpu, t = _cpu_ns(proc.pid), time.perf_counter()
        proc.stdin.write(json.dumps(ev) + "\n")
        proc.stdin.flush()
        proc.stdout.readline()
        return time.perf_counter() - t, (_cpu_ns(proc.pid) - cpu) / 1e9

    for proc in procs.values():
        send(proc, "session-start", "", "start")
        for query in ["warm up the first search", *c.mixes().values()]:
            send(proc, "pre-prompt", query, "warm")
    got: dict[str, dict[str, tuple[list[float], list[float]]]] = {
        name: {mix: ([], []) for mix in c.mixes()} for name in procs
    }
    for r in range(events):
        for mix, query in c.mixes().items():
            for name, proc in procs.items():
                wall, cpu = send(proc, "pre-prompt", query, f"e{r}")
                got[name][mix][0].append(wall)
                got[name][mix][1].append(cpu)
    for proc in procs.values():
        assert proc.stdin
        proc.stdin.close()
        proc.wait(timeout=30)
    print(f"{c.notes:,} notes, pre-prompt in a session, medians of {events} events")
    print("| mix | other: wall | other: CPU | this: wall | this: CPU |")
    print("|---|---|---|---|---|")
    for mix in c.mixes():
        cells = [
            f"{1000 * statistics.median(got[name][mix][k]):.1f} ms"
            for name in procs
            for k in (0, 1)
        ]
        print(f"| {mix} | {' | '.join(cells)} |")
    sys.stdout.flush()


def _hooks(c: Corpus, envs: dict[str, dict[str, str]], runs: int) -> None:
    """Medians (p95) of the prompt hooks of a session: the one right after SessionStart,
    and the three sent one after another once it is answered, of each version."""
    got: dict[str, dict[str, list[float]]] = {
        name: {k: [] for k in ("pass", "first", "next")} for name in envs
    }
    query = c.mixes()["prompt"]
    for r in range(runs):
        for name, where in envs.items():
            env = {**where, "MEMHOOKS_SESSION_PROCESS": "1"}
            sid = f"against-{name}-{r}-{os.getpid()}"

            def hook(
                event: str, env: dict[str, str] = env, sid: str = sid, **more: str
            ) -> float:
                payload = {"session_id": sid, "cwd": str(c.project)}
                payload |= {"hook_event_name": event, **more}
                cmd = [PY, "-m", "memhooks.hooks", "hook"]
                return _timed(cmd, env, json.dumps(payload))[0]

            got[name]["pass"].append(_timed([PY, "-c", "pass"], env)[0])
            hook("SessionStart", source="startup")
            got[name]["first"].append(hook("UserPromptSubmit", prompt=query))
            _wait_socket(c.root, sid)
            for _ in range(3):
                got[name]["next"].append(hook("UserPromptSubmit", prompt=query))
            hook("SessionEnd", reason="other")
    print(f"{c.notes:,} notes, prompt hooks, medians (p95) of {runs} sessions")
    print(
        "| version | python -c pass | first prompt | ratio | next three (p95) | ratio (p95) |"
    )
    print("|---|---|---|---|---|---|")
    for name, times in got.items():
        nop, first = statistics.median(times["pass"]), statistics.median(times["first"])
        nxt, p95 = statistics.median(times["next"]), p95_ms(times["next"]) / 1000
        print(
            f"| {name} | {1000 * nop:.0f} ms | {1000 * first:.0f} ms | {first / nop:.1f}× "
            f"| {1000 * nxt:.0f} ms ({1000 * p95:.0f}) | {nxt / nop:.1f}× ({p95 / nop:.1f}×) |"
        )
    sys.stdout.flush()


def _cpu_ns(pid: int) -> int:
    # CPU time of every thread of a process so far, in ns (/proc's schedstat).
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            total += int((task / "schedstat").read_text().split()[0])
    return total


if __name__ == "__main__":
    main()

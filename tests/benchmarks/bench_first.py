"""The first prompt of a session, while its session process starts, against another version
of memhooks; a script, not a test (pytest collects ``test_*.py``).

    git archive main memory hooks | tar -x -C /tmp/base/memhooks
    .venv/bin/python -m tests.benchmarks.bench_first /tmp/base [--notes 10000] [--runs 9]

What `bench_speed --against` times in its prompt-hook table, alone: a Claude Code
SessionStart hook, then the UserPromptSubmit hook sent as the first exits (*at once*) and
`bench_speed.HARNESS_GAP` later (as `claude -p` sends it), each next to ``python -c pass``
and the other version's, run by run; and the session process's CPU time as that
prompt's hook returns (user + system, from /proc: what the answer cost it, which decides
the wait on a loaded machine). The root of `bench_speed.make_root` and its index file are
made once into ``$TMPDIR/memhooks-bench-first/NOTES/`` and kept, so a run takes a minute
or two rather than the index builds of `bench_speed`.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from tests.benchmarks.bench_speed import (
    ENV,
    HARNESS_GAP,
    MEMHOOKS,
    PY,
    REPO,
    _event,
    _session_cpu,
    make_root,
    median_ms,
    p95_ms,
    timed,
)

CACHE = Path(tempfile.gettempdir()) / "memhooks-bench-first"


def _root(notes: int) -> tuple[Path, Path]:
    """The memory root and project of `notes` notes, with its index file (made once)."""
    base = CACHE / str(notes)
    made = base / "made.json"
    if not made.exists():
        shutil.rmtree(base, ignore_errors=True)
        base.mkdir(parents=True)
        root, project, slug = make_root(base, notes)
        time.sleep(2.1)  # older than an index build's racy window, as a user's notes
        subprocess.run(
            [MEMHOOKS, "search", "--root", str(root), "--slug", slug, "redis"],
            env={**ENV, "MEMHOOKS_HOME": str(root)},
            capture_output=True,
            check=True,
        )
        made.write_text(json.dumps([str(root), str(project)]))
    root, project = json.loads(made.read_text())
    return Path(root), Path(project)


def _first(project: Path, sid: str, r: int, gap: float, env: dict[str, str]) -> float:
    """A session's first prompt, `gap` s after its SessionStart hook exits (seconds)."""
    hook = [MEMHOOKS, "hook"]
    timed(hook, stdin=_event(sid, project, "SessionStart", r), env=env)
    time.sleep(gap)
    return timed(hook, stdin=_event(sid, project, "UserPromptSubmit", r), env=env)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("other", type=Path, help="a folder holding a memhooks package")
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    other = args.other.resolve()
    for folder in (REPO / "hooks", REPO / "memory", other):  # as an install has them
        compileall.compile_dir(str(folder), quiet=1)
    root, project = _root(args.notes)
    env = {**ENV, "MEMHOOKS_HOME": str(root), "MEMHOOKS_SESSION_PROCESS": "1"}
    versions = {"other": {**env, "PYTHONPATH": str(other)}, "this": env}
    got: dict[str, list[float]] = {}
    loads = []
    for r in range(args.runs):
        got.setdefault("python", []).append(timed([PY, "-c", "pass"]))
        for version, venv in versions.items():
            for when, gap in (("at once", 0.0), ("later", HARNESS_GAP)):
                sid = f"first-{version}-{r}-{gap}-{time.time_ns()}"
                got.setdefault(f"{version} {when}", []).append(
                    _first(project, sid, r, gap, venv)
                )
                got.setdefault(f"{version} {when} cpu", []).append(
                    _session_cpu(str(root))
                )
                end = _event(sid, project, "SessionEnd", r)
                timed([MEMHOOKS, "hook"], stdin=end, env=venv)
        loads.append(os.getloadavg()[0])
    py = median_ms(got["python"])
    print(
        f"{args.notes:,} notes, medians of {args.runs} runs; python -c pass {py:.0f} ms "
        f"(p95 {p95_ms(got['python']):.0f}); load average {min(loads):.1f}-{max(loads):.1f}"
    )
    print(
        "| version | first prompt, at once (p95) | ratio (p95) | CPU "
        "| 0.2 s later (p95) | ratio (p95) | CPU |"
    )
    print("|" + "---|" * 7)
    for version in versions:
        cells = []
        for when in ("at once", "later"):
            t = got[f"{version} {when}"]
            m, p = median_ms(t), p95_ms(t)
            cpu = median_ms(got[f"{version} {when} cpu"])
            cells.append(
                f"{m:.0f} ms ({p:.0f}) | {m / py:.1f}× ({p / py:.1f}×) | {cpu:.0f} ms"
            )
        print(f"| {version} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()

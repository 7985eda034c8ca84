"""The hooks on a root of months of use, cold and warm, with both cores busy; a script,
not a test (pytest collects ``test_*.py``).

    TMPDIR=/tmp .venv/bin/python -m tests.benchmarks.bench_longuse [--runs 5] [--busy 2]

`tests.longuse.build` writes a root of 30 projects over nine months (a log each working
day a project was worked on, 2-40 KB, three of 1-5 MB; 35 MB in ~2,900 files) into
``$TMPDIR/memhooks-bench-longuse``. For two projects, the one holding the 3 MB log (its
newest log a 3 MB one, as a chatty agent leaves it) and an ordinary one, each round
times a session's hooks as Claude Code runs them, from the captured payloads in
tests/data/harness/claude-code/interactive/: SessionStart, the first prompt at once (its
session process just forked), a second prompt, PreCompact (the flush, reading the captured
transcript) and SessionEnd; *cold* with the project's index file deleted first, *warm*
with it there. `--busy N` keeps N processes spinning on the CPU meanwhile. The baseline,
``python -c pass``, is timed in the same rounds, under the same load. Prints the median
and worst of each hook, its ratio to the baseline and the timeout `memhooks install`
writes for it; then what the root's own folders hold after the run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memhooks.memory import slug_for
from tests.benchmarks.bench_speed import ENV, MEMHOOKS, PY, median_ms, timed
from tests.longuse import build

CAPTURED = Path(__file__).parent.parent / "data/harness/claude-code/interactive"
#: Each timed hook: (label, captured payload, `memhooks install`'s timeout in seconds).
HOOKS = (
    ("SessionStart", "01-SessionStart", 10),
    ("prompt at once", "02-UserPromptSubmit", 10),
    ("prompt", "03-UserPromptSubmit", 10),
    ("PreCompact", "05-PreCompact", 30),
    ("SessionEnd", "09-SessionEnd", 2),
)


def _payload(name: str, project: Path, sid: str) -> str:
    event = json.loads((CAPTURED / f"{name}.json").read_text())
    event |= {"cwd": str(project), "session_id": sid}
    event["transcript_path"] = str(CAPTURED / "transcript.jsonl")
    return json.dumps(event)


def _session(project: Path, sid: str, env: dict[str, str]) -> dict[str, float]:
    got = {}
    for label, name, _ in HOOKS:
        got[label] = timed(
            [MEMHOOKS, "hook", "--harness", "claude-code"],
            stdin=_payload(name, project, sid),
            env=env,
        )
    return got


def _du(path: Path) -> tuple[int, int]:
    files = [p for p in path.rglob("*") if p.is_file()] if path.exists() else []
    return len(files), sum(p.stat().st_size for p in files)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--busy", type=int, default=2, help="CPU-bound processes meanwhile")
    args = ap.parse_args()
    base = Path(tempfile.gettempdir()) / "memhooks-bench-longuse"
    shutil.rmtree(base, ignore_errors=True)
    root = base / "root"
    made = build(root)
    env = {**ENV, "MEMHOOKS_HOME": str(root), "MEMHOOKS_SESSION_PROCESS": "1"}
    sizes = {p: _du(root / "projects" / slug_for(str(p)))[1] for p in made}
    chatty = next(p for p in made if any(
        f.stat().st_size > 2**21 for f in (root / "projects" / slug_for(str(p))).rglob("*.md")
    ))  # fmt: skip
    ordinary = made[0] if made[0] != chatty else made[1]
    # Its 3 MB log made the newest: what a chatty agent's day leaves for the next session.
    home = root / "projects" / slug_for(str(chatty)) / "daily"
    biggest = max(home.glob("*.md"), key=lambda f: f.stat().st_size)
    biggest.rename(home / f"{dt.date.today().isoformat()}.md")
    time.sleep(2.1)  # older than an index build's racy window, as a user's files
    spin = [PY, "-c", "while True: pass"]
    busy = [subprocess.Popen(spin) for _ in range(args.busy)]
    got: dict[str, list[float]] = {}
    try:
        for r in range(args.runs):
            got.setdefault("python -c pass", []).append(timed([PY, "-c", "pass"]))
            for project in (chatty, ordinary):
                index = root / ".index" / f"{slug_for(str(project))}.mhix"
                for state in ("cold", "warm"):
                    if state == "cold":
                        index.unlink(missing_ok=True)
                    else:  # the session process of the cold run builds it on its way
                        deadline = time.monotonic() + 120
                        while not index.exists() and time.monotonic() < deadline:
                            time.sleep(0.2)
                    sid = f"longuse-{r}-{state}-{time.time_ns()}"
                    for label, t in _session(project, sid, env).items():
                        key = f"{project.name} {state} {label}"
                        got.setdefault(key, []).append(t)
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()
    py = median_ms(got["python -c pass"])
    print(
        f"{len(made)} projects, {sum(sizes.values()) / 2**20:.0f} MB; {args.runs} rounds,"
        f" {args.busy} CPU-bound processes; python -c pass {py:.0f} ms (median)"
    )
    print("| project | index | hook | median | worst | ÷ python -c pass | timeout |")
    print("|---|---|---|---|---|---|---|")
    for project in (chatty, ordinary):
        size = sizes[project] / 2**20
        for state in ("cold", "warm"):
            for label, _, timeout in HOOKS:
                samples = got[f"{project.name} {state} {label}"]
                print(
                    f"| {project.name} ({size:.1f} MB) | {state} | {label} "
                    f"| {median_ms(samples):.0f} ms | {max(samples) * 1e3:.0f} ms "
                    f"| {median_ms(samples) / py:.1f}× | {timeout} s |"
                )
    for folder in (".index", ".sessions", ".activity"):
        n, b = _du(root / folder)
        print(f"{folder}: {n} files, {b / 1024:.0f} KiB")
    backups = list((root / "projects").rglob("*.bak"))
    print(f"*.bak: {len(backups)} files; {sys.argv[0]} done")


if __name__ == "__main__":
    main()

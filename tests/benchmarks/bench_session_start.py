"""What a SessionStart hook costs as the harness runs it; a script, not a test.

    python -m tests.benchmarks.bench_session_start VENV [VENV ...] [--runs 15]

Each VENV is a virtual environment where memhooks was installed with `pip install`
(installs of two versions compare them). A small memory (a MEMORY.md rule, a note, a
scratchpad item and a daily log) is written once; then, round by round, each VENV's
`memhooks hook --harness claude-code` gets a SessionStart of a new session (so it answers
in-process and forks its session process, as at the start of every `claude -p`), timed
from start to exit, and the session is ended. `python -c pass` of the first VENV is the
baseline, in the same rounds. Prints the fastest and median time of each.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path


def _hook(venv: Path, event: dict[str, str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [str(venv / "bin" / "memhooks"), "hook", "--harness", "claude-code"],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=True,
    )
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("venvs", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-session-start-") as tmp:
        project = Path(tmp) / "myapp"
        (project / ".git").mkdir(parents=True)
        env = {**os.environ, "MEMHOOKS_HOME": str(Path(tmp) / "memory")}
        memhooks = str(args.venvs[0] / "bin" / "memhooks")
        for where in [
            ["--to", "memory", "--text", "- Run make test before pushing."],
            ["--to", "scratchpad", "--text", "- [ ] Finish the login page"],
            ["--to", "daily", "--text", "Fixed the flaky upload test."],
            ["--to", "note", "--name", "redis", "--text", "Port 6380."],
        ]:
            write = [memhooks, "write", *where]
            subprocess.run(write, env=env, cwd=project, check=True, capture_output=True)
        times: dict[str, list[float]] = {str(v): [] for v in args.venvs}
        times["python -c pass"] = []
        for n in range(args.runs):
            for venv in args.venvs:
                session = {"session_id": f"bench-{n}-{venv.name}", "cwd": str(project)}
                start = {
                    **session,
                    "hook_event_name": "SessionStart",
                    "source": "startup",
                }
                times[str(venv)].append(_hook(venv, start, env, project))
                time.sleep(0.3)  # as a harness's first prompt follows
                end = {**session, "hook_event_name": "SessionEnd", "reason": "other"}
                _hook(venv, end, env, project)
            begin = time.perf_counter()
            subprocess.run(
                [str(args.venvs[0] / "bin" / "python"), "-c", "pass"], check=True
            )
            times["python -c pass"].append(time.perf_counter() - begin)
    for name, values in times.items():
        print(
            f"{name}: fastest {min(values) * 1e3:.1f} ms,"
            f" median {statistics.median(values) * 1e3:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

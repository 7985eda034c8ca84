"""What memhooks costs a real `claude -p` run; a script, not a test.

    .venv/bin/python -m tests.benchmarks.bench_harness [--runs 7] [--json]

Two sandboxes of the end-to-end tier (tests/e2e: the Claude Code `install_clis.sh` pins,
from npm; a mock Anthropic API on 127.0.0.1 in a network namespace), identical but for
memhooks: one has it installed for the project (`memhooks install claude-code --scope
project`, with a MEMORY.md rule and a note), the other has no hooks. `claude -p PROMPT`
runs alternately in each, `--runs` times, and the script prints the wall-clock median of
each and their ratio, plus how many runs left a memhooks process, socket or state file,
and how many wrote their session-end record. A third sandbox, in the same rounds, has
hooks for the same events that only start Python (`python -c pass`): the least any hook
written in Python costs. Run it on an idle machine: the sides share it, but a burst of
load still lands on one side's run.

It measures the memhooks installed beside the Python that runs it. For a user's figure,
run it with a venv where memhooks was installed with `pip install .` (not editable: an
editable install's import hook costs every hook process ~20 ms more):

    python -m venv /tmp/mh && /tmp/mh/bin/pip install . && /tmp/mh/bin/python -m tests.benchmarks.bench_harness
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.e2e.harnesses import setup_claude
from tests.e2e.memory_fixture import ASK, seed
from tests.e2e.sandbox import Sandbox, netns_usable

INSTALL = Path(__file__).resolve().parents[1] / "e2e" / "install_clis.sh"


def _bins() -> Path:
    out = subprocess.run(
        ["bash", str(INSTALL)], capture_output=True, text=True, check=True
    )
    return Path(out.stdout.strip().splitlines()[-1]) / "node_modules" / ".bin"


def _timed(sb: Sandbox, env: dict[str, str], prompt: str) -> float:
    start = time.perf_counter()
    done = sb.run(["claude", "-p", prompt], env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"claude -p failed: {done.stderr.strip()}")
    return elapsed


#: The events a `claude -p` run sends to a hook, each awaited before it goes on.
_EVENTS = ("SessionStart", "UserPromptSubmit", "SessionEnd")


def _python_only(sb: Sandbox) -> None:
    # Hooks that only start this Python: what any hook written in Python costs at least.
    hook = {"type": "command", "command": f"{sys.executable} -c pass", "timeout": 10}
    settings = {"hooks": {e: [{"hooks": [hook]}] for e in _EVENTS}}
    (sb.project / ".claude").mkdir(exist_ok=True)
    (sb.project / ".claude" / "settings.json").write_text(json.dumps(settings))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    bins, netns = _bins(), netns_usable()
    sides = ("with", "python", "without")
    with tempfile.TemporaryDirectory(prefix="bench-harness-") as tmp:
        boxes = {k: Sandbox(Path(tmp) / k, bins, netns=netns).start() for k in sides}
        try:
            envs = {}
            for side, sb in boxes.items():
                envs[side] = setup_claude(sb, install=side == "with")
                seed(sb)
                if side == "python":
                    _python_only(sb)
                # One unmeasured run: Claude Code's first start in a fresh HOME sets it up.
                _timed(sb, envs[side], "warm up")
            with_mh = boxes["with"]
            before = len(with_mh.entries("session end"))
            times: dict[str, list[float]] = {k: [] for k in sides}
            left = 0
            for i in range(args.runs):
                prompt = f"{ASK} (run {i})"
                for side, sb in boxes.items():
                    times[side].append(_timed(sb, envs[side], prompt))
                    if side == "with":
                        left += bool(with_mh.leftovers(grace=3.0))
            ends = len(with_mh.entries("session end")) - before
        finally:
            for sb in boxes.values():
                sb.close()
    medians = {k: statistics.median(v) for k, v in times.items()}
    result = {
        "runs": args.runs,
        "median_with_s": round(medians["with"], 3),
        "median_without_s": round(medians["without"], 3),
        "ratio": round(medians["with"] / medians["without"], 3),
        "median_python_only_s": round(medians["python"], 3),
        "ratio_python_only": round(medians["python"] / medians["without"], 3),
        "runs_leaving_something": left,
        "session_end_records": ends,
        "network_namespace": netns,
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"claude -p, median of {args.runs}: {result['median_with_s']:.2f} s with memhooks,"
            f" {result['median_without_s']:.2f} s without (x{result['ratio']:.2f});"
            f" hooks that only start Python {result['median_python_only_s']:.2f} s"
            f" (x{result['ratio_python_only']:.2f});"
            f" {left}/{args.runs} runs left a process, socket or state file;"
            f" {ends}/{args.runs} session-end records"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

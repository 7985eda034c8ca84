"""A minimal harness for `memhooks session`: JSON lines both ways, one process per session.

Run it from a project folder (standard library only, so copy it freely):

    python examples/harness.py [--root DIR] [--command "memhooks session"]

It starts the session process, sends the lifecycle events a coding agent would send,
prints the context of each reply and checks that the process exits at session-end.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys

EVENTS = [
    {"event": "session-start"},
    {"event": "pre-prompt", "prompt": "Why do the integration tests hang on Redis?"},
    {"event": "pre-prompt", "prompt": "Stop the Docker redis container and retry"},
    # Give the harness's own summary: memhooks records it in today's log and re-injects.
    {"event": "post-compaction", "summary": "Redis port 6379 was taken; tests pass."},
    {"event": "session-end"},
]


def default_command() -> list[str] | None:
    """This Python's memhooks if it has one, else `memhooks` from PATH (pipx, uv tool)."""
    if importlib.util.find_spec("memhooks") is not None:
        return [sys.executable, "-m", "memhooks.hooks", "session"]
    found = shutil.which("memhooks")
    return [found, "session"] if found else None


def main() -> int:
    parser = argparse.ArgumentParser(description="Drive one `memhooks session`.")
    parser.add_argument("--root", help="memory root, passed on to the session")
    parser.add_argument(
        "--command",
        help="session command (default: python -m memhooks.hooks session, with the"
        " Python running this script if it has memhooks, else memhooks session)",
    )
    args = parser.parse_args()
    try:
        cmd = shlex.split(args.command) if args.command else default_command()
    except ValueError as e:  # an unbalanced quote
        print(f"--command {args.command}: {e}", file=sys.stderr)
        return 1
    if cmd is None:
        print(
            "memhooks is not installed for this Python nor on PATH: install it, or"
            ' pass --command "/path/to/memhooks session"',
            file=sys.stderr,
        )
        return 1
    cmd += ["--root", args.root] if args.root else []

    # stdout is the protocol (one reply line per event line); logs go to stderr.
    try:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
    except OSError as e:
        print(f"cannot start {cmd[0]}: {e.strerror}", file=sys.stderr)
        return 1
    assert proc.stdin is not None and proc.stdout is not None
    failed = 0
    for n, step in enumerate(EVENTS, 1):
        event = {**step, "session_id": "harness-example", "cwd": os.getcwd(), "id": n}
        try:
            proc.stdin.write(json.dumps(event) + "\n")
            proc.stdin.flush()  # the session answers each line at once: don't buffer
            if event["event"] == "session-end":
                proc.stdin.close()  # nothing follows: the process sees end of input
            line = proc.stdout.readline()
        except BrokenPipeError:  # it exited before reading the event
            line = ""
        if not line:
            return gone(proc, event["event"])
        reply = json.loads(line)
        if not reply.get("ok") or reply.get("id") != n:
            print(f"{event['event']}: failed: {reply.get('error', reply)}")
            failed += 1
            continue
        print(f"== {event['event']}")
        print(reply["context"] or "(no context)")

    # session-end ends the process by itself: no daemon, no orphan (docs/design.md).
    try:
        code = proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        print("the session process did not exit after session-end")
        return 1
    print(f"session process exited with {code}")
    return 1 if failed or code else 0


def gone(proc: subprocess.Popen[str], event: str) -> int:
    """Say that the session process left before answering `event`, and how."""
    if proc.stdin is not None:
        with contextlib.suppress(OSError):  # an unsent line fails the close too
            proc.stdin.close()
    try:
        code = proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        print(f"{event}: the session process closed its output")
        return 1
    print(f"{event}: the session process exited with {code}")
    return 1


if __name__ == "__main__":
    sys.exit(main())

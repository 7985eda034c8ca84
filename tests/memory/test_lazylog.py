"""memory/lazylog.py: loggers that cost a process nothing until something is said."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

from memhooks.memory import lazylog

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

#: Prints what a SessionStart hook (in-process) loaded of `logging` and what it imports.
PROBE = """
import io, sys
from memhooks.hooks.cli import main
main(["hook", "--harness", "claude-code"], stdout=io.StringIO())
print(sorted(m for m in ("logging", "traceback", "tokenize") if m in sys.modules))
"""


def test_a_hook_that_logs_nothing_never_imports_logging(
    memory_root: Path, project: Path
) -> None:
    (memory_root / "MEMORY.md").parent.mkdir(parents=True, exist_ok=True)
    (memory_root / "MEMORY.md").write_text("- Run make test before pushing.\n")
    event = {"session_id": "s", "cwd": str(project), "hook_event_name": "SessionStart"}
    probe = subprocess.run(
        [sys.executable, "-c", PROBE],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert probe.stdout.strip() == "[]", probe.stderr


def test_warnings_go_to_the_sink_a_command_set(
    caplog: pytest.LogCaptureFixture,
) -> None:
    said: list[str] = []
    log = lazylog.getLogger("memhooks.test")
    before = lazylog.capture(said.append)
    try:
        log.warning("%d files unreadable", 23)
        log.error("no %s", "root")
        log.info("not for a person")  # below WARNING: dropped, as logging drops it
    finally:
        lazylog.capture(before)
    assert said == ["23 files unreadable", "no root"]
    # With no sink (a command run in this process earlier may have left its own), `logging`
    # has them (and the info too, if its level allows).
    before = lazylog.capture(None)
    try:
        log.warning("to logging")
    finally:
        lazylog.capture(before)
    assert [r.getMessage() for r in caplog.records] == ["to logging"]
    assert caplog.records[0].name == "memhooks.test"
    assert caplog.records[0].filename == "test_lazylog.py"  # the caller, not the shim


def test_a_message_that_does_not_format_is_still_said() -> None:
    said: list[str] = []
    before = lazylog.capture(said.append)
    try:
        lazylog.getLogger("memhooks.test").warning("%d files", "many")
    finally:
        lazylog.capture(before)
    assert said == ["%d files many"]

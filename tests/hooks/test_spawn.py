"""spawn.headless_gemini: what a SessionStart hook reads of the Gemini CLI that ran it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memhooks.hooks.spawn import headless_gemini

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc"
)


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[bytes]]]:
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for p in procs:
        p.kill()
        p.wait()
        if p.stdin is not None:
            p.stdin.close()


def _start(procs: list[subprocess.Popen[bytes]], program: str, stdin: int) -> int:
    # A process that waits for its stdin to close, as a CLI waiting for input does.
    wait = "import sys, time; time.sleep(30)"
    argv = [program, "-c", wait, "--harness", "gemini"]
    procs.append(subprocess.Popen(argv, stdin=stdin))
    pid = procs[-1].pid
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0] != program.encode():
        assert time.monotonic() < deadline, "the process never ran its program"
        time.sleep(0.01)  # forked, not yet exec'd: /proc shows the parent's argv
    return pid


def _named_gemini(tmp_path: Path) -> str:
    link = tmp_path / "gemini"
    link.symlink_to(sys.executable)
    return str(link)


def test_gemini_with_a_pipe_or_dev_null_on_stdin_is_headless(
    tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    gemini = _named_gemini(tmp_path)
    assert headless_gemini(_start(started, gemini, subprocess.DEVNULL))
    assert headless_gemini(_start(started, gemini, subprocess.PIPE))


def test_node_running_geminis_script_is_gemini(
    tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    # As Gemini CLI relaunches itself: `node --max-old-space-size=N …/bundle/gemini.js`.
    script = tmp_path / "gemini.js"
    script.write_text("import time\ntime.sleep(30)\n")
    started.append(
        subprocess.Popen([sys.executable, "-B", str(script)], stdin=subprocess.DEVNULL)
    )
    pid = started[-1].pid
    deadline = time.monotonic() + 10
    while str(script).encode() not in Path(f"/proc/{pid}/cmdline").read_bytes():
        assert time.monotonic() < deadline, "the process never ran its script"
        time.sleep(0.01)
    assert headless_gemini(pid)


def test_gemini_at_a_terminal_is_not(
    tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    pty, tty = os.openpty()
    try:
        assert not headless_gemini(_start(started, _named_gemini(tmp_path), tty))
    finally:
        os.close(pty)
        os.close(tty)


def test_another_program_or_no_process_is_not(
    tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    # A stand-in harness whose arguments name gemini (`--harness gemini`) is not it.
    pid = _start(started, sys.executable, subprocess.DEVNULL)
    assert not headless_gemini(pid)
    assert not headless_gemini(0)
    assert not headless_gemini(2**22 + 1)  # above Linux's pid_max: no such process

"""The one module that starts processes: session processes for hook commands and `simulate`."""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
from typing import TYPE_CHECKING

from memhooks.hooks.wire import answers, socket_path

if TYPE_CHECKING:
    from pathlib import Path

    from anyio.abc import Process

logger = logging.getLogger(__name__)

#: How memhooks starts itself: `-P` keeps the working directory (the user's project, which may
#: hold its own `memory/` or `hooks/`) off `sys.path`.
SELF = (sys.executable, "-P", "-m", "memhooks.hooks")

_SHELLS = {"sh", "bash", "dash", "zsh", "fish", "ksh"}
#: A session process with no event for this long exits; the next hook answers in-process
#: and starts a new one.
IDLE_TIMEOUT = 15 * 60


def harness_pid() -> int:
    """The harness that ran this hook: the parent, skipping shells that wrap the command."""
    pid = os.getppid()
    for _ in range(4):
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read().decode("utf-8", "replace")
        except OSError:
            return pid  # not Linux: trust the parent
        comm = stat[stat.find("(") + 1 : stat.rfind(")")]
        parent = int(stat[stat.rfind(")") + 2 :].split()[1])
        if comm not in _SHELLS or parent <= 1:
            return pid
        pid = parent
    return pid


def ensure_server(root: Path, session_id: str, harness: str, cwd: str | None) -> None:
    """Start the session process for this session unless one is already listening.

    It reads the project's memory and builds its index before it listens, so a hook never
    waits on that: until the socket appears, hooks answer in-process.
    """
    path = socket_path(str(root), session_id)
    if os.path.exists(path):
        if answers(path):
            return
        # Left by a session process that crashed: nobody listens, so start a new one.
        with contextlib.suppress(OSError):
            os.unlink(path)
    cmd = [
        *SELF,
        "session",
        "--listen",
        path,
        *(["--project", cwd] if cwd else []),
        "--root",
        str(root),
        "--harness",
        harness,
        "--parent-pid",
        str(harness_pid()),
        "--session-id",
        session_id,
        "--idle-timeout",
        str(IDLE_TIMEOUT),
    ]
    # Detached from the hook (which exits now) but watching the harness, so never an orphan.
    subprocess.Popen(
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )
    logger.debug("started a session process on %s", path)


async def open_session(root: Path) -> Process:
    """A `memhooks session` process over pipes (what `simulate` drives)."""
    import anyio

    cmd = [*SELF, "session", "--root", str(root)]
    return await anyio.open_process(cmd, stderr=None)

"""How long a write waits for the memory root's lock (`Store.lock`) that another process
holds.

Each write holds the lock for milliseconds. A process stopped while it holds it (a
`memhooks write` suspended with Ctrl-Z, one under a debugger) holds it for good: a write
then fails with one line after `LOCK_WAIT_SECONDS`, where it waited for ever, and a hook
that waited past its deadline answered with nothing (the block after a compaction too).
A thread may wait for less (`at_most`): a session end's hook has 1 s in all.
"""

from __future__ import annotations

import contextlib
import fcntl
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

#: How long a write waits for the lock, unless its thread says less (`at_most`).
LOCK_WAIT_SECONDS = 5.0
#: The longest pause between two tries.
_MAX_PAUSE = 0.05
_WAIT = threading.local()


def seconds() -> float:
    """How long a write in this thread waits for the lock."""
    wait: float | None = getattr(_WAIT, "seconds", None)
    return LOCK_WAIT_SECONDS if wait is None else wait


@contextlib.contextmanager
def at_most(wait: float) -> Iterator[None]:
    """Writes in this thread wait at most `wait` seconds for the lock."""
    before = getattr(_WAIT, "seconds", None)
    _WAIT.seconds = min(wait, seconds())
    try:
        yield
    finally:
        _WAIT.seconds = before


def take(fd: int) -> bool:
    """Take the exclusive lock (flock) on `fd`, waiting at most `seconds()`; False when
    another process still held it then.

    Raises:
        OSError: the file system keeps no locks (NFS mounted nolock).
    """
    give_up = time.monotonic() + seconds()
    pause = 0.001
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= give_up:
                return False
        time.sleep(pause)
        pause = min(2 * pause, _MAX_PAUSE)

"""Where a write lands, and whether memhooks may replace a file a person keeps there, and
if not, why, with what to do.

A write replaces a file through its folder (`files.write_atomic`), which would get past
the file's own permissions: a person's chmod 444 is honoured here instead, as are a file
of another user's and one the system refuses (immutable, `chattr +i`).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import TYPE_CHECKING

from memhooks.memory.errors import StoreWriteError, UnsafeNameError
from memhooks.memory.text import shell_word

if TYPE_CHECKING:
    from memhooks.memory.files import Read


def write_target(path: Path, rel: str) -> Path:
    """Where a write to `path` (`rel` in the root) lands: the file, or the file a link to
    one in the root names (written there, as vim and VS Code save, so that the link stays
    a link). `path` comes from `Scope.path`, which refuses a link out of the root.

    Raises:
        StoreWriteError: a folder on the way that this user may not search.
        UnsafeNameError: a symlink in a loop.
    """
    try:
        if not path.is_symlink():
            return path
        real = Path(os.path.realpath(path))
        loop = real.is_symlink()  # realpath stops at a link in a loop
    except OSError as e:
        raise StoreWriteError(rel, e) from e
    if loop:
        raise UnsafeNameError(rel, "a symlink in a loop")
    return real


def write_refused(path: str | Path, read: Read) -> OSError | None:
    """Why the file `read` came from must not be replaced, which a replacement through its
    folder would get past, or None: a person made it read-only (chmod 444; the mode is
    asked as well as the system, as root may write any file), it is another user's, or
    the system refuses it (immutable, `chattr +i`). Each with what to do, to paste."""
    if not read.mode & 0o222:
        why = f"it is read-only; chmod u+w {shell_word(path)} to allow writes"
    elif os.access(path, os.W_OK):
        return None
    elif _owner(path) not in (os.geteuid(), None):
        why = "it belongs to another user and is not writable by you"
    else:
        why = f"the system refuses writes to it (immutable? lsattr {shell_word(path)})"
    return OSError(errno.EACCES, why)


def _owner(path: str | Path) -> int | None:
    try:
        return os.stat(path).st_uid
    except OSError:
        return None


__all__ = ["write_refused"]

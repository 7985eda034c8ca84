"""The on-disk search index of one project (`memory.segment` bytes), a rebuildable cache.

It lives in ``.index/<slug>.mhix`` under the root. A link at ``.index`` is refused: the
cache is never written outside the root.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

from memhooks.memory.constants import INDEX_DIR
from memhooks.memory.files import (
    open_regular,
    private_folder,
    read_bytes,
    remove,
    write_atomic,
)

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from memhooks.memory.scope import Scope


class IndexFile:
    """An open index file, read by offset; closed when dropped.

    Read, not mapped: a mapping's pages would count in the process's memory as a search
    touches them, and a replaced file stays readable through the open descriptor.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self.size = os.fstat(fd).st_size

    def read(self, at: int, n: int) -> bytes:
        """`n` bytes from offset `at` (fewer at the end of the file)."""
        return os.pread(self._fd, n, at)

    def __del__(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)


def open_index(scope: Scope) -> IndexFile | None:
    """The on-disk index of this project's scope, open for reading; None if absent or if
    anything but a regular file sits there (a FIFO, a folder: the index is rebuilt).
    """
    try:
        return IndexFile(open_regular(_path(scope)))
    except OSError:
        return None


def has_index(scope: Scope) -> bool:
    """True when an index file of this scope is there to be read (nothing is opened)."""
    return _path(scope).is_file()


def save_index(scope: Scope, chunks: Iterable[bytes]) -> None:
    """Replace the on-disk index by `chunks`, written as they come (see `write_atomic`).

    A folder or other non-file at the index path is removed first (it is our cache).

    Raises:
        OSError: the disk refused (a read-only root), or ``.index`` is a link; the old
            index, if any, stays.
    """
    path = _path(scope)
    private_folder(path.parent, gitignore=True)
    if path.is_dir() and not path.is_symlink():
        with contextlib.suppress(OSError):
            path.rmdir()
    write_atomic(path, chunks, durable=False)


def read_note(scope: Scope) -> bytes | None:
    """The note kept beside the index file (`memory.changes.Seen`), if any."""
    return read_bytes(_path(scope).with_suffix(".seen"))


def save_note(scope: Scope, data: bytes) -> None:
    """Replace the note kept beside the index file (OSError: not written)."""
    write_atomic(_path(scope).with_suffix(".seen"), data, durable=False)


def drop_index(scope: Scope) -> None:
    """Remove the on-disk index (a damaged one); the next search builds it anew."""
    remove(_path(scope))


def _path(scope: Scope) -> Path:
    return scope.root / INDEX_DIR / f"{scope.slug}.mhix"

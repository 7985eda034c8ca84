"""The on-disk search index of one project (`memory.segment` bytes), a rebuildable cache.

It lives in ``.index/<slug>.mhix`` under the root. A link at ``.index`` is refused: the
cache is never written outside the root.

Beside it, ``<slug>.watch`` tells whether a session process watches the scope (it holds a
lock on the file, `Watch`) and holds a mark that process replaces each time its watcher
reports a change there. What a one-shot search found of the files (`memory.changes.Seen`)
is trusted only while the mark read before looking is still there; past
`memory.layered.FULL_CHECK_NS`, only while a session process also still watches. Else the
search stats every file again. ``<slug>.building`` is locked by a process building the
index file (`building`, `rebuild`), so that processes that find it missing at once (a
session process and a one-shot search, a burst of short sessions) build it once.
"""

from __future__ import annotations

import _thread  # threading's get_ident, without importing threading (~4 ms)
import contextlib
import fcntl
import os
import time
from typing import TYPE_CHECKING

from memhooks.memory import gone
from memhooks.memory.constants import INDEX_DIR
from memhooks.memory.errors import CorruptSegment
from memhooks.memory.files import (
    open_regular,
    private_folder,
    read_bytes,
    remove,
    write_atomic,
)
from memhooks.memory.lazylog import getLogger
from memhooks.memory.segment import Segment

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from pathlib import Path

    from memhooks.memory.scope import Scope

logger = getLogger(__name__)


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


def open_segment(scope: Scope) -> Segment | None:
    """The on-disk index of this project's scope, open for reading; None if absent,
    damaged, of another version, or if anything but a regular file sits there (a FIFO,
    a folder): the index is rebuilt then.
    """
    try:
        return Segment(IndexFile(open_regular(_path(scope))))
    except OSError:
        return None
    except CorruptSegment as e:
        logger.info("%s; rebuilding it", e)
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
    # So that .index holds no more than the projects there are.
    gone.sweep(scope.root, INDEX_DIR, (".mhix", ".seen", ".building"))


def rebuild(scope: Scope, chunks: Callable[[], Iterable[bytes]]) -> None:
    """`save_index` of `chunks()`, by one process at a time: one that finds another
    building the file waits for that build to end and reads its file instead (a session
    process's build and a one-shot search's at once took both cores for as long).

    Raises:
        OSError: as `save_index`, or the lock file cannot be made (`building`).
    """
    with building(scope, wait=True) as ours:
        if ours:
            save_index(scope, chunks())


def read_note(scope: Scope) -> bytes | None:
    """The note kept beside the index file (`memory.changes.Seen`), if any."""
    return read_bytes(_path(scope).with_suffix(".seen"))


def save_note(scope: Scope, data: bytes) -> None:
    """Replace the note kept beside the index file (not written if the disk refuses: it
    is a cache)."""
    try:
        write_atomic(_path(scope).with_suffix(".seen"), data, durable=False)
    except OSError as e:
        logger.info("search index note not written (%s)", e)


def drop_index(scope: Scope) -> None:
    """Remove the on-disk index (a damaged one); the next search builds it anew."""
    remove(_path(scope))


class Watch:
    """A session process's watch of a scope: `changed` each time its watcher reports a
    change there; the lock goes with the process."""

    def __init__(self, scope: Scope) -> None:
        """Start vouching; call only once every change from now on will be reported.

        Raises:
            OSError: the mark cannot be kept (a read-only root): nothing is vouched for.
        """
        path = _path(scope).with_suffix(".watch")
        private_folder(path.parent, gitignore=True)
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            # A new mark, then the lock: what was found under an older one (maybe before
            # an edit nobody watched) is not trusted.
            self.changed()
            fcntl.flock(self._fd, fcntl.LOCK_SH)
        except OSError:
            os.close(self._fd)
            raise

    def changed(self) -> None:
        """Something in the scope changed: what searches found before is not trusted."""
        # os.urandom, not `secrets`: its import (hashlib, hmac, random) is ~4 ms of
        # every session-start hook.
        os.pwrite(self._fd, os.urandom(8).hex().encode(), 0)


def watch_mark(scope: Scope) -> str:
    """The mark a session process's watcher keeps for this scope ("" if none): read it
    before looking at the files."""
    data = read_bytes(_path(scope).with_suffix(".watch"))
    return data.decode("ascii", "replace") if data else ""


def watched(scope: Scope) -> bool:
    """True while a session process watches this scope (`Watch`)."""
    try:
        # Not blocking: a FIFO there would hold a search in open() until a writer came.
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
        fd = os.open(_path(scope).with_suffix(".watch"), flags)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:  # a watcher holds it
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # and with it our lock, if we took it
    return False


@contextlib.contextmanager
def building(scope: Scope, *, wait: bool = False) -> Iterator[bool]:
    """Whether this process is the one to build the scope's index file now: False while
    another holds the ``<slug>.building`` lock (a session process, a one-shot search, a
    process building it before it leaves: a burst of short sessions started one each).
    With `wait`, False once that other build is over (the file it wrote is the one to
    read), True if it is not within `WAIT_MOST`, and False at once after `stop_waiting`.
    The lock goes with the process; this thread may take it again inside.

    Raises:
        OSError: the lock file cannot be made (a read-only root).
    """
    path = _lock(scope)
    held = (path, _thread.get_ident())
    if held in _HELD:
        yield True
        return
    private_folder(path.parent, gitignore=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield wait and not _waited(fd, path) and path not in _GIVEN_UP
        else:
            _HELD.add(held)
            try:
                yield True
            finally:
                _HELD.discard(held)
    finally:
        os.close(fd)


#: The ``.building`` locks each thread of this process holds (`building`): a second
#: flock of the file, through another descriptor, would wait for the first for good.
_HELD: set[tuple[Path, int]] = set()
#: Seconds a build waits for another's (7 s at ten thousand notes) before it builds too:
#: a search stopped with ^Z in a terminal holds the lock for good.
WAIT_MOST = 30.0


def stop_waiting(scope: Scope) -> None:
    """A build of `scope`'s index file in this process that waits for another's gives
    up now and builds nothing, as does any later one: the process is leaving (a session
    process whose session ended), and would else stay up to `WAIT_MOST` for a file it
    will not read, then build it anyway."""
    _GIVEN_UP.add(_lock(scope))


#: The ``.building`` locks of the scopes `stop_waiting` named.
_GIVEN_UP: set[Path] = set()


def _waited(fd: int, path: Path) -> bool:
    # Whether the lock of `fd` (on `path`) was let go within `WAIT_MOST` (and is ours).
    end = time.monotonic() + WAIT_MOST
    while time.monotonic() < end and path not in _GIVEN_UP:
        time.sleep(0.05)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue
        return True
    return False


def _path(scope: Scope) -> Path:
    return scope.root / INDEX_DIR / f"{scope.slug}.mhix"


def _lock(scope: Scope) -> Path:
    # What `building` locks and `stop_waiting` names: one path for both.
    return _path(scope).with_suffix(".building")

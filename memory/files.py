"""Byte-level file primitives of the memory core: safe reads, atomic replacement, folders.

Every read goes through `read_regular`: opened without blocking and checked with `fstat`,
so a FIFO, a socket or a device dropped where memhooks expects a file is refused at once
instead of freezing a hook or a session process in `open()` or `read()`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import time
import unicodedata
from collections import Counter
from typing import TYPE_CHECKING, NamedTuple

from memhooks.memory import swap
from memhooks.memory.constants import CONFLICT_MARK

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700
_NONBLOCK = os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_READ_FLAGS = os.O_RDONLY | _NONBLOCK
#: For `open_regular`: to append to a file we keep, made if missing, never through a link.
APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | _NONBLOCK
#: Bytes asked for at a time past a file's size when opened: the read that finds its end
#: is one per file, and a buffer of 1 MB cost each of them an allocation the size of a
#: note's hundreds (~20 µs: 10,000 notes read in 0.23 s instead of 0.09-0.13 s).
_MORE = 1 << 16
#: Temp files are ".<name>.<pid>.<8 hex>.tmp"; one this old whose writer is gone was left
#: by a killed process (no write takes a minute).
_TMP_NAME = re.compile(r"\..+\.(\d+)\.[0-9a-f]{8}\.tmp")
_STALE_TMP_SECONDS = 60.0
#: How long an append waits before checking that no other program replaced the file it
#: wrote (an editor's save that read the file before us): `grew`.
SETTLE_SECONDS = 0.05


class NotRegularFileError(OSError):
    """A FIFO, socket, device or folder where a regular file was expected."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(errno.EINVAL, "not a regular file", str(path))

    def __str__(self) -> str:
        return f"{self.strerror}: {self.filename}"


class ReplacedError(OSError):
    """The file changed under us (another program saved it) between our read and our write."""

    def __init__(self, path: str | Path, kept: Path | None = None) -> None:
        super().__init__(
            errno.EAGAIN, "changed by another program meanwhile", str(path)
        )
        #: where a save of the other program that a newer one replaced was kept aside
        self.kept = kept

    def __str__(self) -> str:
        return f"{self.strerror}: {self.filename}"


class Read(NamedTuple):
    """A file's bytes and the identity it had when read (to notice a replacement)."""

    data: bytes
    ino: int
    dev: int
    mtime_ns: int
    size: int = 0  #: the file's size when opened (more than `data` after a capped read)
    mode: int = FILE_MODE  #: its permission bits
    links: int = 1  #: its names (hard links)


def open_regular(path: str | Path, flags: int = _READ_FLAGS) -> int:
    """Open a regular file for reading (or with `flags`: `APPEND`), without blocking; the
    caller closes the descriptor.

    Raises:
        NotRegularFileError: something else sits at `path` (nothing was read or waited for).
        OSError: it cannot be opened (absent, denied).
    """
    try:
        fd = os.open(path, flags, FILE_MODE)
    except OSError as e:
        if e.errno == errno.ENXIO:  # a FIFO nobody reads, opened to write to
            raise NotRegularFileError(path) from e
        raise
    try:
        # O_NONBLOCK changes nothing for a regular file's reads: it may stay set.
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFileError(path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str | Path, cap: int | None = None) -> Read:
    """A regular file's bytes (at most `cap` + 1 of them when `cap` is given).

    Raises:
        NotRegularFileError, OSError: as `open_regular`.
    """
    fd = open_regular(path)
    try:
        st = os.fstat(fd)
        want = max(st.st_size, 1) + 1 if cap is None else min(st.st_size, cap) + 1
        chunks = [os.read(fd, want)]
        got = len(chunks[0])
        while chunks[-1] and (cap is None or got <= cap):
            chunks.append(os.read(fd, _MORE))
            got += len(chunks[-1])
        data = b"".join(chunks)
        mode = stat.S_IMODE(st.st_mode)
        size, links = st.st_size, st.st_nlink
        return Read(data, st.st_ino, st.st_dev, st.st_mtime_ns, size, mode, links)
    finally:
        os.close(fd)


def read_bytes(path: Path) -> bytes | None:
    """A file's bytes, or None when it cannot be read (for caches, where absent is normal)."""
    try:
        return read_regular(path).data
    except OSError:
        return None


def read_text(path: Path) -> str | None:
    """A small text file we own (config, state), or None when there is none.

    Raises:
        NotRegularFileError, OSError: something unreadable sits there.
        UnicodeDecodeError: the bytes are not UTF-8.
    """
    try:
        return read_regular(path).data.decode("utf-8")
    except FileNotFoundError:
        return None


def same_file(path: str | Path, read: Read) -> bool:
    """Whether `path` still names the very file `read` came from, unchanged."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    return (st.st_ino, st.st_dev, st.st_mtime_ns, st.st_size) == (
        read.ino,
        read.dev,
        read.mtime_ns,
        len(read.data),
    )


def grew(path: Path, base: bytes, added: bytes) -> bool:
    """Whether an append of `added` to `base` survived: after a moment (`SETTLE_SECONDS`),
    the file holds `added` more often than `base` did.

    Judged by the bytes, not by the inode number: a file system gives the number of a
    file just replaced (ours, under an editor's save) to the next new file (its next save).
    """
    time.sleep(SETTLE_SECONDS)
    try:
        return read_regular(path).data.count(added) > base.count(added)
    except OSError:
        return False


def write_atomic(
    path: Path,
    data: bytes | Iterable[bytes],
    *,
    durable: bool,
    replace: bool = True,
    over: Read | None = None,
) -> None:
    """Replace `path` by `data` through a hidden temp file in the same folder and a rename,
    so a reader (or a crash) sees the old bytes or the new ones, never half of them.

    Args:
        path: the file to replace.
        data: its new bytes, whole or in pieces (made only once the temp file is open).
        durable: fsync the file and its folder (memory files); a rebuildable cache skips it.
        replace: False creates `path` only if nothing is there (a hard link, which never
            overwrites): FileExistsError otherwise.
        over: the file as it was read; if `path` no longer names it unchanged when the
            new bytes are ready (a person's editor saved meanwhile), nothing is replaced.
            The new file gets its permissions and extended attributes (ACLs, tags).
            `data` is then given whole.

    Raises:
        ReplacedError: `over` was given and the file changed; `path` is left as it is.
        OSError: the disk refused; the temp file is removed and `path` is unchanged.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        with os.fdopen(fd, "wb") as f:
            if over is not None:
                _same_attributes(fd, path, over.mode)
            for piece in [data] if isinstance(data, bytes) else data:
                f.write(piece)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        if over is not None:
            assert isinstance(data, bytes), "a write over a file read is given whole"
            _replace_if_same(tmp, path, over, data)
        elif replace:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)
            tmp.unlink()
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        _fsync_dir(path.parent)


def _same_attributes(fd: int, path: Path, mode: int) -> None:
    """Give the new file `fd` the mode (a person's chmod 640 stays) and the extended
    attributes (an ACL, a tag) of the file `path` it replaces; one this user may not set
    (a security label) is left as the new file has it."""
    if mode != FILE_MODE:
        os.fchmod(fd, mode)
    listxattr = getattr(os, "listxattr", None)  # Linux only
    with contextlib.suppress(OSError):
        for name in listxattr(path) if listxattr else ():
            with contextlib.suppress(OSError):
                os.setxattr(fd, name, os.getxattr(path, name))


def _replace_if_same(tmp: Path, path: Path, over: Read, ours: bytes) -> None:
    """Rename `tmp` (holding `ours`) over `path` only if `path` is still the file `over`
    was read from.

    Where the kernel can swap two names atomically (Linux `renameat2`), the swap is made
    first and checked after, so a save by another program at that instant is put back,
    never overwritten; elsewhere the check comes just before the rename.

    Raises:
        ReplacedError: `path` changed; it is left as the other program last saved it.
    """
    if not same_file(path, over):
        raise ReplacedError(path)
    if not swap.exchange(tmp, path):
        os.replace(tmp, path)
        return
    # What we swapped out is what we read: done. Compared by bytes, as a save made just
    # now may carry the same inode number, mtime and size (the number was freed by a
    # replace, and the clock the file system stamps with moves in milliseconds).
    if same_file(tmp, over) and read_bytes(tmp) == over.data:
        tmp.unlink()
        return
    swap.exchange(tmp, path)  # another program saved in between: put its file back
    if read_bytes(tmp) == ours:
        raise ReplacedError(path)
    # It saved again, over ours, while this process stood between the two swaps (a busy
    # machine can stall a process longer than a program takes to save twice). Its newer
    # save stands; the earlier one, which that may have been made without, is kept.
    swap.exchange(tmp, path)
    raise ReplacedError(path, _keep_aside(tmp, path))


def _keep_aside(tmp: Path, path: Path) -> Path | None:
    """Name `tmp` beside `path` as ``<name>.conflict-<time>`` (never over another file),
    or remove it when `path` holds each of its lines; the name, or None."""
    lines = Counter((read_bytes(tmp) or b"").splitlines())
    if not lines - Counter((read_bytes(path) or b"").splitlines()):
        tmp.unlink()
        return None
    stamp, n = time.strftime("%Y%m%d-%H%M%S"), 1
    while True:
        kept = path.with_name(path.name + CONFLICT_MARK + stamp + f"-{n}" * (n > 1))
        try:
            os.link(tmp, kept)
        except FileExistsError:
            n += 1
            continue
        tmp.unlink()
        return kept


def twin_name(folder: Path | str, name: str) -> str | None:
    """The one entry of `folder` named `name` up to case and Unicode normalization (NFC),
    when `name` itself is not there: ``Redis.md`` for ``redis.md``, as macOS and Windows
    find it (a team sharing memory in git would else get two files a Mac checks out as
    one), and café.md typed composed and saved decomposed (as a Mac names files), or the
    other way round. None for a name that is there, or no or several such entries."""
    if os.path.lexists(os.path.join(folder, name)):
        return None
    want = unicodedata.normalize("NFC", name).casefold()
    try:
        found = [
            n
            for n in os.listdir(folder)
            if unicodedata.normalize("NFC", n).casefold() == want
        ]
    except OSError:
        return None
    return found[0] if len(found) == 1 else None


def remove(path: Path) -> None:
    """Remove a file if it is there."""
    with contextlib.suppress(OSError):
        path.unlink()


def private_folder(folder: Path, *, gitignore: bool = False) -> None:
    """Create an owner-only folder (and its parents); with `gitignore`, one git skips whole
    (its `.gitignore` written when missing or empty, in a folder made before it had one too).

    A link at `folder` is refused: what we write there would land outside the root.

    Raises:
        OSError: the disk refused, or `folder` is a symlink.
    """
    if folder.is_symlink():
        raise OSError(
            errno.ELOOP, "a symlink; refusing to write through it", str(folder)
        )
    if not folder.is_dir():
        make_dirs(folder)
    ignore = folder / ".gitignore"
    if gitignore and not (had := read_bytes(ignore)):
        # Whole or not at all (a full disk once left one of 0 bytes, which git reads as
        # ignoring nothing, and which is written again here); another process may have
        # just written it.
        with contextlib.suppress(FileExistsError):
            write_atomic(ignore, b"*\n", durable=False, replace=had == b"")


def make_dirs(folder: Path) -> None:
    """Create `folder` and its missing parents, each owner-only (not just the last).

    Raises:
        OSError: the disk refused.
    """
    missing = [d for d in (folder, *folder.parents) if not d.exists()]
    for d in reversed(missing):
        d.mkdir(mode=DIR_MODE, exist_ok=True)


def _fsync_dir(folder: Path) -> None:
    # The rename is durable only once the folder's entry is on disk.
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def sweep_stale_temps(folder: Path) -> None:
    """Remove temp files that a killed writer left in `folder`.

    They are hidden and end in .tmp, so search and injection never read them; this only
    keeps the folder tidy. Only our own names, owned by us, old, and whose writer is gone.
    """
    now = time.time()
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            m = _TMP_NAME.fullmatch(entry.name)
            if m is None:
                continue
            st = entry.stat(follow_symlinks=False)
            if st.st_uid != os.getuid() or now - st.st_mtime < _STALE_TMP_SECONDS:
                continue
            if not pid_alive(int(m[1])):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (ours or someone else's)."""
    try:
        os.kill(pid, 0)  # signal 0 only asks whether the process exists
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:
        pass  # alive, but someone else's
    return True

"""Writing memory files: atomic replacement and locked appends that keep every byte.

Writes follow docs/design.md: every change is written to a temp file in the same folder and
renamed over the original (so a crash leaves the old or the new file, never half of one),
under one exclusive lock per root, held on its own lock file (so concurrent hooks and
sessions never lose an entry, and whether a file exists is decided under the lock).

A file a person wrote keeps its bytes: changes work on bytes, never decode and re-encode
what they leave alone, and an append to a file with CRLF line endings writes CRLF.
Another program (a person's editor) does not take our lock: when it saves by
write-and-rename between our read and our rename, the change is made again on its file,
and an append checks after a moment that its lines are still in the file.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import os
import stat
import time
from typing import TYPE_CHECKING, Literal, NamedTuple

from memhooks.memory import paths
from memhooks.memory.constants import BACKUP_SUFFIX, LOCK_FILE
from memhooks.memory.errors import (
    EditError,
    NotAFileError,
    StoreWriteError,
    TargetNotFoundError,
)
from memhooks.memory.file_bytes import (
    appended,
    crlf,
    decode,
    encode,
    ensure_nl,
    kept_aliases,
    places,
    uses_crlf,
    with_aliases,
)
from memhooks.memory.files import (
    FILE_MODE,
    NotRegularFileError,
    Read,
    ReplacedError,
    grew,
    make_dirs,
    read_regular,
    sweep_stale_temps,
    twin_name,
    write_atomic,
)
from memhooks.memory.lazylog import getLogger
from memhooks.memory.note_format import alias_line, checklist
from memhooks.memory.scope import Scope
from memhooks.memory.writable import write_refused, write_target

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from memhooks.memory.paths import Located

logger = getLogger(__name__)

WriteMode = Literal["append", "overwrite"]
_HARD_LINKED = (
    "%s had another name (a hard link), which keeps the text from before this write"
)
_KEPT_ASIDE = (
    "%s: another program saved it twice while memhooks wrote it; its later save stands "
    "and the earlier one is kept as %s: take what you need from it, then delete it"
)

#: How long a write goes on making its change again on what another program saved
#: meanwhile before it gives up (no person's editor saves that often for that long), and
#: the pause before each new round (times the round's number, at most `_MAX_PAUSE`).
GIVE_UP_SECONDS = 10.0
_BACKOFF_SECONDS = 0.002
_MAX_PAUSE = 0.05


class WriteResult(NamedTuple):
    """What a write did: the file, and lines it dropped as already present."""

    rel: str
    dropped: tuple[str, ...] = ()
    created: bool = False


class Store(Scope):
    """One memory root, seen from one project, for reading and writing.

    Args:
        root: the memory root (need not exist yet; it is created on the first write).
        slug: the project's folder name under ``projects/``.
    """

    def write_memory(self, text: str, *, mode: WriteMode = "append") -> WriteResult:
        """Append to MEMORY.md, dropping lines already there (whitespace and case
        normalised, see `memory.duplicates`), or overwrite it, keeping the previous version
        as MEMORY.md.bak.
        """
        loc = paths.memory_file()
        if mode == "overwrite":
            return self._replace(loc.rel, ensure_nl(text))
        return self._append(loc.rel, text, dedupe=True)

    def write_scratchpad(self, text: str, *, mode: WriteMode = "append") -> WriteResult:
        """Add checklist items or overwrite the scratchpad with them, keeping the previous
        version as SCRATCHPAD.md.bak: each line becomes one item whatever its bullet
        (`note_format.checklist`).
        """
        loc = paths.scratchpad(self.slug)
        items = checklist(text)
        if mode == "overwrite":
            return self._replace(loc.rel, ensure_nl(items))
        return self._append(loc.rel, items, dedupe=False, separate=False)

    def append_daily(
        self, title: str, body: str, *, now: dt.datetime | None = None
    ) -> WriteResult:
        """Append a ``### HH:MM — title`` entry to today's log (local date and time)."""
        now = now or dt.datetime.now().astimezone()
        loc = paths.daily(self.slug, paths.today(now))
        title = " ".join(title.split()) or "note"
        entry = (
            f"### {now:%H:%M} — {title}\n{body.strip()}"
            if body.strip()
            else f"### {now:%H:%M} — {title}"
        )
        return self._append(loc.rel, entry, dedupe=False)

    def write_note(
        self,
        name: str,
        text: str,
        *,
        mode: WriteMode = "append",
        aliases: str | None = None,
    ) -> WriteResult:
        """Create, append to or overwrite a named note; `aliases` becomes its first line
        (an overwrite without them keeps the note's own; "" clears them).

        An append drops lines the note already holds, as MEMORY.md appends do. Whether
        the note exists is decided under the lock: writers creating it at once all land.
        """
        loc = self._as_on_disk(paths.note(self.slug, name))
        header = alias_line(aliases) if aliases else ""
        body = text.strip()
        nl = "\r\n" if "\r\n" in body else "\n"  # text written with CRLF keeps it
        fresh = f"{header}{nl}{body}{nl}" if header else body + nl if body else ""
        if mode == "overwrite":
            return self._replace(loc.rel, fresh, keep=aliases is None)
        return self._append(
            loc.rel, text, dedupe=True, fresh=fresh, header=header or None
        )

    def locate(self, target: str) -> Located:
        """`Scope.locate`, a note's name taken as on disk up to case and Unicode
        normalization (`files.twin_name`)."""
        return self._as_on_disk(super().locate(target))

    def _as_on_disk(self, loc: Located) -> Located:
        # Else notes/café typed composed misses the café.md a Mac saved decomposed, and
        # a write makes a second note of the same name (`files.twin_name`); likewise
        # notes/Redis and redis.md.
        folder, _, file = loc.rel.rpartition("/")
        if loc.kind != "note" or (twin := twin_name(self.root / folder, file)) is None:
            return loc
        return paths.Located("note", f"{folder}/{twin}", twin.removesuffix(".md"))

    def edit(self, target: str, old: str, new: str) -> WriteResult:
        """Replace `old`, which must occur exactly once in the target, by `new` ("" deletes).

        Everything else keeps its bytes; in a file with CRLF line endings, the line
        breaks of `old` and `new` are read as CRLF.

        Raises:
            EditError: `old` occurs zero or several times (the count is in the message).
        """
        loc = self.locate(target)

        def change(raw: bytes | None) -> bytes:
            if raw is None:
                raise TargetNotFoundError(loc.rel)
            text = decode(raw)
            ends = [(crlf(old), crlf(new)), (old, new)]
            if not uses_crlf(raw):
                ends.reverse()
            # The file's line ends first, then the other kind: a file edited on two
            # systems holds both, and the lines typed are those shown.
            for end in ends if "\n" in old else ends[:1]:
                count = places(text, end[0]) if old else -1
                if count != 0:
                    break
            if count != 1:
                raise EditError(loc.rel, count)
            return encode(text.replace(*end, 1))

        self._change(loc.rel, change)
        return WriteResult(loc.rel)

    def rewrite(self, target: str, change: Callable[[str], str]) -> WriteResult:
        """Replace a file's text by `change(text)`, under the lock, byte for byte.

        The text is decoded with ``surrogateescape`` and written back the same way, so
        bytes that `change` leaves alone stay identical (forget/restore rely on it).

        Raises:
            TargetNotFoundError: the file does not exist.
        """
        loc = self.locate(target)

        def on_bytes(raw: bytes | None) -> bytes:
            if raw is None:
                raise TargetNotFoundError(loc.rel)
            return encode(change(decode(raw)))

        self._change(loc.rel, on_bytes)
        return WriteResult(loc.rel)

    # -- mechanics --------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Exclusive lock over every write under this root (flock; released on crash),
        waited for at most `lockwait.seconds()`.

        Held on ``.memhooks.lock``, never on a memory file, so a person's editor replacing
        a file cannot drop it. A link or anything but a file at that name is refused.
        """
        make_folder(self.root)
        # Named in full: a root another program keeps read-only (a sandbox) says where.
        # Imported here (it loads threading): a search, the most frequent command,
        # writes nothing.
        from memhooks.memory import lockwait

        where = str(self.root / LOCK_FILE)
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(self.root / LOCK_FILE, flags, FILE_MODE)
        except OSError as e:
            if e.errno == errno.ELOOP:
                e = OSError(e.errno, "a symlink; refusing to follow it")
            raise StoreWriteError(where, e) from e
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise StoreWriteError(where, OSError(0, "not a regular file"))
            try:
                had = lockwait.take(fd)
            except OSError as e:  # a file system without locks (NFS mounted nolock)
                why = f"cannot lock it: {e.strerror or e}"
                raise StoreWriteError(where, OSError(e.errno, why)) from e
            if not had:
                # Said of the write, not the lock file: that is no file a person wants.
                why = f"another process has held it for {lockwait.seconds():g} s"
                raise StoreWriteError(
                    where,
                    OSError(errno.EAGAIN, why),
                    said=f"nothing was written: another process has held the lock of "
                    f"the memory root ({where}) for {lockwait.seconds():g} s",
                )
            yield
        finally:
            os.close(fd)

    def _append(
        self,
        rel: str,
        text: str,
        *,
        dedupe: bool,
        separate: bool = True,
        fresh: str | None = None,
        header: str | None = None,
    ) -> WriteResult:
        """Append `text` (or write `fresh` if the file does not exist yet)."""
        dropped: list[str] = []
        added = b""

        def change(raw: bytes | None) -> bytes | None:
            nonlocal added
            if raw is None and fresh is not None:
                added = encode(fresh.strip("\n"))
                return encode(fresh)
            raw = raw or b""
            if header is not None:
                raw = with_aliases(raw, header, rel)
            todo = text
            if dedupe:
                # Imported here: a search, the most frequent command, writes nothing.
                from memhooks.memory.duplicates import drop_repeats

                todo, dropped[:] = drop_repeats(decode(raw), text)
            if not todo.strip():
                added = b""
                return raw if header is not None else None
            out, added = appended(raw, todo, separate=separate)
            return out

        old = self._change(rel, change, added=lambda: added)
        return WriteResult(rel, tuple(dropped), created=old is None)

    def _replace(self, rel: str, text: str, *, keep: bool = False) -> WriteResult:
        # The old bytes are kept as the .bak; with `keep`, a note's aliases line too.
        def change(raw: bytes | None) -> bytes:
            if raw is not None:
                self._write(rel + BACKUP_SUFFIX, raw, create=False)
            return kept_aliases(raw, encode(text), rel) if keep else encode(text)

        old = self._change(rel, change)
        return WriteResult(rel, created=old is None)

    def _change(
        self,
        rel: str,
        change: Callable[[bytes | None], bytes | None],
        *,
        added: Callable[[], bytes] | None = None,
    ) -> Read | None:
        """Under the lock, write `change(current bytes or None)` unless it returns None.

        The write replaces the file only if it is still the one read; otherwise (another
        program saved it meanwhile) the change is made again on what is there. With
        `added` (an append: the bytes it adds), the file is checked once more after
        `files.SETTLE_SECONDS`, and the append made again if they are gone.

        Returns:
            The file as it was before the write (None: it did not exist).
        """
        path = write_target(self.path(rel), rel)
        first: list[Read | None] = []
        give_up = time.monotonic() + GIVE_UP_SECONDS
        attempt = 0
        while attempt == 0 or time.monotonic() < give_up:
            time.sleep(min(attempt * _BACKOFF_SECONDS, _MAX_PAUSE))
            attempt += 1
            with self.lock():
                before = self._current(rel, path)
                if before is not None and (refused := write_refused(path, before)):
                    raise StoreWriteError(rel, refused)
                new = change(None if before is None else before.data)
                if new is None or (before is not None and new == before.data):
                    return before if not first else first[0]
                try:
                    self._write(rel, new, over=before, create=before is None)
                except (ReplacedError, FileExistsError):
                    continue
            first[:] = first or [before]
            # Checked outside the lock: our own writers only ever add to what they read.
            base = b"" if before is None else before.data
            if added is None or not added() or grew(path, base, added()):
                return first[0]
        why = f"another program kept replacing it for {GIVE_UP_SECONDS:g} s"
        raise StoreWriteError(rel, OSError(errno.EAGAIN, why))

    def _current(self, rel: str, path: Path) -> Read | None:
        try:
            return read_regular(path)
        except FileNotFoundError:
            return None
        except NotRegularFileError as e:
            raise NotAFileError(rel, "not a regular file") from e
        except OSError as e:
            raise NotAFileError(rel, e.strerror or str(e)) from e

    def _write(
        self, rel: str, data: bytes, *, create: bool, over: Read | None = None
    ) -> None:
        """Write `data` to `rel` atomically: only where nothing exists yet (`create`),
        else over the file `over` if it is still there unchanged (or over anything)."""
        path = write_target(self.path(rel), rel)
        make_folder(path.parent)
        try:
            write_atomic(path, data, durable=True, replace=not create, over=over)
        except ReplacedError as e:
            if e.kept is not None:
                logger.warning(_KEPT_ASIDE, rel, e.kept.name)
            raise
        except FileExistsError:
            raise
        except OSError as e:
            raise StoreWriteError(rel, e) from e
        if over is not None and over.links > 1:  # the other names keep the old text
            logger.warning(_HARD_LINKED, rel)
        sweep_stale_temps(path.parent)


def make_folder(folder: Path) -> None:
    """`folder` and its missing parents, owner-only; StoreWriteError if the disk refuses."""
    try:
        make_dirs(folder)
    except OSError as e:
        raise StoreWriteError(str(folder), e) from e

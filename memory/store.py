"""All file I/O of the memory core: resolving the root, reading, atomic and locked writes.

Writes follow spec §2: every change is written to a temp file in the same folder and
renamed over the original (so a crash leaves the old or the new file, never half of one),
under one exclusive lock per root (so concurrent hooks and sessions never lose an entry).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import hashlib
import logging
import os
import re
import secrets
import time
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from memhooks.memory import layout
from memhooks.memory.constants import (
    APP_DIR,
    BACKUP_SUFFIX,
    CONFIG_FILE,
    DAILY_DIR,
    ENV_HOME,
    ENV_XDG_DATA_HOME,
    INDEX_DIR,
    LOCK_FILE,
    NOTES_DIR,
    PROJECTS_DIR,
    STATE_DIR,
)
from memhooks.memory.corpus import Doc, make_doc
from memhooks.memory.duplicates import drop_repeats
from memhooks.memory.errors import (
    EditError,
    StoreWriteError,
    TargetNotFoundError,
    UnsafeNameError,
)
from memhooks.memory.layout import Located
from memhooks.memory.note_format import (
    alias_line,
    checklist,
    header_lines,
    is_aliases_line,
    visible,
)
from memhooks.memory.segment import Entry
from memhooks.memory.text import cut

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping

    from memhooks.memory.layout import Kind

logger = logging.getLogger(__name__)

WriteMode = Literal["append", "overwrite"]

_FILE_MODE = 0o600
_DIR_MODE = 0o700
#: Temp files are ".<name>.<pid>.<8 hex>.tmp"; one this old whose writer is gone was left
#: by a killed process (no write takes a minute).
_TMP_NAME = re.compile(r"\..+\.(\d+)\.[0-9a-f]{8}\.tmp")
_STALE_TMP_SECONDS = 60.0


def default_root(
    explicit: str | Path | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """The memory root: `explicit`, else $MEMHOOKS_HOME, else $XDG_DATA_HOME/memhooks, else
    ~/.local/share/memhooks.
    """
    env = os.environ if env is None else env
    if explicit:
        return Path(explicit).expanduser().absolute()
    if env.get(ENV_HOME):
        return Path(env[ENV_HOME]).expanduser().absolute()
    if env.get(ENV_XDG_DATA_HOME):
        return Path(env[ENV_XDG_DATA_HOME]).expanduser().absolute() / APP_DIR
    return Path.home() / ".local" / "share" / APP_DIR


def project_dir(cwd: str | Path) -> Path:
    """The directory whose memory a session in `cwd` uses.

    Inside git this is the main checkout, so that every `git worktree` of a repository
    shares one memory; it is found by reading `.git` (a folder, or a file pointing at the
    worktree's git dir and its `commondir`), never by running git. Outside git: `cwd`.
    """
    start = Path(cwd).absolute()
    for d in (start, *start.parents):
        dotgit = d / ".git"
        if dotgit.is_dir():
            return d
        if dotgit.is_file():
            return _main_checkout(d, dotgit)
    return start


def _main_checkout(worktree: Path, dotgit: Path) -> Path:
    try:
        line = dotgit.read_text(encoding="utf-8").strip()
        gitdir = (worktree / line.removeprefix("gitdir:").strip()).resolve()
        common = (
            gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()
        ).resolve()
    except OSError:
        return worktree  # a submodule or a broken link: the checkout itself
    return common.parent if common.name == ".git" else worktree


def today(now: dt.datetime | None = None) -> str:
    """Today's local date as YYYY-MM-DD (a UTC date would file evening work under tomorrow)."""
    return (now or dt.datetime.now().astimezone()).strftime("%Y-%m-%d")


class Scan(NamedTuple):
    """What `Store.scan` found: the documents kept, and counts over every file read."""

    docs: list[Doc]
    files: int  #: files read (and not forgotten)
    total_size: int  #: their bytes
    dailies: list[tuple[str, str]]  #: (date, path) of every daily log


class Found(NamedTuple):
    """A file in scope, as a stat saw it (nothing read)."""

    kind: Kind
    rel: str
    key: str  #: date of a daily log, name of a note, "" otherwise
    path: str
    size: int
    mtime_ns: int

    @property
    def loc(self) -> Located:
        """Where the file lives (kind, path, key)."""
        return Located(self.kind, self.rel, self.key)


class IndexFile:
    """An open index file (`memory.segment`), read by offset; closed when dropped.

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


class WriteResult(NamedTuple):
    """What a write did: the file, and lines it dropped as already present."""

    rel: str
    dropped: tuple[str, ...] = ()
    created: bool = False


class Store:
    """One memory root, seen from one project.

    Args:
        root: the memory root (need not exist yet; it is created on the first write).
        slug: the project's folder name under ``projects/``.
    """

    def __init__(self, root: Path, slug: str) -> None:
        self.root = Path(root)
        self.slug = layout.check_slug(slug)

    @classmethod
    def for_project(cls, root: Path, project: str | Path) -> Store:
        """The store for the project that contains directory `project`."""
        return cls(root, layout.slug_for(str(project_dir(project))))

    # -- paths ------------------------------------------------------------------------

    def path(self, rel: str) -> Path:
        """Absolute path of a root-relative file, refusing any that resolves outside the root."""
        p = self.root / rel
        real_root = os.path.realpath(self.root)
        real = os.path.realpath(p)
        if os.path.commonpath([real_root, real]) != real_root:
            raise UnsafeNameError(rel, "resolves outside the memory root (symlink?)")
        return p

    def locate(self, target: str) -> Located:
        """Resolve a target typed by a person or model (see `layout.locate`)."""
        return layout.locate(target, self.slug)

    # -- reading ----------------------------------------------------------------------

    def read_text(self, rel: str) -> str:
        """Whole text of a memory file (undecodable bytes replaced, never an error)."""
        try:
            return self.path(rel).read_text(encoding="utf-8", errors="replace")
        except (FileNotFoundError, NotADirectoryError):
            raise TargetNotFoundError(rel) from None
        except IsADirectoryError:
            raise TargetNotFoundError(rel) from None

    def read(self, target: str, cap: int) -> tuple[str, str]:
        """Read a target whole, cut at `cap` bytes with an explicit marker.

        Returns:
            (root-relative path, text).
        """
        loc = self.locate(target)
        text = self.read_text(loc.rel)
        size = len(text.encode("utf-8", "surrogatepass"))
        marker = f"…[read truncated: file is {size} bytes, showing the first {cap}]"
        return loc.rel, cut(text, cap, marker)

    def files(self) -> list[Located]:
        """Every memory file in scope for this project: MEMORY.md, scratchpad, logs, notes."""
        return [loc for loc, _ in self._entries()]

    def _entries(self) -> Iterator[tuple[Located, str]]:
        return (
            (Located(kind, rel, key), path)
            for kind, rel, key, path, _ in self._listing()
        )

    def _listing(
        self, *, ordered: bool = True
    ) -> Iterator[tuple[Kind, str, str, str, os.DirEntry[str] | None]]:
        # (kind, rel, key, path, directory entry) of each file in scope. Folders are
        # checked once against the root, their entries only when they are links: a
        # realpath per file would cost more than reading ten thousand notes.
        base = f"{PROJECTS_DIR}/{self.slug}"
        for loc in (layout.memory_file(), layout.scratchpad(self.slug)):
            with contextlib.suppress(UnsafeNameError):
                path = self.path(loc.rel)
                if path.is_file():
                    yield loc.kind, loc.rel, loc.key, str(path), None
        folders: tuple[tuple[str, Kind], ...] = (
            (DAILY_DIR, "daily"),
            (NOTES_DIR, "note"),
        )
        for sub, kind in folders:
            try:
                folder = str(self.path(f"{base}/{sub}"))
                # Listed through a folder descriptor: a stat of each entry then resolves
                # its name alone, not the whole path (a fifth of a walk's time).
                fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            except (OSError, UnsafeNameError):
                continue
            try:
                with os.scandir(fd) as listed:
                    entries = (
                        sorted(listed, key=lambda e: e.name) if ordered else listed
                    )
                    prefix = f"{base}/{sub}/"
                    for entry in entries:
                        name = entry.name
                        key = layout.key_in(sub, name)
                        if key is None:
                            continue
                        if entry.is_symlink():
                            try:
                                self.path(prefix + name)
                            except UnsafeNameError:
                                continue
                        if entry.is_file():
                            yield kind, prefix + name, key, f"{folder}/{name}", entry
            finally:
                os.close(fd)

    def _read_doc(
        self, loc: Located, path: str, read: tuple[bytes, int] | None = None
    ) -> Doc | None:
        try:
            raw, mtime = read or _slurp(path)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None
        except OSError as e:
            logger.warning("skipping unreadable %s: %s", loc.rel, e)
            return None
        text = raw.decode("utf-8", errors="replace")
        # Forgotten lines and notes stay in the file for people, never for search (memory.forget).
        shown = visible(loc.kind, text)
        if shown is None:
            return None
        return make_doc(loc, shown, size=len(raw), mtime_ns=mtime)

    def load(self, loc: Located) -> Doc | None:
        """One document, or None if the file vanished or points outside the root."""
        try:
            path = self.path(loc.rel)
        except UnsafeNameError:
            return None
        return self._read_doc(loc, str(path))

    def walk(self) -> list[Found]:
        """Every file in scope with its size and modification time (stat only)."""
        out: list[Found] = []
        for kind, rel, key, path, entry in self._listing(ordered=False):
            try:
                st = os.stat(path) if entry is None else entry.stat()
            except OSError:
                continue
            out.append(Found(kind, rel, key, path, st.st_size, st.st_mtime_ns))
        return out

    def stamps(self) -> tuple[int, ...]:
        """Modification times (ns) of the root, project, daily and notes folders (-1 for
        one missing): creating, deleting or renaming a file changes its folder's, so
        equal stamps mean the same names (a write in place changes only the file's).
        memhooks' own writes are renames (spec §2).
        """
        base = f"{PROJECTS_DIR}/{self.slug}"
        out = []
        for rel in ("", base, f"{base}/{DAILY_DIR}", f"{base}/{NOTES_DIR}"):
            try:
                out.append(os.stat(os.path.join(self.root, rel)).st_mtime_ns)
            except OSError:
                out.append(-1)
        return tuple(out)

    def entries(self) -> Iterator[Entry]:
        """Every file in scope, read, as the on-disk index records it (`memory.segment`)."""
        for loc, path in self._entries():
            try:
                read = _slurp(path)
            except OSError:
                continue
            doc = self._read_doc(loc, path, read)
            yield Entry(loc.rel, len(read[0]), read[1], doc)

    def read_listed(self, rel: str) -> Doc | None:
        """The document of a file `walk` listed (None if it vanished or is forgotten).

        Its folder was checked against the root when listed, so no path is resolved.
        """
        loc = layout.kind_of(rel)
        if loc is None:
            return None
        return self._read_doc(loc, os.path.join(self.root, rel))

    def open_index(self) -> IndexFile | None:
        """The on-disk index of this project's scope, open for reading; None if absent."""
        try:
            fd = os.open(self._index_path(), os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        return IndexFile(fd)

    def save_index(self, chunks: Iterable[bytes]) -> None:
        """Replace the on-disk index by `chunks`, written as they come (see `write_atomic`).

        Raises:
            OSError: the disk refused (a read-only root); the old index, if any, stays.
        """
        path = self._index_path()
        private_folder(path.parent, gitignore=True)
        write_atomic(path, chunks, durable=False)

    def read_index_note(self) -> bytes | None:
        """The note kept beside the index file (`memory.layered.Seen`), if any."""
        return read_bytes(self._index_path().with_suffix(".seen"))

    def save_index_note(self, data: bytes) -> None:
        """Replace the note kept beside the index file (OSError: not written)."""
        write_atomic(self._index_path().with_suffix(".seen"), data, durable=False)

    def drop_index(self) -> None:
        """Remove the on-disk index (a damaged one); the next search builds it anew."""
        remove(self._index_path())

    def _index_path(self) -> Path:
        return self.root / INDEX_DIR / f"{self.slug}.mhix"

    def corpus(self) -> dict[str, Doc]:
        """Every document in scope, by root-relative path."""
        docs = (self._read_doc(loc, path) for loc, path in self._entries())
        return {d.rel: d for d in docs if d is not None}

    def scan(
        self,
        keep: Callable[[bytes, Located], bool],
        files: Iterable[Found],
    ) -> Scan:
        """Read `files` (from `walk`) as bytes, parse only those `keep` accepts (it is
        given the bytes with ASCII letters lowered, and the file's location).

        A one-shot search reads the files changed since the index file was written this
        way (`memory.layered`): checking bytes for a few substrings costs far less than
        decoding and tokenizing every file, and the counts it returns are what ranking
        needs of the files it skipped.
        """
        docs: list[Doc] = []
        count = total = 0
        dailies: list[tuple[str, str]] = []
        for f in files:
            loc, path = f.loc, f.path
            try:
                read = _slurp(path)
            except OSError:
                continue
            raw = read[0]
            low = raw.lower()
            doc = None
            if b"forgotten:" in low:
                # Possibly a forgotten note: search must not count it, as the corpus doesn't.
                doc = self._read_doc(loc, path, read)
                if doc is None:
                    continue
            count += 1
            total += len(raw)
            if loc.kind == "daily":
                dailies.append((loc.key, loc.rel))
            if keep(low, loc):
                doc = doc or self._read_doc(loc, path, read)
                if doc is not None:
                    docs.append(doc)
        return Scan(docs, count, total, dailies)

    def config_text(self) -> str | None:
        """Text of config.toml, or None when there is none."""
        try:
            return (self.root / CONFIG_FILE).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    # -- hook session state (hidden: never searched or injected) ------------------------

    def _state_rel(self, session_id: str) -> str:
        return state_rel(session_id)

    def read_state(self, session_id: str) -> str | None:
        """Text of a session's state file, or None when there is none."""
        try:
            return self.read_text(self._state_rel(session_id))
        except TargetNotFoundError:
            return None

    def write_state(self, session_id: str, text: str) -> None:
        """Replace a session's state file atomically."""
        self._atomic_write(self._state_rel(session_id), text)

    def delete_state(self, session_id: str) -> None:
        """Remove a session's state file (at session end)."""
        with contextlib.suppress(OSError):
            self.path(self._state_rel(session_id)).unlink()

    # -- writing ----------------------------------------------------------------------

    def write_memory(self, text: str, *, mode: WriteMode = "append") -> WriteResult:
        """Append to MEMORY.md, dropping lines already there (whitespace and case
        normalised, see `memory.duplicates`), or overwrite it, keeping the previous version
        as MEMORY.md.bak.
        """
        loc = layout.memory_file()
        if mode == "overwrite":
            return self._replace(loc.rel, _ensure_nl(text), backup=True)
        return self._append(loc.rel, text, dedupe=True)

    def write_scratchpad(self, text: str, *, mode: WriteMode = "append") -> WriteResult:
        """Add checklist items or overwrite the scratchpad with them: each line becomes one
        item whatever its bullet (`note_format.checklist`).
        """
        loc = layout.scratchpad(self.slug)
        items = checklist(text)
        if mode == "overwrite":
            return self._replace(loc.rel, _ensure_nl(items))
        return self._append(loc.rel, items, dedupe=False, separate=False)

    def append_daily(
        self, title: str, body: str, *, now: dt.datetime | None = None
    ) -> WriteResult:
        """Append a ``### HH:MM — title`` entry to today's log (local date and time)."""
        now = now or dt.datetime.now().astimezone()
        loc = layout.daily(self.slug, today(now))
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
        """Create, append to or overwrite a named note; `aliases` becomes its first line.

        An append drops lines the note already holds, as MEMORY.md appends do.
        """
        loc = layout.note(self.slug, name)
        aliases_line = alias_line(aliases) if aliases else ""
        exists = self.path(loc.rel).is_file()
        if mode == "overwrite" or not exists:
            content = (
                f"{aliases_line}\n{text.strip()}\n"
                if aliases_line
                else _ensure_nl(text.strip())
            )
            result = self._replace(loc.rel, content, backup=exists)
            return WriteResult(result.rel, created=not exists)
        if aliases_line:
            self._set_aliases(loc.rel, aliases_line)
        return self._append(loc.rel, text, dedupe=True)

    def edit(self, target: str, old: str, new: str) -> WriteResult:
        """Replace `old`, which must occur exactly once in the target, by `new` ("" deletes).

        Raises:
            EditError: `old` occurs zero or several times (the count is in the message).
        """
        loc = self.locate(target)
        with self.lock():
            text = self.read_text(loc.rel)
            count = text.count(old) if old else 0
            if count != 1:
                raise EditError(loc.rel, count)
            self._atomic_write(loc.rel, text.replace(old, new, 1))
        return WriteResult(loc.rel)

    def rewrite(self, target: str, change: Callable[[str], str]) -> WriteResult:
        """Replace a file's text by `change(text)`, under the lock, byte for byte.

        The text is decoded with ``surrogateescape`` and written back the same way, so
        bytes that `change` leaves alone stay identical (forget/restore rely on it).

        Raises:
            TargetNotFoundError: the file does not exist.
        """
        loc = self.locate(target)
        with self.lock():
            try:
                raw = self.path(loc.rel).read_bytes()
            except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
                raise TargetNotFoundError(loc.rel) from None
            except OSError as e:
                raise StoreWriteError(loc.rel, e) from e
            self._atomic_write(loc.rel, change(raw.decode("utf-8", "surrogateescape")))
        return WriteResult(loc.rel)

    # -- mechanics --------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Exclusive lock over every write under this root (fcntl.flock; released on crash)."""
        self._mkdir(self.root)
        try:
            fd = os.open(self.root / LOCK_FILE, os.O_RDWR | os.O_CREAT, _FILE_MODE)
        except OSError as e:
            raise StoreWriteError(LOCK_FILE, e) from e
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _append(
        self, rel: str, text: str, *, dedupe: bool, separate: bool = True
    ) -> WriteResult:
        with self.lock():
            try:
                current = self.read_text(rel)
            except TargetNotFoundError:
                current = ""
            dropped: list[str] = []
            if dedupe:
                text, dropped = drop_repeats(current, text)
            if not text.strip():
                return WriteResult(rel, tuple(dropped))
            body = current.rstrip("\n")
            gap = "\n\n" if separate else "\n"
            new = (body + gap if body else "") + text.strip("\n") + "\n"
            self._atomic_write(rel, new)
        return WriteResult(rel, tuple(dropped), created=not current)

    def _replace(self, rel: str, text: str, *, backup: bool = False) -> WriteResult:
        with self.lock():
            existed = self.path(rel).is_file()
            if backup and existed:
                self._atomic_write(rel + BACKUP_SUFFIX, self.read_text(rel))
            self._atomic_write(rel, text)
        return WriteResult(rel, created=not existed)

    def _set_aliases(self, rel: str, line: str) -> None:
        with self.lock():
            lines = self.read_text(rel).split("\n")
            # The aliases line may sit below a forgotten: header (memory.forget).
            at = [i for i in range(header_lines(lines)) if is_aliases_line(lines[i])]
            if at:
                lines[at[0]] = line
            else:
                lines.insert(0, line)
            self._atomic_write(rel, "\n".join(lines))

    def _atomic_write(self, rel: str, text: str) -> None:
        """Write via a hidden temp file in the same folder, fsync, then rename over `rel`."""
        path = self.path(rel)
        if path.is_symlink():
            raise UnsafeNameError(rel, "refusing to replace a symlink")
        self._mkdir(path.parent)
        try:
            write_atomic(path, text.encode("utf-8", "surrogateescape"), durable=True)
        except OSError as e:
            raise StoreWriteError(rel, e) from e
        _sweep_stale_temps(path.parent)

    def _mkdir(self, folder: Path) -> None:
        # Created one level at a time so that every new folder is owner-only, not just the last.
        missing = [d for d in (folder, *folder.parents) if not d.exists()]
        try:
            for d in reversed(missing):
                d.mkdir(mode=_DIR_MODE, exist_ok=True)
        except OSError as e:
            raise StoreWriteError(str(folder), e) from e


def state_rel(session_id: str) -> str:
    """Where a session's state file lives, relative to the root."""
    # Hashed so that any session id a harness sends makes a safe file name.
    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[
        :24
    ]
    return f"{STATE_DIR}/{digest}.json"


def write_atomic(path: Path, data: bytes | Iterable[bytes], *, durable: bool) -> None:
    """Replace `path` by `data` through a hidden temp file in the same folder and a rename,
    so a reader (or a crash) sees the old bytes or the new ones, never half of them.

    Args:
        path: the file to replace.
        data: its new bytes, whole or in pieces (made only once the temp file is open).
        durable: fsync the file and its folder (memory files); a rebuildable cache skips it.

    Raises:
        OSError: the disk refused; the temp file is removed and `path` is unchanged.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _FILE_MODE)
        with os.fdopen(fd, "wb") as f:
            for piece in [data] if isinstance(data, bytes) else data:
                f.write(piece)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        _fsync_dir(path.parent)


def read_bytes(path: Path) -> bytes | None:
    """A file's bytes, or None when it cannot be read (for caches, where absent is normal)."""
    try:
        return path.read_bytes()
    except OSError:
        return None


def remove(path: Path) -> None:
    """Remove a file if it is there."""
    with contextlib.suppress(OSError):
        path.unlink()


def private_folder(folder: Path, *, gitignore: bool = False) -> None:
    """Create an owner-only folder (and its parents); with `gitignore`, one git skips whole.

    Raises:
        OSError: the disk refused.
    """
    if folder.is_dir():
        return
    folder.mkdir(parents=True, exist_ok=True, mode=_DIR_MODE)
    ignore = folder / ".gitignore"
    if gitignore and not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")


def _slurp(path: str) -> tuple[bytes, int]:
    """A file's bytes and modification time (os-level: ~3x cheaper than open() per file)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        chunks = [os.read(fd, max(st.st_size, 1) + 1)]
        while chunks[-1]:
            chunks.append(os.read(fd, 1 << 20))
        return b"".join(chunks), st.st_mtime_ns
    finally:
        os.close(fd)


def _fsync_dir(folder: Path) -> None:
    # The rename is durable only once the folder's entry is on disk.
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _sweep_stale_temps(folder: Path) -> None:
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


def _ensure_nl(text: str) -> str:
    return text if text.endswith("\n") or not text else text + "\n"

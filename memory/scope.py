"""The files in scope for one project, read-only: listing, reading, documents.

`memory.store.Store` adds writing on top. Every read refuses what is not a regular file
(`memory.files.read_regular`), and any path that resolves outside the root.
"""

from __future__ import annotations

import functools
import os
import pwd
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Self

from memhooks.memory import paths
from memhooks.memory.constants import CONFIG_FILE, DAILY_DIR, NOTES_DIR, PROJECTS_DIR
from memhooks.memory.docfile import left_out, read_doc, slurp, warn_once
from memhooks.memory.errors import (
    ForeignRootError,
    NotAFileError,
    TargetNotFoundError,
    UnsafeNameError,
)
from memhooks.memory.files import NotRegularFileError, Read, read_regular
from memhooks.memory.paths import Located
from memhooks.memory.text import fit, nbytes

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from memhooks.memory.corpus import Doc
    from memhooks.memory.paths import Kind
    from memhooks.memory.segment import Entry


class Scan(NamedTuple):
    """What `Scope.scan` found: the documents kept, and counts over every file read."""

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


def _check_owner(root: Path) -> None:
    # A root that does not exist yet is created on the first write, as ours.
    try:
        owner = os.stat(root).st_uid
    except OSError:
        return
    you = os.geteuid()
    if owner != you:
        raise ForeignRootError(str(root), _user(owner), _user(you))


def _user(uid: int) -> str:
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


class Scope:
    """One memory root, seen from one project, for reading.

    Args:
        root: the memory root (need not exist).
        slug: the project's folder name under ``projects/``.
    """

    def __init__(self, root: Path, slug: str) -> None:
        self.root = Path(root)
        self.slug = paths.check_slug(slug)
        _check_owner(self.root)

    @classmethod
    def for_project(cls, root: Path, project: str | Path) -> Self:
        """The scope of the project that contains directory `project`."""
        return cls(root, paths.slug_for(str(paths.project_dir(project))))

    def path(self, rel: str) -> Path:
        """Absolute path of a root-relative file, refusing any that resolves outside the root."""
        p = self.root / rel
        real_root = os.path.realpath(self.root)
        real = os.path.realpath(p)
        if os.path.commonpath([real_root, real]) != real_root:
            raise UnsafeNameError(rel, "resolves outside the memory root (symlink?)")
        return p

    def locate(self, target: str) -> Located:
        """Resolve a target typed by a person or model (see `paths.locate`)."""
        return paths.locate(paths.within(self.root, target), self.slug)

    # -- reading ----------------------------------------------------------------------

    def read_raw(self, rel: str) -> bytes:
        """Exact bytes of a memory file.

        Raises:
            TargetNotFoundError: there is no file.
            NotAFileError: a FIFO, device or folder sits there, or it cannot be read.
        """
        return self._read(rel).data

    def _read(self, rel: str, cap: int | None = None) -> Read:
        # `read_raw`: the bytes (at most `cap` + 1 of them) and the file's whole size.
        try:
            return read_regular(self.path(rel), cap)
        except (FileNotFoundError, NotADirectoryError):
            raise TargetNotFoundError(rel) from None
        except (NotRegularFileError, IsADirectoryError) as e:
            raise NotAFileError(rel, "not a regular file") from e
        except OSError as e:
            raise NotAFileError(rel, e.strerror or str(e)) from e

    def read_text(self, rel: str) -> str:
        """Whole text of a memory file, for showing (undecodable bytes replaced)."""
        return self.read_raw(rel).decode("utf-8", errors="replace")

    def read(
        self, target: str, cap: int, *, shown: Callable[[str, str], int] | None = None
    ) -> tuple[str, str]:
        """(root-relative path, text) of a target, cut at `cap` bytes with an explicit
        marker; `shown` measures what is printed of (path, text) when it is more than the
        text's UTF-8 (JSON quoting). Only the first `cap` + 1 bytes are read."""
        loc = self.locate(target)
        got = self._read(loc.rel, cap)
        text = got.data.decode("utf-8", errors="replace")
        marker = f"…[read truncated: file is {got.size} bytes, shown within {cap} with this line]"
        size = nbytes if shown is None else functools.partial(shown, loc.rel)
        return loc.rel, fit(text, cap, marker, size)

    def config_text(self) -> str | None:
        """Text of config.toml, or None when there is none.

        Raises:
            NotAFileError: something other than a readable UTF-8 file is there.
        """
        try:
            return read_regular(self.root / CONFIG_FILE).data.decode("utf-8")
        except FileNotFoundError:
            return None
        except OSError as e:
            raise NotAFileError(CONFIG_FILE, e.strerror or str(e)) from e
        except UnicodeDecodeError:
            raise NotAFileError(CONFIG_FILE, "not UTF-8 text") from None

    # -- listing ----------------------------------------------------------------------

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
        for loc in (paths.memory_file(), paths.scratchpad(self.slug)):
            try:
                path = self.path(loc.rel)
            except UnsafeNameError as e:
                warn_once(loc.rel, left_out(e))
                continue
            if path.is_file():
                yield loc.kind, loc.rel, loc.key, str(path), None
            elif os.path.lexists(path):  # a FIFO, a folder, a link in a loop
                # A person's rules left out without a word would look like none.
                warn_once(loc.rel, "is not a regular file: left out")
        for sub in (DAILY_DIR, NOTES_DIR):
            kind: Kind = "daily" if sub == DAILY_DIR else "note"
            try:
                folder = str(self.path(f"{base}/{sub}"))
                # Listed through a folder descriptor: a stat of each entry then resolves
                # its name alone, not the whole path (a fifth of a walk's time).
                fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            except FileNotFoundError:
                continue
            except (OSError, UnsafeNameError) as e:
                warn_once(f"{base}/{sub}", left_out(e))
                continue
            try:
                with os.scandir(fd) as listed:
                    each = sorted(listed, key=lambda e: e.name) if ordered else listed
                    prefix = f"{base}/{sub}/"
                    for entry in each:
                        name = entry.name
                        key = paths.key_in(sub, name)
                        if key is None:
                            continue
                        if entry.is_symlink():
                            try:
                                self.path(prefix + name)
                                entry.is_file()  # a link in a loop: ELOOP
                            except (UnsafeNameError, OSError) as e:
                                warn_once(prefix + name, left_out(e))
                                continue
                        if entry.is_file():
                            yield kind, prefix + name, key, f"{folder}/{name}", entry
            finally:
                os.close(fd)

    def load(self, loc: Located) -> Doc | None:
        """One document, or None if the file vanished or points outside the root."""
        try:
            path = self.path(loc.rel)
        except UnsafeNameError:
            return None
        return read_doc(loc, str(path))

    def walk(self) -> list[Found]:
        """Every file in scope with its size and modification time (stat only)."""
        return list(self.found())

    def found(self) -> Iterator[Found]:
        """`walk`, a file at a time (a caller may stop part way)."""
        for kind, rel, key, path, entry in self._listing(ordered=False):
            try:
                st = os.stat(path) if entry is None else entry.stat()
            except OSError:
                continue
            yield Found(kind, rel, key, path, st.st_size, st.st_mtime_ns)

    def folders(self) -> tuple[str, str, str, str]:
        """The folders that hold the files in scope, root-relative: the root, the
        project's, its daily logs' and its notes'."""
        base = f"{PROJECTS_DIR}/{self.slug}"
        return "", base, f"{base}/{DAILY_DIR}", f"{base}/{NOTES_DIR}"

    def appended_since(self, ns: int) -> bool:
        """Whether MEMORY.md, the scratchpad or today's log was modified at or after `ns`
        (since the epoch): the files people append to in place (``echo >>``), which
        leaves their folders' times as they were (`stamps`)."""
        for loc in (
            paths.memory_file(),
            paths.scratchpad(self.slug),
            paths.daily(self.slug, paths.today()),
        ):
            try:
                if os.stat(os.path.join(self.root, loc.rel)).st_mtime_ns >= ns:
                    return True
            except OSError:
                continue
        return False

    def stamps(self) -> tuple[int, ...]:
        """Modification times (ns) of the root, project, daily and notes folders (-1 for
        one missing): creating, deleting or renaming a file changes its folder's, so
        equal stamps mean the same names (a write in place changes only the file's).
        memhooks' own writes are renames or links (`memory.store`).
        """
        out = []
        for rel in self.folders():
            try:
                out.append(os.stat(os.path.join(self.root, rel)).st_mtime_ns)
            except OSError:
                out.append(-1)
        return tuple(out)

    def entries(self) -> Iterator[Entry]:
        """Every file in scope, read, as the on-disk index records it (`memory.segment`)."""
        # The index's modules (and the stemmer) load only to build the index.
        from memhooks.memory.segment import Entry

        for loc, path in self._entries():
            try:
                read = slurp(path, loc.rel)
            except OSError:
                continue
            doc = read_doc(loc, path, read)
            yield Entry(loc.rel, len(read[0]), read[1], doc)

    def read_listed(self, rel: str) -> Doc | None:
        """The document of a file `walk` listed (None if it vanished or is forgotten).

        Its folder was checked against the root when listed, so no path is resolved.
        """
        loc = paths.kind_of(rel)
        if loc is None:
            return None
        return read_doc(loc, os.path.join(self.root, rel))

    def corpus(self) -> dict[str, Doc]:
        """Every document in scope, by root-relative path."""
        docs = (read_doc(loc, path) for loc, path in self._entries())
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
                read = slurp(path, loc.rel)
            except OSError:
                continue
            raw = read[0]
            low = raw.lower()
            doc = None
            if b"forgotten:" in low:
                # Possibly a forgotten note: search must not count it, as the corpus doesn't.
                doc = read_doc(loc, path, read)
                if doc is None:
                    continue
            count += 1
            total += len(raw)
            if loc.kind == "daily":
                dailies.append((loc.key, loc.rel))
            if keep(low, loc):
                doc = doc or read_doc(loc, path, read)
                if doc is not None:
                    docs.append(doc)
        return Scan(docs, count, total, dailies)

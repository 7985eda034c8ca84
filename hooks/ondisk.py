"""A session process's corpus as paths and modification times, each text read when asked.

At 100,000 notes the texts alone took ~270 MB of a session process; ranking needs none of
them (the index file holds the postings), and a reply reads only the few it renders: its
hits' snippets, the notes it checks for news. So a session keeps what every prompt asks
of all files (which ones, and when each last changed) and reads a text on demand,
keeping the last few read.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING

from memhooks.memory.corpus import make_doc
from memhooks.memory.paths import Located, kind_of

if TYPE_CHECKING:
    from collections.abc import Iterator

    from memhooks.memory import Doc, Store

#: Documents kept once read (a reply's hits, asked for again by its next prompts).
KEPT = 256


class OnDisk(Mapping[str, "Doc"]):
    """Every file in scope by root-relative path; a document is read when looked up.

    Args:
        store: where the files are.
        mtimes: path -> modification time (ns) of each file in scope.
    """

    def __init__(self, store: Store, mtimes: dict[str, int]) -> None:
        self.store = store
        self.mtimes = mtimes
        self._read = _Recent()

    def __getitem__(self, rel: str) -> Doc:
        if rel not in self.mtimes:
            raise KeyError(rel)
        doc = self._read.get(rel)
        if doc is None:
            doc = self.store.read_listed(rel)
            if doc is None:
                # Gone since it was listed, or forgotten: it shows no lines.
                loc = kind_of(rel) or Located("note", rel, "")
                doc = make_doc(loc, "", mtime_ns=self.mtimes[rel])
            self._read.put(rel, doc)
        return doc

    def __iter__(self) -> Iterator[str]:
        return iter(self.mtimes)

    def __len__(self) -> int:
        return len(self.mtimes)

    def __contains__(self, rel: object) -> bool:
        return rel in self.mtimes

    def changed(self, rel: str, doc: Doc | None) -> OnDisk:
        """A copy with `rel` edited (`doc`) or deleted (None): a handler may be
        iterating this one in its thread."""
        mtimes = dict(self.mtimes)
        if doc is None:
            mtimes.pop(rel, None)
        else:
            mtimes[rel] = doc.mtime_ns
        out = OnDisk(self.store, mtimes)
        out._read = self._read
        self._read.drop(rel)
        if doc is not None:
            self._read.put(rel, doc)
        return out


def mtimes_of(docs: Mapping[str, Doc]) -> Mapping[str, int]:
    """Path -> modification time of each document, without reading an `OnDisk`'s."""
    if isinstance(docs, OnDisk):
        return docs.mtimes
    return {rel: d.mtime_ns for rel, d in docs.items()}


def changed(old: Mapping[str, int], new: Mapping[str, int]) -> list[str]:
    """The paths edited, created or deleted from `old` to `new` (path -> modification
    time, as `mtimes_of` gives them): those in `new` first, then those gone."""
    if old is new:
        return []
    gone = [rel for rel in old if rel not in new]
    return [rel for rel, t in new.items() if old.get(rel) != t] + gone


class _Recent:
    """The last `KEPT` documents read, by path (a handler thread and the watcher's
    may both use it)."""

    def __init__(self) -> None:
        self._docs: dict[str, Doc] = {}
        self._lock = threading.Lock()

    def get(self, rel: str) -> Doc | None:
        with self._lock:
            doc = self._docs.pop(rel, None)
            if doc is not None:
                self._docs[rel] = doc  # now the most recent
            return doc

    def put(self, rel: str, doc: Doc) -> None:
        with self._lock:
            self._docs.pop(rel, None)
            self._docs[rel] = doc
            if len(self._docs) > KEPT:
                del self._docs[next(iter(self._docs))]

    def drop(self, rel: str) -> None:
        with self._lock:
            self._docs.pop(rel, None)


def moved_in(store: Store, since: int, looked: int) -> tuple[dict[str, int], int]:
    """Memory files named after `since` (ns) and after `looked`, the newest folder time
    known (the block's, then each such look's), that keep an older modification time, as
    `mv`, `git mv`, `cp -p` and `rsync -a` leave them, or are links made since to such a
    file (`ln -sf`): path -> when they got the name (their ctime); and the newest time
    of the folders looked into. A folder is listed only when its names changed since; a
    file renamed into place by its writer (an atomic save, ours too) got its name as its
    folder did, before that time.
    """
    from memhooks.hooks.listing import located_in

    found: dict[str, int] = {}
    newest, after = looked, max(since, looked)
    for folder in store.folders():
        path = os.path.join(store.root, folder)
        try:
            at = os.stat(path).st_mtime_ns
            if at <= after:
                continue
            with os.scandir(path) as listed:
                entries = [(e.name, e.stat(follow_symlinks=False), e) for e in listed]
        except OSError:
            continue
        newest = max(newest, at)
        for name, own, entry in entries:
            rel = f"{folder}/{name}" if folder else name
            if own.st_ctime_ns <= after or located_in(store, rel) is None:
                continue
            try:  # a link made since (`ln -sf`) shows its target's older text
                st = entry.stat() if stat.S_ISLNK(own.st_mode) else own
            except OSError:
                continue
            if st.st_mtime_ns <= since and stat.S_ISREG(st.st_mode):
                found[rel] = own.st_ctime_ns
    return found, newest

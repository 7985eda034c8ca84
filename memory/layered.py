"""The on-disk index plus what changed since it was written: what a one-shot search and a
session process rank over.

`open_index` stats every file in scope (nothing is read), compares each with the index
file (`memory.segment`): a file of the same size and modification time is ranked from
the file's postings, any other is read and indexed in memory, and the index file's
postings of files changed or gone are skipped. When too many files changed, or there is
no index file yet, it is built anew first. What that check found is kept beside the
index file (`Seen`): a one-shot search trusts it while the four folders that hold the
files keep their modification times, for `FULL_CHECK_NS` or while a session process
watches and reports no change (`index_file.Watch`): it stats four folders, not every
file, unless a full check would build the index file anew (`Seen.calls_for_build`). The
ranking is the same as over an `Index` of every file (test_layered.py), while a one-shot
search at 10,000 notes reads a few postings, not 40 MB of notes (README).
"""

from __future__ import annotations

import itertools
import os
import time
from array import array
from typing import TYPE_CHECKING, TypeVar

from memhooks.memory import index_file
from memhooks.memory.changes import Seen, compare
from memhooks.memory.corpus import make_doc
from memhooks.memory.errors import CorruptSegment
from memhooks.memory.index import Index, Prepared
from memhooks.memory.lazylog import getLogger
from memhooks.memory.needles import prefilter
from memhooks.memory.paths import Located, kind_of
from memhooks.memory.punctuated import findable
from memhooks.memory.scope import Found
from memhooks.memory.segment import DAILY, HIDDEN, MARKED, Segment, encode

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping

    from memhooks.memory.corpus import Doc
    from memhooks.memory.index import LiteralCounts, Query
    from memhooks.memory.store import Store
    from memhooks.memory.topk import Columns

logger = getLogger(__name__)
_T = TypeVar("_T")

#: A file changed this soon before a build began may have changed again after it was
#: read with the same modification time (file systems stamp times with a coarse
#: clock), so it is read again rather than trusted.
RACY_NS = 2_000_000_000
#: A one-shot search stats every file when the last such check is older than this; in
#: between the four folders (`Store.stamps`: every file created, deleted or renamed)
#: and the files people append to (`Store.appended_since`); another write in place is
#: seen within this time (or when a session process's watcher reports it).
FULL_CHECK_NS = 10_000_000_000
#: Keys whose postings are kept from one read to the next (a query's keys).
_RECENT = 64
# Flag bytes of the index file -> 1 where the flag says so (bytes.translate tables).
_LIVE = bytes(0 if f & HIDDEN else 1 for f in range(256))
_DAILY = bytes(1 if f & DAILY else 0 for f in range(256))
_DROPPED = bytes([1] + [0] * 255)


def open_index(
    store: Store,
    only: Query | None = None,
    docs: Mapping[str, Doc] | None = None,
    files: list[Found] | None = None,
    build: bool = True,
) -> Layered:
    """The index of `store`'s scope, current to the last modification of every file
    (for a one-shot search: to the last file created, deleted or renamed, and to every
    change older than `FULL_CHECK_NS`).

    Args:
        store: the project's memory.
        only: a one-shot search's query: changed files are read only if they can match
            it, and indexed only for its keys.
        docs: the documents already in memory (a session's corpus), used for changed
            files and the documents hits show instead of reading them again.
        files: every file in scope as it is now, kept so by the caller (a session's
            watcher): no file is stat'ed, and no note beside the index file kept.
        build: False: never write the index file (the files it lacks read as changed).
    """
    now = time.time_ns()
    seg = index_file.open_segment(store)
    seen = _trusted(store, seg, now) if docs is None and files is None else None
    if seen is None:
        seen, n = _check(store, seg, now, files)
        rebuild = seg is None or seen.calls_for_build(n, now, RACY_NS)
        if n and rebuild and build and _build(store, now):
            seg = index_file.open_segment(store)
            # Dated after the build, which created .index: else the root is newer.
            seen, _ = _check(store, seg, time.time_ns(), files)
        if docs is None and files is None and seg is not None:
            index_file.save_note(store, seen.encode())
    stale = [f for rel in seen.stale if (f := _found(store, rel)) is not None]
    if docs is not None:
        overlay = Index(d for f in stale if (d := docs.get(f.rel)) is not None)
    else:
        scan = store.scan(
            prefilter(only.needles) if only else lambda _raw, _loc: True, stale
        )
        overlay = Index(
            scan.docs,
            count=scan.files,
            total_size=scan.total_size,
            dailies=scan.dailies,
            only=only,
        )

    def load(rel: str) -> Doc:
        doc = docs.get(rel) if docs is not None else store.read_listed(rel)
        # A file gone since the stat matches nothing more; its hit shows no lines.
        return doc or make_doc(kind_of(rel) or Located("note", rel, ""), "")

    out = Layered(seg, seen.dead, overlay, load)
    if docs is not None:
        from memhooks.memory.topk import Columns  # a one-shot search ranks once

        out.columns = Columns()  # a session's: it ranks again and again
    return out


def _trusted(store: Store, seg: Segment | None, now: int) -> Seen | None:
    # The last full check, if it describes this index file, no watcher reported a change
    # since (`index_file.Watch`), it is recent or one still watches, and no folder
    # changed since (a folder stamp near the check could hide a change in the same tick).
    data = None if seg is None else index_file.read_note(store)
    seen = None if data is None else Seen.decode(data)
    if (
        seen is None
        or seg is None
        or seen.built_at != seg.built_at
        or any(s >= seen.checked_at - RACY_NS for s in seen.stamps)
        or store.stamps() != seen.stamps
        or store.appended_since(seen.checked_at - RACY_NS)
        or any(i >= len(seg) for i in seen.dead)
        or seen.mark != index_file.watch_mark(store)  # a watcher reported a change
        or seen.calls_for_build(len(seg), now, RACY_NS)
    ):
        return None
    recent = 0 <= now - seen.checked_at <= FULL_CHECK_NS
    return seen if recent or index_file.watched(store) else None


def _check(
    store: Store, seg: Segment | None, now: int, files: list[Found] | None
) -> tuple[Seen, int]:
    # Compare every file (stat'ed now, unless listed) with the index file; and how many.
    # The watcher's mark and the folders' times first: a change meanwhile changes them.
    mark, stamps = index_file.watch_mark(store), store.stamps()
    files = store.walk() if files is None else files
    fresh, stale, changed, settling = compare(seg, files, now, RACY_NS)
    n, built = (len(seg), seg.built_at) if seg is not None else (0, 0)
    dead = sorted(set(range(n)).difference(fresh))
    gone = [f.rel for f in stale]
    return Seen(built, now, stamps, changed, dead, gone, mark, settling), len(files)


def _build(store: Store, now: int) -> bool:
    # Write the index file anew; False when the disk refused (the notes are read then).
    try:
        index_file.rebuild(store, lambda: encode(store.entries(), now))
    except OSError as e:
        logger.info("search index not written (%s); reading the notes", e)
        return False
    return True


def _found(store: Store, rel: str) -> Found | None:
    # A file to read, as `Store.walk` would list it (its stat is not needed).
    if (loc := kind_of(rel)) is None:
        return None
    return Found(loc.kind, rel, loc.key, os.path.join(store.root, rel), -1, 0)


class Layered:
    """An index file's postings of unchanged files, plus an in-memory `Index` of the rest.

    It answers what `memory.rank` asks of an `Index` (same ids for the same postings:
    the file's first, then the in-memory ones after them), and a session process
    patches it per edited file with `add` and `remove`.
    """

    def __init__(
        self,
        seg: Segment | None,
        dead: Iterable[int],
        overlay: Index,
        load: Callable[[str], Doc],
    ) -> None:
        self._seg = seg
        self._n = n = len(seg) if seg is not None else 0
        #: 1 for each id of the index file whose file is unchanged and searchable
        self._live = bytearray(n)
        #: path -> date of those that are daily logs
        self._live_daily: dict[str, str] = {}
        self._live_count = self._live_size = 0
        if seg is not None:
            self._live = bytearray(seg.flags.translate(_LIVE))
            for i in dead:
                self._live[i] = 0
            dropped = self._live.translate(_DROPPED)
            #: ids whose postings are skipped: files changed, gone or hidden since the build
            self._dead = set(itertools.compress(range(n), dropped))
            self._live_count = n - len(self._dead)
            self._live_size = sum(seg.sizes) - sum(seg.sizes[i] for i in self._dead)
            daily = seg.flags.translate(_DAILY)
            for i in itertools.compress(range(n), daily):
                if self._live[i]:
                    rel = seg.rels[i]
                    self._live_daily[rel] = rel.rsplit("/", 1)[-1].removesuffix(".md")
        else:
            self._dead = set()
        self._over = overlay
        self._load = load
        self._loaded: dict[int, Doc] = {}
        self._sizes: array[int] | None = None
        self._dailies: list[tuple[str, str]] | None = None
        self._recent: dict[str, tuple[array[int], array[int]]] = {}
        #: the index file proved damaged (`CorruptSegment` was raised): open it anew
        self.damaged = False
        #: each key's scores, kept between searches by a session (`memory.topk`); None:
        #: not kept (a one-shot search ranks once)
        self.columns: Columns | None = None

    # -- corpus-wide numbers ----------------------------------------------------------

    @property
    def count(self) -> int:
        """Documents in the corpus."""
        return self._live_count + self._over.count

    @property
    def avg_size(self) -> float:
        """Mean document size in bytes (BM25's average length)."""
        total = self._live_size + self._over.total_size
        return total / (self.count or 1) or 1.0

    @property
    def sizes(self) -> array[int]:
        """Bytes of each document, by id."""
        if self._sizes is None:
            self._sizes = array("Q", self._seg.sizes if self._seg else ())
            self._sizes.extend(self._over.sizes)
        return self._sizes

    def dailies(self) -> list[tuple[str, str]]:
        """(date, path) of every daily log, oldest first."""
        if self._dailies is None:
            live = ((date, rel) for rel, date in self._live_daily.items())
            self._dailies = sorted([*self._over.dailies(), *live])
        return self._dailies

    # -- documents --------------------------------------------------------------------

    def docs(self) -> Iterator[Doc]:
        """Every document (those ranked from the file are read)."""
        yield from (self.doc(i) for i in range(self._n) if self._live[i])
        yield from self._over.docs()

    def doc(self, doc_id: int) -> Doc:
        """The document behind an id from `postings` (read on first use)."""
        if doc_id >= self._n:
            return self._over.doc(doc_id - self._n)
        doc = self._loaded.get(doc_id)
        if doc is None:
            assert self._seg is not None
            if len(self._loaded) >= _RECENT:  # a session's: it shows a few per prompt
                self._loaded.clear()
            doc = self._loaded[doc_id] = self._load(self._seg.rels[doc_id])
        return doc

    def rel(self, doc_id: int) -> str:
        """The path of the document behind an id from `postings`."""
        if doc_id >= self._n:
            return self._over.rel(doc_id - self._n)
        assert self._seg is not None
        return self._seg.rels[doc_id]

    def get(self, rel: str) -> Doc | None:
        """The document at `rel`, if any (asked outside a session's lock: a snippet)."""
        i = self._live_id(rel)  # one in memory is not (`_drop_live`): looked up by path
        return self._over.get(rel) if i is None else self.doc(i)

    def id_of(self, rel: str) -> int | None:
        """The id of the document at `rel`, if any."""
        i = self._over.id_of(rel)
        if i is not None:
            return i + self._n
        return self._live_id(rel)

    def marked(self, rel: str) -> Doc | None:
        """The note at `rel` if it may be superseded (`memory.forget.may_be_superseded`)."""
        i = self._live_id(rel)
        if i is None:
            return self._over.marked(rel)
        assert self._seg is not None
        return self.doc(i) if self._seg.flags[i] & MARKED else None

    def postings(self, key: str) -> array[int]:
        """(id, tf, lines) triples, flat, of the documents whose content holds `key`."""
        out = self._read(key)[0][:]  # a copy: it is extended below, and kept by callers
        if self._dead and not self._dead.isdisjoint(out[0::3]):
            dead, kept = self._dead, array("I")
            for j in range(0, len(out), 3):
                if out[j] not in dead:
                    kept.extend(out[j : j + 3])
            out = kept
        more = self._over.postings(key)
        if more:
            at = len(out)
            out.extend(more)
            for j in range(at, len(out), 3):
                out[j] += self._n
        return out

    def field_ids(self, key: str) -> set[int]:
        """Ids of the documents whose name or aliases line holds `key`."""
        ids = set(self._read(key)[1])
        ids.difference_update(self._dead)
        ids.update(i + self._n for i in self._over.field_ids(key))
        return ids

    def literal_counts(self, literal: str) -> LiteralCounts | None:
        """`Searchable.literal_counts`: from the index file's punctuated strings
        (`memory.segment.Segment.literal`); each document indexed in memory is read."""
        if self._seg is None or not findable(literal):
            return None
        over, n, dead = self._over, self._n, self._dead
        counted = self._checked(self._seg.literal, literal)
        read = {n + i for d in over.docs() if (i := over.id_of(d.rel)) is not None}
        return {i: c for i, c in counted.items() if i not in dead}, read

    def _read(self, key: str) -> tuple[array[int], array[int]]:
        # Ranking asks for a key's postings and field ids, then again for its holders.
        if key in self._recent:
            return self._recent[key]
        if self._seg is None:
            return array("I"), array("I")
        read = self._checked(self._seg.read, key)
        if len(self._recent) >= _RECENT:
            self._recent.clear()
        self._recent[key] = read
        return read

    def _checked(self, read: Callable[[str], _T], arg: str) -> _T:
        try:
            return read(arg)
        except CorruptSegment:
            self.damaged = True
            raise

    # -- changes ----------------------------------------------------------------------

    def prepare(self, doc: Doc) -> Prepared:
        """What `add` needs of `doc` and of the document it replaces, worked out before
        taking a lock (tokenizing a 30 MB note takes seconds; patching, a moment)."""
        before = self._over.get(doc.rel)
        old = None if before is None else (before, self._over.prepare(before))
        return Prepared(self._over.prepare(doc), old)

    def add(self, doc: Doc, prepared: Prepared | None = None) -> None:
        """Index `doc` (in memory), replacing the document at the same path."""
        self._drop_live(doc.rel)
        if prepared is None:
            self._over.add(doc)
        else:
            self._over.add(doc, prepared.analysis, prepared.old)
        self._changed()

    def _changed(self) -> None:
        self._sizes = self._dailies = None
        if self.columns is not None:
            self.columns.clear()

    def remove(self, rel: str) -> None:
        """Forget the document at `rel` (no-op when absent)."""
        self._drop_live(rel)
        self._over.remove(rel)
        self._changed()

    def _live_id(self, rel: str) -> int | None:
        i = self._seg.ids.get(rel) if self._seg is not None else None
        return i if i is not None and self._live[i] else None

    def _drop_live(self, rel: str) -> None:
        i = self._live_id(rel)
        if i is not None:
            assert self._seg is not None
            self._live[i] = 0
            self._live_count -= 1
            self._live_size -= self._seg.sizes[i]
            self._live_daily.pop(rel, None)
            self._dead.add(i)
            self._loaded.pop(i, None)

"""The index a search ranks over once opened (`memory.layered.open_index`): the index
file's postings of the files unchanged since it was written, plus an in-memory `Index`
of the rest, under one set of ids.

It answers what `memory.rank` asks of an `Index`, reads a document the file ranks only
when a hit shows it, keeps the postings of a query's keys from one read to the next,
and a session process patches it per edited file (`Layered.add`, `Layered.remove`).
"""

from __future__ import annotations

import itertools
from array import array
from typing import TYPE_CHECKING, TypeVar

from memhooks.memory.errors import CorruptSegment
from memhooks.memory.index import Prepared
from memhooks.memory.punctuated import findable
from memhooks.memory.segment import DAILY, HIDDEN, MARKED

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from memhooks.memory.corpus import Doc
    from memhooks.memory.index import Index, LiteralCounts
    from memhooks.memory.segment import Segment
    from memhooks.memory.topk import Columns

_T = TypeVar("_T")

#: Keys whose postings are kept from one read to the next (a query's keys).
_RECENT = 64
# Flag bytes of the index file -> 1 where the flag says so (bytes.translate tables).
_LIVE = bytes(0 if f & HIDDEN else 1 for f in range(256))
_DAILY = bytes(1 if f & DAILY else 0 for f in range(256))
_DROPPED = bytes([1] + [0] * 255)


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

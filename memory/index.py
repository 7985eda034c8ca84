"""An inverted index: for each key, the documents that hold it and how often. Pure.

Ranking reads documents only through this interface (`Searchable`), so whoever builds
the index decides how much is read: the index file (`memory.segment`) holds every file's
postings, and `memory.layered` adds an `Index` of the files changed since it was written
— for a one-shot search only those that can match (see `Store.scan`), with the numbers
BM25 needs of the ones left out (how many, how large, which daily logs) passed in, so
every way gives the same ranking.
"""

from __future__ import annotations

import itertools
from array import array
from collections import Counter
from typing import TYPE_CHECKING, NamedTuple, Protocol

from memhooks.memory.needles import LINES_PER_NEEDLE, fold, lines_holding
from memhooks.memory.note_format import ALIASES, may_be_superseded
from memhooks.memory.terms import TokenKeys, cjk_chars, filed_keys, line_tokens

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

    from memhooks.memory.corpus import Doc


class Analysis(NamedTuple):
    """One document's keys."""

    #: key -> occurrences in the content (CJK single characters included)
    tf: Counter[str]
    lines: Counter[str]  #: key -> lines holding it
    fields: frozenset[str]  #: keys of the file name and the aliases line


class Prepared(NamedTuple):
    """A document's `Analysis`, and the document it replaces with its own (`Index.add`)."""

    analysis: Analysis
    old: tuple[Doc, Analysis] | None = None


#: Distinct lines remembered while tokenizing one document (memory stays bounded).
SEEN_LINES = 65_536
#: Lines of one document counted at once (`parts`).
ROWS_AT_ONCE = 4_096
#: The key of each token met lately (`count_keys`).
_KEYS = TokenKeys(1 << 14)


def analyze(doc: Doc, only: Query | None = None) -> Analysis:
    """The keys of a document's content, per line, and of its name and aliases line.

    Args:
        doc: the document.
        only: when given, just these keys are counted, and only lines holding one of
            their needles are tokenized (a one-shot search needs nothing else).
    """
    text = doc.text
    if only is not None:
        # Folding never adds or removes a newline, so line i of the folded text is line i.
        wanted = lines_holding(fold(text), only.needles, LINES_PER_NEEDLE)[0]
        rows = text.split("\n")
        text = "\n".join([rows[i] for i in sorted(wanted)])
    tf, lines = count_keys(text)
    fields = keys_of_fields(doc)
    if only is not None:
        for counter in (tf, lines):
            for k in counter.keys() - only.keys:
                del counter[k]
        fields &= only.keys
    return Analysis(tf, lines, frozenset(fields))


def keys_of_fields(doc: Doc) -> set[str]:
    """The keys of a document's file name and of its aliases line."""
    fields = set(filed_keys(doc.filename.removesuffix(".md")))
    first = doc.text.split("\n", 1)[0]
    if first.casefold().startswith(ALIASES):
        fields.update(filed_keys(first[len(ALIASES) :]))
    return fields


def count_keys(text: str) -> tuple[Counter[str], Counter[str]]:
    """How often each key occurs in `text`, and on how many of its lines."""
    tf: Counter[str] = Counter()
    lines: Counter[str] = Counter()
    for part in parts(text):
        per_line = map(map, itertools.repeat(_KEYS.__getitem__), line_tokens(part))
        keyed = list(map(list, per_line))
        tf.update(itertools.chain.from_iterable(keyed))
        lines.update(itertools.chain.from_iterable(map(set, keyed)))
    return tf, lines


def parts(text: str) -> Iterator[str]:
    """`text` in parts of at most `ROWS_AT_ONCE` lines: each part is counted in C with the
    interpreter held, and a 30 MB note must not stop a session's other threads (its
    answers, its watcher) for seconds."""
    if text.count("\n") < ROWS_AT_ONCE:
        yield text
        return
    rows = text.split("\n")
    for at in range(0, len(rows), ROWS_AT_ONCE):
        yield "\n".join(rows[at : at + ROWS_AT_ONCE])


def line_keys(line: str) -> set[str]:
    """The keys one line holds, as `analyze` files them."""
    return {*filed_keys(line), *cjk_chars(line)}


class Query(NamedTuple):
    """The keys a query looks for, and substrings that any line holding one contains."""

    keys: frozenset[str]
    needles: tuple[str, ...]


#: Of a literal: (occurrences, lines holding it) by id, and the ids of the documents to
#: read to count it (`Searchable.literal_counts`).
LiteralCounts = tuple[dict[int, tuple[int, int]], set[int]]


class Searchable(Protocol):
    """What `memory.rank` reads of an index: an `Index`, or `memory.layered_index.Layered`."""

    @property
    def count(self) -> int: ...
    @property
    def avg_size(self) -> float: ...
    @property
    def sizes(self) -> Sequence[int]: ...
    def dailies(self) -> list[tuple[str, str]]: ...
    def docs(self) -> Iterator[Doc]: ...
    def doc(self, doc_id: int) -> Doc: ...
    def rel(self, doc_id: int) -> str: ...
    def get(self, rel: str) -> Doc | None: ...
    def id_of(self, rel: str) -> int | None: ...
    def marked(self, rel: str) -> Doc | None: ...
    def postings(self, key: str) -> array[int]: ...
    def field_ids(self, key: str) -> set[int]: ...
    def literal_counts(self, literal: str) -> LiteralCounts | None:
        """Of the documents that may hold `literal` (`memory.punctuated.findable`) in
        their content or name: (occurrences, lines holding it) of those counted without
        reading them (0, 0 when only the name holds it), and the ids of those to read
        (changed since the index file was written); None when every document must be
        read."""
        ...


def holding(index: Searchable, keys: Iterable[str]) -> set[int]:
    """The ids of the documents that hold any of `keys`, in their content or their name
    (or aliases)."""
    held: set[int] = set()
    for k in keys:
        held.update(index.postings(k)[0::3])
        held.update(index.field_ids(k))
    return held


class Index:
    """Postings of a set of documents, plus the corpus-wide counts BM25 needs.

    Args:
        docs: the documents to index.
        only: index just the keys of one query (a one-shot search), not every key.
        count: how many documents the corpus holds in all (default: those indexed).
        total_size: their bytes in all (default: of those indexed).
        dailies: (date, path) of every daily log in the corpus (default: those indexed).
    """

    def __init__(
        self,
        docs: Iterable[Doc] = (),
        *,
        count: int | None = None,
        total_size: int | None = None,
        dailies: Iterable[tuple[str, str]] | None = None,
        only: Query | None = None,
    ) -> None:
        self._ids: dict[str, int] = {}
        self._docs: list[Doc | None] = []
        self._free: list[int] = []
        # key -> (id, tf, lines) triples, flat: 12 bytes a posting instead of ~150 in tuples
        self._post: dict[str, array[int]] = {}
        self._fields: dict[str, set[int]] = {}
        self.sizes: list[int] = []  #: bytes of each document, by id
        self._daily: dict[str, str] = {}  #: path -> date of each daily log
        self._size = 0
        self._only = only
        for doc in docs:
            self.add(doc)
        self._extra_count = 0 if count is None else count - len(self._ids)
        self._extra_size = 0 if total_size is None else total_size - self._size
        self._dailies = None if dailies is None else sorted(dailies)

    # -- corpus-wide numbers ----------------------------------------------------------

    @property
    def count(self) -> int:
        """Documents in the corpus."""
        return len(self._ids) + self._extra_count

    @property
    def total_size(self) -> int:
        """Bytes of the documents in the corpus."""
        return self._size + self._extra_size

    @property
    def avg_size(self) -> float:
        """Mean document size in bytes (BM25's average length)."""
        return self.total_size / (self.count or 1) or 1.0

    def dailies(self) -> list[tuple[str, str]]:
        """(date, path) of every daily log, oldest first."""
        if self._dailies is not None:
            return self._dailies
        return sorted((date, rel) for rel, date in self._daily.items())

    # -- documents --------------------------------------------------------------------

    def docs(self) -> Iterator[Doc]:
        """The indexed documents."""
        return (d for d in self._docs if d is not None)

    def doc(self, doc_id: int) -> Doc:
        """The document behind an id from `postings`."""
        doc = self._docs[doc_id]
        assert doc is not None, "postings never name a removed document"
        return doc

    def rel(self, doc_id: int) -> str:
        """The path of the document behind an id from `postings`."""
        return self.doc(doc_id).rel

    def get(self, rel: str) -> Doc | None:
        """The indexed document at `rel`, if any."""
        i = self._ids.get(rel)
        doc = None if i is None else self._docs[i]
        # Asked outside a session's lock (a snippet), the id may be reused meanwhile.
        return doc if doc is not None and doc.rel == rel else None

    def id_of(self, rel: str) -> int | None:
        """The id of the indexed document at `rel`, if any."""
        return self._ids.get(rel)

    def marked(self, rel: str) -> Doc | None:
        """The note at `rel` if it may be superseded (`memory.forget.may_be_superseded`)."""
        doc = self.get(rel)
        return doc if doc is not None and may_be_superseded(doc) else None

    def postings(self, key: str) -> array[int]:
        """(id, tf, lines) triples, flat, of the documents whose content holds `key`."""
        return self._post.get(key, _EMPTY)

    def field_ids(self, key: str) -> set[int]:
        """Ids of the documents whose name or aliases line holds `key`."""
        return self._fields.get(key, set())

    def literal_counts(self, literal: str) -> LiteralCounts | None:
        """None: the documents are in memory, each is read for a literal."""
        return None

    # -- changes ----------------------------------------------------------------------

    def prepare(self, doc: Doc) -> Analysis:
        """`doc`'s keys as `add` files them: the slow part, to do before taking a lock."""
        return analyze(doc, self._only)

    def add(
        self,
        doc: Doc,
        analysis: Analysis | None = None,
        old: tuple[Doc, Analysis] | None = None,
    ) -> None:
        """Index `doc`, replacing the document at the same path.

        Args:
            doc: the document.
            analysis: `prepare(doc)`, if done already.
            old: the document this replaces and its `prepare`, if done already.
        """
        self.remove(doc.rel, old)
        i = self._free.pop() if self._free else len(self._docs)
        if i == len(self._docs):
            self._docs.append(doc)
            self.sizes.append(doc.size)
        else:
            self._docs[i] = doc
            self.sizes[i] = doc.size
        if doc.kind == "daily":
            self._daily[doc.rel] = doc.key
        self._ids[doc.rel] = i
        self._size += doc.size
        a = analysis or analyze(doc, self._only)
        for k, n in a.tf.items():
            self._post.setdefault(k, array("I")).extend((i, n, a.lines[k]))
        for k in a.fields:
            self._fields.setdefault(k, set()).add(i)

    def remove(self, rel: str, old: tuple[Doc, Analysis] | None = None) -> None:
        """Forget the document at `rel` (no-op when absent); `old` as for `add`."""
        i = self._ids.pop(rel, None)
        if i is None:
            return
        doc = self._docs[i]
        assert doc is not None
        # Re-derived, not stored: memory is what an index costs.
        a = old[1] if old is not None and old[0] is doc else analyze(doc, self._only)
        for k in a.tf:
            post = self._post[k]
            for j in range(0, len(post), 3):
                if post[j] == i:
                    del post[j : j + 3]
                    break
            if not post:
                del self._post[k]
        for k in a.fields:
            ids = self._fields[k]
            ids.discard(i)
            if not ids:
                del self._fields[k]
        self._size -= doc.size
        self._daily.pop(rel, None)
        self._docs[i] = None
        self._free.append(i)


_EMPTY: array[int] = array("I")

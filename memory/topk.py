"""The best documents for a query without adding up every posting of a common word: the
threshold algorithm (Fagin, Lotem and Naor) over each key's scores, kept by a session.

`memory.rank` adds, for each document, its score for each query key. A word found in
most files has a posting in most files, and adding them up one by one is most of what a
search in a session costs. A session's index lives between searches, so each key's
scores (`Column`: what `rank.BM25.add` gives for that key alone) are kept, with the
document ids best first. The best documents are then read from the top of each column:
a document not read yet scores at most the sum of the scores where each column stands
(a sum of keys only; the few documents whose score is more than that sum — named by a
key, or a daily log or MEMORY.md, which recency raises — are scored first), so once
`limit` documents score above that sum, no other can rank among them. Every document
read is scored in full by `rank.BM25`, as a ranking of every document would score it:
the ranking is the same (tests/memory/test_layered.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from memhooks.memory.rank import BM25, Sums, _best, boosts

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from memhooks.memory.index import Searchable

#: Columns kept per index (its recent queries' keys) before they are all dropped.
MAX_COLUMNS = 64
#: Ids read from each column per round at first (doubled each round).
FIRST_READ = 32
#: Past this share of the matching documents read one by one, all are scored at once.
READ_SHARE = 0.25


class Column(NamedTuple):
    """One key's scores over an index, as `BM25.add` gives them for that key alone."""

    w: float  #: the key's weight (idf)
    sums: Sums  #: per id: score, lines, whether its content holds the key, by name
    holders: set[int]  #: ids whose content or name holds the key
    order: list[int]  #: ids whose content holds the key, best score first


def top(
    index: Searchable,
    qkeys: Sequence[str],
    bm25: BM25,
    columns: dict[tuple[str, int, float], Column],
    limit: int,
) -> tuple[list[int], Sums, dict[str, set[int]], int, dict[str, float]]:
    """The `limit` best ids for `qkeys` as `rank` orders them, the sums of those read,
    each key's holders, how many documents match, and each key's weight.

    Args:
        index: the corpus.
        qkeys: the query's keys, in query order.
        bm25: the scoring over `index`.
        columns: kept columns (the index empties it when a document changes).
        limit: how many to find.
    """
    if len(columns) > MAX_COLUMNS:
        columns.clear()
    cols = [_column(index, k, bm25, columns) for k in qkeys]
    found = _Found(index, cols, bm25)
    # Scored first: those that can score more than their sum of keys.
    named = set().union(*(c.sums.by_name for c in cols))
    raised = [i for i in boosts(index) if any(i in c.holders for c in cols)]
    found.admit([*named, *raised])
    at, step = 0, FIRST_READ
    matches = len(set().union(*(c.holders for c in cols)))
    while True:
        bound, left = 0.0, False
        for c in cols:  # summed in query order, as a document's score is
            if at < len(c.order):
                bound += c.sums.score[c.order[at]]
                left = True
        if not left or found.above(bound) >= limit:
            break
        if (at + step) * len(cols) > matches * READ_SHARE:
            # Many keys, each in many files (a long prompt): every file matters.
            found.admit_all()
            break
        found.admit(i for c in cols for i in c.order[at : at + step])
        at, step = at + step, step * 2
    sums = found.sums
    best = _best(index, sums.score, sums.content, limit)
    found.lines(best)
    holders = {k: c.holders for k, c in zip(qkeys, cols, strict=True)}
    idf = {k: c.w for k, c in zip(qkeys, cols, strict=True)}
    return best, sums, holders, matches, idf


class _Found:
    """The documents read so far, each scored in full."""

    def __init__(self, index: Searchable, cols: list[Column], bm25: BM25) -> None:
        self._index, self._cols, self._bm25 = index, cols, bm25
        self.sums = Sums()
        self._all = False  #: every document was scored, its lines not counted

    def admit(self, ids: Iterable[int]) -> None:
        """Score the documents of `ids` not read yet."""
        sums, cols = self.sums, self._cols
        new = Sums()
        for i in ids:
            if i in sums.score or i in new.score or i in new.by_name:
                continue
            for c in cols:
                x = c.sums.score.get(i)
                if x is not None:
                    new.score[i] = new.score.get(i, 0.0) + x
                    new.lines[i] = new.lines.get(i, 0) + c.sums.lines[i]
                    new.content.add(i)
                elif i in c.sums.by_name:
                    new.by_name.setdefault(i, []).append(c.w)
        self._bm25.finish(self._index, new)
        sums.score.update(new.score)
        sums.lines.update(new.lines)
        sums.content.update(new.content)

    def admit_all(self) -> None:
        """Score every document that holds a key: column by column, not document by
        document (what `rank` does without columns, minus the formula)."""
        cols, sums = self._cols, Sums()
        score = sums.score
        for c in cols:
            for i, x in c.sums.score.items():
                score[i] = score.get(i, 0.0) + x
            for i in c.sums.by_name:
                sums.by_name.setdefault(i, []).append(c.w)
        sums.content = set(score)
        self._bm25.finish(self._index, sums)
        self.sums, self._all = sums, True

    def lines(self, ids: Iterable[int]) -> None:
        """Count the lines of these ids (read all at once: counted only for the best)."""
        if self._all:
            lines, cols = self.sums.lines, self._cols
            for i in ids:
                lines[i] = sum(c.sums.lines.get(i, 0) for c in cols)

    def above(self, bound: float) -> int:
        """How many documents read hold a key in their content and score above `bound`."""
        score = self.sums.score
        return sum(1 for i in self.sums.content if score[i] > bound)


def _column(
    index: Searchable,
    key: str,
    bm25: BM25,
    columns: dict[tuple[str, int, float], Column],
) -> Column:
    at = (key, index.count, bm25.avg)
    col = columns.get(at)
    if col is None:
        post, named = index.postings(key), index.field_ids(key)
        holders = named.union(post[0::3])
        w = bm25.idf(index.count, len(holders))
        sums = Sums()
        bm25.add(sums, w, post, named)
        order = sorted(sums.score, key=sums.score.__getitem__, reverse=True)
        col = columns[at] = Column(w, sums, holders, order)
    return col

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

A long prompt holds several words found in most files, and the sum where each column
stands falls too slowly to stop early. Each column then also keeps its scores rounded up
to a 16th, one 16-bit lane per document in one integer (`memory.lanes`): adding a few
such integers bounds every document's sum at once, in C (a document named by a key
gets there what its name can add at most), and only the documents whose bound reaches
the `limit`-th best score read so far are scored.
"""

from __future__ import annotations

import heapq
from itertools import chain, compress
from operator import add
from typing import TYPE_CHECKING

from memhooks.memory.bounds import bounded
from memhooks.memory.column import DENSE_SHARE, column
from memhooks.memory.rank import BM25, Sums, _best

if TYPE_CHECKING:
    from collections.abc import Container, Iterable, Sequence

    from memhooks.memory.column import Column
    from memhooks.memory.index import Searchable

#: Ids read from each column per round at first (doubled each round).
FIRST_READ = 32
#: Past this share of the matching documents read one by one, all are scored at once.
READ_SHARE = 0.25
#: A query with this many keys each in many files (`DENSE_SHARE`) scores every document
#: at once: reading each column from the top would not find a bound that stops early.
DENSE_KEYS = 3
#: A query whose matching documents times its keys are at most the ids over this scores
#: each of them at once (a bound of every id's score, `memory.bounds`, would cost more).
FEW = 16


class Columns:
    """The columns a session's index keeps (`memory.layered_index.Layered.columns`): `rank`
    asks them for the best documents once each key of the query has its column.

    A common word's column costs more to make than one ranking without it (~20 ms at
    ten thousand notes, and a long prompt holds a dozen such words): a search makes
    the columns of keys in few files only, ranks from the postings while a key in many
    lacks one, and leaves it to `build`, which the session process calls between events.
    """

    def __init__(self) -> None:
        self._kept: dict[tuple[str, int, float], Column] = {}
        #: keys a search lacked a column for, and the index and scoring to make it over
        self._wanted: dict[str, tuple[Searchable, BM25]] = {}
        #: documents the last `top` scored in full (what it cost)
        self.scored = 0

    def clear(self) -> None:
        """Forget every column (a document changed)."""
        self._kept.clear()
        self._wanted.clear()

    def hold(self, index: Searchable, qkeys: Sequence[str], bm25: BM25) -> bool:
        """Whether each of `qkeys` has its column over `index`, made now for a key in
        few files; a key in many that has none is wanted (`build`)."""
        kept, few = self._kept, len(index.sizes) * DENSE_SHARE
        for k in qkeys:
            if (k, index.count, bm25.avg) in kept:
                continue
            if len(index.postings(k)) // 3 + len(index.field_ids(k)) <= few:
                column(index, k, bm25, kept)
        # Asked after: making one may have dropped the others (`MAX_BYTES`).
        lacking = [k for k in qkeys if (k, index.count, bm25.avg) not in kept]
        self._wanted.update(dict.fromkeys(lacking, (index, bm25)))
        return not lacking

    @property
    def wanted(self) -> bool:
        """Whether a search lacked a column that `build` makes."""
        return bool(self._wanted)

    def build(self) -> bool:
        """Make the column of the key wanted first, if any; whether more are wanted."""
        if self._wanted:
            key = next(iter(self._wanted))
            index, bm25 = self._wanted.pop(key)
            column(index, key, bm25, self._kept)
        return bool(self._wanted)

    def top(
        self, index: Searchable, qkeys: Sequence[str], bm25: BM25, limit: int
    ) -> tuple[list[int], Sums, dict[str, Container[int]], int, dict[str, float]]:
        """The `limit` best ids for `qkeys` as `rank` orders them, the sums of those
        read, each key's holders, how many documents match, and each key's weight.

        Args:
            index: the corpus (the index these columns belong to).
            qkeys: the query's keys, in query order.
            bm25: the scoring over `index`.
            limit: how many to find.
        """
        out = top(index, qkeys, bm25, self._kept, limit)
        self.scored = len(out[1].score)
        return out


def top(
    index: Searchable,
    qkeys: Sequence[str],
    bm25: BM25,
    columns: dict[tuple[str, int, float], Column],
    limit: int,
) -> tuple[list[int], Sums, dict[str, Container[int]], int, dict[str, float]]:
    """`Columns.top`, with the columns kept in `columns`."""
    cols = [column(index, k, bm25, columns) for k in qkeys]
    mask = 0
    for c in cols:
        mask |= c.mask
    matches = mask.bit_count()
    found = _Found(index, cols, bm25)
    # Scored first: those that can score more than their lanes' sum (recency raises
    # them; one that holds no key gets no score).
    found.admit(bm25.places(index))
    if matches * len(cols) <= max(len(index.sizes) // FEW, 4 * limit):
        # Few match: scoring each costs less than bounding every id's score.
        found.admit(chain(*(c.order for c in cols), *(c.named for c in cols)))
        found.bounded = True
    elif bounded(found, cols, limit, max(4 * limit, matches * READ_SHARE)):
        pass  # every document that can rank among the first `limit` was scored
    else:
        # Scored next: those that can score more than the columns' sum (named by a key).
        found.admit(set().union(*(c.named for c in cols)))
        if sum(c.dense is not None for c in cols) >= DENSE_KEYS:
            found.admit_all()  # what the rounds below would come to, after costing more
    at, step = 0, FIRST_READ
    while not found.everything and not found.bounded:
        bound, left = 0.0, False
        for c in cols:  # summed in query order, as a document's score is
            if at < len(c.order):
                bound += c.values[at]
                left = True
        if not left or found.above(bound) >= limit:
            break
        if (at + step) * len(cols) > matches * READ_SHARE:
            # Many keys, each in many files (a long prompt): every file matters.
            found.admit_all()
            continue
        found.admit(i for c in cols for i in c.order[at : at + step])
        at, step = at + step, step * 2
    sums = found.sums
    best = _best(index, sums.score, sums.content, limit, bm25.places(index))
    found.lines(best)
    holders: dict[str, Container[int]] = {
        k: _Holders(c) for k, c in zip(qkeys, cols, strict=True)
    }
    idf = {k: c.w for k, c in zip(qkeys, cols, strict=True)}
    return best, sums, holders, matches, idf


class _Holders:
    """The ids whose content or name holds one key."""

    def __init__(self, col: Column) -> None:
        self._col = col

    def __contains__(self, i: object) -> bool:
        # Every content score is > 0 (no shift of a bit set of every id: O(ids)).
        assert isinstance(i, int)
        return self._col.score(i) > 0 or i in self._col.named


class _Found:
    """The documents read so far, each scored in full."""

    def __init__(self, index: Searchable, cols: list[Column], bm25: BM25) -> None:
        self._index, self._cols, self.bm25 = index, cols, bm25
        self.sums = Sums()
        #: every document was scored (its lines not counted)
        self.everything = False
        #: every document that can rank was scored (`memory.bounds`)
        self.bounded = False

    def admit(self, ids: Iterable[int]) -> None:
        """Score the documents of `ids` not read yet: column by column, each in C."""
        sums, cols = self.sums, self._cols
        fresh = [i for i in dict.fromkeys(ids) if i not in sums.score]
        if not fresh:
            return
        # Summed in query order, as a document's score is (adding 0.0 changes no sum).
        total: list[float] = [0.0] * len(fresh)
        lines: list[int] = [0] * len(fresh)
        new = Sums()
        for c in cols:
            total = list(map(add, total, c.scores_of(fresh)))
            lines = list(map(add, lines, c.lines_of(fresh)))
            for i in c.named.intersection(fresh) if c.named else ():
                if not c.score(i):
                    new.by_name.setdefault(i, []).append(c.w)
        # Every content score is > 0: the documents that hold a key are the nonzero ones.
        held = list(compress(fresh, total))
        new.score = dict(zip(held, filter(None, total), strict=True))
        new.lines = dict(zip(held, compress(lines, total), strict=True))
        new.content = set(held)
        self.bm25.finish(self._index, new)
        sums.score.update(new.score)
        sums.lines.update(new.lines)
        sums.content.update(new.content)

    def admit_all(self) -> None:
        """Score every document that holds a key: column by column, not document by
        document (what `rank` does without columns, minus the formula)."""
        cols, sums = self._cols, Sums()
        # Summed column by column in query order, as a document's score is; a common
        # word's column over every id at once, in C (adding its 0.0 changes no sum).
        total = [0.0] * len(self._index.sizes)
        for c in cols:
            if c.dense is not None:
                total = list(map(add, total, c.dense))
            else:
                for i, x in zip(c.order, c.values, strict=True):
                    total[i] += x
        # Every content score is > 0: the documents that hold a key are the nonzero ones.
        sums.score = dict(
            zip(compress(range(len(total)), total), filter(None, total), strict=True)
        )
        sums.content = set(sums.score)
        for c in cols:
            for i in c.named.difference(sums.content):
                sums.by_name.setdefault(i, []).append(c.w)
            for i in c.named.intersection(sums.content):
                if not c.score(i):
                    sums.by_name.setdefault(i, []).append(c.w)
        self.bm25.finish(self._index, sums)
        self.sums, self.everything = sums, True

    def lines(self, ids: Iterable[int]) -> None:
        """Count the lines of these ids (read all at once: counted only for the best)."""
        if self.everything:
            lines, cols = self.sums.lines, self._cols
            for i in ids:
                lines[i] = sum(c.lines(i) for c in cols)

    @property
    def ids(self) -> int:
        """How many ids the index gives out (documents, and ids of those gone)."""
        return len(self._index.sizes)

    def kth(self, k: int) -> float | None:
        """The `k`-th best score of the documents read that hold a key in their
        content (None: fewer were read)."""
        score, content = self.sums.score, self.sums.content
        if len(content) < k:
            return None
        return heapq.nlargest(k, map(score.__getitem__, content))[-1]

    def above(self, bound: float) -> int:
        """How many documents read hold a key in their content and score above `bound`."""
        score = self.sums.score
        return sum(1 for i in self.sums.content if score[i] > bound)

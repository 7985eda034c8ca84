"""Which documents can rank among the first few for a query, from a bound of every
document's score at once (`memory.lanes`): what `memory.topk` scores one by one.

Each column (`memory.column.Column`: one key's scores) adds its lanes to a sum that bounds
each document's score; the documents with the best bounds give a score to beat, and only
those whose bound reaches it are scored.
"""

from __future__ import annotations

from math import ceil
from typing import TYPE_CHECKING, Protocol

from memhooks.memory import lanes
from memhooks.memory.rank import FIELD_WEIGHT

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memhooks.memory.column import Column
    from memhooks.memory.rank import BM25, Sums


class Found(Protocol):
    """The documents read so far, each scored in full (`memory.topk._Found`)."""

    bm25: BM25
    sums: Sums
    bounded: bool

    @property
    def ids(self) -> int: ...

    def admit(self, ids: list[int]) -> None: ...

    def kth(self, k: int) -> float | None: ...


def bounded(found: Found, cols: Sequence[Column], limit: int, most_read: float) -> bool:
    """Score every document that can rank among the first `limit`, by a bound of each
    one's score (its columns' lanes added up): first the `limit` best bounds, to learn
    a score to beat, then all whose bound reaches it. False when no bound is worth it
    (more than `most_read` documents reach it: scoring every one at once costs less).

    A document not read yet is raised by no factor (those were read first), so its
    score is its columns' sum plus what the keys its name alone holds add, at most its
    bound (`_lanes`): one whose bound is below the `limit`-th best score read ranks
    below `limit` documents, ties included.

    Args:
        found: the documents read so far (those recency raises among them).
        cols: the query's columns, in query order.
        limit: how many documents rank.
        most_read: how many documents scored one by one are worth a bound.
    """
    n, bm25 = found.ids, found.bm25
    packed = [_lanes(c, n, bm25) for c in cols]
    most = sum(top for _, top in packed)
    if not most or most >= lanes.TOP:
        return False
    total = sum(ints for ints, _ in packed)
    # `limit` documents reach at least the `limit`-th lane of any column.
    floor = max(
        (lanes.units(c.values[limit - 1]) for c in cols if len(c.values) >= limit),
        default=1,
    )
    # Read: the documents whose bound reaches `lo`, `hits` of them content hits.
    lo, read, hits, best = most + 1, 0, 0, None
    while best is None and lo > 1:
        # `limit` content hits: a document its name alone matched ranks after them.
        lo, reach = _reach(
            total, n, read + limit - hits, floor if not read else 1, lo - 1
        )
        if read and reach.bit_count() > most_read:
            return False
        ids = lanes.ids(reach, n)
        found.admit(ids)
        read, hits = len(ids), sum(i in found.sums.content for i in ids)
        best = found.kth(limit)
    if best is None:
        found.bounded = True  # fewer match: every one was read (`lo` is 1)
        return True
    # Units of the best read, less a little: a float sum rounds.
    need = ceil(best * lanes.SCALE - 1e-6)
    if need < lo:  # (those that reach `lo` or more were read)
        reach = lanes.at_least(total, max(need, 1), n)
        if reach.bit_count() > most_read:
            return False
        found.admit(lanes.ids(reach, n))
    found.bounded = True
    return True


def _reach(total: int, n: int, want: int, lo: int, hi: int) -> tuple[int, int]:
    # Units (`lo` to `hi`) that the bounds of `want` documents reach, few more (1: fewer
    # do), and those documents' lanes (`lanes.at_least`). `want` reach `lo` (or `lo` is
    # 1); the search stops at a count worth reading rather than at the most units: each
    # step costs a pass over every id's lane. A count near it steps up from `lo` (by
    # 1, 2, 4…), a larger one halves the range.
    enough = 2 * want + n // 2048
    reach = lanes.at_least(total, lo, n)
    have = reach.bit_count()
    step = 1 if have <= 4 * enough else 0
    while have > enough and lo < hi:
        mid = min(lo + step, hi) if step else (lo + hi + 1) // 2
        above = lanes.at_least(total, mid, n)
        got = above.bit_count()
        if got >= want:
            lo, reach, have, step = mid, above, got, 2 * step
        else:
            hi, step = mid - 1, 0
    return lo, reach


def _lanes(col: Column, n: int, bm25: BM25) -> tuple[int, int]:
    # The column's scores as lanes (`memory.lanes`), made once, and its largest lane.
    # A document whose name alone holds the key gets what its name can add at most (a
    # name's score is normed by the document's size or by the average, `BM25.finish`:
    # at most that of the smaller, `BM25`'s norm growing with the size).
    if not col.packed:
        sizes, f = bm25.sizes, FIELD_WEIGHT
        w, c0, c1, k1p = col.w, bm25.c0, bm25.c1, bm25.k1p
        by_name = [
            (i, w * f * k1p / (f + c0 + c1 * min(sizes[i], bm25.avg)))
            for i in col.named
            if not col.score(i)
        ]
        if col.dense is not None:
            col.packed.append(lanes.of_dense(col.dense, by_name))
        else:
            col.packed.append(lanes.of_sparse(col.order, col.values, n, by_name))
        firsts = [x for _, x in by_name]
        if len(col.values):
            firsts.append(col.values[0])
        col.packed.append(max(map(lanes.units, firsts), default=0))
    return col.packed[0], col.packed[1]

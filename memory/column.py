"""One key's scores over an index, best first (`Column`): what the threshold algorithm
(`memory.topk`) reads from the top of, made once from the key's postings and kept by a
session's index between searches, at most `MAX_BYTES` of them.

A key in many files keeps its scores in an array over every id, one in few in a dict;
either way each column scores a batch of ids in C (`Column.scores_of`).
"""

from __future__ import annotations

from array import array
from functools import partial
from itertools import repeat
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from memhooks.memory.rank import Sums

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from memhooks.memory.index import Searchable
    from memhooks.memory.rank import BM25

_V = TypeVar("_V", int, float)

#: Bytes of columns kept per index (its recent queries' keys) before all are dropped:
#: a common word's column at 100,000 notes holds ~2.4 MB.
MAX_BYTES = 48 * 2**20
#: A column holds its scores in an array over every id when more than this share of
#: the ids hold its key (a common word), else in a dict.
DENSE_SHARE = 1 / 32


class _Scores(dict[int, float]):
    """A key's scores by id, 0 for an id that does not hold it."""

    def __missing__(self, key: int) -> float:
        return 0.0


class _Counts(dict[int, int]):
    """A key's lines by id, 0 for an id that does not hold it."""

    def __missing__(self, key: int) -> int:
        return 0


class Column(NamedTuple):
    """One key's scores over an index, as `BM25.add` gives them for that key alone."""

    w: float  #: the key's weight (idf)
    score: Callable[[int], float]  #: by id; 0 where its content does not hold the key
    lines: Callable[[int], int]  #: by id: its lines that hold the key
    named: set[int]  #: ids whose name holds the key
    order: array[int]  #: ids whose content holds the key, best score first
    values: array[float]  #: their scores, in that order
    mask: int  #: ids whose content or name holds the key, as a bit set
    nbytes: int  #: about what it holds in memory
    dense: array[float] | None  #: `score` over every id, for a key in many files
    #: `score` as `memory.lanes` (what a name alone adds at most where it alone holds
    #: the key), and the largest lane, once made (until then [])
    packed: list[int]
    scores_of: Callable[[Iterable[int]], Iterator[float]]  #: `score` of each id, in C
    lines_of: Callable[[Iterable[int]], Iterator[int]]  #: `lines` of each id, in C


def column(
    index: Searchable,
    key: str,
    bm25: BM25,
    columns: dict[tuple[str, int, float], Column],
) -> Column:
    """`key`'s column over `index` with `bm25`'s scoring, from `columns` if kept there,
    else made and kept there (all that are kept dropped first, past `MAX_BYTES`)."""
    at = (key, index.count, bm25.avg)
    col = columns.get(at)
    if col is not None:
        return col
    post, named = index.postings(key), index.field_ids(key)
    holders = named.union(post[0::3])
    w = bm25.idf(index.count, len(holders))
    sums = Sums()
    bm25.add(sums, w, post, named)
    scores = sums.score
    order = array("I", sorted(scores, key=scores.__getitem__, reverse=True))
    values = array("d", map(scores.__getitem__, order))
    n = len(index.sizes)
    score: Callable[[int], float]
    lines: Callable[[int], int]
    scores_of: Callable[[Iterable[int]], Iterator[float]]
    lines_of: Callable[[Iterable[int]], Iterator[int]]
    dense: array[float] | None = None
    if len(scores) > n * DENSE_SHARE:
        dense, per_line = array("d", bytes(8 * n)), array("I", bytes(4 * n))
        for i, x in scores.items():
            dense[i] = x
        for i, m in sums.lines.items():
            per_line[i] = m
        score, lines = dense.__getitem__, per_line.__getitem__
        scores_of = partial(map, score)
        lines_of = partial(map, lines)
        held = 12 * n
    else:
        score = _Scores(scores).__getitem__
        lines = _Counts(sums.lines).__getitem__
        scores_of = _getter(scores, 0.0)
        lines_of = _getter(sums.lines, 0)
        held = 200 * len(scores)
    nbytes = held + 12 * len(order) + n // 8 + 2 * n + 100 * len(named)
    if sum(c.nbytes for c in columns.values()) + nbytes > MAX_BYTES:
        columns.clear()
    col = columns[at] = Column(
        w,
        score,
        lines,
        named,
        order,
        values,
        _bits(holders),
        nbytes,
        dense,
        [],
        scores_of,
        lines_of,
    )
    return col


def _getter(
    table: dict[int, _V], missing: _V
) -> Callable[[Iterable[int]], Iterator[_V]]:
    # `table`'s value of each id, `missing` for an id it lacks, in C.
    return lambda ids: map(table.get, ids, repeat(missing))


def _bits(ids: Iterable[int]) -> int:
    out = bytearray()
    for i in ids:
        byte = i >> 3
        if byte >= len(out):
            out.extend(bytes(byte + 1 - len(out)))
        out[byte] |= 1 << (i & 7)
    return int.from_bytes(out, "little")

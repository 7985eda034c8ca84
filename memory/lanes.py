"""Many small non-negative numbers in one integer, 16 bits apiece: what `memory.topk`
adds up to bound every document's score at once.

Python adds, shifts and masks integers of any size in C, a machine word at a time, so
one `+` of two such integers adds every lane: a few operations on 20 KB integers in
place of ten thousand float additions. Scores go in rounded up to 1/`SCALE`, so a sum
of lanes is never below the sum of the scores it stands for.
"""

from __future__ import annotations

import sys
from array import array
from itertools import repeat
from math import ceil
from operator import mul
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

#: Units per score point.
SCALE = 16.0
#: A lane's top bit: a sum of lanes must stay below it (`at_least` needs it free).
TOP = 1 << 15


def of_dense(scores: Sequence[float], more: Iterable[tuple[int, float]] = ()) -> int:
    """A lane per id of `scores` (a score by id), each the score in units, rounded up;
    each id of `more` (id, score) at least that score."""
    units = array("H", map(ceil, map(mul, scores, repeat(SCALE))))
    return _packed(_raised(units, more))


def of_sparse(
    ids: Sequence[int],
    scores: Sequence[float],
    n: int,
    more: Iterable[tuple[int, float]] = (),
) -> int:
    """`n` lanes, the score of each of `ids` in units (rounded up), 0 elsewhere; each id
    of `more` (id, score) at least that score."""
    units = array("H", bytes(2 * n))
    for i, x in zip(ids, scores, strict=True):
        units[i] = ceil(x * SCALE)
    return _packed(_raised(units, more))


def _raised(units: array[int], more: Iterable[tuple[int, float]]) -> array[int]:
    for i, x in more:
        units[i] = max(units[i], ceil(x * SCALE))
    return units


def units(score: float) -> int:
    """`score` in units, rounded up (what its lane holds)."""
    return ceil(score * SCALE)


def _packed(units: array[int]) -> int:
    if sys.byteorder == "big":
        units.byteswap()
    return int.from_bytes(units.tobytes(), "little")


_ONES: dict[int, int] = {}


def ones(n: int) -> int:
    """1 in each of `n` lanes."""
    if n not in _ONES:
        _ONES.clear()
        _ONES[n] = int.from_bytes(b"\x01\x00" * n, "little")
    return _ONES[n]


def at_least(total: int, least: int, n: int) -> int:
    """The lanes of `total` (each below `TOP`) that hold `least` (1 to `TOP`) or more:
    their top bit set, every other bit 0."""
    every = ones(n)
    return (total + (TOP - least) * every) & (TOP * every)


def ids(top_bits: int, n: int) -> list[int]:
    """The ids of the lanes whose top bit is set, of an `at_least`."""
    low = (top_bits >> 15).to_bytes(2 * n, "little")  # each lane's byte: 1 or 0
    out, at = [], low.find(1)
    while at >= 0:
        out.append(at >> 1)
        at = low.find(1, at + 2)
    return out

"""The postings of a document of very many distinct keys (a base64 blob: half a million
in 4 MB), which a build files in runs of its own (`memory.postings`). Pure.

A run of many documents keeps a postings array per key and a table from each token to
it, since its documents share their words (~800 bytes and ~17 µs a key, with the run's
key table): for a document whose keys are nearly all its own, that is most of what its
build costs. Here each key has exactly one posting, so the run is parallel arrays: the
keys, as the UTF-8 names the index file holds, sorted once with how often and on how
many lines each occurs. The tokens are stemmed in one call
(`memory.terms.token_names`), and a token of an ASCII text is its own name.
"""

from __future__ import annotations

import bisect
import itertools
import operator
from array import array
from collections import Counter
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from memhooks.memory.keytable import by_marks
from memhooks.memory.terms import token_names

if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Iterable, Sequence

    from memhooks.memory.terms import Token

_K = TypeVar("_K", bound="Hashable")
_T = TypeVar("_T")


class Keyed(NamedTuple):
    """A document's keys as UTF-8, sorted, with how often each occurs and on how many
    lines."""

    names: list[bytes]
    tfs: array[int]
    lines: array[int]


class Flat(NamedTuple):
    """A run's key names, sorted, with their postings and field ids as flat arrays: those
    of key ``j`` at ``[post_at[j]:post_at[j + 1]]`` and ``[field_at[j]:field_at[j + 1]]``."""

    names: list[bytes]
    posts: array[int]
    post_at: array[int]
    fields: array[int]
    field_at: array[int]


def of_counts(tf: Counter[str], lines: Counter[str]) -> Keyed:
    """`Keyed` of how often each key occurs and on how many lines."""
    keys = sorted(tf)  # UTF-8 keeps the order of code points
    names = [k.encode("utf-8", "surrogatepass") for k in keys]
    return Keyed(names, _ints(tf, keys), _ints(lines, keys))


def of_tokens(counts: list[object]) -> Keyed:
    """`Keyed` of a document's tokens (`memory.terms.line_tokens`): ``[tf, sets]``, how
    often each token occurs and each line's distinct tokens. `counts` is emptied, so
    that they are let go of as soon as they are read.

    Tokens of one key (``deploy`` and ``deploys``) give one key, their occurrences
    summed, each line holding any of them counted once.
    """
    tf: Counter[Token]
    sets: list[set[Token]]
    tf, sets = counts  # type: ignore[assignment]
    counts.clear()
    tokens = list(tf)
    tfs = array("I", tf.values())
    del tf
    # A token that occurs once is on one line: only the others' lines are counted.
    lines = _lines(tokens, sets, set(itertools.compress(tokens, map((1).__lt__, tfs))))
    names = token_names(tokens)
    order = sorted(range(len(names)), key=names.__getitem__)
    pick = _picker(order)
    names, tfs, lines = (
        list(pick(names)),
        array("I", pick(tfs)),
        array("I", pick(lines)),
    )
    del pick
    # Positions whose key is that of the position before: merged into the first.
    same = list(itertools.compress(itertools.count(1), _repeats(names)))
    if not same:
        return Keyed(names, tfs, lines)
    first: dict[Token, int] = {}  # a merged token -> the position of its key's first
    for p in same:
        f = first.setdefault(tokens[order[p - 1]], p - 1)
        first[tokens[order[p]]] = f
        tfs[f] += tfs[p]
    del order, tokens
    merged = set(first)
    held = itertools.chain.from_iterable(
        set(map(first.__getitem__, s & merged)) for s in sets
    )
    for f, n in Counter(held).items():
        lines[f] = n
    keep = bytearray(b"\1") * len(names)
    for p in same:
        keep[p] = 0
    return Keyed(
        list(itertools.compress(names, keep)),
        array("I", itertools.compress(tfs, keep)),
        array("I", itertools.compress(lines, keep)),
    )


def words(i: int, keyed: Keyed, fields: Iterable[str]) -> Flat:
    """The run of the words of document `i`: the keys of `keyed`, each with its one
    (id, tf, lines) posting, and the keys of its name and aliases line (`fields`), which
    have it as their field id (those only they hold have no posting)."""
    names, n = list(keyed.names), len(keyed.names)
    posts = array("I", [i]) * (3 * n)
    posts[1::3], posts[2::3] = keyed.tfs, keyed.lines
    post_len, field_len = array("I", [3]) * n, array("I", [0]) * n
    named = sorted({k.encode("utf-8", "surrogatepass") for k in fields})
    for k in named:
        j = bisect.bisect_left(names, k)
        if j == len(names) or names[j] != k:
            names.insert(j, k)
            post_len.insert(j, 0)
            field_len.insert(j, 0)
        field_len[j] = 1
    ids = array("I", [i]) * len(named)
    return Flat(names, posts, ends(post_len), ids, ends(field_len))


def marked(i: int, held: Counter[tuple[str, int]]) -> Flat:
    """The run of the punctuated strings of document `i` (`memory.punctuated`): `held`,
    how often each is on each line, as (id, line, tf) postings, lines ascending; the
    strings in the order of `memory.keytable.by_marks`."""
    pairs = sorted(held, key=_by_marks)
    strings = list(map(operator.itemgetter(0), pairs))
    new = [True, *map(operator.ne, itertools.islice(strings, 1, None), strings)]
    post_at = array("I", itertools.compress(range(0, 3 * len(pairs), 3), new))
    post_at.append(3 * len(pairs))
    posts = array("I", [i]) * (3 * len(pairs))
    posts[1::3] = array("I", map(operator.itemgetter(1), pairs))
    posts[2::3] = _ints(held, pairs)
    names = [
        s.encode("utf-8", "surrogatepass") for s in itertools.compress(strings, new)
    ]
    field_at = array("I", [0]) * (len(names) + 1)
    return Flat(names, posts, post_at, array("I"), field_at)


def _by_marks(pair: tuple[str, int]) -> tuple[tuple[int, str], int]:
    return by_marks(pair[0]), pair[1]


def _lines(tokens: list[Token], sets: list[set[Token]], many: set[Token]) -> array[int]:
    # On how many lines each of `tokens` is: those not in `many` on one.
    held = Counter(itertools.chain.from_iterable(s & many for s in sets))
    return array("I", map(held.get, tokens, itertools.repeat(1)))


def _picker(order: list[int]) -> Callable[[Sequence[_T]], tuple[_T, ...]]:
    # The items at `order` of a sequence, in one call.
    if len(order) < 2:
        return lambda items: tuple(map(items.__getitem__, order))
    return operator.itemgetter(*order)


def _repeats(names: list[bytes]) -> map[bool]:
    # For each name but the first, whether it is the name before it.
    return map(operator.eq, itertools.islice(names, 1, None), names)


def _ints(counts: Counter[_K], keys: list[_K]) -> array[int]:
    return array("I", map(counts.__getitem__, keys))


def ends(lengths: Iterable[int]) -> array[int]:
    """0, then where each item of `lengths` ends, one after another: ``ends([3, 0, 2])
    == array("I", [0, 3, 3, 5])``."""
    out = array("I", [0])
    out.extend(itertools.accumulate(lengths))
    return out

"""A question's words found together in a file (issue 18). Pure: documents and keys in.

BM25 scores each word of a question on its own, so a long chat log that names Omar on
every line and a van once, far from him, ties with the session where "Omar: the van's
engine broke down". Two subject words of a question that stand next to each other in it
("Omar's van", "field trip", "Theo's workshop") and share a line of a file say more: a
line is the unit people write memory in (a log's entry, a bullet, a chat turn).

`memory.rank` reorders its first `DEPTH` content hits by adding, per such pair of keys,
the rarer key's idf times BM25's saturation of the number of lines holding both. Only
for a question that asks for no time (`memory.question`: "why did Bob decide …", "who
wrote …"): one about the current, latest or first state is decided by time among the
files about its subject, which a line sharing two of its words must not overturn ("which
Node version does lanternboard use" is not answered by "pnpm changeset version →
lanternboard 1.8.0"). Measured with ``memhooks eval`` (docs/search-quality.md).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from memhooks.memory.constants import MEMORY_FILE
from memhooks.memory.index import line_keys
from memhooks.memory.needles import LINES_PER_NEEDLE, fold, lines_holding
from memhooks.memory.stems import stem_needles
from memhooks.memory.timeline import factor

if TYPE_CHECKING:
    from collections.abc import Container, Mapping, Sequence

    from memhooks.memory.corpus import Doc
    from memhooks.memory.index import Searchable

#: How many of the first hits are reordered (the eval sets gave the same from 10 to 50).
DEPTH = 20
#: The bonus of a pair, as a share of the rarer key's weight at that saturation.
WEIGHT = 1.0

Pair = tuple[str, str]


def pairs(qkeys: Sequence[str], frame: Container[str]) -> list[Pair]:
    """The pairs of subject keys next to each other in the query (`frame` keys skipped)."""
    subject = [k for k in qkeys if k not in frame]
    return list(dict.fromkeys(itertools.pairwise(subject)))


def rerank(
    index: Searchable,
    best: list[int],
    score: dict[int, float],
    content: Container[int],
    wanted: Sequence[Pair],
    idf: Mapping[str, float],
    place: Mapping[int, float],
    k1: float,
) -> list[int]:
    """`best` with its first `DEPTH` ids reordered by their score plus the bonus of the
    `wanted` pairs they hold on a line; `score` gets the new scores. Only the `content`
    hits among them move (they come first: a file matched by its name alone holds no
    line). `place`: `timeline.boosts`, for the factor of MEMORY.md (which its score
    has) and the order of ties; `k1`: BM25's saturation (`memory.rank.K1`), here of the
    count of lines holding a pair.
    """
    if not wanted:
        return best
    memory = index.id_of(MEMORY_FILE)
    head = [i for i in best[:DEPTH] if i in content]
    for i in head:
        held = together(index.doc(i), wanted)
        if held:
            extra = sum(
                min(idf[a], idf[b]) * n * (k1 + 1) / (n + k1)
                for (a, b), n in held.items()
            )
            score[i] += WEIGHT * extra * factor(i == memory, place.get(i, 0.0), None)
    head.sort(key=lambda i: (-score[i], -place.get(i, -1.0), index.rel(i)))
    return head + best[len(head) :]


def together(doc: Doc, wanted: Sequence[Pair]) -> dict[Pair, int]:
    """How many lines of `doc` hold both keys of each pair (those holding any).

    Only lines holding a needle of both keys are tokenized, at most `LINES_PER_NEEDLE`
    per key: a common pair in a 20 MB log costs what it costs in a short note.
    """
    folded = fold(doc.text)
    near: dict[str, set[int]] = {}
    for k in {k for pair in wanted for k in pair}:
        near[k] = lines_holding(folded, stem_needles(k), LINES_PER_NEEDLE)[0]
    lines: list[str] | None = None
    held: dict[int, set[str]] = {}
    out: dict[Pair, int] = {}
    for a, b in wanted:
        both = sorted(near[a] & near[b])[:LINES_PER_NEEDLE]
        if not both:
            continue
        lines = doc.text.split("\n") if lines is None else lines
        n = 0
        for i in both:
            here = held.get(i)
            if here is None:
                here = held[i] = line_keys(lines[i])
            n += a in here and b in here
        if n:
            out[a, b] = n
    return out

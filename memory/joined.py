"""A term of words joined by punctuation (``in-memory``, ``read-only``, ``node.js``) in
the ranking. Pure: an index and a query's terms in.

Such a term is matched by its keys (``in``, ``memori``), and most files hold them apart:
a note that says "in" and another that says "Memory" are no answer to ``in-memory``. A
file holding the term as typed (`memory.typed.whole_of`, found as a literal is by
`memory.literals.Literals`) keeps its words at their full weight and gains `WHOLE` of the
term's own rarity; a file holding only some of its words has them at `PART` of theirs.
Measured with ``memhooks eval`` (docs/search-quality.md). A term joined by a slash
(``A/B``, ``dry/wet``) names alternatives, either of which answers it, and one joined by
underscores (``fraud_gbt``, ``default_pool_size``) lost a file that names only ``fraud``
and answers the question by its other words: both are left to their words in the
ranking. Their labels still say what a file holds of them (`memory.typed.parts_held`).
"""

from __future__ import annotations

import itertools
import operator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Container, Sequence

    from memhooks.memory.index import Searchable
    from memhooks.memory.typed import Term

#: Weight of a word of a joined term in a file that does not hold the term whole, as a
#: share of its idf.
PART = 0.6
#: What a file holding a joined term whole gains, as a share of the term's idf.
WHOLE = 0.25
#: Joins that leave a term to its words in the ranking (see above).
_UNRANKED = "_/"


def wholes(index: Searchable, terms: Sequence[Term]) -> dict[str, set[int]]:
    """The ids of the documents holding each joined term of `terms` whole (in their
    content or name), by its whole form; none for a whole form the index did not read
    (`memory.literals.Literals.unread`)."""
    unread: Container[str] = getattr(index, "unread", ())
    return {
        t.whole: set(index.postings(t.whole)[0::3]) | index.field_ids(t.whole)
        for t in terms
        if t.whole and t.keys and t.whole not in unread
    }


def by_key(terms: Sequence[Term], held: dict[str, set[int]]) -> dict[str, set[int]]:
    """Of each key of a ranked joined term, the ids of the documents holding one such
    term whole (`held`: `wholes`)."""
    out: dict[str, set[int]] = {}
    for t in ranked(terms, held):
        for k in t.keys:
            out.setdefault(k, set()).update(held[t.whole])
    return out


def ranked(terms: Sequence[Term], held: Container[str]) -> list[Term]:
    """The joined terms whose whole form changes the ranking (read: in `held`)."""
    return [
        t for t in terms if t.whole in held and not any(c in t.whole for c in _UNRANKED)
    ]


def split(
    w: float, post: Sequence[int], named: set[int], whole: set[int] | None
) -> list[tuple[float, Sequence[int], set[int]]]:
    """A key of weight `w`, postings `post` and names `named` as BM25 adds it up
    (`memory.rank.BM25.score`): as it is, or for a word of a joined term, in full in the
    documents holding the term `whole` and at `PART` in the others."""
    if whole is None:
        return [(w, post, named)]
    triples = list(zip(post[0::3], post[1::3], post[2::3], strict=True))
    inside = [i in whole for i, _, _ in triples]
    outside = map(operator.not_, inside)
    full = list(itertools.chain.from_iterable(itertools.compress(triples, inside)))
    rest = list(itertools.chain.from_iterable(itertools.compress(triples, outside)))
    return [(w, full, named & whole), (w * PART, rest, named - whole)]


def add_wholes(
    index: Searchable,
    score: dict[int, float],
    terms: Sequence[Term],
    held: dict[str, set[int]],
    weight: Callable[[int], float],
) -> None:
    """Add to `score` what each document holding a ranked joined term whole in its
    content gains: `WHOLE` of the term's weight, `weight` of the number of documents
    holding it (BM25's idf), however often it holds it and however long it is."""
    for t in ranked(terms, held):
        gain = weight(len(held[t.whole])) * WHOLE
        for i in set(index.postings(t.whole)[0::3]).intersection(score):
            score[i] += gain

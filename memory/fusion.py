"""Lexical ranking plus candidates found by meaning (docs/design.md, ``[semantic]``). Pure.

The lexical ranking (`memory.rank`) is precise when the query shares its rare words with
a file, and blind when it shares none: a paraphrase, or a question in one language about
a note in another. A sentence encoder sees the second case and is vague in the first, so
fusion lets each decide where it is strong, measured with ``memhooks eval`` (README):

- A file's *meaning* comes from `memory.semantic`: the cosine of its closest chunk plus a
  share of its second closest, where a note's title alone is one of its chunks
  (`memory.chunks`). Here it is rescaled to how far the file stands above the median
  file, over how far the best one does — or over `SPREAD`, when the best stands out by
  less: then the encoder sees no file as much closer than the rest (sessions of one long
  chat, notes that share a topic), and its best guess must not outweigh the words.
- The query's *lexical confidence* is the largest share of its weight (idf of its keys)
  that any one file holds: near 1 when some file has every rare word, low when only
  common words matched anywhere.
- Each file's fused score is ``confidence × lexical + (1 − confidence) × WEIGHT ×
  meaning``, where *lexical* is its BM25 score over the best one's. A query whose words
  were found keeps its lexical order; one whose words were not is ordered by meaning.
- The lexical first hit stays first if it holds at least `KEEP_FIRST` of the query's
  weight: a revised fact is found by its newest log (the recency bonus), which a
  sentence encoder cannot tell from the stale note beside it.
- A file no query key reached (*meaning-only*) enters only if its meaning is at least
  `FLOOR`, at most `MAX_MEANING` of them; the output marks it ``[matched: by meaning]``.
- A question that asks for the latest or the first state (`memory.question`) was put in
  time order by the words: the newest (oldest) log that mentions its subject first
  (`memory.timeline`). An encoder cannot tell a revised fact from the stale one beside
  it, so there the files the words found keep their order among themselves, all but
  the one closest in meaning, which may move up, and above the words' first file only
  when it is written in a script the question does not use: the words barely reach
  it then ("can a Taiwan e-receipt still be voided …" for a note in Chinese).
  Meaning-only files join as above.

On the dev set (150 queries, README) R@1/R@5/R@10: paraphrase 0.17/0.40/0.53 lexical
only, 0.40/0.70/0.77 with meaning by the closest chunk alone, 0.43/0.77/0.83 with the
title chunk and the second chunk's share (neither helps alone: 0.73 R@5 each);
cross-lingual 0.20/0.30/0.60 → 0.50/1.00/1.00; exact, partial, cjk, global, recency and
alias equal to lexical only at every cut-off. The figures hold for the second chunk's
share anywhere in 0.1-0.4, `WEIGHT` 1.25-1.5 (1.0 drops paraphrase R@5 to 0.73; from
1.75 one cjk query falls out of the top 5), `FLOOR` 0.3-0.7 and `KEEP_FIRST` 0.3-0.35
(0.4 loses recency; below 0.3 paraphrase and cross-lingual R@1 drop). The paraphrase
bar (0.75) is met by one query (23 of 30): seven paraphrases stay out of the top 5, four
of them ranked past 10 by both the words and the encoder, where no fusion reaches them.

`SPREAD` (issue 18), measured on the dev set and on ``tests/data/eval`` (R@1/R@5, fused):
with it at 0.2, the chat set (natural questions about long chats, whose sessions the
encoder finds all about equally close: best − median ≈ 0.07-0.1) goes 0.72/0.90 →
0.72/0.93 per conversation and 0.73/0.93 → 0.72/0.94 pooled, the coding set's paraphrase
0.67/0.83 → 0.67/0.92, and every dev category stays as it was (paraphrase 0.40/0.77,
cross-lingual 0.50/1.00); 0.15 gives the same but chat 0.91, 0.25 drops dev paraphrase R@5
to 0.73. A floor under the lexical confidence (0.2-0.3) or `WEIGHT` 1.0-1.25 instead
gained nothing anywhere and cost dev paraphrase.

Also measured and left out: reciprocal-rank fusion, plain or weighted by confidence (it
treats both lists as equally sure: recency R@1 0.80 → 0.50, cross-lingual R@5 down);
pseudo-relevance feedback (Rocchio) on the query vector from the top meaning or fused
files (paraphrase R@5 of the encoder alone 0.57-0.73, fused at best unchanged: the top
files are too often wrong to feed back); section
headings as chunks of their own (paraphrase R@5 0.63-0.73, cjk R@5 down); coverage
instead of BM25 as the lexical score (no change).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Protocol

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from memhooks.memory.corpus import Doc

#: How much meaning weighs against lexical score when the query's words were not found.
WEIGHT = 1.5
#: The lexical first hit keeps its place if it holds this share of the query's weight.
KEEP_FIRST = 0.3
#: A meaning-only file must stand at least this far (0-1) from the median to the best.
FLOOR = 0.5
#: At most this many meaning-only files are added.
MAX_MEANING = 10
#: The least cosine distance between the median and the best file that makes the best
#: one count as fully near in meaning.
SPREAD = 0.2


class Lexical(NamedTuple):
    """One file of the lexical ranking."""

    rel: str
    score: float  #: BM25 score (`memory.rank.Scored.score`)
    coverage: float  #: share (0-1) of the query's idf weight among its keys here


class Meaning(NamedTuple):
    """How close one file is to the query in meaning, and where."""

    rel: str
    similarity: float  #: cosine of the query and the file's closest chunks (0-1)
    start: int  #: the closest chunk's first line
    end: int  #: one past its last line
    script: str = ""  #: what the file is mainly written in (`memory.terms.script`)


class Fused(NamedTuple):
    """One file of the fused ranking."""

    rel: str
    by_meaning: bool  #: found by meaning only (no query key in it)


class MeaningSource(Protocol):
    """Anything that scores documents by meaning (`memory.semantic.SemanticIndex`)."""

    def similar(self, query: str, docs: Sequence[Doc]) -> list[Meaning]:
        """One `Meaning` per document that has text, in any order."""
        ...


def fuse(
    lexical: Sequence[Lexical],
    meaning: Sequence[Meaning],
    *,
    timed: bool = False,
    asked: Collection[str] = (),
) -> list[Fused]:
    """Merge the lexical ranking with meaning scores.

    Args:
        lexical: the lexical hits, best first (as `memory.rank.rank` orders them).
        meaning: similarity of every document in scope (the median is taken over them).
        timed: the question asks for the latest or the first state: the lexical hits
            keep their order among themselves but for the one closest in meaning, which
            may move up, above the first lexical hit only if written in a script not
            `asked`.
        asked: the scripts the question uses (`memory.terms.scripts`).

    Returns:
        Every lexical hit and the meaning-only files that pass `FLOOR`, best first.

    Example:
        With no lexical hits at all, the result is the files closest in meaning.
    """
    if not meaning:
        return [Fused(x.rel, False) for x in lexical]
    sims = sorted(m.similarity for m in meaning)
    median, best = sims[len(sims) // 2], sims[-1]
    span = max(best - median, SPREAD)
    near = {m.rel: max(0.0, (m.similarity - median) / span) for m in meaning}
    top = max((x.score for x in lexical), default=0.0) or 1.0
    confidence = max((x.coverage for x in lexical), default=0.0)
    found = {x.rel for x in lexical}
    extra = sorted(
        (m for m in meaning if m.rel not in found and near[m.rel] >= FLOOR),
        key=lambda m: (-m.similarity, m.rel),
    )[:MAX_MEANING]

    def fused(rel: str, score: float) -> float:
        return confidence * score / top + (1 - confidence) * WEIGHT * near.get(rel, 0.0)

    scored = [
        (fused(x.rel, x.score), i, Fused(x.rel, False)) for i, x in enumerate(lexical)
    ]
    scored += [(fused(m.rel, 0.0), len(lexical), Fused(m.rel, True)) for m in extra]
    # Ties keep the lexical order (the index), then path order for meaning-only files.
    scored.sort(key=lambda t: (-t[0], t[1], t[2].rel))
    out = [f for _, _, f in scored]
    # Only a question about the latest or first state looks for the closest file.
    closest = min(meaning, key=lambda m: (-m.similarity, m.rel)) if timed else None
    if lexical and (
        lexical[0].coverage >= KEEP_FIRST
        or (closest is not None and closest.script in asked)
    ):
        first = Fused(lexical[0].rel, False)
        out = [first, *(f for f in out if f.rel != first.rel)]
    if closest is not None:
        # The places of the lexical hits, filled again in the words' (time) order.
        held = [Fused(x.rel, False) for x in lexical if x.rel != closest.rel]
        fixed, order = {f.rel for f in held}, iter(held)
        out = [next(order) if f.rel in fixed else f for f in out]
    return out


__all__ = [
    "FLOOR",
    "KEEP_FIRST",
    "MAX_MEANING",
    "SPREAD",
    "WEIGHT",
    "Fused",
    "Lexical",
    "Meaning",
    "MeaningSource",
    "fuse",
]

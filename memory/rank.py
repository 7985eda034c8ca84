"""Scoring for the default ranking (docs/design.md, "beyond the baseline"). Pure: an index in.

Each file is scored with BM25 over its keys (`memory.terms`): a key found in few files
weighs more than one found in most, so a query's stopwords cannot decide the order, and
repeats count with diminishing returns against the file's length — its size in bytes,
which the one-shot search can know of a file without tokenizing it (the dev set's eval
is the same as with the count of keys, README). The file name and a
note's ``aliases:`` line are short fields a writer chose to describe the file, so a key
there counts as if it occurred a few more times.

A later daily log often revises what an older log or a note says, so time counts where the
question asks for it (`memory.question`), as a factor of a daily log's score by its place
in the timeline (`memory.timeline`): a question about the latest state puts the newest log
that mentions its subject about as well as the best first, one about the first state the
oldest (or a note); one in the present tense or with no verb gives newer logs a little
more, one in the past tense ("why did Bob decide …") nothing, as its answer may lie in any
old session. Exact ties still go to the newer log. Words of the question's frame ("what",
"did", "would", 的, 吗) weigh `FRAME` of their idf: they may break a near tie but not
decide. A file that holds none of the names a question uses ("Jonas", "Redis") keeps half
its score (`memory.names`).

Shape (for `memory.topk`): a sum over the query's keys of ``w_k · tf-saturation`` (``w_k``
is idf, or `FRAME` × idf for a frame key), times a per-document factor of at least 1 known
from the file alone (its date, or MEMORY.md); for a latest or first question, the logs
scoring within ``timeline.LEAD`` of the best then move ahead.

Departures from docs/design.md rules 1-6, each measured with ``memhooks eval`` (README): MEMORY.md
is not put first but gets a bonus (first cost overall R@1 0.72 → 0.26 on the dev set);
rules 2, 4 and 5 become the score; rule 3 (content before filename-only) and rule 6
(path) stay.
"""

from __future__ import annotations

import heapq
import itertools
import math
from typing import TYPE_CHECKING, NamedTuple

from memhooks.memory.constants import MEMORY_FILE
from memhooks.memory.joined import add_wholes, by_key, split, wholes
from memhooks.memory.names import demote_unnamed
from memhooks.memory.proximity import DEPTH, Pair, pairs, rerank
from memhooks.memory.timeline import LEADING, boosts, factor, lead
from memhooks.memory.typed import parts_held
from memhooks.memory.values import credit, dated

if TYPE_CHECKING:
    from collections.abc import Container, Iterable, Mapping, Sequence

    from memhooks.memory.index import Searchable
    from memhooks.memory.question import Reading, When
    from memhooks.memory.typed import Term

# BM25's usual constants; the dev set showed no gain away from them (README).
K1 = 1.2
B = 0.75
#: Extra occurrences credited to a key in the file name or on the aliases line.
FIELD_WEIGHT = 2.0
#: Weight of a subject-less key (`memory.question`), as a share of its idf.
FRAME = 0.2
#: No output shows more files than this (a page, eval's top 10, auto-search's few).
MAX_HITS = 200
#: Postings per document past which a ranking adds up scores in a list over every id.
DENSE = 0.25


class Scored(NamedTuple):
    """One matching document, its score and what it matched."""

    rel: str
    id: int  #: its id in the index (the document is read only if its snippet is made)
    score: float
    matched: tuple[str, ...]  #: typed terms, in query order
    lines: int  #: lines holding a query key, counted per key
    found: tuple[str, ...]  #: the query keys it holds
    filename_only: bool


class Ranking(NamedTuple):
    """The best matching documents, how many matched in all, and each query key's idf."""

    scored: list[Scored]
    total: int
    idf: dict[str, float]


def rank(
    index: Searchable,
    terms: Sequence[Term],
    limit: int = MAX_HITS,
    *,
    reading: Reading | None = None,
) -> Ranking:
    """Score every indexed document that holds a query key; keep the best `limit`.

    Args:
        index: the corpus (or the part of it that can match, with corpus-wide counts).
        terms: the query, from `query_terms`.
        limit: how many to return (no output shows more; the total is still counted).
        reading: the question's frame (`memory.question.read`): its subject-less keys
            weigh `FRAME` of their idf (unless it has no other), and a time it asks for
            favours newer or older daily logs.

    Returns:
        The best matching documents — content hits before filename-only ones, each group
        by descending score, then path —, the number that matched, and the idf of each
        query key (for `focus`).
    """
    qkeys = list(dict.fromkeys(k for t in terms for k in t.keys))
    if not qkeys or not index.count:
        return Ranking([], 0, {})
    n, avg = index.count, index.avg_size
    when = reading.when if reading is not None else None
    frame = reading.subjectless if reading is not None else frozenset()
    names = reading.named if reading is not None else frozenset()
    weighs = {k for k in qkeys if k not in frame} or set(qkeys)
    bm25 = BM25(index.sizes, avg, when)
    near = pairs(qkeys, frame) if when is None else []  # `memory.proximity`
    want = max(limit, DEPTH) if near else limit  # reordered, then cut to `limit`
    columns = getattr(index, "columns", None)
    whole = wholes(index, terms)  # `memory.joined`: ``in-memory`` as typed
    if (
        columns is not None
        and not whole
        and len(weighs) == len(qkeys)
        and when not in LEADING
        and not names
        and columns.hold(index, qkeys, bm25)
    ):
        # A session's index keeps each key's scores, made between searches: the best
        # are found without adding up every posting of a common word
        # (`memory.topk.Columns`). Not for frame words at a share of their weight, logs
        # moved ahead or files without the question's names: those are scored in full.
        found, kept, holders, total, weights = columns.top(index, qkeys, bm25, want)
        found = _near_first(index, found, kept, weights, bm25, near)[:limit]
        return _ranking(index, terms, qkeys, found, kept, holders, total, weights)
    sums = Sums()
    idf: dict[str, float] = {}
    keyed = []
    parted = by_key(terms, whole)
    for k in qkeys:
        post, named = index.postings(k), index.field_ids(k)
        # Its holders: no set of a common word's thousands of ids (each id posts once).
        w = bm25.idf(n, len(post) // 3 + len(named.difference(post[0::3])))
        idf[k] = w = w if k in weighs else w * FRAME
        keyed.extend(split(w, post, named, parted.get(k)))
        sums.uncounted.append(post)
    if sum(map(len, sums.uncounted)) >= 3 * DENSE * len(index.sizes):
        bm25.score_all(sums, keyed)  # the common words of a long prompt
    else:
        for w, held, named in keyed:
            bm25.score(sums, w, held, named)
    posts = dict(zip(qkeys, sums.uncounted, strict=True))
    add_wholes(index, sums.score, terms, whole, lambda df: bm25.idf(n, df))
    bm25.finish(index, sums)
    score, content = sums.score, sums.content
    if names:
        demote_unnamed(index, score, names)  # `memory.names`
    if when in LEADING and score:
        asks, place = reading.asks if reading else (), bm25.places(index)
        stated = credit(index, score, asks, weighs, idf, place, when)  # `memory.values`
        lead(index, score, place, stated, oldest=when == "first", dated=dated(asks))
    best = _best(index, score, content, want, bm25.places(index))
    best = _near_first(index, best, sums, idf, bm25, near)[:limit]
    sums.count_lines(best)
    top = set(best)  # which keys each of the best holds: no set of a common word's ids
    holders = {k: top.intersection(posts[k][0::3]) | index.field_ids(k) for k in qkeys}
    holders |= whole
    return _ranking(index, terms, qkeys, best, sums, holders, len(score), idf)


class Sums:
    """The running sums of one ranking, per document id."""

    def __init__(self) -> None:
        self.score: dict[int, float] = {}
        self.lines: dict[int, int] = {}  #: lines holding a query key, counted per key
        self.content: set[int] = set()  #: ids whose content holds a query key
        self.by_name: dict[int, list[float]] = {}  #: idf of keys only its name holds
        #: postings whose lines are not in `lines` yet (`BM25.score`)
        self.uncounted: list[Sequence[int]] = []

    def count_lines(self, ids: Iterable[int]) -> None:
        """Add to `lines` what the postings scored without them hold for these ids."""
        ids, lines = list(ids), self.lines
        for post in self.uncounted:
            held = dict(zip(post[0::3], post[2::3], strict=True))
            for i in ids:
                lines[i] = lines.get(i, 0) + held.get(i, 0)
        self.uncounted = []


class BM25:
    """The score of a document for the keys it holds: BM25 over a corpus of documents
    of these `sizes` (by id), `avg` bytes on average."""

    def __init__(self, sizes: Sequence[int], avg: float, when: When | None = None):
        self.sizes, self.avg, self.when = sizes, avg, when
        # BM25's length norm, K1 * (1 - B + B * size / avg), as c0 + c1 * size: `add`
        # runs once per posting, thousands of times for a common word.
        self.c0, self.c1, self.k1p = K1 * (1 - B), K1 * B / avg, K1 + 1
        self._place: dict[int, float] | None = None

    def places(self, index: Searchable) -> dict[int, float]:
        """`timeline.boosts` of `index`, worked out once per ranking."""
        if self._place is None:
            self._place = boosts(index, self.when)
        return self._place

    @staticmethod
    def idf(n: int, df: int) -> float:
        """A key's weight, held by `df` of `n` documents: BM25's idf with +1 inside the
        log, so a key in every file weighs little but not < 0."""
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def add(self, sums: Sums, w: float, post: Sequence[int], named: set[int]) -> None:
        """Add one key of weight `w` to `sums`: its postings (flat (id, tf, lines)
        triples), and the ids whose name holds it."""
        self.score(sums, w, post, named)
        lines = sums.lines
        for i, n_lines in zip(post[0::3], post[2::3], strict=True):
            lines[i] = lines.get(i, 0) + n_lines

    def score(self, sums: Sums, w: float, post: Sequence[int], named: set[int]) -> None:
        """`add` but for the lines: the scores alone (`Sums.count_lines` for the few
        ranked first)."""
        score, sizes = sums.score, self.sizes
        c0, c1, k1p = self.c0, self.c1, self.k1p
        ids = post[0::3]
        sums.content.update(ids)
        get = score.get
        if named:
            for i, tf in zip(ids, post[1::3], strict=True):
                f = tf + (FIELD_WEIGHT if i in named else 0.0)
                score[i] = get(i, 0.0) + w * f * k1p / (f + c0 + c1 * sizes[i])
            for i in named.difference(ids):
                sums.by_name.setdefault(i, []).append(w)
        else:
            # The loop a common word runs thousands of times, as lean as it goes (an
            # int tf computes as the float `tf + 0.0` would).
            for i, tf in zip(ids, post[1::3], strict=True):
                score[i] = get(i, 0.0) + w * tf * k1p / (tf + c0 + c1 * sizes[i])

    def score_all(
        self, sums: Sums, keyed: Iterable[tuple[float, Sequence[int], set[int]]]
    ) -> None:
        """`score` for each key in turn, of weight `w`, postings `post` and ids `named`,
        as `score` adds them up (the same floats, in the same order), with fewer
        operations per posting: each document's sum in a list over every id, the
        products of `tf` looked up, the length term of each size worked out once."""
        c0, k1p = self.c0, self.k1p
        total = [0.0] * len(self.sizes)
        size = list(map(self.c1.__mul__, self.sizes))  # c1 * sizes[i], once
        by_name = sums.by_name
        for w, post, named in keyed:
            ids, tfs = post[0::3], post[1::3]
            # By tf: a list (looked up faster than a dict) unless a tf is huge.
            num: Mapping[int, float] | list[float]
            den: Mapping[int, float] | list[float]
            if max(tfs, default=0) <= 1024:
                num = [w * tf * k1p for tf in range(max(tfs, default=0) + 1)]
                den = [tf + c0 for tf in range(max(tfs, default=0) + 1)]
            else:
                num = {tf: w * tf * k1p for tf in set(tfs)}
                den = {tf: tf + c0 for tf in set(tfs)}
            if named:
                for i, tf in zip(ids, tfs, strict=True):
                    if i in named:
                        f = tf + FIELD_WEIGHT
                        total[i] += w * f * k1p / (f + c0 + size[i])
                    else:
                        total[i] += num[tf] / (den[tf] + size[i])
                for i in named.difference(ids):
                    by_name.setdefault(i, []).append(w)
            else:
                for i, tf in zip(ids, tfs, strict=True):
                    total[i] += num[tf] / (den[tf] + size[i])
        # Every content score is > 0: the documents that hold a key are the nonzero ones.
        held = list(itertools.compress(range(len(total)), total))
        sums.score.update(zip(held, filter(None, total), strict=True))
        sums.content.update(held)

    def finish(self, index: Searchable, sums: Sums) -> None:
        """Add what names alone matched, then the factor of each daily log's place in
        the timeline (and of MEMORY.md) for the time the question asks, to `sums`."""
        score, content, sizes = sums.score, sums.content, self.sizes
        c0, c1, k1p = self.c0, self.c1, self.k1p
        for i, weights in sums.by_name.items():
            # A file matched by its name alone is judged by the name, not by the length
            # of a body that holds no query word: its score is length-neutral (norm at
            # the average).
            norm = c0 + c1 * (sizes[i] if i in content else self.avg)
            f = FIELD_WEIGHT
            for w in weights:
                score[i] = score.get(i, 0.0) + w * f * k1p / (f + norm)
        memory = index.id_of(MEMORY_FILE)
        for i, place in self.places(index).items():
            if i in score:
                score[i] *= factor(i == memory, place, self.when)


def _near_first(
    index: Searchable,
    best: list[int],
    sums: Sums,
    idf: Mapping[str, float],
    bm25: BM25,
    near: Sequence[Pair],
) -> list[int]:
    # `best`, its first files reordered by the pairs of the question's words each holds
    # on a line (`memory.proximity`).
    place = bm25.places(index)
    return rerank(index, best, sums.score, sums.content, near, idf, place, K1)


def _ranking(
    index: Searchable,
    terms: Sequence[Term],
    qkeys: list[str],
    best: list[int],
    sums: Sums,
    holders: Mapping[str, Container[int]],
    total: int,
    idf: dict[str, float],
) -> Ranking:
    score, lines, content = sums.score, sums.lines, sums.content
    scored = []
    for i in best:
        hit = {k for k, ids in holders.items() if i in ids}
        matched = tuple(m for t in terms for m in parts_held(t, hit))
        ordered = tuple(k for k in qkeys if k in hit)
        rel, n_lines = index.rel(i), lines.get(i, 0)
        scored.append(
            Scored(rel, i, score[i], matched, n_lines, ordered, i not in content)
        )
    return Ranking(scored, total, idf)


def _best(
    index: Searchable,
    score: dict[int, float],
    content: set[int],
    limit: int,
    place: Mapping[int, float],
) -> list[int]:
    # The `limit` best ids: content hits before filename-only ones, by descending score,
    # then (on an exact tie) daily logs newest first, then by path. Paths are looked up
    # only among the few at the top (with every tie at the cut): a common word matches
    # thousands of files. `place`: `timeline.boosts`.
    out: list[int] = []
    for group in (content, score.keys() - content):
        room = limit - len(out)
        if room <= 0:
            break
        ids = list(group)
        if len(ids) > room:
            values = list(map(score.__getitem__, ids))
            edge = heapq.nlargest(room, values)[-1]
            ids = list(itertools.compress(ids, map(edge.__le__, values)))
        ids.sort(key=lambda i: (-score[i], -place.get(i, -1.0), index.rel(i)))
        out += ids[:room]
    return out

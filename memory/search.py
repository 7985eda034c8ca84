"""Search as discovery (spec §4): which files to read, ranked so truncation drops the least
relevant. Pure: a corpus and a query in, a result out; `render_text` and `to_json` format it.

Baseline semantics are zerostack's: the query splits on whitespace into literal,
case-insensitive terms; a line matches if it contains any term; each file shows its
matching lines with ±3 lines of context, adjacent windows merged, at most 5 windows.

The default ranking (``ranking="default"``) keeps that output and matches on keys instead
of substrings: stemmed words and CJK bigrams (`memory.terms`), scored by `memory.rank`.
A typed term's ``term(N)`` count is then the number of lines holding *all* its keys (the
term as a whole, up to stemming). A term found only in parts, e.g. two characters of a
Chinese phrase, still reports ``(0, N partial)``: the phrase as typed is nowhere, and the
model should know that before it trusts the files ranked by the parts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NamedTuple

from memhooks.memory.constants import (
    DEFAULT_SEARCH_BUDGET,
    FILENAME_PREVIEW_LINES,
    SEARCH_CONTEXT_LINES,
    SEARCH_MAX_WINDOWS,
)
from memhooks.memory.index import Index
from memhooks.memory.rank import count_lines, focus, query_terms, rank
from memhooks.memory.text import cut, nbytes, neutralise

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from memhooks.memory.corpus import Doc
    from memhooks.memory.fusion import Meaning, MeaningSource
    from memhooks.memory.index import Searchable
    from memhooks.memory.rank import Scored


class Hit:
    """One file in the ranking (equal to another by all but how its snippet is made).

    Args:
        rel: its path.
        matched: query terms it matched, in query order.
        filename_only: only its name (or aliases line) matched.
        source: the snippet, or how to make it: only the files shown need one, so it is
            made when asked.
        lines_matched: lines holding a query key, counted per key.
        by_meaning: found by meaning only (the ``[semantic]`` extra): no query key in
            it, `matched` empty.
    """

    # A plain class, not a dataclass: importing dataclasses costs a one-shot search
    # more than its ranking does (README, "Speed").
    __slots__ = (
        "_snippet",
        "by_meaning",
        "filename_only",
        "lines_matched",
        "matched",
        "rel",
        "source",
    )

    def __init__(
        self,
        rel: str,
        matched: tuple[str, ...],
        filename_only: bool,
        source: str | Callable[[], str],
        lines_matched: int = 0,
        by_meaning: bool = False,
    ) -> None:
        self.rel = rel
        self.matched = matched
        self.filename_only = filename_only
        self.source = source
        self.lines_matched = lines_matched
        self.by_meaning = by_meaning
        self._snippet: str | None = None

    @property
    def snippet(self) -> str:
        """Matching lines with ±3 lines of context (or the first lines, for a name match)."""
        if self._snippet is None:
            src = self.source
            self._snippet = src if isinstance(src, str) else src()
        return self._snippet

    def with_source(self, source: str | Callable[[], str]) -> Hit:
        """The same hit with another snippet (or way to make it)."""
        return Hit(
            self.rel,
            self.matched,
            self.filename_only,
            source,
            self.lines_matched,
            self.by_meaning,
        )

    def _key(self) -> tuple[object, ...]:
        return (
            self.rel,
            self.matched,
            self.filename_only,
            self.lines_matched,
            self.by_meaning,
        )

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, Hit) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"Hit(rel={self.rel!r}, matched={self.matched!r}, "
            f"filename_only={self.filename_only!r}, "
            f"lines_matched={self.lines_matched!r}, by_meaning={self.by_meaning!r})"
        )


class SearchResult(NamedTuple):
    """Every ranked file plus the per-term line counts; rendering picks how many fit."""

    terms: tuple[tuple[str, int], ...]  #: (term, matching lines across the corpus)
    hits: tuple[Hit, ...]
    #: (term, lines holding only part of it), for terms whose count is 0; default ranking
    partial: tuple[tuple[str, int], ...] = ()
    #: how many files matched, when `hits` holds only the best of them (default ranking)
    total: int | None = None

    @property
    def files_matched(self) -> int:
        """How many files matched the query (`hits` may hold only the best of them)."""
        return len(self.hits) if self.total is None else max(self.total, len(self.hits))

    def zero_terms(self) -> tuple[str, ...]:
        """Typed terms reported with count 0: the model's sign to rephrase."""
        return tuple(t for t, c in self.terms if c == 0)


def terms_of(query: str) -> list[str]:
    """Whitespace-split, case-folded, de-duplicated terms in query order."""
    seen: dict[str, None] = {}
    for t in query.split():
        seen.setdefault(t.casefold(), None)
    return list(seen)


Ranking = Literal["default", "baseline"]


def search(
    docs: Iterable[Doc],
    query: str,
    *,
    ranking: Ranking = "default",
    semantic: MeaningSource | None = None,
) -> SearchResult:
    """Rank the documents for `query`.

    Args:
        docs: the corpus in scope (MEMORY.md and the current project's files).
        query: what was typed; whitespace separates the terms.
        ranking: ``"baseline"`` is spec §4 rules 1-6 on literal terms: 1. MEMORY.md
            first; 2. more distinct terms; 3. content hits before filename-only; 4. more
            matching lines; 5. newer daily log first; 6. path ascending. ``"default"``
            scores keys with BM25 (see `memory.rank`), measured with ``memhooks eval``.
        semantic: scores by meaning (`memory.semantic`), fused with the default ranking
            (`memory.fusion`); the baseline ignores it.

    Returns:
        Every matching file, best first, with the per-term line counts.
    """
    if ranking == "default":
        return _ranked(list(docs), query, semantic)
    terms = terms_of(query)
    counts = dict.fromkeys(terms, 0)
    ranked: list[tuple[tuple[object, ...], Hit]] = []
    for doc in docs:
        hit_lines: list[int] = []
        in_content: set[str] = set()
        for i, low in enumerate(doc.lower):
            here = [t for t in terms if t in low]
            if here:
                hit_lines.append(i)
                in_content.update(here)
                for t in here:
                    counts[t] += 1
        name = doc.filename.casefold()
        in_name = {t for t in terms if t in name}
        matched = tuple(t for t in terms if t in in_content or t in in_name)
        if not matched:
            continue
        filename_only = not hit_lines
        snippet = _filename_preview(doc) if filename_only else _windows(doc, hit_lines)
        hit = Hit(doc.rel, matched, filename_only, snippet, len(hit_lines))
        key = (
            doc.kind != "memory",
            -len(matched),
            filename_only,
            -len(hit_lines),
            _newer_first(doc),
            doc.rel,
        )
        ranked.append((key, hit))
    ranked.sort(key=lambda kh: kh[0])
    return SearchResult(tuple(counts.items()), tuple(h for _, h in ranked))


def _ranked(
    docs: list[Doc], query: str, semantic: MeaningSource | None = None
) -> SearchResult:
    return search_index(Index(docs), query, semantic=semantic)


def search_index(
    index: Searchable,
    query: str,
    *,
    semantic: MeaningSource | None = None,
    docs: Sequence[Doc] | None = None,
) -> SearchResult:
    """The default ranking over an index (see `memory.index`): what `search` does, for
    callers that keep an index (a session) or build one of the files that can match.
    With `semantic`, the index must hold every document in scope (or `docs` must be
    them): meaning can rank a file that holds no query key.
    """
    terms = query_terms(query)
    scored, total, idf = rank(index, terms)
    hits = tuple(
        Hit(
            s.rel,
            s.matched,
            s.filename_only,
            _snippet(index, s.id, s.found, idf, s.filename_only),
            s.lines,
        )
        for s in scored
    )
    if semantic is not None:
        docs = list(index.docs()) if docs is None else docs
        lexical = len(hits)
        hits = _with_meaning(hits, scored, idf, semantic.similar(query, docs), docs)
        total += len(hits) - lexical  # files only meaning found
    counts = [(t.text, *count_lines(index, t)) for t in terms]
    partial = tuple((t, p) for t, c, p in counts if c == 0 and p)
    return SearchResult(tuple((t, c) for t, c, _ in counts), hits, partial, total)


def _with_meaning(
    hits: tuple[Hit, ...],
    scored: Sequence[Scored],
    idf: dict[str, float],
    meaning: Sequence[Meaning],
    docs: Sequence[Doc],
) -> tuple[Hit, ...]:
    # Fusion is a step after `rank`: the lexical hits keep their snippets, and a file found
    # by meaning only shows its closest chunk. Imported here: a search by words (every
    # one-shot hook) has no use for it.
    from memhooks.memory.fusion import Lexical, fuse

    total = sum(idf.values()) or 1.0
    lexical = [
        Lexical(s.rel, s.score, sum(idf[k] for k in s.found) / total) for s in scored
    ]
    by_rel = {h.rel: h for h in hits}
    where = {m.rel: m for m in meaning}
    doc_of = {d.rel: d for d in docs}
    out: list[Hit] = []
    for f in fuse(lexical, meaning):
        if not f.by_meaning:
            out.append(by_rel[f.rel])
            continue
        m, doc = where[f.rel], doc_of[f.rel]
        centre = min(m.start + SEARCH_CONTEXT_LINES, m.end - 1)
        out.append(Hit(f.rel, (), False, _snippet_at(doc, centre), by_meaning=True))
    return tuple(out)


def _snippet_at(doc: Doc, line: int) -> Callable[[], str]:
    return lambda: _windows(doc, [line])


def _snippet(
    index: Searchable,
    doc_id: int,
    found: Sequence[str],
    idf: dict[str, float],
    filename_only: bool,
) -> Callable[[], str]:
    # The document is read only if the snippet is made (an index may hold no text).
    def make() -> str:
        doc = index.doc(doc_id)
        if filename_only:
            return _filename_preview(doc)
        return _windows(doc, focus(doc, found, idf))

    return make


def _newer_first(doc: Doc) -> int:
    return -int(doc.key.replace("-", "")) if doc.kind == "daily" else 0


def _windows(doc: Doc, hits: Sequence[int]) -> str:
    spans: list[list[int]] = []
    for i in hits:
        lo, hi = (
            max(0, i - SEARCH_CONTEXT_LINES),
            min(len(doc.lines) - 1, i + SEARCH_CONTEXT_LINES),
        )
        if spans and lo <= spans[-1][1] + 1:
            spans[-1][1] = max(spans[-1][1], hi)
        else:
            spans.append([lo, hi])
    parts = ["\n".join(doc.lines[lo : hi + 1]) for lo, hi in spans[:SEARCH_MAX_WINDOWS]]
    text = "\n…\n".join(parts)
    more = (
        len(spans) > SEARCH_MAX_WINDOWS
        or spans[min(len(spans), SEARCH_MAX_WINDOWS) - 1][1] < len(doc.lines) - 1
    )
    return text + "\n…" if more else text


def _filename_preview(doc: Doc) -> str:
    head = [ln for ln in doc.lines if ln.strip()][:FILENAME_PREVIEW_LINES]
    return "\n".join(["(filename match)", *head])


def summary_line(result: SearchResult, shown: int) -> str:
    """``Searched 3 terms: redis(2) port(3) conflict(1) across 4 files. Showing top 3 by relevance.``"""
    n = len(result.terms)
    partial = dict(result.partial)
    counts = " ".join(
        f"{t}({c}, {partial[t]} partial)" if t in partial else f"{t}({c})"
        for t, c in result.terms
    )
    files = result.files_matched
    head = f"Searched {n} term{'s' if n != 1 else ''}: {counts} across {files} file{'s' if files != 1 else ''}."
    if not files:
        return head + " No matches: try other words."
    return f"{head} Showing top {shown} by relevance."


class Page(NamedTuple):
    """What fits in a budget: the hits shown (the first possibly cut) and how many were left."""

    shown: tuple[Hit, ...]
    omitted: int
    text: str


def paginate(result: SearchResult, budget: int = DEFAULT_SEARCH_BUDGET) -> Page:
    """Greedy fill in rank order within `budget` bytes; the first file is always shown."""
    blocks: list[str] = []
    shown: list[Hit] = []
    total = result.files_matched
    for i, hit in enumerate(result.hits):
        block = _block(hit)
        trailer = _trailer(total - i - 1)
        used = (
            nbytes(summary_line(result, i + 1)) + sum(nbytes(b) + 2 for b in blocks) + 2
        )
        room = budget - used - (nbytes(trailer) + 2 if i + 1 < total else 0)
        if nbytes(block) > room:
            if blocks:
                break
            # The first file is always shown, cut to the space there is.
            tail = _trailer(total - 1)
            room = budget - used - (nbytes(tail) + 2 if total > 1 else 0)
            block = cut(block, max(room, 0), "…[snippet truncated]") or f"{hit.rel}"
        blocks.append(block)
        shown.append(hit)
    omitted = total - len(shown)
    parts = [summary_line(result, len(shown)), *blocks]
    if omitted:
        parts.append(_trailer(omitted))
    return Page(tuple(shown), omitted, "\n\n".join(parts))


def matched_label(hit: Hit) -> str:
    """``[matched: redis, port]``, or ``[matched: by meaning]`` for a file no term reached."""
    return f"[matched: {'by meaning' if hit.by_meaning else ', '.join(hit.matched)}]"


def _block(hit: Hit) -> str:
    return f"{hit.rel}  {matched_label(hit)}\n{neutralise(hit.snippet)}"


def _trailer(omitted: int) -> str:
    return (
        f"…[search truncated, {omitted} more file{'s' if omitted != 1 else ''} omitted]"
    )


def render_text(result: SearchResult, budget: int = DEFAULT_SEARCH_BUDGET) -> str:
    """The text the model reads (see the spec §4 example)."""
    return paginate(result, budget).text


def to_json(
    result: SearchResult, budget: int = DEFAULT_SEARCH_BUDGET
) -> dict[str, object]:
    """The same page as a JSON-ready dict (`memhooks search --json`)."""
    page = paginate(result, budget)
    return {
        "terms": [_term_json(t, c, result) for t, c in result.terms],
        "files_matched": result.files_matched,
        "shown": len(page.shown),
        "omitted": page.omitted,
        "results": [
            {
                "path": h.rel,
                "matched": list(h.matched),
                "filename_only": h.filename_only,
                "snippet": h.snippet,
            }
            | ({"by_meaning": True} if h.by_meaning else {})
            for h in page.shown
        ],
    }


def _term_json(term: str, count: int, result: SearchResult) -> dict[str, object]:
    partial = dict(result.partial).get(term)
    out: dict[str, object] = {"term": term, "count": count}
    return out | {"partial": partial} if partial else out

"""A search result as the model and people read it (docs/design.md): the summary line, the
greedy page within a byte budget, explicit truncation markers, and the same page as JSON.

Each line shown is placed as ``grep -n`` places it: ``PATH:LINE:text`` for a line holding a
query key, ``PATH-LINE-text`` for a line of context, LINE counted in the file on disk
(forgotten lines included), so that ``memhooks forget PATH:LINE`` retires that line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from memhooks.memory.constants import DEFAULT_SEARCH_BUDGET
from memhooks.memory.text import cut, nbytes, neutralise

if TYPE_CHECKING:
    from memhooks.memory.results import Hit, Line, SearchResult


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
    rows = (numbered(hit.rel, ln) for ln in hit.lines)
    return neutralise("\n".join([f"{hit.rel}  {matched_label(hit)}", *rows]))


def numbered(rel: str, line: Line) -> str:
    """``PATH:LINE:text`` (a match), ``PATH-LINE-text`` (context), or the text of a line
    memhooks added (``…``, a mark), as ``grep -n`` prints them."""
    if not line.number:
        return line.text
    sep = ":" if line.match else "-"
    return f"{rel}{sep}{line.number}{sep}{line.text}"


def _trailer(omitted: int) -> str:
    return (
        f"…[search truncated, {omitted} more file{'s' if omitted != 1 else ''} omitted]"
    )


def render_text(result: SearchResult, budget: int = DEFAULT_SEARCH_BUDGET) -> str:
    """The text the model reads (see the docs/design.md example)."""
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
                "line": h.line,
                "snippet": h.snippet,
                "lines": [
                    {"line": ln.number, "text": ln.text, "match": ln.match}
                    for ln in h.lines
                    if ln.number
                ],
            }
            | ({"by_meaning": True} if h.by_meaning else {})
            for h in page.shown
        ],
    }


def _term_json(term: str, count: int, result: SearchResult) -> dict[str, object]:
    partial = dict(result.partial).get(term)
    out: dict[str, object] = {"term": term, "count": count}
    return out | {"partial": partial} if partial else out

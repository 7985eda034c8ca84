"""A search result as the model and people read it (docs/design.md): the summary line, the
greedy page within a byte budget, explicit truncation markers, and the same page as JSON.

Each line shown is placed as ``grep -n`` places it: ``PATH:LINE:text`` for a line holding a
query key, ``PATH-LINE-text`` for a line of context, LINE counted in the file on disk
(forgotten lines included), so that ``memhooks forget PATH:LINE`` retires that line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, cast

from memhooks.memory.constants import DEFAULT_SEARCH_BUDGET
from memhooks.memory.text import cut, nbytes, neutralise

if TYPE_CHECKING:
    from memhooks.memory.results import Hit, Line, SearchResult


def summary_line(result: SearchResult, shown: int, limit: int | None = None) -> str:
    """``Searched 3 terms: redis(2) port(3) conflict(1) across 4 files. Showing top 3 by relevance.``

    With `limit`, the terms that fit in that many bytes, then ``…[N more terms]``. A query
    past `SEARCH_MAX_TERMS` distinct terms says ``Searched the first 64 of 1000 terms
    (64 at most)``.
    """
    n = len(result.terms)
    counts, _ = _term_counts(result, None if limit is None else limit - _FIXED)
    files = result.files_matched
    searched = (
        f"the first {n} of {n + result.unsearched} terms ({n} at most)"
        if result.unsearched
        else f"{n} term{'s' if n != 1 else ''}"
    )
    head = (
        f"Searched {searched}: {counts} across {files} file{'s' if files != 1 else ''}."
    )
    if not files:
        return head + " No matches: try other words."
    return f"{head} Showing top {shown} by relevance."


#: Bytes of the summary line that are not term counts, at most (numbers of 7 digits).
_FIXED = len(
    "Searched the first 100 of 1000000 terms (100 at most):  across 1000000 files."
    " Showing top 1000000 by relevance."
)


def _term_counts(result: SearchResult, room: int | None) -> tuple[str, int]:
    """The ``term(count)`` list in at most `room` bytes, and how many terms it shows
    (none when the first is too long for it: that one shows its head and count)."""
    partial = dict(result.partial)
    out: list[str] = []
    used = cut = 0
    for i, (t, c) in enumerate(result.terms):
        count = f"({c}, {partial[t]} partial)" if t in partial else f"({c})"
        shown = neutralise(t)  # a term as typed may hold escapes a terminal would run
        one = shown + count
        if room is not None:
            more = _more_terms(len(result.terms) - i - 1)
            left = room - used - 1 - (nbytes(more) + 1 if more else 0)
            if nbytes(one) > left and not out:
                # A first term too long for the line shows its head, so its count shows.
                head = shown.encode("utf-8", "surrogatepass")[
                    : max(left - nbytes(count) - 3, 0)
                ]
                one, cut = head.decode("utf-8", "ignore") + "…" + count, 1
            elif nbytes(one) > left:
                out.append(_more_terms(len(result.terms) - i))
                return " ".join(out), 0 if cut else i
        out.append(one)
        used += nbytes(one) + 1
    return " ".join(out), 0 if cut else len(result.terms)


def _more_terms(n: int) -> str:
    return f"…[{n} more term{'s' if n != 1 else ''}]" if n else ""


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
            nbytes(summary_line(result, i + 1, _summary_room(budget)))
            + sum(nbytes(b) + 2 for b in blocks)
            + 2
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
    parts = [summary_line(result, len(shown), _summary_room(budget)), *blocks]
    if omitted:
        parts.append(_trailer(omitted))
    return Page(tuple(shown), omitted, "\n\n".join(parts))


def _summary_room(budget: int) -> int:
    # The summary line takes at most a quarter of the page: 100,000 typed words must not
    # print a megabyte of counts.
    return max(budget // 4, _FIXED + 40)


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
    """The same page as a JSON-ready dict (`memhooks search --json`), within `budget`
    bytes as that command prints it (indented, non-ASCII kept): JSON's keys and quotes
    cost more than the text page, so lists are shortened (``terms_omitted``,
    ``matched_omitted`` say by how many), then results dropped from the end, then the
    first snippet cut, and last, under a few hundred bytes, the first result dropped.
    """
    page = paginate(result, budget)
    _, n_terms = _term_counts(result, _summary_room(budget) - _FIXED)
    terms = [_term_json(t, c, result) for t, c in result.terms[:n_terms]]
    # A list longer than this could never fit: one byte an entry at the very least.
    results = [_hit_json(h, budget // 8) for h in page.shown]

    def final() -> dict[str, object]:
        out: dict[str, object] = {"terms": terms}
        if len(terms) < len(result.terms):
            out["terms_omitted"] = len(result.terms) - len(terms)
        if result.unsearched:
            out["terms_not_searched"] = result.unsearched
        for r, hit in zip(results, page.shown, strict=False):
            for key, whole in (
                ("matched", len(hit.matched)),
                ("lines", _numbered(hit)),
            ):
                left = whole - len(cast("list[object]", r[key]))
                r.pop(f"{key}_omitted", None)
                if left:
                    r[f"{key}_omitted"] = left
        return out | {
            "files_matched": result.files_matched,
            "shown": len(results),
            "omitted": result.files_matched - len(results),
            "results": results,
        }

    page_json = final()
    while _json_size(page_json) > budget and _shrink(terms, results, budget):
        page_json = final()
    return page_json


#: Lists kept whole down to this length before a result is dropped for them.
_FEW = 8


def _shrink(
    terms: list[dict[str, object]], results: list[dict[str, object]], budget: int
) -> bool:
    # One step towards the budget; False when nothing is left to take.
    lists: list[list[Any]] = [
        terms,
        *(cast("list[Any]", r[key]) for r in results for key in ("matched", "lines")),
    ]
    longest = max(lists, key=len)
    if len(longest) > _FEW:
        del longest[len(longest) // 2 :]
    elif len(results) > 1:
        results.pop()
    elif results and (results[0]["snippet"] or results[0]["lines"]):
        # The first result's text, cut to what is left: the snippet, and its lines.
        first = results[0]
        snippet = str(first["snippet"])
        over = _json_size({"terms": terms, "results": results}) + 200 - budget
        room = max(nbytes(snippet) - over, 0)
        first["snippet"] = cut(snippet, room, "…[snippet truncated]")
        kept: list[dict[str, object]] = []
        for ln in cast("list[dict[str, object]]", first["lines"]):
            if room <= 0:
                break
            text = cut(str(ln["text"]), room, "…[truncated]")
            kept.append({**ln, "text": text})
            room -= nbytes(text) or 1
        first["lines"] = kept
    elif len(longest) > 1:
        del longest[len(longest) // 2 :]
    elif results:
        results.pop()  # a small budget: the counts alone (`omitted` says how many)
    else:
        return False
    return True


def _hit_json(hit: Hit, most: int) -> dict[str, object]:
    out: dict[str, object] = {
        "path": hit.rel,
        "matched": list(hit.matched[:most]),
        "filename_only": hit.filename_only,
        "line": hit.line,
        "snippet": hit.snippet,
        "lines": [
            {"line": ln.number, "text": ln.text, "match": ln.match}
            for ln in hit.lines
            if ln.number
        ][:most],
    }
    return out | ({"by_meaning": True} if hit.by_meaning else {})


def _numbered(hit: Hit) -> int:
    return sum(1 for ln in hit.lines if ln.number)


def _json_size(page: dict[str, object]) -> int:
    import json  # the text page (what a search prints unless asked) needs none

    return nbytes(json.dumps(page, ensure_ascii=False, indent=2)) + 1  # and a newline


def _term_json(term: str, count: int, result: SearchResult) -> dict[str, object]:
    partial = dict(result.partial).get(term)
    out: dict[str, object] = {"term": term, "count": count}
    return out | {"partial": partial} if partial else out

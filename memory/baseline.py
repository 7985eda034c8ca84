"""The baseline ranking (``ranking="baseline"``): zerostack's rules on literal terms,
kept to compare the default ranking with (``memhooks eval``). Pure: documents in.

The query splits on whitespace into literal, case-insensitive terms; a line matches if
it holds any term; files are ordered by docs/design.md rules 1-6: 1. MEMORY.md first;
2. more distinct terms; 3. content hits before filename-only; 4. more matching lines;
5. newer daily log first; 6. path ascending.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhooks.memory.lines import filename_preview, windows
from memhooks.memory.results import Hit, SearchResult
from memhooks.memory.typed import terms_of

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memhooks.memory.corpus import Doc


def baseline(docs: Sequence[Doc], query: str) -> SearchResult:
    """Rank `docs` for `query` by the baseline rules (the module's docstring), each term's
    matching lines counted; superseded notes are not marked here
    (`memory.superseded.mark_superseded`)."""
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
        snippet = filename_preview(doc) if filename_only else windows(doc, hit_lines)
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


def _newer_first(doc: Doc) -> int:
    return -int(doc.key.replace("-", "")) if doc.kind == "daily" else 0

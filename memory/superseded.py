"""Superseded notes in a search result: each marked with its successor, and ranked just
below it when the successor matched too. A superseded note stays findable (it may hold
the only trace of a word); the mark is read from its header line (`memory.forget`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhooks.memory.note_format import SEP, may_be_superseded, superseded_by
from memhooks.memory.results import Line

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from memhooks.memory.corpus import Doc
    from memhooks.memory.results import Hit, SearchResult


def _marked(hit: Hit, mark: str) -> Callable[[], list[Line]]:
    return lambda: [Line(0, mark), *hit.lines]


def mark_superseded(result: SearchResult, docs: Mapping[str, Doc]) -> SearchResult:
    """Mark superseded notes in a search result and rank each below its successor.

    A superseded note stays findable (it may hold the only trace of a word), but its
    snippet starts with ``(superseded by notes/NEW.md …)``, and when the successor
    matched too, the older note moves to just below it.

    Args:
        result: a ranked search result.
        docs: the corpus it was ranked from, to read the notes' header lines.
    """
    hits = list(result.hits)
    marked = False
    for hit in result.hits:
        doc = docs.get(hit.rel)
        # The substring test first: a search over thousands of notes splits none of them.
        marked_here = doc is not None and may_be_superseded(doc)
        newer = superseded_by(doc.lines) if doc is not None and marked_here else None
        if newer is None:
            continue
        marked = True
        why = f"{SEP}{newer.reason}" if newer.reason else ""
        mark = f"(superseded by notes/{newer.by}.md on {newer.date}{why})"
        # The snippet is made lazily (only for the files shown), and so is the mark.
        new = hit.with_source(_marked(hit, mark))
        at = hits.index(hit)
        hits[at] = new
        successor = f"{hit.rel.rsplit('/', 1)[0]}/{newer.by}.md"
        later = [i for i, h in enumerate(hits) if h.rel == successor and i > at]
        if later:
            hits.insert(later[0], hits.pop(at))
    return result._replace(hits=tuple(hits)) if marked else result

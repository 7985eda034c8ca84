"""A daily log's snippet with the entries a session has seen cut out.

Auto-search shows a daily log when entries the session has not seen match the prompt;
its snippet is placed on the log's best matching lines, with the lines around them, and
a window placed on one entry reaches into the next. A record the session's model holds
came back that way beside the entry that was news: its own record, written as a Codex
CLI TUI's `/resume` ended the conversation it left and the one resumed had its own
record written too, or an entry an earlier prompt's snippet showed. The lines of the
entries seen are cut out of the snippet; where what is left of its first window (the
one auto-search injects) shows no matching line, the windows are placed again, on the
matching lines of the entries not seen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhooks.hooks.records import entries, entry_id
from memhooks.memory.lines import GAP, around, windows

if TYPE_CHECKING:
    from collections.abc import Iterable

    from memhooks.hooks.autosearch import LogHit
    from memhooks.memory import Doc
    from memhooks.memory.results import Hit, Line


def cut_seen(hit: Hit, doc: Doc, judged: LogHit, seen: Iterable[str]) -> Hit:
    """`hit`, a hit in daily log `doc` judged `judged`, with a snippet that holds no line
    of the entries whose ids are `seen`; made when asked, as a hit's snippet is. The
    snippet stays as it was when those entries hold none of its lines, or when the
    entries not seen leave no line to show."""
    old = set(seen)
    if not old:
        return hit
    return hit.with_source(lambda: _lines(hit, doc, judged, old))


def _lines(hit: Hit, doc: Doc, judged: LogHit, old: set[str]) -> list[Line]:
    # The lines of `doc` the entries in `old` hold, by index in `doc.lines`.
    cut: set[int] = set()
    at = 0
    for entry in entries(doc.text):
        n = entry.text.count("\n") + (not entry.text.endswith("\n"))
        if entry_id(entry.text) in old:
            cut.update(range(at, at + n))
        at += entry.text.count("\n")
    numbers = {doc.number(i) for i in cut}
    shown = list(hit.lines)
    if not any(ln.number in numbers for ln in shown):
        return shown
    kept = _gaps([ln for ln in shown if ln.number not in numbers])
    if not any(ln.match for ln in _first(kept)):
        # Placed on an entry seen: again, on the matching lines of those not seen.
        wanted = {
            line for i, lines in judged.lines.items() if i not in old for line in lines
        }
        centres = [
            i for i, text in enumerate(doc.lines) if i not in cut and text in wanted
        ]
        needles = [t.casefold() for t in hit.matched]
        placed = windows(doc, centres)
        kept = _gaps([around(ln, needles) for ln in placed if ln.number not in numbers])
    return kept if any(ln.match for ln in _first(kept)) else shown


def _gaps(lines: list[Line]) -> list[Line]:
    # The gap lines left where a whole window was cut: none first, none twice in a row.
    out: list[Line] = []
    for ln in lines:
        if ln == GAP and (not out or out[-1] == GAP):
            continue
        out.append(ln)
    return out


def _first(lines: list[Line]) -> list[Line]:
    # The first window: the lines before the first gap.
    return lines[: lines.index(GAP)] if GAP in lines else lines

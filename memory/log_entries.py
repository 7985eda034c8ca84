"""The entries of a daily log, and which of them the hooks wrote on their own (records).

A log is ``### HH:MM — title`` entries; the hooks' records are known by their titles
(`TITLES`) and by the lines they are written with, so that what a person typed under one
stays theirs. Read by the block (`memory.inject` shows a person's entries before the
records) and by the hooks, which write, condense and search them (`hooks.records`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

#: Titles of the entries memhooks writes on its own (`### HH:MM — <title>`).
FLUSH = "compaction summary"
HARNESS_SUMMARY = "compaction summary (from the harness)"
SESSION_END = "session end"
CONDENSED = "automatic records, condensed"
TITLES = frozenset({FLUSH, HARNESS_SUMMARY, SESSION_END, CONDENSED})

#: The line a record cut to its cap ends with (`hooks.record_body.render_digest`).
TRUNCATED = "…[digest truncated]"

HEADING = re.compile(r"^### (\d\d:\d\d) — (.*)$", re.MULTILINE)
#: The line a condensed record opens with, counting the records it merged.
COUNT = re.compile(r"^_(\d+) records from ", re.MULTILINE)
#: The bold section titles of a record, and what each lists.
SECTIONS = {
    "Prompts": "prompt",
    "Files edited": "file",
    "Commands": "command",
    "Compaction summary": "summary",
    "Compaction summaries": "summary",
    "Last assistant message": "assistant",
}


class Entry(NamedTuple):
    """One stretch of a daily log: an entry from its heading, or the text before any."""

    text: str  #: exactly as in the file, trailing newlines included
    time: str  #: "HH:MM", "" before the first heading
    title: str

    @property
    def automatic(self) -> bool:
        """Written by memhooks on its own, not by a person or the model."""
        return self.title in TITLES


def entries(log: str) -> list[Entry]:
    """Split a daily log into entries; joined back they give the text byte for byte."""
    marks = list(HEADING.finditer(log))
    out: list[Entry] = []
    if not marks or marks[0].start() > 0:
        out.append(Entry(log[: marks[0].start() if marks else len(log)], "", ""))
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(log)
        text, title = log[m.start() : end], m[2].strip()
        # What a person typed under a record (`echo … >>` lands under the last entry) is
        # theirs: an entry of its own, with no heading, that condensing keeps.
        cut = (
            _record_end(text, title == HARNESS_SUMMARY)
            if title in TITLES
            else len(text)
        )
        out.append(Entry(text[:cut], m[1], title))
        out.append(Entry(text[cut:], "", ""))
    return [e for e in out if e.text]


#: The section titles of a record whose lines are quotes (the others list items).
_QUOTED = frozenset({"Compaction summary", "Last assistant message"})


def quote(text: str) -> str:
    """A harness's summary as its record holds it: each line quoted, so that where the
    record ends is known (`entries`); blank lines as ``>``."""
    return "\n".join(f"> {ln}".rstrip() for ln in text.split("\n"))


def unquote(body: str) -> str:
    """The text `quote` was given; a record written before quoting, as it is."""
    lines = body.strip("\n").split("\n")
    if not all(ln == ">" or ln.startswith("> ") for ln in lines):
        return body
    return "\n".join(ln[2:] for ln in lines)


def _record_end(text: str, summary: bool = False) -> int:
    """Where the lines a record is written with (`render_digest`, `_condensed`; a
    harness's `summary`: `quote`) end in `text`, an entry with such a title: at the
    first line of another shape. A summary written before it was quoted: the whole."""
    at = text.index("\n") + 1 if "\n" in text else len(text)
    kind, blank = None, True  # the section the lines are in; a blank line just before
    if summary:
        if not text[at:].startswith(">"):
            return len(text)
        kind, blank = "Compaction summary", False
    for line in text[at:].splitlines(keepends=True):
        s = line.rstrip("\r\n")
        if summary and s == ">" and not blank:
            pass
        elif not s:
            blank = True
        elif blank and s[:2] == s[-2:] == "**" and s.strip("*") in SECTIONS:
            kind, blank = s.strip("*"), False
        elif (kind is None and COUNT.match(s)) or s == TRUNCATED:
            blank = False
        elif blank or kind is None or s[:2] != ("> " if kind in _QUOTED else "- "):
            break
        at += len(line)
    return at


__all__ = [
    "CONDENSED",
    "COUNT",
    "FLUSH",
    "HARNESS_SUMMARY",
    "HEADING",
    "SECTIONS",
    "SESSION_END",
    "TITLES",
    "TRUNCATED",
    "Entry",
    "entries",
    "quote",
    "unquote",
]

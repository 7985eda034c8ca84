"""The parsed memory files that injection and search work on. Pure: built from text.

The one-shot command builds a corpus from disk on every call; a session process keeps one
in memory and replaces single documents as files change (spec §6). Both rank the same
documents with the same code, so their answers are identical.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.layout import Kind, Located


@dataclass(frozen=True)
class Doc:
    """One memory file as search and injection see it."""

    rel: str  #: POSIX path relative to the root
    kind: Kind
    key: str  #: date of a daily log, name of a note, "" otherwise
    text: str
    lines: tuple[str, ...] = field(repr=False)
    lower: tuple[str, ...] = field(repr=False)  #: casefolded lines, for matching

    @property
    def filename(self) -> str:
        """Last path component, e.g. ``redis-deploy.md``."""
        return self.rel.rsplit("/", 1)[-1]


def make_doc(loc: Located, text: str) -> Doc:
    """Build a document from a file's text (CRLF and a BOM are normalised away)."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = tuple(text.split("\n"))
    if lines and lines[-1] == "":
        lines = lines[:-1]
    return Doc(
        loc.rel, loc.kind, loc.key, text, lines, tuple(ln.casefold() for ln in lines)
    )


def newest_dailies(docs: dict[str, Doc] | list[Doc], count: int) -> list[Doc]:
    """The `count` newest daily logs that hold any non-blank text, newest first."""
    items = docs.values() if isinstance(docs, dict) else docs
    dailies = [d for d in items if d.kind == "daily" and d.text.strip()]
    dailies.sort(key=lambda d: d.key, reverse=True)
    return dailies[:count]

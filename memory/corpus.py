"""The parsed memory files that injection and search work on. Pure: built from text.

The one-shot command builds a corpus from disk on every call; a session process keeps one
in memory and replaces single documents as files change (spec §6). Both rank the same
documents with the same code, so their answers are identical.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from memory.layout import Located

if TYPE_CHECKING:
    from memory.layout import Kind


@dataclass(frozen=True)
class Doc:
    """One memory file as search and injection see it.

    Only the text is kept; its lines are derived when asked for and cached on the few
    documents that need them (those shown), so that a session holding ten thousand notes
    keeps each one's text once, not three times.
    """

    rel: str  #: POSIX path relative to the root
    kind: Kind
    key: str  #: date of a daily log, name of a note, "" otherwise
    text: str = field(repr=False)
    size: int = 0  #: bytes of the file on disk (what BM25 counts as its length)
    mtime_ns: int = 0  #: when the file last changed, as read

    @property
    def loc(self) -> Located:
        """Where the file lives (kind, path, key)."""
        return Located(self.kind, self.rel, self.key)

    @property
    def filename(self) -> str:
        """Last path component, e.g. ``redis-deploy.md``."""
        return self.rel.rsplit("/", 1)[-1]

    @cached_property
    def lines(self) -> tuple[str, ...]:
        """The text's lines, without a final empty one."""
        lines = self.text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return tuple(lines)

    @property
    def lower(self) -> tuple[str, ...]:
        """Casefolded lines, for literal matching (not cached: the baseline alone uses it)."""
        return tuple(ln.casefold() for ln in self.lines)


def make_doc(
    loc: Located, text: str, *, size: int | None = None, mtime_ns: int = 0
) -> Doc:
    """Build a document from a file's text (CRLF and a BOM are normalised away).

    Args:
        loc: where the file lives.
        text: its decoded text.
        size: its size in bytes on disk (default: the UTF-8 size of `text`).
        mtime_ns: its modification time, when read from disk.
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    if size is None:
        size = len(text.encode("utf-8", "surrogatepass"))
    return Doc(loc.rel, loc.kind, loc.key, text, size, mtime_ns)


def newest_dailies(docs: dict[str, Doc] | list[Doc], count: int) -> list[Doc]:
    """The `count` newest daily logs that hold any non-blank text, newest first."""
    items = docs.values() if isinstance(docs, dict) else docs
    dailies = [d for d in items if d.kind == "daily" and d.text.strip()]
    dailies.sort(key=lambda d: d.key, reverse=True)
    return dailies[:count]

"""The parsed memory files that injection and search work on. Pure: built from text.

The one-shot command builds a corpus from disk on every call; a session process keeps one
in memory and replaces single documents as files change (docs/design.md). Both rank the same
documents with the same code, so their answers are identical.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhooks.memory.paths import Located

if TYPE_CHECKING:
    from memhooks.memory.paths import Kind


class Doc:
    """One memory file as search and injection see it (treat it as immutable).

    Only the text is kept; its lines are derived when asked for and cached on the few
    documents that need them (those shown), so that a session holding ten thousand notes
    keeps each one's text once, not three times.

    Args:
        rel: POSIX path relative to the root.
        kind: memory, scratchpad, daily or note.
        key: date of a daily log, name of a note, "" otherwise.
        text: its text.
        size: bytes of the file on disk (what BM25 counts as its length).
        mtime_ns: when the file last changed, as read.
        skipped: 0-based positions in the file on disk of the lines left out of `text`
            (forgotten lines), ascending: what `number` counts back in.
    """

    # A plain class, not a dataclass: importing dataclasses costs a one-shot search
    # more than its ranking does (README, "Speed").
    __slots__ = (
        "_lines",
        "key",
        "kind",
        "mtime_ns",
        "rel",
        "size",
        "skipped",
        "text",
    )

    def __init__(
        self,
        rel: str,
        kind: Kind,
        key: str,
        text: str,
        size: int = 0,
        mtime_ns: int = 0,
        skipped: tuple[int, ...] = (),
    ) -> None:
        self.rel = rel
        self.kind: Kind = kind
        self.key = key
        self.text = text
        self.size = size
        self.mtime_ns = mtime_ns
        self.skipped = skipped
        self._lines: tuple[str, ...] | None = None

    def _key(self) -> tuple[object, ...]:
        return (
            self.rel,
            self.kind,
            self.key,
            self.text,
            self.size,
            self.mtime_ns,
            self.skipped,
        )

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, Doc) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"Doc(rel={self.rel!r}, kind={self.kind!r}, key={self.key!r}, "
            f"size={self.size!r}, mtime_ns={self.mtime_ns!r})"
        )

    @property
    def loc(self) -> Located:
        """Where the file lives (kind, path, key)."""
        return Located(self.kind, self.rel, self.key)

    @property
    def filename(self) -> str:
        """Last path component, e.g. ``redis-deploy.md``."""
        return self.rel.rsplit("/", 1)[-1]

    @property
    def lines(self) -> tuple[str, ...]:
        """The text's lines, without a final empty one (made once, when first asked)."""
        if self._lines is None:
            lines = self.text.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            self._lines = tuple(lines)
        return self._lines

    def number(self, i: int) -> int:
        """The 1-based line number in the file on disk of ``lines[i]`` (what ``grep -n``
        and ``memhooks forget PATH:LINE`` count), forgotten lines included."""
        n = i
        for at in self.skipped:
            if at > n:
                break
            n += 1
        return n + 1

    @property
    def lower(self) -> tuple[str, ...]:
        """Casefolded lines, for literal matching (not cached: the baseline alone uses it)."""
        return tuple(ln.casefold() for ln in self.lines)


def make_doc(
    loc: Located,
    text: str,
    *,
    size: int | None = None,
    mtime_ns: int = 0,
    skipped: tuple[int, ...] = (),
) -> Doc:
    """Build a document from a file's text (CRLF and a BOM are normalised away).

    Args:
        loc: where the file lives.
        text: its decoded text.
        size: its size in bytes on disk (default: the UTF-8 size of `text`).
        mtime_ns: its modification time, when read from disk.
        skipped: where the lines left out of `text` are in the file (see `Doc`).
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    if size is None:
        size = len(text.encode("utf-8", "surrogatepass"))
    return Doc(loc.rel, loc.kind, loc.key, text, size, mtime_ns, skipped)


def newest_dailies(
    docs: dict[str, Doc] | list[Doc], count: int, today: str | None = None
) -> list[Doc]:
    """The `count` newest daily logs that hold any non-blank text, in `log_order`."""
    items = docs.values() if isinstance(docs, dict) else docs
    dailies = [d for d in items if d.kind == "daily" and d.text.strip()]
    dailies.sort(key=lambda d: log_order(d.key, today))
    return dailies[:count]


def log_order(key: str, today: str | None) -> tuple[bool, int]:
    """Sort key of a daily log's date (YYYY-MM-DD): the newest first, but a log dated
    after `today` (a typo, a clock set wrong) after every other, nearest first.

    The block shows the newest logs as what happened last (docs/design.md): a log
    dated next year took today's place there, and kept it for a year.
    """
    day = int(key.replace("-", "")) if key.replace("-", "").isdigit() else 0
    ahead = today is not None and key > today
    return ahead, day if ahead else -day

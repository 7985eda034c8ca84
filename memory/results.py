"""What a search returns: the ranked files (`Hit`), the lines each shows (`Line`) and the
per-term counts (`SearchResult`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, TypeAlias

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


class Line(NamedTuple):
    """One line of a snippet, placed in the file as it is on disk (what ``grep -n`` prints)."""

    #: 1-based line number in the file on disk (forgotten lines counted); 0 for a line
    #: memhooks adds: the ``…`` between windows, a ``(superseded by …)`` mark
    number: int
    text: str
    #: it holds a query key (a context line does not)
    match: bool = False


#: What a snippet is made from: its text (lines without numbers) or its `Line` rows.
Source: TypeAlias = "str | Sequence[Line]"


class Hit:
    """One file in the ranking (equal to another by all but how its snippet is made).

    Args:
        rel: its path.
        matched: query terms it matched, in query order.
        filename_only: only its name (or aliases line) matched.
        source: the snippet (`Line` rows, or text without line numbers), or how to make
            it: only the files shown need one, so it is made when asked.
        lines_matched: lines holding a query key, counted per key.
        by_meaning: found by meaning only (the ``[semantic]`` extra): no query key in
            it, `matched` empty.
    """

    # A plain class, not a dataclass: importing dataclasses costs a one-shot search
    # more than its ranking does (README, "Speed").
    __slots__ = (
        "_lines",
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
        source: Source | Callable[[], Source],
        lines_matched: int = 0,
        by_meaning: bool = False,
    ) -> None:
        self.rel = rel
        self.matched = matched
        self.filename_only = filename_only
        self.source = source
        self.lines_matched = lines_matched
        self.by_meaning = by_meaning
        self._lines: tuple[Line, ...] | None = None

    @property
    def lines(self) -> tuple[Line, ...]:
        """Matching lines with ±3 lines of context (or the first lines, for a name match),
        each with its line number in the file."""
        if self._lines is None:
            src = self.source
            made = src() if callable(src) else src
            self._lines = (
                tuple(Line(0, t) for t in made.split("\n"))
                if isinstance(made, str)
                else tuple(made)
            )
        return self._lines

    @property
    def snippet(self) -> str:
        """The snippet's text, without line numbers."""
        return "\n".join(ln.text for ln in self.lines)

    @property
    def line(self) -> int | None:
        """The first matching line shown (1-based, in the file on disk), if any."""
        return next((ln.number for ln in self.lines if ln.match and ln.number), None)

    def with_source(self, source: Source | Callable[[], Source]) -> Hit:
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
    #: distinct terms typed after the first `SEARCH_MAX_TERMS`, not looked for
    unsearched: int = 0

    @property
    def files_matched(self) -> int:
        """How many files matched the query (`hits` may hold only the best of them)."""
        return len(self.hits) if self.total is None else max(self.total, len(self.hits))

    def zero_terms(self) -> tuple[str, ...]:
        """Typed terms reported with count 0: the model's sign to rephrase."""
        return tuple(t for t, c in self.terms if c == 0)

"""What a search returns: the ranked files (`Hit`) and the per-term counts (`SearchResult`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable


class Hit:
    """One file in the ranking (equal to another by all but how its snippet is made).

    Args:
        rel: its path.
        matched: query terms it matched, in query order.
        filename_only: only its name (or aliases line) matched.
        source: the snippet, or how to make it: only the files shown need one, so it is
            made when asked.
        lines_matched: lines holding a query key, counted per key.
        by_meaning: found by meaning only (the ``[semantic]`` extra): no query key in
            it, `matched` empty.
    """

    # A plain class, not a dataclass: importing dataclasses costs a one-shot search
    # more than its ranking does (README, "Speed").
    __slots__ = (
        "_snippet",
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
        source: str | Callable[[], str],
        lines_matched: int = 0,
        by_meaning: bool = False,
    ) -> None:
        self.rel = rel
        self.matched = matched
        self.filename_only = filename_only
        self.source = source
        self.lines_matched = lines_matched
        self.by_meaning = by_meaning
        self._snippet: str | None = None

    @property
    def snippet(self) -> str:
        """Matching lines with ±3 lines of context (or the first lines, for a name match)."""
        if self._snippet is None:
            src = self.source
            self._snippet = src if isinstance(src, str) else src()
        return self._snippet

    def with_source(self, source: str | Callable[[], str]) -> Hit:
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

    @property
    def files_matched(self) -> int:
        """How many files matched the query (`hits` may hold only the best of them)."""
        return len(self.hits) if self.total is None else max(self.total, len(self.hits))

    def zero_terms(self) -> tuple[str, ...]:
        """Typed terms reported with count 0: the model's sign to rephrase."""
        return tuple(t for t, c in self.terms if c == 0)

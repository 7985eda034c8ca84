"""What a rule of `memory.redact` is, besides a prefixed token: the `Shape` record, how
one is built, and where the secret is in its match.

The rules themselves are tables: `memory.secret_shapes` (keys, headers, URLs, blocks,
sentences) and `memory.secret_commands` (command lines); both build their shapes here.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Shape", "guarded", "secret_span", "shape"]


class Shape(NamedTuple):
    """One kind of secret with a pattern of its own, as `memory.redact` runs it."""

    kind: str
    source: str
    #: Lower-case strings of which one must occur in the text (none: always run).
    keywords: tuple[str, ...] = ()
    #: Whether a match is a secret after all, given the whole text.
    check: Callable[[str, re.Match[str]], bool] | None = None
    #: Search only the lines that hold one of the keywords (context on the same line).
    lines: bool = False
    #: What may follow an accepted secret and belongs to it (values are matched with a
    #: bounded length, so that a rejected candidate costs little).
    tail: str | None = None
    #: Search the lower-cased text (same offsets): the pattern is in lower case, which
    #: `re` scans far faster than an IGNORECASE one. Checks read `text` by offset.
    lower: bool = False
    #: Where the match's secret holds several (a cookie list's values, not its names):
    #: the ``secret`` groups of this pattern's matches within it, in the original text.
    parts: str | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.source)


def secret_span(m: re.Match[str]) -> tuple[int, int]:
    """Where the secret itself is in a match: its ``secret`` group, else all of it."""
    if "secret" in m.re.groupindex and m.start("secret") >= 0:
        return m.span("secret")
    return m.span()


def shape(
    kind: str,
    pattern: str,
    keywords: tuple[str, ...] = (),
    check: Callable[[str, re.Match[str]], bool] | None = None,
    *,
    lines: bool = False,
    tail: str | None = None,
    lower: bool = False,
    parts: str | None = None,
) -> Shape:
    """A shape; without ``keywords``, the literal its pattern starts with is one."""
    if not keywords and (head := _literal_head(pattern)):
        keywords = (head,)
    return Shape(kind, pattern, keywords, check, lines, tail, lower, parts)


def _literal_head(pattern: str) -> str:
    """The literal text ``pattern`` starts with, in lower case ("" if none)."""
    head = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern) and not pattern[i + 1].isalnum():
            head.append(pattern[i + 1])
            i += 2
        elif c.isalnum() or c in "-_:/~ !@#%&=,;'\"<>":
            head.append(c)
            i += 1
        else:
            break
    return "".join(head).lower()


def guarded(prefix: str, guard: str) -> str:
    """``prefix``, then a look-behind that no ``guard`` character comes before it."""
    literal = re.escape(prefix)
    return f"{literal}(?<!{guard}{literal})"

"""Repeated lines: dropped from appends, listed for a person to merge. Pure: text in.

Two strengths of sameness. An append to MEMORY.md or a note drops a line already in the
file up to whitespace and case (`drop_repeats`): the same fact written twice, which is
what the hooks and a forgetful model produce. `memhooks status --duplicates` goes further
(`find_duplicates`): punctuation is ignored too, across MEMORY.md and the project's notes,
and the person decides what to merge, forget or supersede.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from memhooks.memory.note_format import (
    is_forgotten_line,
    note_head,
    outside_fences,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

_WS = re.compile(r"\s+")
_PUNCT = re.compile(r"[^\w\s]|_")
_WORDISH = re.compile(r"\w")
#: A near-duplicate must keep at least this many characters once normalised, so that
#: short headings and separators ("## Notes", "---") are not reported.
MIN_NEAR_CHARS = 12


def same_key(line: str) -> str:
    """The key an append compares: whitespace collapsed, case folded."""
    return _WS.sub(" ", line).strip().casefold()


def near_key(line: str) -> str:
    """The key `find_duplicates` compares: also without punctuation or list marks."""
    return " ".join(_PUNCT.sub(" ", line.casefold()).split())


def drop_repeats(current: str, text: str) -> tuple[str, list[str]]:
    """Leave out of `text` the lines already in `current` (or earlier in `text`).

    Blank lines, lines without a letter or digit, and code inside fences are always
    kept: a second code block may well repeat a ``}`` or a command.

    Args:
        current: the file's text now.
        text: what is about to be appended.

    Returns:
        (the text to append, the lines dropped, as given).

    Example:
        >>> drop_repeats("- Use uv.\\n", "- use   UV.\\n- New rule.")
        ('- New rule.', ['- use   UV.'])
    """
    seen = {same_key(ln) for ln in current.splitlines() if ln.strip()}
    lines = text.split("\n")
    droppable = {i for i, ln in outside_fences(lines) if _WORDISH.search(ln)}
    keep: list[str] = []
    dropped: list[str] = []
    for i, ln in enumerate(lines, 1):
        key = same_key(ln)
        if i in droppable and key in seen:
            dropped.append(ln)
            continue
        if key:
            seen.add(key)
        keep.append(ln)
    return "\n".join(keep), dropped


class Occurrence(NamedTuple):
    """One place a line occurs: file (root-relative), 1-based line number, text."""

    rel: str
    line: int
    text: str


def find_duplicates(
    files: Mapping[str, str], min_chars: int = MIN_NEAR_CHARS
) -> list[tuple[Occurrence, ...]]:
    """Groups of lines that are the same up to whitespace, case and punctuation.

    Forgotten lines, note header lines (``aliases:`` …), a note's YAML front matter and
    fenced code are skipped.

    Args:
        files: root-relative path → exact text, in the order to report them.
        min_chars: shorter normalised lines are not compared.

    Returns:
        Each group (two places or more) in order of its first occurrence.
    """
    groups: dict[str, list[Occurrence]] = {}
    for rel, text in files.items():
        lines = text.split("\n")
        skip = 0
        if rel.rsplit("/", 2)[-2:-1] == ["notes"]:
            skip = note_head(lines).body
        for i, line in outside_fences(lines):
            if i <= skip or is_forgotten_line(line):
                continue
            key = near_key(line)
            if len(key) >= min_chars:
                groups.setdefault(key, []).append(Occurrence(rel, i, line.strip()))
    return [tuple(g) for g in groups.values() if len(g) > 1]


__all__ = [
    "MIN_NEAR_CHARS",
    "Occurrence",
    "drop_repeats",
    "find_duplicates",
    "near_key",
    "same_key",
]

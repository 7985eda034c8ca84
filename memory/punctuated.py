"""The punctuated strings of a document, which the index file holds so that a literal
(`memory.typed.literal_of`: ``.env``, ``c++``, ``%s``, ``->``) is found and counted
without reading every note. Pure.

A literal is typed without whitespace and holds an ASCII character that is neither a
letter, a digit nor whitespace, so where a document holds it, it lies within one of the
document's whitespace-separated strings that holds such a character. Those strings of
its casefolded text and name (`punctuated`) are filed in runs of their own beside the
runs of words (`memory.segment`), with how often and on how many lines each occurs; a
literal is looked for as a substring of them (`memory.segment.Segment.literal`), and is
counted from them without reading the note. Quotes, brackets and full stops around a
string are left out, as `memory.typed.literal_of` leaves them out of a literal: ``(see``
and ``done.`` are filed as nothing, ``.env)`` as ``.env``; a literal never begins or
ends with them (`findable`), so it occurs in a string as often as in the string's text.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from typing import TYPE_CHECKING

from memhooks.memory.index import parts
from memhooks.memory.typed import AROUND, STOPS

if TYPE_CHECKING:
    from collections.abc import Iterator

#: An ASCII character that is no letter, digit, whitespace or control character.
_HAS = re.compile("[!-/:-@\\[-`{-~]")
_ENDS = AROUND + STOPS
_AROUND, _ENDS_ = itertools.repeat(AROUND), itertools.repeat(_ENDS)


def punctuated(text: str, name: str = "") -> dict[str, tuple[int, int]]:
    """The whitespace-separated strings of `text` and `name`, both casefolded
    (`memory.index.fold`), that hold more than letters and digits once the quotes,
    brackets and full stops around them are left out; each without them (a literal is
    found in those that hold punctuation, ``’`` or ``—`` cost only a key each), with how
    often `text` holds it and on how many of its lines (`memory.index.lines_holding`'s
    lines); (0, 0) when only `name` does.

    ``punctuated("cp .env.example (see .env). .env") == {".env.example": (1, 1),
    ".env": (2, 1)}``
    """
    tf = Counter(itertools.chain.from_iterable(map(_strings, parts(text))))
    out = dict.fromkeys(tf, (1, 1))
    if again := {s for s, n in tf.items() if n > 1}:
        # Lines are counted only for the strings that occur more than once.
        rows = map(again.intersection, map(_strings, text.split("\n")))
        lines = Counter(itertools.chain.from_iterable(rows))
        out.update((s, (tf[s], lines[s])) for s in again)
    for s in _strings(name):
        out.setdefault(s, (0, 0))
    return out


def _strings(part: str) -> Iterator[str]:
    # Every string goes through C, not the interpreter: a build looks at them all.
    others = itertools.filterfalse(str.isalnum, part.split())
    bare = map(str.rstrip, map(str.lstrip, others, _AROUND), _ENDS_)
    return itertools.filterfalse(str.isalnum, filter(None, bare))


def findable(literal: str) -> bool:
    """Whether every document holding `literal` holds a `punctuated` string holding it:
    not so for one that holds whitespace or a control character, or begins or ends with
    what `punctuated` leaves out (a lone ``...`` or ``"``, which are literals only when
    typed alone)."""
    return bool(
        literal
        and _HAS.search(literal)
        and literal.isprintable()
        and not any(c.isspace() for c in literal)
        and literal[0] not in AROUND
        and literal[-1] not in _ENDS
    )

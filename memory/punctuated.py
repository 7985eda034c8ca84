"""The punctuated strings of a document, which the index file holds so that a literal
(`memory.typed.literal_of`: ``.env``, ``c++``, ``%s``, ``->``) is found without reading
every note. Pure.

A literal is typed without whitespace and holds an ASCII character that is neither a
letter, a digit nor whitespace, so where a document holds it, it lies within one of the
document's whitespace-separated strings that holds such a character. Those strings of
its casefolded text and name (`punctuated`) are filed in runs of their own beside the
runs of words (`memory.segment`); a literal is looked for as a substring of them
(`memory.segment.Segment.holding`), and only the documents they name are read to count
it. Quotes, brackets and full stops around a string are left out, as
`memory.typed.literal_of` leaves them out of a literal: ``(see`` and ``done.`` are
filed as nothing, ``.env)`` as ``.env``.
"""

from __future__ import annotations

import itertools
import re

from memhooks.memory.index import parts
from memhooks.memory.typed import AROUND, STOPS

#: An ASCII character that is no letter, digit, whitespace or control character.
_HAS = re.compile("[!-/:-@\\[-`{-~]")
_ENDS = AROUND + STOPS
_AROUND, _ENDS_ = itertools.repeat(AROUND), itertools.repeat(_ENDS)


def punctuated(text: str, name: str = "") -> set[str]:
    """The whitespace-separated strings of `text` and `name`, both casefolded
    (`memory.index.fold`), that hold more than letters and digits once the quotes,
    brackets and full stops around them are left out; each without them (a literal is
    found in those that hold punctuation, ``’`` or ``—`` cost only a key each).

    ``punctuated("cp .env.example (see .env).") == {".env.example", ".env"}``
    """
    out: set[str] = set()
    for part in itertools.chain(parts(text), (name,)):
        # Every string goes through C, not the interpreter: a build looks at them all.
        others = itertools.filterfalse(str.isalnum, part.split())
        bare = map(str.rstrip, map(str.lstrip, others, _AROUND), _ENDS_)
        out.update(itertools.filterfalse(str.isalnum, filter(None, bare)))
    return out


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

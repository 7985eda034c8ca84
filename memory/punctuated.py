"""The punctuated strings of a document, which the index file holds so that a literal
(`memory.typed.literal_of`: ``.env``, ``c++``, ``%s``, ``->``) is found and counted
without reading every note. Pure.

A literal is typed without whitespace and holds an ASCII character that is neither a
letter, a digit nor whitespace, so where a document holds it, it lies within one of the
document's whitespace-separated strings that holds such a character. Those strings of
its casefolded text and name (`punctuated`) are filed in runs of their own beside the
runs of words (`memory.segment`), with the lines each is on and how often; a literal is
looked for as a substring of them (`memory.segment.Segment.literal`) and counted from
them without reading the note: its lines are those of the strings holding it. Quotes,
brackets and full stops around a string are left out, as `memory.typed.literal_of`
leaves them out of a literal: ``(see`` and ``done.`` are filed as nothing, ``.env)`` as
``.env``; a literal never begins or ends with them (`findable`), so it occurs in a
string as often as in the string's text.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from itertools import compress, count, repeat
from operator import and_, not_

from memhooks.memory.index import parts
from memhooks.memory.needles import fold
from memhooks.memory.typed import AROUND, STOPS

#: An ASCII character that is no letter, digit, whitespace or control character.
_HAS = re.compile("[!-/:-@\\[-`{-~]")
_ENDS = AROUND + STOPS
_AROUND, _ENDS_ = repeat(AROUND), repeat(_ENDS)


def punctuated(text: str, name: str = "") -> Counter[tuple[str, int]]:
    """The whitespace-separated strings of `text` and `name`, both casefolded
    (`memory.needles.fold`), that hold more than letters and digits once the quotes,
    brackets and full stops around them are left out; each without them (a literal is
    found in those that hold punctuation, ``’`` or ``—`` cost only a key each), with the
    line of `text` it is on (`memory.needles.lines_holding`'s lines, from 0): how often it
    is there. One only `name` holds is on line 0, 0 times.

    ``punctuated("cp .env.example\\n(see .env). .env") == Counter({(".env", 1): 2,
    (".env.example", 0): 1})``
    """
    out = _by_line(text)
    held = {s for s, _ in out}
    for s, _ in _by_line(name):
        if s not in held:
            out[s, 0] = 0
    return out


def filed_name(rel: str) -> str:
    """The name of the document at `rel` as `punctuated` is given it: its file name
    without ``.md``, casefolded."""
    return fold(rel.rsplit("/", 1)[-1].removesuffix(".md"))


def _by_line(text: str) -> Counter[tuple[str, int]]:
    # (string, line) -> how often the line holds it.
    out: Counter[tuple[str, int]] = Counter()
    first = 0
    for part in parts(text):
        # Every string goes through C, not the interpreter: a build looks at them all.
        rows = list(map(str.split, part.split("\n")))
        words = list(itertools.chain.from_iterable(rows))
        lines = itertools.chain.from_iterable(map(repeat, count(first), map(len, rows)))
        odd = list(map(not_, map(str.isalnum, words)))
        bare = list(
            map(str.rstrip, map(str.lstrip, compress(words, odd), _AROUND), _ENDS_)
        )
        kept = map(and_, map(bool, bare), map(not_, map(str.isalnum, bare)))
        out.update(compress(zip(bare, compress(lines, odd), strict=True), kept))
        first += len(rows)
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

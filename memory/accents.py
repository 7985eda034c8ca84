"""Accents, as search looks past them: a word typed without its diacritics finds the
word written with them. Pure: a string in, the string without its marks out.

`memory.terms` files a word with accents under its bare form too, `memory.needles.fold`
reads a file's text bare for the prefilter, and a question's words are read bare
(`memory.question`). Which marks go is a choice per script: Latin's diacritics, Hebrew's
points and Arabic's short vowels, and the marks Greek's and Russian's stemmers take off;
other marks (Cyrillic ``й``, kana's dakuten) make another letter and are kept.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from functools import lru_cache

#: Hebrew's points and Arabic's short vowels and tatweel, mostly left unwritten: `bare`
#: takes them off as it does accents (the marks among them).
_POINTS = "\u0591-\u05c7\u0610-\u061a\u0640\u064b-\u065f\u0670\u06d6-\u06ed"
#: Latin letters with a diacritic (Latin-1, Extended-A and -B, Extended Additional; not
#: × and ÷), and `_POINTS`.
MARKED = f"\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff{_POINTS}"
#: Latin letters Unicode gives no decomposition, as a plain keyboard types them.
_UNDECOMPOSED = {
    **dict(zip("øØłŁđĐıħĦŧŦ", "oOlLdDihHtT", strict=True)),
    "æ": "ae",
    "Æ": "AE",
    "œ": "oe",
    "Œ": "OE",
}
#: Greek's vowels with a tonos or dialytika, and Cyrillic's ``ё``: letters whose marks
#: Greek's and Russian's stemmers take off (`memory.stems`), and so `bare` too.
_STEMMER_MARKED = (
    "\u0386\u0388-\u0390\u03aa-\u03b0\u03ca-\u03ce\u1f00-\u1ffe\u0401\u0451"
)
#: One of `MARKED`, `_STEMMER_MARKED` or a combining diacritical mark: what `bare` takes
#: a mark off.
ACCENTED = re.compile(f"[{MARKED}{_STEMMER_MARKED}\u0300-\u036f]")
#: One of `_POINTS`.
_POINT = re.compile(f"[{_POINTS}]")


def bare(text: str) -> str:
    """`text` with its Latin letters' diacritics taken off (``café`` → ``cafe``; a word a
    Mac stored decomposed, ``e`` and U+0301, likewise), and Hebrew's points and Arabic's
    short vowels (`_POINTS`), Greek's accents and the dots of ``ё``, which their
    stemmers take off too (`_STEMMER_MARKED`). Latin letters Unicode does not decompose
    are written as a plain keyboard types them (``Łódź`` → ``Lodz``, ``Ærø`` → ``AEro``);
    other marks (Cyrillic ``й``, kana's dakuten) are kept: there they make another
    letter. Expects NFKC text, as `memory.terms.keys` makes it."""
    return text.translate(_unaccented()) if ACCENTED.search(text) else text


@lru_cache(maxsize=1)
def _unaccented() -> dict[int, str | None]:
    # Each letter `ACCENTED` names as its decomposition without its marks; marks deleted.
    points = [
        c
        for c in range(0x591, 0x6EE)
        if _POINT.match(chr(c)) and (unicodedata.category(chr(c)) == "Mn" or c == 0x640)
    ]
    table: dict[int, str | None] = dict.fromkeys([*range(0x300, 0x370), *points])
    marked = re.compile(f"[{MARKED}{_STEMMER_MARKED}]")
    for c in itertools.chain(range(0xC0, 0x460), range(0x1E00, 0x2000)):
        plain = unicodedata.normalize("NFD", chr(c)).translate(table)
        if plain != chr(c) and marked.match(chr(c)):
            table[c] = plain
    return table | {ord(c): plain for c, plain in _UNDECOMPOSED.items()}

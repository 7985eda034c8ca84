"""Stemming: a word's inflections and derivations as one key, by Snowball (PyStemmer).

English, and the other languages whose script says which they are: a word in Cyrillic is
stemmed as Russian, in Greek as Greek, in Devanagari as Hindi, so that ``базы`` finds
``база`` and ``βάσης`` finds ``βάση``. Any other word is its own key: Latin script does not
say which language a word is in, and Arabic's stemmer takes off what it reads as prefixes
(``فريق``, "team", becomes ``ريق``) and rewrites letters.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from functools import cache
from typing import TYPE_CHECKING, TypeVar

import Stemmer

from memhooks.memory.accents import bare

if TYPE_CHECKING:
    from collections.abc import Iterable

_W = TypeVar("_W", str, bytes)

_ENGLISH = Stemmer.Stemmer("english")
# PyStemmer's own cache costs ~4x the stemming once a corpus has more distinct words than it
# holds (3.6 against 0.9 us a word over 20,000 random words); `_word_keys` caches already.
_ENGLISH.maxCacheSize = 0
#: The scripts that name their language, and the stemmer of each: Cyrillic, Greek (with
#: its extended accents), Devanagari (its digits and punctuation left out).
_LANGUAGES = {
    "\u0400-\u04ff": "russian",
    "\u0370-\u03ff\u1f00-\u1ffe": "greek",
    "\u0900-\u0963\u0971-\u097f": "hindi",
}
#: A word wholly in one of `_LANGUAGES`' scripts, as the group of that script.
_SCRIPTED = re.compile("|".join(f"([{letters}]+)" for letters in _LANGUAGES))
#: A letter of one of them.
_SCRIPTED_LETTER = re.compile(f"[{''.join(_LANGUAGES)}]")


def stem(word: str) -> str:
    """Stemming with Snowball: English's Porter2 for a word of ASCII letters, and the
    languages of `_LANGUAGES` for a word in their script.

    ``deploys``, ``deployed`` and ``deploying`` give ``deploy``; ``decided`` and
    ``decides`` give ``decid``; ``availability`` and ``available`` give ``avail``;
    ``серверов`` gives ``сервер``. Measured against the light inflection-only stemmer
    this replaced (README): recall the same or better on every eval set; the C extension
    imports in ~2 ms and stems a word in about the time the hand-written rules took
    (~1 us). Words with digits, of mixed scripts, or in any other script are returned
    unchanged, and so is a word whose stem would not be part of it (Greek's stemmer
    rewrites some: ``κιτσα`` → ``κακ``).

    Args:
        word: one casefolded word.

    Returns:
        The stem: ``stem("deploys") == stem("deployed") == stem("deploying") == "deploy"``.
    """
    if word.isascii():
        return _ENGLISH.stemWord(word) if word.isalpha() else word
    m = _SCRIPTED.fullmatch(word)
    if m is None:
        return word
    if m.lastindex == 1:
        word = word.replace("ё", "е")  # as Russian's stemmer reads it
    elif m.lastindex == 2:  # Greek's stemmer reads ``ϊ`` as ``η``: its accents go first
        nfd = unicodedata.normalize("NFD", word)
        word = "".join(c for c in nfd if not unicodedata.combining(c))
    key: str = _stemmer(m.lastindex or 0).stemWord(word)
    # A stem must be part of its word: one-shot search reads only the files holding it
    # (`stem_needles`). Greek's stemmer rewrites a few listed words.
    return key if key in word else word


@cache
def _stemmer(group: int) -> Stemmer.Stemmer:
    # The stemmer of `_SCRIPTED`'s group, made when a word first needs it.
    return Stemmer.Stemmer([*_LANGUAGES.values()][group - 1])


def stem_words(words: list[_W], stemmed: Iterable[bool]) -> None:
    """English `stem` of those of `words` marked in `stemmed` (ASCII letters), in place,
    in one call of the C extension."""
    at = list(itertools.compress(range(len(words)), stemmed))
    for j, key in zip(at, _ENGLISH.stemWords([words[j] for j in at]), strict=True):
        words[j] = key


def stem_scripted(words: list[str]) -> None:
    """`stem` of each of `words` outside ASCII, in place, if any is in a script that
    has a stemmer (one search of them all, in C, spares a text in Chinese a call each)."""
    if _SCRIPTED_LETTER.search("\n".join(words)):
        for j, word in enumerate(words):
            if not word.isascii():
                words[j] = stem(word)


#: Snowball's exceptional stems that are no prefix of a word they stand for.
_IRREGULAR = {"die": "dying", "lie": "lying", "tie": "tying", "sky": "skies"}


def stem_needles(key: str) -> tuple[str, ...]:
    """Substrings one of which every word stemmed to `key` holds (see `memory.rank.needles`).

    A Snowball stem is a prefix of its word but where it ends in an ``e`` the word may
    lack (``hoping`` → ``hope``), in an ``i`` that was a ``y`` (``retry`` → ``retri``;
    ``redis`` → ``redi`` keeps its ``i``), in an ``abl``/``ibl`` from ``-ability``
    (``possibility`` → ``possibl``), and for four listed words.

    Args:
        key: a key from `memory.terms.keys`.

    Returns:
        One or two substrings, e.g. ``stem_needles("hope") == ("hop",)`` and
        ``stem_needles("retri") == ("retri", "retry")``.
    """
    if not key.isascii():
        return (bare(key),)  # needles are looked for in `memory.needles.fold`ed text
    if not key.isalpha() or len(key) < 3:
        return (key,)
    if key in _IRREGULAR:
        return (key, _IRREGULAR[key])
    if key[-1] == "i":
        return (key, key[:-1] + "y")
    out = key[:-1] if key[-1] == "e" else key
    return (out[:-1] if out.endswith("bl") else out,)

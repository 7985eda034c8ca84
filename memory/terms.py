"""What search matches on: the keys of a text. Pure: a string in, keys out.

A key is either a lightly stemmed word (``deploys``, ``deployed`` and ``deploying`` all
give ``deploy``) or, for Chinese, Japanese and Korean, an overlapping character bigram:
those scripts put no spaces between words, so a query typed as one phrase would be one
literal term that matches nothing unless the whole phrase is in the file (the zerostack
blind spot, spec §4). Bigrams let ``催繳排程現在是第幾天重試`` meet a note that says
``催繳排程``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Han (with extension A and compatibility ideographs), kana, the prolonged sound mark,
# half-width katakana and Hangul. CJK punctuation (、。「」) is left out on purpose: it
# separates phrases the way a space does.
_CJK = (
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uff66-\uff9f\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
)
#: A run of CJK characters, or a run of letters and digits of an alphabetic script.
_TOKEN = re.compile(
    f"([{_CJK}]+)|([0-9A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]+)"
)
# Lower-to-upper and acronym-to-word boundaries inside one identifier
# (``strictPort`` → strict, port; ``PDFDownload`` → pdf, download).
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_VOWELS = frozenset("aeiouy")
_DOUBLES = ("bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt")


def keys(text: str) -> list[str]:
    """The keys of `text` in order, repeats kept (term frequency counts them).

    Words are split at anything that is not a letter or digit (so ``default_pool_size``
    gives three keys) and stemmed; a camel-case word also gives its parts
    (``strictPort`` → ``strictport``, ``strict``, ``port``). A CJK run of two or more
    characters gives its overlapping bigrams; a lone CJK character is its own key.

    Args:
        text: any text, in any case.

    Returns:
        The keys, e.g. ``keys("Deploying 部署腳本")`` → ``["deploy", "部署", "署腳", "腳本"]``.
    """
    if not text.isascii():
        # Full-width letters and digits (ＡＰＩ, ３), half-width kana and ligatures become
        # the plain forms a query is typed in.
        text = unicodedata.normalize("NFKC", text)
    out: list[str] = []
    for run, word in _TOKEN.findall(text):
        if word:
            out.extend(_word_keys(word))
        elif len(run) == 1:
            out.append(run)
        else:
            out.extend([run[i : i + 2] for i in range(len(run) - 1)])
    return out


def cjk_chars(text: str) -> list[str]:
    """The single characters of CJK runs of two or more, for one-character queries.

    `keys` turns ``消費稅`` into bigrams, so a query for ``稅`` alone would not meet it;
    the index also files each such character (see `memory.rank.index_of`).

    Args:
        text: any text.

    Returns:
        The characters, in order, e.g. ``cjk_chars("消費稅 a 稅")`` → ``["消", "費", "稅"]``.
    """
    if text.isascii():
        return []
    text = unicodedata.normalize("NFKC", text)
    return [c for run, _ in _TOKEN.findall(text) if len(run) > 1 for c in run]


@lru_cache(maxsize=8192)
def _word_keys(word: str) -> tuple[str, ...]:
    low = word.casefold()
    if low == word or word.isupper():
        return (stem(low),)
    parts = _CAMEL.split(word)
    if len(parts) == 1:
        return (stem(low),)
    # Both the whole identifier and its words: `strictport` and `port` both find it.
    return (stem(low), *(stem(p.casefold()) for p in parts))


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """Light English stemming: plurals and -ed/-ing go, a final -e goes (Porter step 1).

    Only inflections are removed, not derivations (``deployment`` stays), so a stem never
    joins words of different meaning that a reader would not also join. Words of three
    letters or less, and words with digits or non-ASCII letters, are returned unchanged.

    Args:
        word: one casefolded word.

    Returns:
        The stem: ``stem("deploys") == stem("deployed") == stem("deploying") == "deploy"``.
    """
    if (
        len(word) <= 3
        or word[-1] not in "sdgye"
        or not (word.isascii() and word.isalpha())
    ):
        return word  # every rule below needs one of these endings
    w = _plural(word)
    w = _verb(w)
    if len(w) > 2 and w[-1] == "y" and w[-2] not in _VOWELS:
        w = w[:-1] + "i"  # retry, retries, retried → retri
    if len(w) > 3 and w[-1] == "e" and w[-2] != "e":
        w = w[:-1]  # cache/caching, make/making meet once the -e is gone from both
    return w


def _plural(w: str) -> str:
    if w.endswith("sses"):
        return w[:-2]
    if w.endswith(("ies", "ied")):
        return w[:-3] + ("i" if len(w) > 4 else "ie")
    if w.endswith(("us", "ss", "is")):
        return w
    if w.endswith("s") and any(c in _VOWELS for c in w[:-2]):
        return w[:-1]
    return w


def _verb(w: str) -> str:
    if w.endswith("eed"):
        return w  # need, speed, proceed: the -ed is part of the word
    for suffix in ("ingly", "edly", "ing", "ed"):
        if not w.endswith(suffix):
            continue
        base = w[: -len(suffix)]
        if len(base) < 2 or not any(c in _VOWELS for c in base):
            return w  # ring, sing, red, bed
        if base.endswith(("at", "bl", "iz")):
            return base + "e"
        if base.endswith(_DOUBLES):
            return base[:-1]
        if _short(base):
            return base + "e"
        return base
    return w


def _short(w: str) -> bool:
    # Porter's short syllable: consonant-vowel-consonant at the end of a one-syllable stem
    # (hop-ing → hope, not hop), so that the -e rule above treats both forms alike.
    if len(w) != 3:
        return False
    return (
        w[0] not in _VOWELS
        and w[1] in _VOWELS
        and w[2] not in _VOWELS
        and w[2] not in "wxy"
    )

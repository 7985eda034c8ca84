"""What search matches on: the keys of a text. Pure: a string in, keys out.

A key is either a stemmed word (Snowball English: ``deploys``, ``deployed`` and
``deploying`` all give ``deploy``) or, for Chinese, Japanese and Korean, an overlapping character bigram:
those scripts put no spaces between words, so a query typed as one phrase would be one
literal term that matches nothing unless the whole phrase is in the file (the zerostack
blind spot, docs/design.md). Bigrams let ``催繳排程現在是第幾天重試`` meet a note that says
``催繳排程``.
"""

from __future__ import annotations

import operator
import re
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple, cast

from memhooks.memory.accents import ACCENTED, MARKED, bare
from memhooks.memory.stems import stem, stem_scripted, stem_words

if TYPE_CHECKING:
    from collections.abc import Sequence

#: A token of `line_tokens`: text, or for an ASCII text its bytes.
Token = str | bytes

#: Han characters (extension A, unified, compatibility), as a character class's ranges.
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: Thai, Lao, Myanmar and Khmer: written without spaces between words, so cut into pairs
#: of characters as CJK is (letters, marks and digits; read off unicodedata as `_SPACED`).
_UNSPACED = (
    "\u0e00-\u0e3e\u0e40-\u0e4e\u0e50-\u0e59\u0e5c-\u0eff\u1000-\u1049\u1050-\u109d"
    "\u1780-\u17d3\u17d7\u17dc-\u17ff"
)
# Han, kana, the prolonged sound mark, half-width katakana, Hangul and `_UNSPACED`. CJK
# punctuation (、。「」) is left out on purpose: it separates phrases the way a space does.
_CJK = (
    f"\u3040-\u30ff{HAN}\uff66-\uff9f\uac00-\ud7af\u1100-\u11ff\u3130-\u318f{_UNSPACED}"
)
#: Letters and marks of the other scripts that put spaces between words: Cyrillic's
#: supplement, Armenian, Hebrew, Arabic, Syriac, Thaana, the scripts of India and Sri
#: Lanka, Georgian and Ethiopic, each script's punctuation left out (as read off
#: `unicodedata` by `tests/memory/test_terms.py`). Thai, Lao, Khmer and Myanmar, written
#: without spaces, are not among them.
_SPACED = (
    "\u0500-\u0559\u0560-\u0588\u058b-\u058c\u0590-\u05bd\u05bf\u05c1-\u05c2"
    "\u05c4-\u05c5\u05c7-\u05f2\u05f5-\u05ff\u0610-\u061a\u0620-\u0669\u066e-\u06d3"
    "\u06d5-\u06dc\u06df-\u06e8\u06ea-\u06fc\u06ff\u070e\u0710-\u07f5\u07fa-\u07fd"
    "\u0800-\u082f\u083f-\u085d\u085f-\u0887\u0889-\u088f\u0892-\u08e1\u08e3-\u0963"
    "\u0966-\u096f\u0971-\u09f1\u09f4-\u09f9\u09fc\u09fe-\u0a75\u0a77-\u0aef"
    "\u0af2-\u0b6f\u0b71-\u0bf2\u0bfb-\u0c76\u0c78-\u0c7e\u0c80-\u0c83\u0c85-\u0d4e"
    "\u0d50-\u0d78\u0d7a-\u0df3\u0df5-\u0dff\u10a0-\u10fa\u10fc-\u10ff\u1200-\u135f"
    "\u1369-\u138f\u139a-\u139f"
)
#: Letters of the alphabetic scripts a word is made of (Latin, Vietnamese's among them,
#: Greek, Cyrillic, and `_SPACED`).
_LETTERS = f"A-Za-z\u00c0-\u024f\u1e00-\u1eff\u0370-\u03ff\u0400-\u04ff{_SPACED}"
#: Letters and digits of the alphabetic scripts a word is made of.
_WORD = f"0-9{_LETTERS}"
#: Symbols outside ASCII (emoji, arrows, check marks, currency, box drawing, math): each
#: is a key of its own, as a lone CJK character is, so that ``🚀`` finds the line that
#: holds it (as grep would). ASCII punctuation stays a separator (`memory.literals`).
_SYMBOLS = (
    "\u00a2-\u00a5\u00a9\u00ae\u00b0\u00b1\u20a0-\u20c0\u2190-\u244a\u2500-\u27bf"
    "\u27c0-\u2bff\U0001f000-\U0001faff"
)
#: A flag: two regional indicators, one key (🇫🇷 is no 🇫 and 🇷, which 🇷🇺 holds too).
_FLAG = "[\U0001f1e6-\U0001f1ff]{2}"
#: The characters of words and of CJK runs, as a character class's ranges: Python's
#: ``\w`` without the marks that most scripts but Latin write their vowels with.
WORD_CHARS = f"{_CJK}{_WORD}"
#: A word, and a letter, of an ASCII text: all `_unicode`'s classes hold of ASCII.
_ASCII_WORD, _ASCII_LETTER = re.compile("[0-9A-Za-z]+"), re.compile("[A-Za-z]")
#: ASCII letters lowered, digits and newlines kept, any other byte a space.
_LOWER_RUNS = bytes(
    c | 32 if 65 <= c <= 90 else c if 97 <= c <= 122 or 48 <= c <= 57 or c == 10 else 32
    for c in range(256)
)
#: Each ASCII byte's class for spotting a camel-case boundary: U(pper), l(ower), d(igit);
#: any other byte a space.
_CLASSES = bytes(
    85 if 65 <= c <= 90 else 108 if 97 <= c <= 122 else 100 if 48 <= c <= 57 else 32
    for c in range(256)
)
# Lower-to-upper and acronym-to-word boundaries inside one identifier
# (``strictPort`` → strict, port; ``PDFDownload`` → pdf, download).
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def filed_keys(text: str) -> list[str]:
    """`keys` as a file's text is filed: a word with accents also gives the keys of its
    bare form (`bare`), so that a query typed without them finds it (``cafe``, ``Malaga``
    find ``café``, ``Málaga``) while one typed with them finds only what holds them (and
    ``Åre`` is not ``are``). The same keys `line_tokens` gives, in no particular order."""
    out = keys(text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
        if ACCENTED.search(text):
            accented_word = _unicode().accented_word
            for m in accented_word.finditer(text):
                # The whole word and each camel-case part holding one of `MARKED`, as
                # `line_tokens` files them.
                parts = _camel_parts(m).split()
                plain = [(w, bare(w)) for w in parts if accented_word.search(w)]
                out.extend(stem(b.casefold()) for w, b in plain if b != w)
    return out


def keys(text: str) -> list[str]:
    """The keys of `text` in order, repeats kept (term frequency counts them).

    Words are split at anything that is not a letter or digit (so ``default_pool_size``
    gives three keys) and stemmed; a camel-case word also gives its parts
    (``strictPort`` → ``strictport``, ``strict``, ``port``). A CJK run of two or more
    characters gives its overlapping bigrams; a lone CJK character is its own key, and
    so is each symbol outside ASCII (``🚀``, ``✓``, ``→``).

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
    if text.isascii():  # no pattern outside ASCII compiled for it
        for word in _ASCII_WORD.findall(text):
            out.extend(_word_keys(word))
        return out
    for m in _unicode().token.finditer(text):
        run, word = m.groups()
        if word:
            out.extend(_word_keys(word))
        elif run is None or len(run) == 1:
            out.append(m.group())  # a symbol, or a lone CJK character
        else:
            out.extend([run[i : i + 2] for i in range(len(run) - 1)])
    return out


def line_tokens(text: str) -> Sequence[Sequence[Token]]:
    """The tokens of each line of `text`, each token standing for one key (`token_key`).

    The same keys as `keys` and `cjk_chars` give line by line, made so that counting
    them is counting keys (a build tokenizes every note, so this is done on the whole
    text in C): words are casefolded (an ASCII text is lowered as bytes); a camel-case
    word is followed by its parts (``strictPort strict Port``), and a CJK run of two or
    more is replaced by its bigrams and its characters.
    """
    if text.isascii():
        classes = text.encode().translate(_CLASSES)
        if b"lU" in classes or b"dU" in classes or b"UUl" in classes:
            text = _patterns()[0].sub(_camel_parts, text)
        return list(map(bytes.split, text.encode().translate(_LOWER_RUNS).split(b"\n")))
    camel_word, cjk_run, between, symbol = _patterns()
    text = unicodedata.normalize("NFKC", text)
    # Where no ASCII pair is a camel-case boundary, no word holds one (`_CAMEL`).
    classes = text.encode("ascii", "replace").translate(_CLASSES)
    if b"lU" in classes or b"dU" in classes or b"UUl" in classes:
        text = camel_word.sub(_camel_parts, text)
    if ACCENTED.search(text):
        text = _unicode().accented_word.sub(_bare_parts, text)
    text = cjk_run.sub(_cjk_parts, text)
    text = symbol.sub(r" \g<0> ", text)
    return list(map(str.split, between.sub(" ", text).casefold().split("\n")))


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern[str], ...]:
    # A word holding a camel-case boundary (`_CAMEL`); a CJK run; what separates runs; a
    # symbol. Compiled when first needed (~5 ms): a search that tokenizes nothing never is.
    return (
        re.compile(
            f"(?<![{_WORD}])[{_WORD}]*?(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z])[{_WORD}]*"
        ),
        re.compile(f"[{_CJK}]+"),
        re.compile(f"[^{_CJK}{_WORD}{_SYMBOLS}\n]+"),
        re.compile(f"{_FLAG}|[{_SYMBOLS}]"),
    )


class _Unicode(NamedTuple):
    token: re.Pattern[str]  #: a CJK run, a word (letters, digits) or a symbol
    accented_word: re.Pattern[str]  #: a word holding one of `MARKED`
    cjk: re.Pattern[str]  #: a CJK character (`scripts`)
    alphabetic: re.Pattern[str]  #: a word of letters of an alphabetic script


@lru_cache(maxsize=1)
def _unicode() -> _Unicode:
    # What a query or a text outside ASCII is read with, compiled when first needed
    # (~4 ms: the classes are long), and so never for a search of ASCII words.
    return _Unicode(
        re.compile(f"([{_CJK}]+)|([{_WORD}]+)|{_FLAG}|[{_SYMBOLS}]"),
        re.compile(f"(?<![{_WORD}])[{_WORD}]*[{MARKED}][{_WORD}]*"),
        re.compile(f"[{_CJK}]"),
        re.compile(f"[{_LETTERS}]+"),
    )


def token_key(token: Token) -> str:
    """The key a token of `line_tokens` stands for."""
    return stem(token.decode() if isinstance(token, bytes) else token)


def token_names(tokens: list[Token]) -> list[bytes]:
    """`token_key` of each of `tokens` (all of one text), as UTF-8: the words stemmed in
    one call, so that a text of half a million distinct tokens (a base64 blob) costs no
    call of the interpreter each (a word outside ASCII is stemmed on its own, if its
    script has a stemmer); a token of an ASCII text that stemming leaves as it is is its
    own key."""
    if tokens and isinstance(tokens[0], bytes):
        names = cast("list[bytes]", list(tokens))
        stem_words(names, map(bytes.isalpha, names))
        return names
    words = cast("list[str]", list(tokens))
    stem_words(
        words, map(operator.and_, map(str.isascii, words), map(str.isalpha, words))
    )
    stem_scripted(words)
    return [w.encode("utf-8", "surrogatepass") for w in words]


class TokenKeys(dict[Token, str]):
    """`token_key` of each token looked up, kept: at most `cap` tokens, then forgotten."""

    def __init__(self, cap: int) -> None:
        super().__init__()
        self.cap = cap

    def __missing__(self, token: Token) -> str:
        if len(self) >= self.cap:
            self.clear()
        key = self[token] = token_key(token)
        return key


def _camel_parts(m: re.Match[str]) -> str:
    # A word and its parts, if `_word_keys` splits it.
    word = m.group()
    if word.casefold() == word or word.isupper():
        return word
    parts = _CAMEL.split(word)
    return word if len(parts) == 1 else " ".join([word, *parts])


def _bare_parts(m: re.Match[str]) -> str:
    return _with_bare(m.group())


@lru_cache(maxsize=8192)
def _with_bare(word: str) -> str:
    # A word with accents and its bare form (`filed_keys`); a log repeats its names.
    plain = bare(word)
    return word if plain == word else f"{word} {plain}"


def _cjk_parts(m: re.Match[str]) -> str:
    # A CJK run as the keys it gives (`keys`, `cjk_chars`), kept apart from any word.
    run = m.group()
    if len(run) == 1:
        return f" {run} "
    return " ".join(["", *[run[i : i + 2] for i in range(len(run) - 1)], *run, ""])


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
    found = _unicode().token.findall(text)
    return [c for run, _ in found if run and len(run) > 1 for c in run]


def scripts(text: str) -> set[str]:
    """The scripts `text` uses: ``"cjk"`` (Chinese, Japanese and Korean characters) and
    ``"alphabetic"`` (words of letters), e.g. both for ``现在 Airflow 跑在哪``."""
    if text.isascii():
        return {"alphabetic"} if _ASCII_LETTER.search(text) else set()
    patterns = _unicode()
    return {s for s in ("cjk", "alphabetic") if getattr(patterns, s).search(text)}


def script(text: str) -> str:
    """The script `text` is mainly written in (`scripts`): CJK when it has more CJK
    characters than alphabetic words (a Chinese note that names `pnpm` and `Redis`),
    else alphabetic; ``""`` for a text with neither."""
    if text.isascii():
        return "alphabetic" if _ASCII_LETTER.search(text) else ""
    patterns = _unicode()
    cjk, words = len(patterns.cjk.findall(text)), len(patterns.alphabetic.findall(text))
    return "cjk" if cjk > words else "alphabetic" if words else ""


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

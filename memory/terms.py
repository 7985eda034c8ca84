"""What search matches on: the keys of a text. Pure: a string in, keys out.

A key is either a stemmed word (Snowball English: ``deploys``, ``deployed`` and
``deploying`` all give ``deploy``) or, for Chinese, Japanese and Korean, an overlapping character bigram:
those scripts put no spaces between words, so a query typed as one phrase would be one
literal term that matches nothing unless the whole phrase is in the file (the zerostack
blind spot, docs/design.md). Bigrams let ``催繳排程現在是第幾天重試`` meet a note that says
``催繳排程``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING

import Stemmer

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

#: A run of a line (`runs`): text, or for an ASCII line its bytes.
Run = str | bytes

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
#: Letters of `_TOKEN`'s words are below this; its CJK characters above.
_LAST_LETTER = "\u04ff"
#: Runs whose keys `run_keys` keeps (~180 bytes each; dropped after a build).
_RUN_CAP = 1 << 18
_RUN_KEYS: dict[Run, tuple[str, ...]] = {}
#: ASCII letters and digits stay, a newline stays, any other byte becomes a space.
_ASCII_RUNS = bytes(
    c if chr(c).isascii() and chr(c).isalnum() or c == 10 else 32 for c in range(256)
)
# Lower-to-upper and acronym-to-word boundaries inside one identifier
# (``strictPort`` → strict, port; ``PDFDownload`` → pdf, download).
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_ENGLISH = Stemmer.Stemmer("english")
# PyStemmer's own cache costs ~4x the stemming once a corpus has more distinct words than it
# holds (3.6 against 0.9 us a word over 20,000 random words); `_word_keys` caches already.
_ENGLISH.maxCacheSize = 0
#: Snowball's exceptional stems that are no prefix of a word they stand for.
_IRREGULAR = {"die": "dying", "lie": "lying", "tie": "tying", "sky": "skies"}


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


def runs(line: str) -> list[str]:
    """The runs of one line that its keys come from (`run_keys`), in order, repeats kept:
    each a run of CJK characters or a word (text NFKC-normalised as `keys` does)."""
    if not line.isascii():
        line = unicodedata.normalize("NFKC", line)
    return [word or run for run, word in _TOKEN.findall(line)]


def line_runs(text: str) -> Sequence[Sequence[Run]]:
    """`runs` of each line of `text`; for ASCII text, as bytes (the same runs, split in
    C: a third of what a regex costs, and a build splits every note).
    """
    if text.isascii():
        return list(map(bytes.split, text.encode().translate(_ASCII_RUNS).split(b"\n")))
    return list(map(runs, text.split("\n")))


def run_keys(found: Iterable[Run]) -> Callable[[Run], tuple[str, ...]]:
    """What the index files for each run of `found` (from `runs`), as a lookup: the
    run's `keys`, plus for a CJK run of two or more its single characters (`cjk_chars`).
    """
    keys_of_runs(set(found))
    return _RUN_KEYS.__getitem__


def keys_of_runs(distinct: Iterable[Run]) -> list[tuple[str, ...]]:
    """`run_keys` of each of these runs (each given once), in order.

    The keys of a run are kept from one call to the next (at most `_RUN_CAP` runs): a
    corpus repeats its words, and looking them up costs a dict lookup, not a stemming.
    """
    distinct = list(distinct)
    out = list(map(_RUN_KEYS.get, distinct))
    if None in out:
        if len(_RUN_KEYS) + out.count(None) > _RUN_CAP:
            _RUN_KEYS.clear()
        for i, run in enumerate(distinct):
            ks = out[i]
            if ks is None:
                ks = out[i] = _RUN_KEYS[run] = _keys_of_run(run)
    return out  # type: ignore[return-value]  # no None is left


def forget_runs() -> None:
    """Drop the keys `run_keys` kept (a build is done: the memory is worth more)."""
    _RUN_KEYS.clear()


def _keys_of_run(run: Run) -> tuple[str, ...]:
    if isinstance(run, bytes):
        return _word_keys(run.decode())
    if run[0] <= _LAST_LETTER:
        return _word_keys(run)
    if len(run) == 1:
        return (run,)
    return (*[run[i : i + 2] for i in range(len(run) - 1)], *run)


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


def stem(word: str) -> str:
    """English stemming with Snowball's Porter2 (PyStemmer): inflections and derivations.

    ``deploys``, ``deployed`` and ``deploying`` give ``deploy``; ``decided`` and
    ``decides`` give ``decid``; ``availability`` and ``available`` give ``avail``.
    Measured against the light inflection-only stemmer this replaced (README): recall the
    same or better on every eval set; the C extension imports in ~2 ms and stems a word
    in about the time the hand-written rules took (~1 us). Words with digits or
    non-ASCII letters are returned unchanged.

    Args:
        word: one casefolded word.

    Returns:
        The stem: ``stem("deploys") == stem("deployed") == stem("deploying") == "deploy"``.
    """
    if not (word.isascii() and word.isalpha()):
        return word
    stemmed: str = _ENGLISH.stemWord(word)
    return stemmed


def stem_needles(key: str) -> tuple[str, ...]:
    """Substrings one of which every word stemmed to `key` holds (see `memory.rank.needles`).

    A Snowball stem is a prefix of its word but where it ends in an ``e`` the word may
    lack (``hoping`` → ``hope``), in an ``i`` that was a ``y`` (``retry`` → ``retri``;
    ``redis`` → ``redi`` keeps its ``i``), in an ``abl``/``ibl`` from ``-ability``
    (``possibility`` → ``possibl``), and for four listed words.

    Args:
        key: a key from `keys`.

    Returns:
        One or two substrings, e.g. ``stem_needles("hope") == ("hop",)`` and
        ``stem_needles("retri") == ("retri", "retry")``.
    """
    if not (key.isascii() and key.isalpha()) or len(key) < 3:
        return (key,)
    if key in _IRREGULAR:
        return (key, _IRREGULAR[key])
    if key[-1] == "i":
        return (key, key[:-1] + "y")
    out = key[:-1] if key[-1] == "e" else key
    return (out[:-1] if out.endswith("bl") else out,)

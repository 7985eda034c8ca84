"""English words for a question asked in Chinese about notes written in English (issue 18).

People write their logs in the language the work is done in and ask in their own: "集群维护
窗口目前是每个月的哪一天？" shares no word with the log that says "maintenance window moves
to the first Tuesday", and a question with no English word in it found nothing. Searching
with the dictionary translations of a question's words is the oldest way across languages
in retrieval (Hull and Grefenstette 1996, Ballesteros and Croft 1997). Here a question
whose subject is written only in Chinese — no word in Latin script but stop words — is
also searched for the English glosses of its Chinese words when the files hold at most a
quarter of its subject's keys (`widened`; notes in Chinese are found by their words):
Lindera segments it with CC-CEDICT (`lindera-python-cc-cedict`: the segmenter MIT, the
dictionary CC BY-SA 4.0, maintained by MDBG) and gives each word's definitions; the first
`SENSES` of each word of two or more characters that is no frame or time word
(`memory.question`) are taken, less English stop words and "sth"/"sb". Without the
package (it has no wheel for Linux on ARM), nothing is added.

Measured with ``memhooks eval`` (docs/search-quality.md), words only, over the dev set,
the coding set and eleven unseen coding sets: 12 recency and origin questions that found
nothing now found, 9 of them in the top 5 and 5 first; none lower; no dev category moved;
on two sets written blind afterwards, 3 more, none lower. Glossing a question that also
names its subject in English ("ehr-publisher 现在的重试策略") put ten questions lower;
glossing when the words found the subject, a one-shot search of a Chinese phrase paid the
dictionary's load (4.5× `grep -ril` at 10,000 notes, against 1.7×). At first no file
could hold a word of the subject; then one Chinese line using one of its words ("自动" in
"最初前台员工多久没操作会被自动登出？") kept a question from its glosses: with `HELD`, two
more found (not found → 5th and 2nd), none lower by words; with meaning one a place lower.
Then four senses a word instead of two (three senses had put two dev cjk questions lower
before the gate kept notes in Chinese from glosses; now no dev question moves): words
only, five questions higher (not found → 4th, 6th → 1st, 5th → 2nd, 8th → 2nd, 32nd →
6th) and one a place lower; with meaning three higher, none lower. Three senses gain
three and lose two; five, as four; eight lose more. Both were read from sets already seen;
on two written blind afterwards neither moved a question.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from memhooks.memory.question import CJK_FRAME, STOP_WORDS, read
from memhooks.memory.terms import HAN, keys

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from memhooks.memory.index import Searchable

    Tokens = Callable[[Iterable[str]], Iterator[tuple[str, list[str]]]]

#: How many senses of each Chinese word are taken. CC-CEDICT lists the common first, but
#: not always the one a log uses: 试点 is "test point / to carry out trial / pilot scheme".
SENSES = 4
#: Glossed only when the files hold at most this share of the subject's keys: notes in
#: Chinese hold half or more of a question's (the dev set's: 0.5-1.0), logs in English
#: none, or one a Chinese line happens to use (1 of 8, 1 of 10).
HELD = 0.25

_HAN = re.compile(f"[{HAN}]+")
_LATIN = re.compile(r"[a-z][a-z0-9_.'-]*")
_ENGLISH = re.compile(r"[a-z][a-z0-9-]+")
#: Senses that are no translation: measure words, variants, surnames, cross-references.
_NO_SENSE = re.compile(r"cl:|(?:old )?variant of|surname|see |used in|abbr\.")
#: English words of a gloss that say nothing: stop words, and "sth"/"sb".
_DROPPED = STOP_WORDS | {"sth", "sb", "etc", "one's"}
#: Where a token's definitions start among Lindera's details for CC-CEDICT (part of
#: speech ×4, pinyin, traditional, simplified, definitions; the CSV split them at commas).
_DEFINITION = 7


def widened(query: str, index: Searchable) -> str:
    """`query`, then the English glosses of its Chinese words when its subject is written
    only in Chinese and the files of `index` hold at most `HELD` of its keys; else `query`
    as it is.

    >>> widened("批量导入目前最多支持多少行？", index)  # doctest: +SKIP
    '批量导入目前最多支持多少行？ batch lot introduce channel maximum favor support'
    """
    if not _chinese_only(query.casefold()):
        return query  # every other question: no look-up in the index
    subject = set(keys(query)).difference(read(query).subjectless)
    held = sum(1 for k in subject if index.postings(k))
    if held > HELD * len(subject):
        return query  # Chinese notes: the words found it (and no dictionary is loaded)
    extra = glosses(query)
    return f"{query} {extra}" if extra else query


@lru_cache(maxsize=64)
def glosses(query: str) -> str:
    """The English glosses of the Chinese words of `query`, space-separated ("" when it
    has a subject word in Latin script, has no Chinese, or the dictionary is missing)."""
    text = query.casefold()
    tokenize = _tokenizer() if _chinese_only(text) else None
    if tokenize is None:
        return ""
    out: dict[str, None] = {}
    for surface, details in tokenize(_HAN.findall(text)):
        if len(surface) > 1 and surface not in CJK_FRAME:
            out.update(dict.fromkeys(_english(details)))
    return " ".join(out)


def _chinese_only(text: str) -> bool:
    # Chinese, and no word in Latin script but stop words (`text` casefolded).
    return bool(_HAN.search(text)) and all(
        w in STOP_WORDS for w in _LATIN.findall(text)
    )


def _english(details: list[str]) -> list[str]:
    senses = ",".join(details[_DEFINITION:]).strip("/").split("/")
    words = []
    for sense in [s for s in senses if not _NO_SENSE.match(s.casefold())][:SENSES]:
        plain = re.sub(r"\([^)]*\)|\[[^]]*\]", " ", sense.casefold())
        words += [w for w in _ENGLISH.findall(plain) if w not in _DROPPED]
    return words


@lru_cache(maxsize=1)
def _tokenizer() -> Tokens | None:
    # Lindera's Chinese tokenizer, built once a process (0.12 s: the dictionary is
    # decompressed), or None without the package.
    try:
        from lindera import TokenizerBuilder  # only for a question asked in Chinese
    except ImportError:
        return None
    builder = TokenizerBuilder()
    builder.set_dictionary("embedded://cc-cedict")
    tokenizer = builder.build()

    def tokenize(runs: Iterable[str]) -> Iterator[tuple[str, list[str]]]:
        for run in runs:
            for token in tokenizer.tokenize(run):
                if (
                    len(token.details) > _DEFINITION
                    and token.details[_DEFINITION] != "*"
                ):
                    yield token.surface, token.details

    return tokenize


__all__ = ["HELD", "SENSES", "glosses", "widened"]

"""The names a question uses, and the files that mention none of them (issue 18). Pure.

A question that names someone or something ("Was Jonas a thoughtful boyfriend?", "Where
does Hana live now?", "how do I configure Redis") is about them. BM25 weighs a name by
how few files hold it, and in a project that keeps several people's or several
components' logs a name is often common while a word beside it is rare: "thoughtful"
and "boyfriend" then find another conversation's session, which never mentions Jonas,
first. So once the corpus holds one of a question's names, a file that holds none of
them scores `UNNAMED` of its score (`memory.rank`).

A name is a capitalised word that does not start a sentence (where any word is
capitalised) and is not a function word, a month or a weekday (a daily log is dated by its
file name), in a question not written in title case: "Hana", "Lucas's", "Redis" in "how do
I configure Redis". Only capitals tell: no Chinese or Japanese word is taken for a name (a
Latin one in such a question is). One name held is enough: a session of a chat names its
speakers on every line, so a question about Hana's Berlin flat still finds the session
that calls it "the flat in Neukölln".

Measured with ``memhooks eval`` (docs/search-quality.md): on the chat sets pooled in one
project, 18 questions move up and none down (talk pooled R@5 0.91 → 0.92, evenings pooled
0.86 → 0.88); per conversation, where every session names its speakers, one question moves
up on chat and one on evenings; the coding and dev sets do not move. `UNNAMED` anywhere in
0.3-0.5 gives the same; at 0.8 talk pooled loses one. Demoting a file for each name it
lacks moved more questions up, but put two answers out of the top 5: the session that
answers "How did Hana get her Berlin flat" names Hana, not Berlin.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memhooks.memory.index import holding
from memhooks.memory.terms import keys

if TYPE_CHECKING:
    from collections.abc import Collection

    from memhooks.memory.index import Searchable

#: The share of its score kept by a file that holds none of the question's names.
UNNAMED = 0.5

_NAME = re.compile(r"[A-Z][a-z]+(?:'s|')?")
_PUNCTUATION = "\"'()[]{}<>,;.!?:«»“”‘’"
_SENTENCE_END = (".", "!", "?", ":")


def names(query: str, common: Collection[str]) -> frozenset[str]:
    """The keys of the names in a question.

    Args:
        query: what was typed (NFKC-normalized, not casefolded: case is the clue).
        common: casefolded words that are no name even when capitalised mid-sentence.

    Returns:
        e.g. ``names("Was Jonas a thoughtful boyfriend?", …)`` → ``{"jona"}`` ("Was"
        starts the sentence; as keys, i.e. stemmed); none for "What Did We Decide".
    """
    tokens = query.split()
    words = [t.strip(_PUNCTUATION) for t in tokens]
    cased = [w[0].islower() for w in words if w and _cased(w)]
    if len(cased) > 1 and not any(cased):
        return frozenset()  # in title case no word stands out
    out: set[str] = set()
    start = True
    for token, word in zip(tokens, words, strict=True):
        base = word.split("'", 1)[0]
        if not start and _NAME.fullmatch(word) and base.casefold() not in common:
            out.update(keys(base))
        start = token.endswith(_SENTENCE_END)
    return frozenset(out)


def _cased(word: str) -> bool:
    # Whether a word's first letter has a case (Latin, Greek, Cyrillic; not CJK).
    return word[0].isupper() or word[0].islower()


def demote_unnamed(
    index: Searchable, score: dict[int, float], named: frozenset[str]
) -> None:
    """Scale the score of each file that holds none of the keys `named` (by content or
    by name) by `UNNAMED`, in place; nothing if no file in `index` holds one."""
    held = holding(index, named)
    if held:
        for i in score:
            if i not in held:
                score[i] *= UNNAMED


__all__ = ["UNNAMED", "demote_unnamed", "names"]

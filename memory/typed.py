"""A query as typed: its terms, the keys each is looked up by, and what a one-shot search
indexes for them. Pure: a string in.

Terms are split at whitespace and de-duplicated case-insensitively. A term's keys are
its stemmed words and CJK bigrams (`memory.terms`), unless its punctuation is part of
what was typed — ``%s``, ``c++``, ``.env``, ``#123``, ``C#``, ``--cap``: the keys would
keep only the letters and digits, and ``%s`` (the key ``s``) would match every
``user's``. Such a term's one key is its *literal*, the term casefolded, matched as a
substring of a line as grep would (`memory.literals.Literals` finds its documents).

Punctuation that only wraps or ends the term (``port?``, ``'now'``, ``(redis),``) or
joins two words (``foo.bar``, ``snake_case``, ``node.js``, ``it's``, ``e-receipt``,
``a/b``, ``1,000``, ``AT&T``, ``bob@example.com``) makes no literal: those terms match
by their keys, up to stemming, as before.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from memhooks.memory.constants import SEARCH_MAX_TERMS
from memhooks.memory.index import Query, line_keys
from memhooks.memory.needles import fold
from memhooks.memory.stems import stem_needles
from memhooks.memory.terms import keys, scripts

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

#: Quotes and brackets around a term; what ends a sentence after it.
AROUND = "\"'`()[]{}«»“”‘’"
STOPS = ".,;:!?"
#: Between two letters or digits, these join one word.
_JOINS = "-'’./:_@\\&,;"
#: What separates the words of a joined term, for its label (`parts_held`).
_WORDS = re.compile(r"[\W_]+")


def terms_of(query: str) -> list[str]:
    """Whitespace-split, case-folded, de-duplicated terms in query order."""
    seen: dict[str, None] = {}
    for t in query.split():
        seen.setdefault(t.casefold(), None)
    return list(seen)


def bounded(query: str) -> tuple[str, int]:
    """`query` kept to its first `SEARCH_MAX_TERMS` distinct terms, and how many distinct
    terms were left out."""
    first: dict[str, str] = {}  # each distinct term as first typed
    for t in query.split():
        first.setdefault(t.casefold(), t)
    if len(first) <= SEARCH_MAX_TERMS:
        return query, 0
    kept = list(first.values())[:SEARCH_MAX_TERMS]
    return " ".join(kept), len(first) - SEARCH_MAX_TERMS


class Term(NamedTuple):
    """One typed query term and the keys it stands for."""

    text: str  #: as typed, lowered: "Straße" is shown as straße (folded: strasse)
    keys: tuple[str, ...]
    #: For words joined by punctuation (``in-memory``, ``node.js``): the term as it is
    #: found whole (`whole_of`); ``""`` for any other term.
    whole: str = ""


def query_terms(query: str) -> list[Term]:
    """Whitespace-split terms, de-duplicated case-insensitively, with their keys.

    Args:
        query: what was typed.

    Returns:
        One `Term` per distinct typed term, in query order: its literal as its one key
        (`literal_of`), or its keys, de-duplicated.
    """
    seen: dict[str, Term] = {}
    typed = query.split()
    for raw in typed:
        folded = raw.casefold()
        if folded not in seen:
            literal = literal_of(raw, alone=len(typed) == 1)
            ks = (literal,) if literal else tuple(dict.fromkeys(keys(raw)))
            seen[folded] = Term(raw.lower(), ks, "" if literal else whole_of(raw))
    # A lone "-" or "…" among words separates them: no term of its own, nor a "(0)".
    return [t for t in seen.values() if t.keys] or list(seen.values())


def literal_of(term: str, *, alone: bool = False) -> str:
    """The literal a typed term must be found as, or ``""`` when its keys stand for it.

    Args:
        term: one whitespace-separated term, as typed.
        alone: it is the whole query: a lone ``%`` is then looked for, not a separator,
            and so is a lone ``"``, ``?`` or ``...`` (not stripped to nothing).

    Returns:
        The term casefolded (NFKC) without the quotes, brackets and full stops around
        it, e.g. ``literal_of("%s,") == "%s"``, ``literal_of("C#") == "c#"``; ``""`` for
        ``foo.bar``, ``snake_case``, ``node.js``, ``port?`` or ``'now'``.
    """
    folded = fold(term)
    t = folded.lstrip(AROUND).rstrip(AROUND + STOPS) or (folded if alone else "")
    if (len(t) < 2 and not alone) or "cjk" in scripts(t):
        # A lone "+", "-" or "/" separates words ("A + B"), and a CJK question's "?" or
        # "(" its phrases: their bigrams match as typed already.
        return ""
    for i, c in enumerate(t):
        if not c.isascii() or c.isalnum():
            continue
        inner = 0 < i < len(t) - 1 and t[i - 1].isalnum() and t[i + 1].isalnum()
        if not (inner and c in _JOINS):
            return t
    return ""


def whole_of(term: str) -> str:
    """What a term of words joined by punctuation is found whole as, or ``""``.

    A term such as ``in-memory``, ``read-only``, ``node.js`` or ``snake_case`` is matched
    by its keys (``in``, ``memori``), which most files hold apart; a file holding it as
    typed holds what was asked for. Its whole form is the term casefolded without the
    quotes, brackets and full stops around it, as `literal_of` has it, looked for as a
    substring (`memory.literals.Literals`). Only for a term of two keys or more joined
    by punctuation other than an apostrophe (``it's`` and ``Omar's`` are one word and
    its ending), in no CJK script.

    ``whole_of("In-Memory,") == "in-memory"``; ``""`` for ``memory``, ``it's`` or ``%s``.
    """
    folded = fold(term)
    t = folded.lstrip(AROUND).rstrip(AROUND + STOPS)
    if "cjk" in scripts(t) or len(set(keys(t))) < 2 or literal_of(term):
        return ""
    joined = any(
        c in _JOINS and c not in "'’" and t[i - 1].isalnum() and t[i + 1].isalnum()
        for i, c in enumerate(t[1:-1], 1)
    )
    return t if joined else ""


def parts_held(term: Term, hit: set[str]) -> tuple[str, ...]:
    """What a file holding the query keys `hit` matched of `term`, as its label says
    (`memory.render.matched_label`): the term when it holds the term whole (its whole
    form, or any of its keys for a term without one); else the words of a joined term
    whose keys it holds (``memory`` of ``in-memory``)."""
    if not term.whole:
        return (term.text,) if hit.intersection(term.keys) else ()
    if term.whole in hit:
        return (term.text,)
    words = [w for w in _WORDS.split(term.text) if w]
    return tuple(
        w for w in dict.fromkeys(words) if (ks := keys(w)) and hit.issuperset(ks)
    )


@lru_cache(maxsize=1024)
def is_literal(key: str) -> bool:
    """Whether a query key is a literal (`literal_of`) rather than a key of the index."""
    return bool(key) and literal_of(key, alone=True) == key


def base_keys(literals: Iterable[str]) -> set[str]:
    """The index keys a document holding one of `literals` holds (``%s``: ``s``)."""
    return {k for lit in literals for k in keys(lit)}


def query_of(terms: Sequence[Term]) -> Query:
    """What a one-shot search indexes for these terms (see `memory.index.Index`); for a
    literal, the keys it holds too (`memory.literals.Literals` reads their documents)."""
    ks = {k for t in terms for k in t.keys}
    return Query(
        frozenset(ks | base_keys(filter(is_literal, ks))), tuple(needles(terms))
    )


def needles(terms: Sequence[Term]) -> list[str]:
    """Substrings one of which every file that can match holds (in its casefolded text or
    name): what `Store.scan` filters on before anything is tokenized.

    A key is a substring of the word it came from but where stemming changed its end
    (`memory.stems.stem_needles`); a literal is its own needle, and its keys' too.
    """
    out: dict[str, None] = {}
    for t in terms:
        for k in t.keys:
            # A literal found nowhere is searched by its keys (`memory.literals`).
            base = keys(k) if is_literal(k) else ()
            for n in (k, *base):
                out.update(dict.fromkeys(stem_needles(n)))
    return list(out)


def held(line: str, wanted: set[str]) -> set[str]:
    """The `wanted` keys `line` holds: its keys, and the literals found in it."""
    here = wanted.intersection(line_keys(line))
    literals = [k for k in wanted if is_literal(k)]
    if literals:
        low = fold(line)
        here.update(k for k in literals if k in low)
    return here

"""The documents that hold a literal term (`memory.typed.literal_of`: ``%s``, ``c++``,
``.env``, ``#123``): the index's keys hold no punctuation, so a literal is counted from
the index file's punctuated strings (`memory.punctuated`), or by reading the documents.
"""

from __future__ import annotations

import math
import re
from array import array
from typing import TYPE_CHECKING

from memhooks.memory.index import holding
from memhooks.memory.lines import count_lines
from memhooks.memory.needles import fold, lines_holding
from memhooks.memory.punctuated import filed_name
from memhooks.memory.terms import keys
from memhooks.memory.typed import Term, is_literal

#: The most documents a search that shows only hits (auto-search of a prompt) reads for
#: its literals; a literal that would need more is searched by its words instead, as
#: before literals were: a pasted trace of ``build::run`` terms costs no read of every note.
READ_MOST = 500
#: A run of letters or digits at either end of a literal.
_ENDS = re.compile(r"^[^\W_]+|[^\W_]+$")

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence

    from memhooks.memory.corpus import Doc
    from memhooks.memory.index import LiteralCounts, Searchable


class Literals:
    """`index`, where the postings of each literal key are those of the documents that
    hold it: (id, occurrences, lines holding it), and its field ids the documents whose
    file name holds it.

    A literal is counted from the index file's punctuated strings
    (`Searchable.literal_counts`); the documents changed since the file was written are
    read, each once for all the literals, and where the file does not tell (no index
    file, or a literal no such string can hold: a lone ``...``, ``()``), every document
    holding each key of its inner words (``js`` and ``stripe`` for
    ``https://js.stripe.com``: `inner_keys`), or every document, as grep would.
    """

    def __init__(
        self,
        index: Searchable,
        literals: Iterable[str],
        most: int | None = None,
        wholes: Iterable[str] = (),
    ) -> None:
        self._index = index
        #: Joined terms' whole forms (`memory.typed.whole_of`): found only in the
        #: documents that hold all their keys.
        self._wholes = set(wholes)
        self._literals = set(literals) | self._wholes
        self._most = most
        self._found: dict[str, tuple[array[int], set[int]]] = {}
        #: The literals not read, as they would read more than `most` documents.
        self.unread: set[str] = set()

    @property
    def count(self) -> int:
        return self._index.count

    @property
    def avg_size(self) -> float:
        return self._index.avg_size

    @property
    def sizes(self) -> Sequence[int]:
        return self._index.sizes

    def dailies(self) -> list[tuple[str, str]]:
        return self._index.dailies()

    def docs(self) -> Iterator[Doc]:
        return self._index.docs()

    def doc(self, doc_id: int) -> Doc:
        return self._index.doc(doc_id)

    def rel(self, doc_id: int) -> str:
        return self._index.rel(doc_id)

    def get(self, rel: str) -> Doc | None:
        return self._index.get(rel)

    def id_of(self, rel: str) -> int | None:
        return self._index.id_of(rel)

    def marked(self, rel: str) -> Doc | None:
        return self._index.marked(rel)

    def literal_counts(self, literal: str) -> LiteralCounts | None:
        return self._index.literal_counts(literal)

    def postings(self, key: str) -> array[int]:
        """`Searchable.postings`; of the documents holding it, for a literal."""
        if key not in self._literals:
            return self._index.postings(key)
        return self.find(key)[0]

    def field_ids(self, key: str) -> set[int]:
        """`Searchable.field_ids`; those whose file name holds it, for a literal."""
        if key not in self._literals:
            return self._index.field_ids(key)
        return self.find(key)[1]

    def find(self, literal: str) -> tuple[array[int], set[int]]:
        """The postings and field ids of `literal` (every literal read at once, then kept)."""
        if self._literals and not self._found:
            self._read()
        return self._found.get(literal) or (array("I"), set())

    def _read(self) -> None:
        # Each document to read is read once for all the literals: twelve literals of
        # common words in a pasted trace read the notes once, not 12x.
        index, every = self._index, False
        wanted: dict[str, set[int] | None] = {}
        counted: dict[str, dict[int, tuple[int, int]]] = {}
        for lit in self._literals:
            got = index.literal_counts(lit)
            base = keys(lit) if lit in self._wholes else inner_keys(lit)
            counted[lit], among = got or ({}, None)
            if base and among != set():
                held = set.intersection(*(holding(index, [k]) for k in base))
                among = held if among is None else among & held
            wanted[lit] = among
            every = every or among is None
        if self._most is not None:
            wanted = self._within(wanted, self._most)
            every = None in wanted.values()
            self._literals = set(wanted)
            if not wanted:
                return
        if every:
            ids_docs = ((index.id_of(d.rel), d) for d in index.docs())
            docs = sorted(((i, d) for i, d in ids_docs if i is not None), key=_first)
        else:
            ids = set().union(*(s for s in wanted.values() if s is not None))
            docs = [(i, index.doc(i)) for i in sorted(ids)]
        found = {lit: counted[lit] for lit in self._literals}
        for i, doc in docs:
            text = None
            for lit, among in wanted.items():
                if among is None or i in among:
                    text = fold(doc.text) if text is None else text
                    lines = len(lines_holding(text, (lit,))[0]) if lit in text else 0
                    found[lit][i] = (text.count(lit), lines)
        for lit, by_id in found.items():
            post, named = array("I"), set[int]()
            for i in sorted(by_id):
                if by_id[i][0]:
                    post.extend((i, *by_id[i]))
                if lit in filed_name(index.rel(i)):
                    named.add(i)
            self._found[lit] = (post, named)

    def _within(
        self, wanted: dict[str, set[int] | None], most: int
    ) -> dict[str, set[int] | None]:
        # The literals read, fewest documents first, while all of them read at most
        # `most` (those of no inner word, every document); the rest are `unread`.
        out: dict[str, set[int] | None] = {}
        reading: set[int] = set()
        if self._index.count <= most:
            return wanted
        for lit, among in sorted(wanted.items(), key=lambda kv: _size(kv[1])):
            if among is not None and len(reading | among) <= most:
                reading |= among
                out[lit] = among
            else:
                self.unread.add(lit)
        return out


def _size(ids: set[int] | None) -> float:
    return math.inf if ids is None else len(ids)


def inner_keys(literal: str) -> list[str]:
    """The keys every document holding `literal` holds: those of its words but the
    first and last when they reach its ends, which may be glued to more letters
    ("libc++" holds ``libc``, not ``c``; "--capacity" holds no ``cap``).

    ``inner_keys("https://js.stripe.com") == ["js", "stripe"]``; ``[]`` for ``c++``.
    """
    return keys(_ENDS.sub("", literal))


def with_literals(
    index: Searchable, terms: Iterable[Term], most: int | None = None
) -> tuple[Searchable, dict[str, Term]]:
    """`index`, or a `Literals` view of it when one of `terms` is a literal or has a
    whole form (`memory.typed.whole_of`, read as a literal is); and each
    literal term found nowhere (or not read: `most`, `READ_MOST`) whose keys are words
    (``@champion``, not ``%s``), as the term of those keys to search for instead (by its
    text)."""
    terms = list(terms)
    literals = {t.keys[0]: t for t in terms if t.keys and is_literal(t.keys[0])}
    wholes = [t.whole for t in terms if t.whole]
    if not literals and not wholes:
        return index, {}
    view = Literals(index, literals, most, wholes)
    loose: dict[str, Term] = {}
    for lit, t in literals.items():
        post, named = view.find(lit)
        base = tuple(dict.fromkeys(keys(lit)))
        if not post and not named and not all(len(k) <= 2 or k.isdigit() for k in base):
            loose[t.text] = Term(t.text, base)
    return view, loose


def counts(
    index: Searchable, terms: Sequence[Term], loose: Mapping[str, Term]
) -> list[tuple[str, int, int]]:
    """(text, lines holding it whole, lines holding part of it) of each term
    (`memory.lines.count_lines`); a literal found nowhere and searched by its keys
    (`with_literals`) holds 0 lines whole, and its keys' lines in part."""
    out = []
    for t in terms:
        if t.text in loose:
            whole, part = count_lines(index, loose[t.text])
            out.append((t.text, 0, whole or part))
        else:
            out.append((t.text, *count_lines(index, t)))
    return out


def _first(pair: tuple[int, Doc]) -> int:
    return pair[0]

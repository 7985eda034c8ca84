"""The postings of the index file's runs (`memory.segment`), as a build counts them.

A build reads every note, so its cost is what it does per word and per (document, key)
posting. A document's tokens are counted in C (`memory.terms.line_tokens`: a token stands
for one key), and each distinct token of a document is looked up once, in a table that
maps it straight to its key's postings for the run: a lookup in a table of tens of
thousands of words costs several cache misses, more than counting a word, so a build
makes one lookup per posting, not one per word or two per posting.
"""

from __future__ import annotations

import itertools
from array import array
from collections import Counter, defaultdict, deque
from typing import TYPE_CHECKING

from memhooks.memory.index import ROWS_AT_ONCE, count_keys, fold, keys_of_fields
from memhooks.memory.punctuated import filed_name, punctuated
from memhooks.memory.terms import Token, line_tokens, token_key

if TYPE_CHECKING:
    from memhooks.memory.corpus import Doc

_NONE: array[int] = array("I")  # no postings (a key only names hold), no field ids
_ALL = slice(None)
#: Tokens a build keeps the postings list of between runs (~200 bytes each).
TOKENS_KEPT = 1 << 17


class Postings:
    """The postings of one run of documents at a time: `add` them, `take` the run, `clear`.

    Its tables of tokens are kept from one run to the next: a corpus repeats its words.
    """

    def __init__(self) -> None:
        self.docs = 0  #: documents added to this run
        #: key -> its (id, tf, lines) triples in this run, flat
        self._lists: dict[str, array[int]] = {}
        self._of_bytes = _Lists(self._lists)  # the tokens of ASCII texts
        self._of_text = _Lists(self._lists)
        self._fields: dict[str, array[int]] = {}
        #: punctuated string -> its (id, line, tf) triples in this run, flat
        self._marked: defaultdict[str, array[int]] = defaultdict(_ids)
        self._taken: list[array[int]] = []

    def add(self, i: int, doc: Doc) -> None:
        """Count document `doc`, of id `i` (ids ascending)."""
        lists, tfs, lines = self._count(doc.text)
        triples = zip(itertools.repeat(i), tfs, lines)
        deque(map(array.extend, lists, triples), maxlen=0)
        for k in keys_of_fields(doc):
            self._fields.setdefault(k, array("I")).append(i)
        held = punctuated(fold(doc.text), filed_name(doc.rel))
        marked = map(self._marked.__getitem__, map(_first, held))
        where = ((i, line, tf) for (_, line), tf in held.items())
        deque(map(array.extend, marked, where), maxlen=0)
        self.docs += 1

    def _count(self, text: str) -> tuple[list[array[int]], list[int], list[int]]:
        # The postings lists of the keys of `text`, with how often each occurs and
        # on how many lines.
        if text.count("\n") >= ROWS_AT_ONCE:  # a long log, counted in parts
            by_key, on_lines = count_keys(text)
            return (
                list(map(self._list, by_key)),
                list(by_key.values()),
                list(map(on_lines.__getitem__, by_key)),
            )
        per_line = line_tokens(text)
        tf = Counter(itertools.chain.from_iterable(per_line))
        sets = list(map(set, per_line))
        held = Counter(itertools.chain.from_iterable(sets))
        table = self._of_bytes if text.isascii() else self._of_text
        lists = list(map(table.__getitem__, tf))
        tfs, lines = list(tf.values()), list(map(held.__getitem__, tf))
        if len(set(map(id, lists))) < len(lists):
            return _merged(list(tf), lists, tfs, lines, sets)
        return lists, tfs, lines

    def take(self) -> tuple[list[str], list[array[int]], list[array[int]]]:
        """The run's keys, sorted, with each one's postings and field ids; they stay
        valid until `clear` starts a new run."""
        lists, fields = self._lists, self._fields
        held = itertools.compress(lists, lists.values())  # keys with postings
        keys = sorted(fields.keys() | set(held))
        self._taken = list(map(lists.get, keys, itertools.repeat(_NONE)))
        return keys, self._taken, list(map(fields.get, keys, itertools.repeat(_NONE)))

    def take_punctuated(
        self,
    ) -> tuple[list[str], list[array[int]], list[array[int]]]:
        """`take`, of the run's punctuated strings (`memory.punctuated`): the postings
        of each are (id, line, tf) triples, flat, of the lines holding it in the content
        of each document (tf 0 for one only its name holds); none has field ids."""
        keys = sorted(self._marked)
        return keys, list(map(self._marked.__getitem__, keys)), [_NONE] * len(keys)

    def clear(self) -> None:
        """Start a new run (the arrays of `take` are emptied)."""
        deque(map(array.__delitem__, self._taken, itertools.repeat(_ALL)), maxlen=0)
        self._taken = []
        self._fields, self._marked = {}, defaultdict(_ids)
        self.docs = 0
        if len(self._of_bytes) + len(self._of_text) > TOKENS_KEPT:
            for table in (self._of_bytes, self._of_text, self._lists):
                table.clear()

    def _list(self, key: str) -> array[int]:
        return self._lists.setdefault(key, array("I"))


def _ids() -> array[int]:
    return array("I")


def _first(pair: tuple[str, int]) -> str:
    return pair[0]


class _Lists(dict[Token, "array[int]"]):
    """Token -> the postings list of its key in `lists` (tokens of one key share it)."""

    def __init__(self, lists: dict[str, array[int]]) -> None:
        super().__init__()
        self._lists = lists

    def __missing__(self, token: Token) -> array[int]:
        out = self[token] = self._lists.setdefault(token_key(token), array("I"))
        return out


def _merged(
    tokens: list[Token],
    lists: list[array[int]],
    tfs: list[int],
    lines: list[int],
    sets: list[set[Token]],
) -> tuple[list[array[int]], list[int], list[int]]:
    # Tokens of one document that stand for one key (`deploy` and `deploys`): one
    # posting, its occurrences summed, each line holding either counted once.
    by_list: dict[int, list[int]] = {}
    for j, posts in enumerate(lists):
        by_list.setdefault(id(posts), []).append(j)
    out: tuple[list[array[int]], list[int], list[int]] = ([], [], [])
    for js in by_list.values():
        out[0].append(lists[js[0]])
        out[1].append(sum(tfs[j] for j in js))
        if len(js) == 1:
            out[2].append(lines[js[0]])
        else:
            group = {tokens[j] for j in js}
            out[2].append(sum(not group.isdisjoint(s) for s in sets))
    return out

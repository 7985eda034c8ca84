"""The postings of the index file's runs (`memory.segment`), as a build counts them.

A build reads every note, so its cost is what it does per word and per (document, key)
posting. A document's tokens are counted in C (`memory.terms.line_tokens`: a token stands
for one key), and each distinct token of a document is looked up once, in a table that
maps it straight to its key's postings for the run: a lookup in a table of tens of
thousands of words costs several cache misses, more than counting a word, so a build
makes one lookup per posting, not one per word or two per posting.

A document of more than `WIDE` distinct tokens (a base64 blob) is filed in runs of its
own instead (`memory.wide`), after those of the documents before it: ids stay ascending
from run to run.
"""

from __future__ import annotations

import itertools
import operator
import re
import zlib
from array import array
from collections import Counter, defaultdict, deque
from typing import TYPE_CHECKING, NamedTuple

from memhooks.memory import wide
from memhooks.memory.index import ROWS_AT_ONCE, count_keys, keys_of_fields
from memhooks.memory.keytable import by_marks
from memhooks.memory.needles import fold
from memhooks.memory.punctuated import filed_name, punctuated
from memhooks.memory.terms import Token, line_tokens, token_key

if TYPE_CHECKING:
    from collections.abc import Iterator

    from memhooks.memory.corpus import Doc

_NONE: array[int] = array("I")  # no postings (a key only names hold), no field ids
_ALL = slice(None)
#: Tokens a build keeps the postings list of between runs (~200 bytes each).
TOKENS_KEPT = 1 << 17
#: Distinct tokens past which a document is filed in runs of its own (`memory.wide`):
#: half the tokens kept between runs, more than a run of 1,024 notes holds (~60,000).
WIDE = 1 << 16
#: Characters of an ASCII text tokenized at once when it is counted in pieces.
PIECE = 1 << 16
#: A character no word of an ASCII text holds (`memory.terms.line_tokens`).
_CUT = re.compile("[^0-9A-Za-z]")


class Run(NamedTuple):
    """A run as `memory.segment` writes it: its keys, sorted (words by name, punctuated
    strings by `memory.keytable.by_marks`), as UTF-8 names one after another (key
    ``j``'s from ``key_at[j]`` to ``key_at[j + 1]``), with each one's postings and field
    ids, flat (from ``post_at[j]`` to ``post_at[j + 1]``, in 4-byte units), and a CRC-32
    of both."""

    key_at: array[int]
    names: bytes
    post_at: array[int]
    posts: bytes
    field_at: array[int]
    fields: bytes
    sums: array[int]


class Postings:
    """The postings of one run of documents at a time: `add` them, `take` the run, `clear`.

    Its tables of tokens are kept from one run to the next: a corpus repeats its words.
    """

    def __init__(self) -> None:
        self.docs = 0  #: documents added to this run
        #: a document of more than `WIDE` distinct tokens added last: its id, itself and
        #: its keys; `runs` puts it in runs of its own
        self.wide: tuple[int, Doc, wide.Keyed] | None = None
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
        counted = self._count(doc.text)
        self.docs += 1
        if isinstance(counted, wide.Keyed):
            self.wide = (i, doc, counted)
            return
        lists, tfs, lines = counted
        triples = zip(itertools.repeat(i), tfs, lines)
        deque(map(array.extend, lists, triples), maxlen=0)
        for k in keys_of_fields(doc):
            self._fields.setdefault(k, array("I")).append(i)
        held = punctuated(fold(doc.text), filed_name(doc.rel))
        marked = map(self._marked.__getitem__, map(_first, held))
        where = ((i, line, tf) for (_, line), tf in held.items())
        deque(map(array.extend, marked, where), maxlen=0)

    def _count(
        self, text: str
    ) -> tuple[list[array[int]], list[int], list[int]] | wide.Keyed:
        # The postings lists of the keys of `text`, with how often each occurs and
        # on how many lines; or, for a text of more than `WIDE` distinct tokens, its
        # keys, sorted, with those counts.
        if text.count("\n") >= ROWS_AT_ONCE:  # a long log, counted in parts
            by_key, on_lines = count_keys(text)
            if len(by_key) > WIDE:
                return wide.of_counts(by_key, on_lines)
            return (
                list(map(self._list, by_key)),
                list(by_key.values()),
                list(map(on_lines.__getitem__, by_key)),
            )
        tf, sets = _tokens(text)
        if len(tf) > WIDE:
            counts: list[object] = [tf, sets]
            del tf, sets  # `of_tokens` lets go of them as it reads them
            return wide.of_tokens(counts)
        held = Counter(itertools.chain.from_iterable(sets))
        table = self._of_bytes if text.isascii() else self._of_text
        lists = list(map(table.__getitem__, tf))
        tfs, lines = list(tf.values()), list(map(held.__getitem__, tf))
        if len(set(map(id, lists))) < len(lists):
            return _merged(list(tf), lists, tfs, lines, sets)
        return lists, tfs, lines

    def runs(self) -> Iterator[Run]:
        """The runs of the documents added since `clear`, in the order of their ids: of
        their words' keys, then of their punctuated strings (`take_punctuated`); then
        those of a `wide` document."""
        alone, self.wide = self.wide, None
        if self.docs > (alone is not None):
            yield _of_lists(*self.take())
            yield _of_lists(*self.take_punctuated())
        if alone is not None:
            i, doc, keyed = alone
            del alone  # its keys are let go of once written
            yield _of_flat(wide.words(i, keyed, keys_of_fields(doc)))
            del keyed
            held = punctuated(fold(doc.text), filed_name(doc.rel))
            yield _of_flat(wide.marked(i, held))

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
        of each document (tf 0 for one only its name holds); none has field ids. They
        are sorted by the punctuation marks they hold, then by name
        (`memory.keytable.by_marks`)."""
        keys = sorted(self._marked, key=by_marks)
        return keys, list(map(self._marked.__getitem__, keys)), [_NONE] * len(keys)

    def clear(self) -> None:
        """Start a new run (the arrays of `take` are emptied)."""
        deque(map(array.__delitem__, self._taken, itertools.repeat(_ALL)), maxlen=0)
        self._taken = []
        self._fields, self._marked = {}, defaultdict(_ids)
        self.docs, self.wide = 0, None
        if len(self._of_bytes) + len(self._of_text) > TOKENS_KEPT:
            for table in (self._of_bytes, self._of_text, self._lists):
                table.clear()

    def _list(self, key: str) -> array[int]:
        return self._lists.setdefault(key, array("I"))


def _tokens(text: str) -> tuple[Counter[Token], list[set[Token]]]:
    # How often each token of `text` occurs, and the distinct tokens of each line.
    if len(text) <= PIECE or not text.isascii():
        per_line = line_tokens(text)
        tf = Counter(itertools.chain.from_iterable(per_line))
        return tf, list(map(set, per_line))
    # In pieces, so that the tokens of a 4 MB line are not all held at once.
    tf = Counter[Token]()
    sets: list[set[Token]] = []
    for piece, more in _pieces(text):
        per_line = line_tokens(piece)
        tf.update(itertools.chain.from_iterable(per_line))
        if more:  # more of the last line
            sets[-1].update(*per_line)
        else:
            sets.extend(map(set, per_line))
    return tf, sets


def _pieces(text: str) -> Iterator[tuple[str, bool]]:
    # An ASCII `text` in pieces of about `PIECE` characters, each of whole lines but a
    # longer line, cut before a character no word holds; each with whether it is more
    # of the line the piece before it ends in.
    rows: list[str] = []
    size = 0
    for row in text.split("\n"):
        if len(row) > PIECE:
            if rows:
                yield "\n".join(rows), False
                rows, size = [], 0
            cuts = [0]
            while (m := _CUT.search(row, cuts[-1] + PIECE)) is not None:
                cuts.append(m.start())
            cuts.append(len(row))
            for a, b in itertools.pairwise(cuts):
                yield row[a:b], a > 0
            continue
        rows.append(row)
        size += len(row) + 1
        if size > PIECE:
            yield "\n".join(rows), False
            rows, size = [], 0
    if rows:
        yield "\n".join(rows), False


def _of_lists(keys: list[str], posts: list[array[int]], ids: list[array[int]]) -> Run:
    names = "".join(keys).encode("utf-8", "surrogatepass")
    if len(names) == sum(map(len, keys)):  # ASCII: a character is a byte
        key_at = wide.ends(map(len, keys))
    else:
        key_at = wide.ends(len(k.encode("utf-8", "surrogatepass")) for k in keys)
    sums = array("I", map(zlib.crc32, ids, map(zlib.crc32, posts)))
    post_at, field_at = wide.ends(map(len, posts)), wide.ends(map(len, ids))
    return Run(key_at, names, post_at, b"".join(posts), field_at, b"".join(ids), sums)


def _of_flat(run: wide.Flat) -> Run:
    # The checksums of views of the flat arrays, no object kept per key; of the field
    # ids only where a key has some (a CRC-32 goes on unchanged over no bytes).
    posts = memoryview(run.posts).cast("B")
    sums = array("I", map(zlib.crc32, map(posts.__getitem__, _slices(run.post_at))))
    del posts
    fields, at = run.fields.tobytes(), run.field_at
    named = map(operator.ne, at, itertools.islice(at, 1, None))
    for j in itertools.compress(range(len(at) - 1), named):
        sums[j] = zlib.crc32(fields[4 * at[j] : 4 * at[j + 1]], sums[j])
    # Joined in parts: a join holds a buffer of ~80 bytes per item it joins.
    names = [
        b"".join(run.names[j : j + PIECE]) for j in range(0, len(run.names), PIECE)
    ]
    return Run(
        wide.ends(map(len, run.names)),
        b"".join(names),
        run.post_at,
        run.posts.tobytes(),
        run.field_at,
        fields,
        sums,
    )


def _slices(at: array[int]) -> map[slice]:
    # The byte ranges of the items from each of `at` to the next.
    ends = map((4).__mul__, at)
    return map(slice, map((4).__mul__, at), itertools.islice(ends, 1, None))


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

"""An inverted index kept in one file beside the notes, so that a one-shot search reads
the postings of its few keys instead of every note. Pure: `encode` yields the file's
bytes, `Segment` reads them by offset from a `Source`; `memory.store` does the I/O.

The file is a cache: deleting it loses nothing, and a reader that finds it missing, of
another version or damaged builds it anew (`memory.layered`). It holds, per file in scope,
its path, size and modification time (to tell which files changed since), and per key
the (id, tf, lines) postings and the ids whose name or aliases line holds it — the same
numbers `memory.index.Index` keeps, so both rank alike.

Layout (little-endian): for each batch of at most `BATCH` documents two runs, each a
sorted key table (`memory.keytable`) with the postings of those documents: one of their
words' keys, one of their punctuated strings (`memory.punctuated`), whose postings are
(id, line, tf) of each line holding one, opened only when a literal is looked for; then
the document table; then a fixed footer. A document of very many distinct keys (a base64
blob, `memory.postings.WIDE`) is a batch of its own, after the documents before it. Runs
are written one after another as they are built, so building never holds more than one
batch in memory. A search reads each run's fence, then the blocks of its table it needs:
for a word, the block it falls in; for a literal, those whose strings hold its punctuation.
Every byte a search reads is checked against a CRC-32 (a fence, a block of a table, a
key's postings), so a damaged file is rebuilt rather than trusted.
"""

from __future__ import annotations

import functools
import itertools
import operator
import struct
import zlib
from array import array
from collections import Counter
from typing import TYPE_CHECKING, NamedTuple

from memhooks.memory import keytable
from memhooks.memory.errors import CorruptSegment
from memhooks.memory.keytable import Run, Source, exactly
from memhooks.memory.note_format import may_be_superseded

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from memhooks.memory.corpus import Doc
    from memhooks.memory.postings import Postings

MAGIC = b"MHIX"
#: Bump when the layout, what a file is read as (`scope`), or what
#: `memory.index.analyze` or `memory.punctuated` files changes (tests/memory/test_index.py
#: keeps a digest of what each version files).
VERSION = 15
#: Documents per run: what building holds in memory at once (~4 MB at 2 KB a note).
BATCH = 1024
#: A file's flags: not searchable (a forgotten note); counted nowhere, only recorded.
HIDDEN = 1
#: A note that may be superseded (`memory.forget.may_be_superseded`): read to mark hits.
MARKED = 2
#: A daily log (its date is its file name): ranking orders logs by date.
DAILY = 4

# magic, version, documents, runs, bytes of the path table, when the build began,
# where the document table starts, CRC-32 of the document table
_FOOTER = struct.Struct("<4sIIIIqQI")


class Entry(NamedTuple):
    """One file in scope as the index records it."""

    rel: str
    size: int  #: bytes on disk
    mtime_ns: int
    doc: Doc | None  #: its document; None when search must not see it (forgotten)


def encode(entries: Iterable[Entry], built_at: int) -> Iterator[bytes]:
    """The bytes of an index of `entries`, in pieces (write them in order).

    Args:
        entries: every file in scope.
        built_at: when reading them began (ns since the epoch): a file changed within the
            clock's resolution of it may hold other bytes than those indexed.
    """
    rels: list[str] = []
    sizes, mtimes, flags = array("Q"), array("q"), bytearray()
    starts: list[int] = []
    offset = 0
    # Only a build counts postings: a search, which opens the file, does not load it.
    from memhooks.memory.postings import Postings

    run = Postings()
    for e in entries:
        if e.doc is None:
            flags.append(HIDDEN)
        else:
            # Analysed as read, so that no more than one run's postings are held.
            run.add(len(rels), e.doc)
            daily = DAILY if e.doc.kind == "daily" else 0
            flags.append(daily | (MARKED if may_be_superseded(e.doc) else 0))
        rels.append(e.rel)
        sizes.append(e.size)
        mtimes.append(e.mtime_ns)
        if run.docs == BATCH or run.wide is not None:
            for piece in _batch(run, offset, starts):
                offset += len(piece)
                yield piece
    if run.docs:
        for piece in _batch(run, offset, starts):
            offset += len(piece)
            yield piece
    paths = "\0".join(rels).encode("utf-8", "surrogatepass")
    table = b"".join(
        [
            paths,
            sizes.tobytes(),
            mtimes.tobytes(),
            bytes(flags),
            array("Q", starts).tobytes(),
        ]
    )
    yield table + _FOOTER.pack(
        MAGIC,
        VERSION,
        len(rels),
        len(starts),
        len(paths),
        built_at,
        offset,
        zlib.crc32(table),
    )


def _batch(postings: Postings, at: int, starts: list[int]) -> Iterator[bytes]:
    # The runs of a batch of documents, from offset `at`, in pairs: their words' keys,
    # then their punctuated strings; where each starts is added to `starts`.
    for run in postings.runs():
        starts.append(at)
        for piece in keytable.encode(run):
            at += len(piece)
            yield piece
        del run  # not held while the next is made
    postings.clear()


class Bytes:
    """Index bytes already in memory."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self.size = len(data)

    def read(self, at: int, n: int) -> bytes:
        """`n` bytes from offset `at` (fewer at the end)."""
        return self._data[at : at + n]


class Segment:
    """An index file, read from `src`: its tables when opened, postings per key.

    Raises:
        CorruptSegment: the bytes are not an index of this `VERSION`.
    """

    def __init__(self, src: Source) -> None:
        size = src.size
        if size < _FOOTER.size:
            raise CorruptSegment("too short")
        footer = _FOOTER.unpack(exactly(src, size - _FOOTER.size, _FOOTER.size))
        magic, version, n, n_runs, path_bytes, built_at, table, crc = footer
        if magic != MAGIC or version != VERSION:
            raise CorruptSegment("not an index of this version")
        at = path_bytes
        if table + at + 17 * n + 8 * n_runs + _FOOTER.size != size:
            raise CorruptSegment("document table does not add up")
        buf = exactly(src, table, size - _FOOTER.size - table)
        if zlib.crc32(buf) != crc:
            raise CorruptSegment("document table checksum")
        try:
            paths = buf[:at].decode("utf-8", "surrogatepass")
        except UnicodeDecodeError as e:
            raise CorruptSegment("paths are not UTF-8") from e
        self.rels: list[str] = paths.split("\0") if n else []
        if len(self.rels) != n:
            raise CorruptSegment("path count")
        self.sizes = _ints(buf, at, n, "Q")
        self.mtimes = _ints(buf, at + 8 * n, n, "q")
        self.flags = buf[at + 16 * n : at + 17 * n]
        starts = [*_ints(buf, at + 17 * n, n_runs, "Q"), table]
        if any(b <= a for a, b in itertools.pairwise(starts)):
            raise CorruptSegment("runs out of order")
        if n_runs % 2:
            raise CorruptSegment("runs do not pair")
        spans: list[tuple[int, int]] = list(itertools.pairwise(starts))
        self._runs = [Run(src, a, b) for a, b in spans[0::2]]
        #: where the runs of punctuated strings lie (`_punctuated` opens them)
        self._punctuated_at = spans[1::2]
        self._src = src
        self.built_at: int = built_at
        self._ids: dict[str, int] | None = None

    @property
    def ids(self) -> dict[str, int]:
        """The id of each path (made on first use: a search asks for a few)."""
        if self._ids is None:
            self._ids = {rel: i for i, rel in enumerate(self.rels)}
        return self._ids

    def __len__(self) -> int:
        return len(self.rels)

    def read(self, key: str) -> tuple[array[int], array[int]]:
        """The (id, tf, lines) triples, flat, of the documents whose content holds `key`,
        and the ids of those whose name or aliases line holds it.
        """
        post, fields = array("I"), array("I")
        name = key.encode("utf-8", "surrogatepass")
        for run in self._runs:
            if (found := run.find(name)) is not None:
                post.frombytes(found[0])
                fields.frombytes(found[1])
        return post, fields

    def literal(self, literal: str) -> dict[int, tuple[int, int]]:
        """(occurrences, lines holding it) of `literal` in each document holding it in a
        punctuated string (`memory.punctuated`), by id: each document whose content or
        name holds it when it is `memory.punctuated.findable` ((0, 0): only the name)."""
        ids, lines, tfs = array("I"), array("I"), array("I")
        needle = literal.encode("utf-8", "surrogatepass")
        for run in self._punctuated:
            for name, held, _ in run.holding(needle):
                post = array("I")
                post.frombytes(held)
                ids.extend(post[0::3])
                lines.extend(post[1::3])
                each = name.count(needle)  # times the string holds it
                tfs.extend(post[2::3] if each == 1 else map(each.__mul__, post[2::3]))
        # Counted in C: a literal such as "-" is in tens of thousands of strings.
        times = Counter(itertools.chain.from_iterable(map(itertools.repeat, ids, tfs)))
        where = set(itertools.compress(zip(ids, lines, strict=True), tfs))  # tf > 0
        on = Counter(map(operator.itemgetter(0), where))
        return {i: (times[i], on[i]) for i in dict.fromkeys(ids)}

    @functools.cached_property
    def _punctuated(self) -> list[Run]:
        # Opened when a literal is first looked for: a search of words reads none.
        return [Run(self._src, a, b) for a, b in self._punctuated_at]


def _ints(buf: bytes, at: int, n: int, code: str = "I") -> array[int]:
    out = array(code)
    out.frombytes(memoryview(buf)[at : at + out.itemsize * n])
    if len(out) != n:
        raise CorruptSegment("cut short")
    return out

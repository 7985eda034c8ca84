"""An inverted index kept in one file beside the notes, so that a one-shot search reads
the postings of its few keys instead of every note. Pure: `encode` yields the file's
bytes, `Segment` reads them by offset from a `Source`; `memory.store` does the I/O.

The file is a cache: deleting it loses nothing, and a reader that finds it missing, of
another version or damaged builds it anew (`memory.layered`). It holds, per file in scope,
its path, size and modification time (to tell which files changed since), and per key
the (id, tf, lines) postings and the ids whose name or aliases line holds it — the same
numbers `memory.index.Index` keeps, so both rank alike.

Layout (little-endian): for each batch of at most `BATCH` documents two runs, each a
sorted key table with the postings of those documents: one of their words' keys, one of
their punctuated strings (`memory.punctuated`), whose postings are (id, line, tf) of
each line holding one, opened only when a literal is looked for; then the document
table; then a fixed footer. A document of very many distinct keys (a base64 blob,
`memory.postings.WIDE`) is a batch of its own, after the documents before it. Runs are
written one after another as they are built, so building never holds more than one batch
in memory, and a lookup binary-searches each run. Every byte a search reads is checked against a CRC-32 (a run's tables when it is
opened, a key's postings when they are read), so a damaged file is rebuilt rather than
trusted.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import operator
import struct
import zlib
from array import array
from collections import Counter
from typing import TYPE_CHECKING, NamedTuple, Protocol

from memhooks.memory.errors import CorruptSegment
from memhooks.memory.note_format import may_be_superseded
from memhooks.memory.postings import Postings, Run

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from memhooks.memory.corpus import Doc

MAGIC = b"MHIX"
#: Bump when the layout or what `memory.index.analyze` or `memory.punctuated` files
#: changes (tests/memory/test_index.py keeps a digest of what each version files).
VERSION = 11
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
# keys, bytes of the key names, postings and field ids (in 4-byte units), CRC-32 of
# the key table (offsets, per-key CRC-32s of postings and field ids, names)
_RUN = struct.Struct("<IIIII")


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
        for piece in _run(run):
            at += len(piece)
            yield piece
        del run  # not held while the next is made
    postings.clear()


def _run(run: Run) -> Iterator[bytes]:
    """The bytes of a run: header, key table, each key's postings and field ids."""
    key_at, post_at, field_at = run.key_at, run.post_at, run.field_at
    table = b"".join(
        [
            key_at.tobytes(),
            post_at.tobytes(),
            field_at.tobytes(),
            run.sums.tobytes(),
            run.names,
        ]
    )
    header = _RUN.pack(
        len(key_at) - 1, key_at[-1], post_at[-1], field_at[-1], zlib.crc32(table)
    )
    yield from (header, table, run.posts, run.fields)


class Source(Protocol):
    """An index file, read by offset (`memory.store.IndexFile`, or `Bytes`)."""

    @property
    def size(self) -> int: ...
    def read(self, at: int, n: int) -> bytes: ...


class Bytes:
    """Index bytes already in memory."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self.size = len(data)

    def read(self, at: int, n: int) -> bytes:
        """`n` bytes from offset `at` (fewer at the end)."""
        return self._data[at : at + n]


class _Run:
    """One run's key table, read whole; postings are read per key."""

    def __init__(self, src: Source, at: int, end: int) -> None:
        n, name_bytes, n_post, n_field, crc = _RUN.unpack(_exactly(src, at, _RUN.size))
        at += _RUN.size
        tables = 16 * (n + 1) - 4
        # Before anything is read: a damaged count would ask for 16 bytes a key it
        # claims, gigabytes (MemoryError), where the run's end (checked) bounds it.
        if at + tables + name_bytes + 4 * (n_post + n_field) != end:
            raise CorruptSegment("run sizes do not add up")
        table = _exactly(src, at, tables + name_bytes)
        if zlib.crc32(table) != crc:
            raise CorruptSegment("key table checksum")
        # Views of the table, not copies: a search opens every run and looks up a few
        # keys of the hundreds of thousands a run holds.
        view = memoryview(table)
        self.key_at = view[: 4 * (n + 1)].cast("I")
        self.post_at = view[4 * (n + 1) : 8 * (n + 1)].cast("I")
        self.field_at = view[8 * (n + 1) : 12 * (n + 1)].cast("I")
        self.sums = view[12 * (n + 1) : tables].cast("I")
        self._table, self._names_at = table, tables
        self.post_base = at + tables + name_bytes
        self.field_base = self.post_base + 4 * n_post
        if (
            self.key_at[-1] != name_bytes
            or self.post_at[-1] != n_post
            or self.field_at[-1] != n_field
        ):
            raise CorruptSegment("run sizes do not add up")
        self.n = n
        self._src = src

    def find(self, name: bytes) -> int | None:
        """The position of key `name` in this run, if it holds it."""
        names, at, key_at = self._table, self._names_at, self.key_at
        lo, hi = 0, self.n
        while lo < hi:
            mid = (lo + hi) // 2
            if names[at + key_at[mid] : at + key_at[mid + 1]] < name:
                lo = mid + 1
            else:
                hi = mid
        if lo < self.n and names[at + key_at[lo] : at + key_at[lo + 1]] == name:
            return lo
        return None

    def containing(self, needle: bytes) -> Iterator[int]:
        """The positions of the keys holding `needle` (a run of punctuated strings is
        searched so, `memory.punctuated`)."""
        names, at, key_at = self._table, self._names_at, self.key_at
        hit = names.find(needle, at)
        while hit >= 0:
            i = bisect.bisect_right(key_at, hit - at) - 1
            end = at + key_at[i + 1]
            if hit + len(needle) <= end:
                yield i
                hit = names.find(needle, end)
            else:  # across two keys: the names are not separated
                hit = names.find(needle, hit + 1)

    def name(self, at: int) -> bytes:
        """The name of the key at `at`."""
        base, key_at = self._names_at, self.key_at
        return self._table[base + key_at[at] : base + key_at[at + 1]]

    def entry(self, at: int) -> tuple[bytes, bytes]:
        """The postings and field ids of the key at `at`, checked."""
        return next(self.entries([at]))

    def entries(self, ats: list[int]) -> Iterator[tuple[bytes, bytes]]:
        """The postings and field ids of the keys at `ats` (ascending), each checked: read
        at once from the first to the last (a literal in hundreds of strings)."""
        if not ats:
            return
        post_at, field_at = self.post_at, self.field_at
        p0, f0 = post_at[ats[0]], field_at[ats[0]]
        n, m = post_at[ats[-1] + 1] - p0, field_at[ats[-1] + 1] - f0
        posts = _exactly(self._src, self.post_base + 4 * p0, 4 * n)
        fields = _exactly(self._src, self.field_base + 4 * f0, 4 * m)
        for at in ats:
            post = posts[4 * (post_at[at] - p0) : 4 * (post_at[at + 1] - p0)]
            ids = fields[4 * (field_at[at] - f0) : 4 * (field_at[at + 1] - f0)]
            if zlib.crc32(ids, zlib.crc32(post)) != self.sums[at]:
                raise CorruptSegment("postings checksum")
            yield post, ids


class Segment:
    """An index file, read from `src`: its tables when opened, postings per key.

    Raises:
        CorruptSegment: the bytes are not an index of this `VERSION`.
    """

    def __init__(self, src: Source) -> None:
        size = src.size
        if size < _FOOTER.size:
            raise CorruptSegment("too short")
        footer = _FOOTER.unpack(_exactly(src, size - _FOOTER.size, _FOOTER.size))
        magic, version, n, n_runs, path_bytes, built_at, table, crc = footer
        if magic != MAGIC or version != VERSION:
            raise CorruptSegment("not an index of this version")
        at = path_bytes
        if table + at + 17 * n + 8 * n_runs + _FOOTER.size != size:
            raise CorruptSegment("document table does not add up")
        buf = _exactly(src, table, size - _FOOTER.size - table)
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
        self._runs = [_open_run(src, a, b) for a, b in spans[0::2]]
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
            at = run.find(name)
            if at is not None:
                p, f = run.entry(at)
                post.frombytes(p)
                fields.frombytes(f)
        return post, fields

    def literal(self, literal: str) -> dict[int, tuple[int, int]]:
        """(occurrences, lines holding it) of `literal` in each document holding it in a
        punctuated string (`memory.punctuated`), by id: each document whose content or
        name holds it when it is `memory.punctuated.findable` ((0, 0): only the name)."""
        ids, lines, tfs = array("I"), array("I"), array("I")
        needle = literal.encode("utf-8", "surrogatepass")
        for run in self._punctuated:
            ats = list(run.containing(needle))
            for at, (held, _) in zip(ats, run.entries(ats), strict=True):
                post = array("I")
                post.frombytes(held)
                ids.extend(post[0::3])
                lines.extend(post[1::3])
                each = run.name(at).count(needle)  # times the string holds it
                tfs.extend(post[2::3] if each == 1 else map(each.__mul__, post[2::3]))
        # Counted in C: a literal such as "-" is in tens of thousands of strings.
        times = Counter(itertools.chain.from_iterable(map(itertools.repeat, ids, tfs)))
        where = set(itertools.compress(zip(ids, lines, strict=True), tfs))  # tf > 0
        on = Counter(map(operator.itemgetter(0), where))
        return {i: (times[i], on[i]) for i in dict.fromkeys(ids)}

    @functools.cached_property
    def _punctuated(self) -> list[_Run]:
        # Opened when a literal is first looked for: a search of words reads none.
        return [_open_run(self._src, a, b) for a, b in self._punctuated_at]


def _open_run(src: Source, at: int, end: int) -> _Run:
    try:
        return _Run(src, at, end)
    except struct.error as e:
        raise CorruptSegment("run header") from e


def _exactly(src: Source, at: int, n: int) -> bytes:
    data = src.read(at, n)
    if len(data) != n or at < 0:
        raise CorruptSegment("cut short")
    return data


def _ints(buf: bytes, at: int, n: int, code: str = "I") -> array[int]:
    out = array(code)
    out.frombytes(memoryview(buf)[at : at + out.itemsize * n])
    if len(out) != n:
        raise CorruptSegment("cut short")
    return out

"""The key table of a run of the index file (`memory.segment`): the run's keys, with where
each one's postings and field ids lie and their CRC-32s, and a fence, so that a search
reads the blocks of the table it needs instead of all of it. Pure.

A run (little-endian) is a header (`_RUN`), the table, the fence, then the postings and the
field ids. The table: ``key_at`` (n + 1 offsets into the names), ``post_at`` and
``field_at`` (n + 1 each, in 4-byte units), ``sums`` (n: the CRC-32 of each key's postings
and field ids) and the names. The fence, per block of `BLOCK` keys: the CRC-32 of the
block's part of each of those five; the ASCII punctuation marks its names hold (`marks`);
and the name of its first key. The header holds the fence's CRC-32.

Opening a `Run` reads and checks its fence; a block is read, and checked, when a search
needs it. A word is looked up in a run of words, whose keys are sorted by name, in the block it
falls in (`Run.find`). A literal (``->``, ``.env``) is looked for in the names of a run of
punctuated strings, whose keys are sorted by their marks and then by name: only the blocks
whose names hold every mark the literal holds are read (`Run.holding`), for ``->`` a few
of the thousands of blocks of ten runs at 10,000 notes.
"""

from __future__ import annotations

import bisect
import struct
import zlib
from array import array
from typing import TYPE_CHECKING, NamedTuple, Protocol

from memhooks.memory.errors import CorruptSegment

if TYPE_CHECKING:
    from collections.abc import Iterator

    from memhooks.memory import postings

#: Keys a block of the fence covers: a word's lookup reads ~3 KB of the table; the fence
#: holds ~25 bytes a block.
BLOCK = 128
# keys, bytes of the key names, postings and field ids (in 4-byte units), bytes of the
# fence's names, CRC-32 of the fence
_RUN = struct.Struct("<IIIIII")
#: The 32 ASCII punctuation marks, a bit each in `marks`.
_BIT = {c: 1 << i for i, c in enumerate(b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")}
_NOT_MARKS = bytes(c for c in range(256) if c not in _BIT)
_MARKS_OF: dict[bytes, int] = {}


def marks(name: bytes) -> int:
    """The ASCII punctuation marks `name` holds, a bit each: a string holds a literal only
    if it holds every mark the literal holds."""
    held = name.translate(None, _NOT_MARKS)
    out = _MARKS_OF.get(held)
    if out is None:
        out = _bits(held)
        if len(_MARKS_OF) < 4096:  # a build sees the same few again and again
            _MARKS_OF[held] = out
    return out


def _bits(held: bytes) -> int:
    # The bits of the marks `held` holds (it holds nothing else).
    out = 0
    for c in set(held):
        out |= _BIT[c]
    return out


def by_marks(string: str) -> tuple[int, str]:
    """The order of the keys of a run of punctuated strings: by the `marks` they hold,
    then by name, so that the strings that may hold a literal (for ``->``, those with
    both ``-`` and ``>``) lie in a few blocks of the run's table."""
    return marks(string.encode("utf-8", "surrogatepass")), string


class Source(Protocol):
    """An index file, read by offset (`memory.index_file.IndexFile`, or `Bytes`)."""

    @property
    def size(self) -> int: ...
    def read(self, at: int, n: int) -> bytes: ...


def encode(run: postings.Run) -> Iterator[bytes]:
    """The bytes of a run: header, table, fence, each key's postings and field ids."""
    key_at, names = run.key_at, run.names
    parts = [a.tobytes() for a in (key_at, run.post_at, run.field_at, run.sums)]
    n = len(key_at) - 1
    crcs, held, firsts = array("I"), array("I"), list[bytes]()
    for lo in range(0, n, BLOCK):
        hi = min(lo + BLOCK, n)
        crc = 0
        for part, upto in zip(parts, (1, 1, 1, 0), strict=True):
            crc = zlib.crc32(part[4 * lo : 4 * (hi + upto)], crc)
        crcs.append(zlib.crc32(names[key_at[lo] : key_at[hi]], crc))
        held.append(_bits(names[key_at[lo] : key_at[hi]].translate(None, _NOT_MARKS)))
        firsts.append(names[key_at[lo] : key_at[lo + 1]])
    first_at = array("I", [0])
    for name in firsts:
        first_at.append(first_at[-1] + len(name))
    fence = b"".join([crcs.tobytes(), held.tobytes(), first_at.tobytes(), *firsts])
    header = _RUN.pack(
        n,
        key_at[-1],
        run.post_at[-1],
        run.field_at[-1],
        first_at[-1],
        zlib.crc32(fence),
    )
    yield from (header, *parts, names, fence, run.posts, run.fields)


class _Blocks(NamedTuple):
    """Blocks of a run's table, read and checked: ``key_at`` (absolute offsets into the
    names, of which ``names`` starts at ``start``), ``post_at``, ``field_at``, ``sums``."""

    key_at: memoryview
    post_at: memoryview
    field_at: memoryview
    sums: memoryview
    names: bytes
    start: int

    def name(self, i: int) -> bytes:
        """The name of the `i`-th key of these blocks."""
        return self.names[self.key_at[i] - self.start : self.key_at[i + 1] - self.start]


class Run:
    """A run of the index file, its fence read and checked; its table read by blocks."""

    def __init__(self, src: Source, at: int, end: int) -> None:
        try:
            head = _RUN.unpack(exactly(src, at, _RUN.size))
        except struct.error as e:
            raise CorruptSegment("run header") from e
        n, self._name_bytes, n_post, n_field, first_bytes, fence_crc = head
        at += _RUN.size
        m = self.blocks = -(-n // BLOCK)
        tables = 16 * (n + 1) - 4
        fence_at = at + tables + self._name_bytes
        size = 12 * m + 4 + first_bytes
        # Before anything is read: a damaged count would ask for gigabytes
        # (MemoryError), where the run's end (checked) bounds it.
        if fence_at + size + 4 * (n_post + n_field) != end:
            raise CorruptSegment("run sizes do not add up")
        fence = exactly(src, fence_at, size)
        if zlib.crc32(fence) != fence_crc:
            raise CorruptSegment("key table fence checksum")
        view = memoryview(fence)
        self._crcs = view[: 4 * m].cast("I")
        self._marks = view[4 * m : 8 * m].cast("I")
        self._first_at = view[8 * m : 12 * m + 4].cast("I")
        self._firsts = fence[12 * m + 4 :]
        if self._first_at[-1] != first_bytes:
            raise CorruptSegment("run sizes do not add up")
        self.n, self._src, self._at, self._names_at = n, src, at, at + tables
        self._post_base = fence_at + size
        self._field_base = self._post_base + 4 * n_post

    def find(self, name: bytes) -> tuple[bytes, bytes] | None:
        """The postings and field ids of key `name`, checked, if this run (of keys
        sorted by name) holds it."""
        firsts, first_at = self._firsts, self._first_at
        lo, hi = 0, self.blocks
        while lo < hi:  # the first block whose first key is past `name`
            mid = (lo + hi) // 2
            if name < firsts[first_at[mid] : first_at[mid + 1]]:
                hi = mid
            else:
                lo = mid + 1
        if lo == 0:
            return None
        got = self._read(lo - 1, lo)
        i = bisect.bisect_left(range(len(got.sums)), name, key=got.name)
        if i == len(got.sums) or got.name(i) != name:
            return None
        return next(self._entries(got, [i]))[1:]

    def holding(self, needle: bytes) -> Iterator[tuple[bytes, bytes, bytes]]:
        """The name, postings and field ids of each key whose name holds `needle`, each
        checked, read from the blocks whose names hold every mark `needle` holds."""
        want, held, m = marks(needle), self._marks, self.blocks
        j = 0
        while j < m:
            if held[j] & want != want:
                j += 1
                continue
            first = j
            while j < m and held[j] & want == want:
                j += 1
            got = self._read(first, j)
            yield from self._entries(got, list(_containing(got, needle)))

    def _read(self, first: int, end: int) -> _Blocks:
        # Blocks first..end of the table, each checked against its CRC-32.
        src, at, n = self._src, self._at, self.n
        lo, hi = first * BLOCK, min(end * BLOCK, n)
        k = hi - lo
        raw = [exactly(src, at + 4 * (i * (n + 1) + lo), 4 * (k + 1)) for i in range(3)]
        raw.append(exactly(src, at + 12 * (n + 1) + 4 * lo, 4 * k))
        key_at = memoryview(raw[0]).cast("I")
        start, stop = key_at[0], key_at[k]
        if not start <= stop <= self._name_bytes:
            raise CorruptSegment("key table block")
        names = exactly(src, self._names_at + start, stop - start)
        for j in range(first, end):
            a, b = (j - first) * BLOCK, min((j - first + 1) * BLOCK, k)
            crc = 0
            for r, upto in zip(raw, (1, 1, 1, 0), strict=True):
                crc = zlib.crc32(r[4 * a : 4 * (b + upto)], crc)
            block_names = names[key_at[a] - start : key_at[b] - start]
            if zlib.crc32(block_names, crc) != self._crcs[j]:
                raise CorruptSegment("key table block checksum")
        post_at, field_at, sums = (memoryview(r).cast("I") for r in raw[1:])
        return _Blocks(key_at, post_at, field_at, sums, names, start)

    def _entries(
        self, got: _Blocks, ats: list[int]
    ) -> Iterator[tuple[bytes, bytes, bytes]]:
        # The name, postings and field ids of the keys at `ats` (ascending) of `got`,
        # each checked: read at once from the first to the last.
        if not ats:
            return
        post_at, field_at = got.post_at, got.field_at
        p0, f0 = post_at[ats[0]], field_at[ats[0]]
        n, m = post_at[ats[-1] + 1] - p0, field_at[ats[-1] + 1] - f0
        posts = exactly(self._src, self._post_base + 4 * p0, 4 * n)
        fields = exactly(self._src, self._field_base + 4 * f0, 4 * m)
        for i in ats:
            post = posts[4 * (post_at[i] - p0) : 4 * (post_at[i + 1] - p0)]
            ids = fields[4 * (field_at[i] - f0) : 4 * (field_at[i + 1] - f0)]
            if zlib.crc32(ids, zlib.crc32(post)) != got.sums[i]:
                raise CorruptSegment("postings checksum")
            yield got.name(i), post, ids


def _containing(got: _Blocks, needle: bytes) -> Iterator[int]:
    # The positions in `got` of the keys whose name holds `needle`.
    names, key_at, start = got.names, got.key_at, got.start
    hit = names.find(needle)
    while hit >= 0:
        i = bisect.bisect_right(key_at, start + hit) - 1
        end = key_at[i + 1] - start
        if hit + len(needle) <= end:
            yield i
            hit = names.find(needle, end)
        else:  # across two keys: the names are not separated
            hit = names.find(needle, hit + 1)


def exactly(src: Source, at: int, n: int) -> bytes:
    """`n` bytes of `src` from `at`, or CorruptSegment: the file ends before."""
    data = src.read(at, n)
    if len(data) != n or at < 0:
        raise CorruptSegment("cut short")
    return data

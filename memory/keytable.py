"""The key table of a run of the index file (`memory.segment`): the run's keys, sorted,
with where each one's postings and field ids lie and their CRC-32s, and a fence, so that
looking up a word reads a block of the table instead of all of it. Pure.

A run (little-endian) is a header (`_RUN`), the table, the fence, then the postings and the
field ids. The table: ``key_at`` (n + 1 offsets into the names), ``post_at`` and
``field_at`` (n + 1 each, in 4-byte units), ``sums`` (n: the CRC-32 of each key's postings
and field ids) and the names; the header holds its CRC-32. The fence: per block of `BLOCK`
keys, the CRC-32 of the block's part of each of those five, then the offsets of the name of
each block's first key and those names; the header holds its CRC-32 too.

A literal is looked for in every name of a run of punctuated strings, so `Whole` reads
and checks the whole table. A word is looked up in every run of words, hundreds of
thousands of keys in ten runs at 10,000 notes: `Fenced` reads the fence when the run is
opened, and a block when a key falls in it, each checked before it is trusted.
"""

from __future__ import annotations

import bisect
import struct
import zlib
from array import array
from typing import TYPE_CHECKING, Protocol

from memhooks.memory.errors import CorruptSegment

if TYPE_CHECKING:
    from collections.abc import Iterator

    from memhooks.memory.postings import Run

#: Keys a block of the fence covers: a lookup reads ~1.5 KB of the table, the fence
#: holds one name per block (~15 KB for a run of 1,024 notes).
BLOCK = 64
# keys, bytes of the key names, postings and field ids (in 4-byte units), CRC-32 of the
# table, bytes of the fence's names, CRC-32 of the fence
_RUN = struct.Struct("<IIIIIII")


class Source(Protocol):
    """An index file, read by offset (`memory.index_file.IndexFile`, or `Bytes`)."""

    @property
    def size(self) -> int: ...
    def read(self, at: int, n: int) -> bytes: ...


def encode(run: Run) -> Iterator[bytes]:
    """The bytes of a run: header, table, fence, each key's postings and field ids."""
    key_at, post_at, field_at, sums = run.key_at, run.post_at, run.field_at, run.sums
    parts = [a.tobytes() for a in (key_at, post_at, field_at, sums)]
    table = b"".join([*parts, run.names])
    n = len(key_at) - 1
    crcs, firsts = array("I"), list[bytes]()
    for lo in range(0, n, BLOCK):
        hi = min(lo + BLOCK, n)
        crcs.append(_block_crc(parts, run.names, key_at, lo, hi))
        firsts.append(run.names[key_at[lo] : key_at[lo + 1]])
    first_at = array("I", [0])
    for name in firsts:
        first_at.append(first_at[-1] + len(name))
    fence = b"".join([crcs.tobytes(), first_at.tobytes(), *firsts])
    header = _RUN.pack(
        n,
        key_at[-1],
        post_at[-1],
        field_at[-1],
        zlib.crc32(table),
        first_at[-1],
        zlib.crc32(fence),
    )
    yield from (header, table, fence, run.posts, run.fields)


def _block_crc(
    parts: list[bytes], names: bytes, key_at: array[int], lo: int, hi: int
) -> int:
    # Of keys lo..hi: their offsets into the names, postings and field ids (each with
    # the next key's), their sums, and their names, in the order `Fenced` reads them.
    crc = 0
    for part, upto in zip(parts, (1, 1, 1, 0), strict=True):
        crc = zlib.crc32(part[4 * lo : 4 * (hi + upto)], crc)
    return zlib.crc32(names[key_at[lo] : key_at[hi]], crc)


class _Table:
    """What a run's header says, checked against where the run ends."""

    def __init__(self, src: Source, at: int, end: int) -> None:
        try:
            head = _RUN.unpack(exactly(src, at, _RUN.size))
        except struct.error as e:
            raise CorruptSegment("run header") from e
        n, name_bytes, n_post, n_field, self._crc, first_bytes, self._fence_crc = head
        at += _RUN.size
        self.blocks = -(-n // BLOCK)
        tables = 16 * (n + 1) - 4
        fence = 8 * self.blocks + 4 + first_bytes
        # Before anything is read: a damaged count would ask for 16 bytes a key it
        # claims, gigabytes (MemoryError), where the run's end (checked) bounds it.
        if at + tables + name_bytes + fence + 4 * (n_post + n_field) != end:
            raise CorruptSegment("run sizes do not add up")
        self.n, self._src, self._at = n, src, at
        self._names_at, self._name_bytes = tables, name_bytes
        self._fence_at, self._fence_bytes = at + tables + name_bytes, fence
        self.post_base = self._fence_at + fence
        self.field_base = self.post_base + 4 * n_post
        self._n_post, self._n_field = n_post, n_field


class Whole(_Table):
    """A run's table read whole and checked, to look for a substring in every name."""

    def __init__(self, src: Source, at: int, end: int) -> None:
        super().__init__(src, at, end)
        n = self.n
        table = exactly(src, self._at, self._names_at + self._name_bytes)
        if zlib.crc32(table) != self._crc:
            raise CorruptSegment("key table checksum")
        # Views of the table, not copies.
        view = memoryview(table)
        self.key_at = view[: 4 * (n + 1)].cast("I")
        self.post_at = view[4 * (n + 1) : 8 * (n + 1)].cast("I")
        self.field_at = view[8 * (n + 1) : 12 * (n + 1)].cast("I")
        self.sums = view[12 * (n + 1) : self._names_at].cast("I")
        self._table = table
        if (
            self.key_at[-1] != self._name_bytes
            or self.post_at[-1] != self._n_post
            or self.field_at[-1] != self._n_field
        ):
            raise CorruptSegment("run sizes do not add up")

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

    def entries(self, ats: list[int]) -> Iterator[tuple[bytes, bytes]]:
        """The postings and field ids of the keys at `ats` (ascending), each checked: read
        at once from the first to the last (a literal in hundreds of strings)."""
        if not ats:
            return
        post_at, field_at = self.post_at, self.field_at
        p0, f0 = post_at[ats[0]], field_at[ats[0]]
        n, m = post_at[ats[-1] + 1] - p0, field_at[ats[-1] + 1] - f0
        posts = exactly(self._src, self.post_base + 4 * p0, 4 * n)
        fields = exactly(self._src, self.field_base + 4 * f0, 4 * m)
        for at in ats:
            post = posts[4 * (post_at[at] - p0) : 4 * (post_at[at + 1] - p0)]
            ids = fields[4 * (field_at[at] - f0) : 4 * (field_at[at + 1] - f0)]
            if zlib.crc32(ids, zlib.crc32(post)) != self.sums[at]:
                raise CorruptSegment("postings checksum")
            yield post, ids


class Fenced(_Table):
    """A run whose fence is read and checked when opened; a block of its table when a
    key is looked up in it."""

    def __init__(self, src: Source, at: int, end: int) -> None:
        super().__init__(src, at, end)
        fence = exactly(src, self._fence_at, self._fence_bytes)
        if zlib.crc32(fence) != self._fence_crc:
            raise CorruptSegment("key table fence checksum")
        m = self.blocks
        view = memoryview(fence)
        self._crcs = view[: 4 * m].cast("I")
        self._first_at = view[4 * m : 8 * m + 4].cast("I")
        self._firsts = fence[8 * m + 4 :]
        if self._first_at[-1] != len(self._firsts):
            raise CorruptSegment("run sizes do not add up")

    def find(self, name: bytes) -> tuple[bytes, bytes] | None:
        """The postings and field ids of key `name`, checked, if this run holds it."""
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
        return self._in_block(lo - 1, name)

    def _in_block(self, j: int, name: bytes) -> tuple[bytes, bytes] | None:
        src, at, n = self._src, self._at, self.n
        lo = j * BLOCK
        hi = min(lo + BLOCK, n)
        k = hi - lo
        raw = [exactly(src, at + 4 * (i * (n + 1) + lo), 4 * (k + 1)) for i in range(3)]
        raw.append(exactly(src, at + 12 * (n + 1) + 4 * lo, 4 * k))
        key_at, post_at, field_at, sums = (memoryview(r).cast("I") for r in raw)
        start, stop = key_at[0], key_at[k]
        if stop < start or stop > self._name_bytes:
            raise CorruptSegment("key table block")
        names = exactly(src, at + self._names_at + start, stop - start)
        crc = 0
        for r in raw:
            crc = zlib.crc32(r, crc)
        if zlib.crc32(names, crc) != self._crcs[j]:
            raise CorruptSegment("key table block checksum")
        lo, hi = 0, k
        while lo < hi:
            mid = (lo + hi) // 2
            if names[key_at[mid] - start : key_at[mid + 1] - start] < name:
                lo = mid + 1
            else:
                hi = mid
        if lo == k or names[key_at[lo] - start : key_at[lo + 1] - start] != name:
            return None
        p0, p1, f0, f1 = post_at[lo], post_at[lo + 1], field_at[lo], field_at[lo + 1]
        post = exactly(src, self.post_base + 4 * p0, 4 * (p1 - p0))
        ids = exactly(src, self.field_base + 4 * f0, 4 * (f1 - f0))
        if zlib.crc32(ids, zlib.crc32(post)) != sums[lo]:
            raise CorruptSegment("postings checksum")
        return post, ids


def exactly(src: Source, at: int, n: int) -> bytes:
    """`n` bytes of `src` from `at`, or CorruptSegment: the file ends before."""
    data = src.read(at, n)
    if len(data) != n or at < 0:
        raise CorruptSegment("cut short")
    return data

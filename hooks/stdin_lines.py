"""The lines of a `memhooks session`'s stdin, read in a daemon thread.

Each read is searched for a newline once, and a line longer than the limit is dropped as
it streams in: a harness that sends 50 MB on one line costs the process neither time
squared nor 50 MB of memory, and the next line is answered as usual. Its first bytes are
kept: the error reply carries the request's `id` when it comes before what was cut.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
from typing import TYPE_CHECKING, BinaryIO, NamedTuple

import anyio

from memhooks.memory.lazylog import getLogger

if TYPE_CHECKING:
    from collections.abc import Iterator

    from anyio.lowlevel import EventLoopToken
    from anyio.streams.memory import MemoryObjectSendStream

logger = getLogger(__name__)

CHUNK = 65536
#: How much of a line too long to read is kept.
HEAD = 65536


class Dropped(NamedTuple):
    """A line longer than the limit, dropped as it streamed in: its first `HEAD` bytes."""

    head: bytes


def lines(stream: BinaryIO, limit: int) -> Iterator[bytes | Dropped]:
    """Lines of `stream`, newline kept; `Dropped` for a line of more than `limit` bytes
    (newline included), of which only the start is kept.

    Read with os.read on its descriptor where it has one: a daemon thread blocked inside
    a BufferedReader holds its lock, and CPython aborts at shutdown when it cannot take
    that lock; a raw os.read holds none.
    """
    try:
        read = functools.partial(os.read, stream.fileno(), CHUNK)
    except (OSError, ValueError):  # an in-memory stream: plain reads never block
        read = functools.partial(stream.read, CHUNK)
    parts: list[bytes] = []  # the line so far, unless it is too long already
    head = b""  # its first bytes, once it is
    size = 0
    for chunk in iter(read, b""):
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            size += end + 1 - start
            piece = chunk[start : end + 1]
            if size <= limit:
                yield b"".join([*parts, piece])
            else:
                yield Dropped(head or _head([*parts, piece]))
            parts, head, size, start = [], b"", 0, end + 1
        size += len(chunk) - start
        if size <= limit and start < len(chunk):
            parts.append(chunk[start:])
        elif size > limit and not head:
            head, parts = _head([*parts, chunk[start:]]), []
    if size:
        yield b"".join(parts) if size <= limit else Dropped(head)


def _head(parts: list[bytes]) -> bytes:
    # The first `HEAD` bytes of `parts`, without joining the rest (up to the limit).
    kept: list[bytes] = []
    size = 0
    for part in parts:
        if size >= HEAD:
            break
        kept.append(part[: HEAD - size])
        size += len(kept[-1])
    return b"".join(kept)


def pump(
    stream: BinaryIO,
    send: MemoryObjectSendStream[bytes | Dropped],
    token: EventLoopToken,
    limit: int,
) -> None:
    """Send the `lines` of `stream` to the event loop, then close `send`.

    Run in a daemon thread, so that a read blocked on a silent pipe never keeps the
    process alive.
    """
    try:
        for line in lines(stream, limit):
            anyio.from_thread.run(send.send, line, token=token)
    except Exception as e:  # noqa: BLE001 - the loop must see end of input whatever happened
        logger.debug("stdin reader stopped: %s", e)
    finally:
        with contextlib.suppress(Exception):  # the event loop may already be gone
            anyio.from_thread.run_sync(send.close, token=token)


async def closed_on_signal(send: MemoryObjectSendStream[bytes | Dropped]) -> None:
    """Close `send` at SIGTERM or SIGHUP, as the end of input closes it: a harness that
    stops its session process so (Node's `child.kill()`, a closed terminal) still has
    its sessions recorded as the process leaves."""
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
        async for signum in signals:
            logger.info(
                "%s: ending as at the end of input", signal.Signals(signum).name
            )
            send.close()
            return


__all__ = ["closed_on_signal", "lines", "pump"]

"""`memhooks session`: one process per session, one JSON line in → one JSON line out.

It keeps each project's corpus in memory and lets the watcher re-read only the files
edited during the session. It exits at session-end, at end of input, when its parent
dies, or after an idle timeout: it never outlives the session (no daemon, no orphan).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import threading
from typing import TYPE_CHECKING, BinaryIO, NamedTuple

import anyio
from anyio.lowlevel import EventLoopToken, checkpoint, current_token

from memhooks.hooks.adapters import render, render_error
from memhooks.hooks.runner import Sessions, decode, handle
from memhooks.hooks.watch import watch_root

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from anyio.streams.memory import MemoryObjectSendStream

    from memhooks.hooks.events import Event, Harness

logger = logging.getLogger(__name__)


def _lines(stream: BinaryIO) -> Iterator[bytes]:
    """Lines of `stream`, read with os.read on its descriptor where it has one.

    A daemon thread blocked inside a BufferedReader holds its lock, and CPython aborts at
    shutdown when it cannot take that lock; a raw os.read holds none.
    """
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # an in-memory stream: plain reads never block
        yield from iter(stream.readline, b"")
        return
    pending = b""
    while chunk := os.read(fd, 65536):
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            yield line + b"\n"
    if pending:
        yield pending


def _pump(
    stream: BinaryIO, send: MemoryObjectSendStream[bytes], token: EventLoopToken
) -> None:
    # A daemon thread, so that a read blocked on a silent pipe never keeps the process alive.
    try:
        for line in _lines(stream):
            anyio.from_thread.run(send.send, line, token=token)
    except Exception as e:  # noqa: BLE001 - the loop must see end of input whatever happened
        logger.debug("stdin reader stopped: %s", e)
    finally:
        with contextlib.suppress(Exception):  # the event loop may already be gone
            anyio.from_thread.run_sync(send.close, token=token)


async def run_session(
    stdin: BinaryIO,
    write: Callable[[str], None],
    *,
    root: Path,
    harness: Harness | None,
    idle_timeout: float | None = None,
) -> int:
    """Serve events from `stdin` until session-end, end of input, parent death or idle timeout."""
    sessions = Sessions(root, keep=True)
    stop = anyio.Event()
    parent = os.getppid()
    send, receive = anyio.create_memory_object_stream[bytes](16)
    threading.Thread(
        target=_pump, args=(stdin, send, current_token()), daemon=True, name="stdin"
    ).start()
    await anyio.Path(root).mkdir(parents=True, exist_ok=True, mode=0o700)

    def on_change(rels: set[str]) -> None:
        for view in sessions.views():
            view.refresh(rels)

    async with anyio.create_task_group() as tg:
        tg.start_soon(watch_root, root, on_change, stop)
        idle = 0.0
        async with receive:
            while True:
                with anyio.move_on_after(1.0) as scope:
                    try:
                        line = await receive.receive()
                    except anyio.EndOfStream:
                        break
                if scope.cancelled_caught:
                    idle += 1.0
                    if os.getppid() != parent:
                        logger.info("parent process is gone; exiting")
                        break
                    if idle_timeout is not None and idle >= idle_timeout:
                        logger.info("idle for %.0f s; exiting", idle)
                        break
                    continue
                idle = 0.0
                if not line.strip():
                    continue
                result = await answer(line, harness, sessions)
                write(result.text or "{}")
                if result.ended:
                    break
        stop.set()
        tg.cancel_scope.cancel()
    return 0


class Answer(NamedTuple):
    """One event's reply text (None: the harness expects nothing), and how it went."""

    text: str | None
    ended: bool = False
    ok: bool = True


async def answer(line: bytes, harness: Harness | None, sessions: Sessions) -> Answer:
    """Answer one event line; failures become an error reply (generic dialect), never raise."""
    event = None
    try:
        event = decode(line, harness)
        if event is None:
            return Answer(None)
        await checkpoint()  # let the watcher deliver edits made just before this event
        reply = await handle(event, sessions)
    except TimeoutError:
        logger.warning("event deadline exceeded; answered with no context")
        return Answer(
            render_error(_request_id(line, event), "deadline exceeded"), ok=False
        )
    except Exception as e:  # noqa: BLE001 - fail open: one bad event must not end the session
        logger.warning("event failed: %s: %s", type(e).__name__, e)
        error = f"{type(e).__name__}: {e}"
        return Answer(render_error(_request_id(line, event), error), ok=False)
    reread = [r for v in sessions.views() for r in v.take_reread()]
    if reread:
        # Which files the watcher re-read for this event: the proof that nothing was rescanned.
        reply = dataclasses.replace(reply, extra={**reply.extra, "reread": reread})
    return Answer(render(event, reply), event.kind == "session-end")


def _request_id(line: bytes, event: Event | None) -> str | int | None:
    """The `id` of a request, if it has one, even when the rest of it is unusable."""
    if event is not None:
        return event.request_id  # parsed already; only a failed line is parsed again
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return None
    rid = data.get("id") if isinstance(data, dict) else None
    return rid if isinstance(rid, (str, int)) and not isinstance(rid, bool) else None

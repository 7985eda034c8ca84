"""`memhooks session --listen SOCKET`: a session process that hook commands talk to.

The session-start hook starts one per session (see `spawn`); later hook commands are
thin clients (`hooks.client`) that forward their event over this private Unix socket,
so a prompt pays for a socket round trip instead of importing and loading everything.

It exits at session-end, when the harness process is gone, when its socket file is
removed or replaced, or after an idle timeout: never an orphan.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, cast

import anyio

from memhooks.hooks.runner import Sessions
from memhooks.hooks.session import answer
from memhooks.hooks.watch import watch_root
from memhooks.hooks.wire import answers, parse_request, private_dir_ok, reply
from memhooks.memory.store import pid_alive, state_rel

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from anyio.abc import SocketStream

    from memhooks.hooks.events import Harness

logger = logging.getLogger(__name__)

MAX_REQUEST = 16 * 1024 * 1024
#: How often the process checks that its harness and its socket are still there.
CHECK_EVERY = 0.5


def _exists(path: Path) -> bool:
    return os.path.exists(path)


def _inode(path: str) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _claim(path: str) -> bool:
    """Remove a stale socket at `path`; False when a live session process already listens there."""
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    if not private_dir_ok(folder):
        logger.warning("%s is not a private folder of ours; not listening", folder)
        return False
    if not os.path.exists(path):
        return True
    if answers(path, timeout=0.5):
        return False
    os.unlink(path)
    return True


async def serve(
    path: str,
    *,
    root: Path,
    harness: Harness | None,
    parent_pid: int | None,
    idle_timeout: float,
    session_id: str | None = None,
    project: str | None = None,
) -> int:
    """Listen on `path` until the session ends, the harness dies, the socket goes, or idle.

    With `session_id`, it also leaves when that session's state file is gone: a
    session-end handled in-process (no socket yet, or a slow one) has ended the session.
    """
    if not _claim(path):
        logger.info("a session process already serves %s", path)
        return 0
    await anyio.Path(root).mkdir(parents=True, exist_ok=True, mode=0o700)
    sessions = Sessions(root, keep=True)
    if project is not None:
        # Warm before listening: a hook finding no socket yet answers in-process, which is
        # better than one waiting on a ten-thousand-note corpus being read.
        await anyio.to_thread.run_sync(lambda: sessions.view(project).index())
    lock = anyio.Lock()
    stop = anyio.Event()
    last = anyio.current_time()

    async def on_connect(stream: SocketStream) -> None:
        # One client's trouble (a liveness probe that hangs up, a hook killed mid-reply)
        # never ends the process: listener.serve would take the whole task group down.
        try:
            await _exchange(stream)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as e:
            logger.info("a client hung up before its reply: %s", e)
        except Exception:
            logger.exception("a request failed; still serving")

    async def _exchange(stream: SocketStream) -> None:
        nonlocal last
        async with stream:
            raw = await _read_all(stream)
            if not raw:  # a liveness probe (client.answers): connect, hang up
                return
            named, payload = parse_request(raw)
            wanted = cast("Harness | None", named) or harness
            async with lock:  # one event at a time: handlers share the session's state
                result = await answer(payload, wanted, sessions)
            last = anyio.current_time()
            if result.ended:
                stop.set()
            # A failed event is answered with nothing to print: fail open.
            await stream.send(reply(result.text if result.ok and result.text else ""))

    def on_change(rels: set[str]) -> None:
        for view in sessions.views():
            view.refresh(rels)

    try:
        listener = await anyio.create_unix_listener(path)
    except OSError as e:  # another session process for this session won the race
        logger.info("not listening on %s: %s", path, e)
        return 0
    ours = _private(path)
    try:
        async with listener, anyio.create_task_group() as tg:
            tg.start_soon(listener.serve, on_connect)
            tg.start_soon(watch_root, root, on_change, stop)
            await anyio.sleep(
                0.1
            )  # the watcher is up: catch up with edits made meanwhile
            for view in sessions.views():
                await anyio.to_thread.run_sync(view.catch_up)
            ours = await _watch_over(
                path,
                ours,
                root,
                parent_pid,
                session_id,
                stop,
                lambda: last,
                idle_timeout,
            )
            stop.set()  # the watcher's thread returns on it; cancelling alone waits for it
            tg.cancel_scope.cancel()
    finally:
        # Every way out releases the socket at once: a hook must never wait on a process
        # that is going away.
        stop.set()
        _release(path, ours)
    return 0


async def _watch_over(
    path: str,
    ours: int | None,
    root: Path,
    parent_pid: int | None,
    session_id: str | None,
    stop: anyio.Event,
    last: Callable[[], float],
    idle_timeout: float,
) -> int | None:
    """Wait until it is time to leave; returns the socket's inode if it is still ours."""
    while not stop.is_set():
        with anyio.move_on_after(CHECK_EVERY):
            await stop.wait()
        if parent_pid is not None and not pid_alive(parent_pid):
            logger.info("harness process %s is gone; exiting", parent_pid)
            break
        if _inode(path) != ours:
            logger.info("socket %s was removed or replaced; exiting", path)
            return None
        if session_id is not None and not _exists(root / state_rel(session_id)):
            logger.info("session %s ended elsewhere; exiting", session_id)
            break
        if anyio.current_time() - last() > idle_timeout:
            logger.info("idle for %.0f s; exiting", idle_timeout)
            break
    return ours


def _private(path: str) -> int | None:
    os.chmod(path, 0o600)
    return _inode(path)


def _release(path: str, ours: int | None) -> None:
    if ours is not None and _inode(path) == ours:
        os.unlink(path)


async def _read_all(stream: SocketStream) -> bytes:
    chunks: list[bytes] = []
    size = 0
    with anyio.move_on_after(10):
        try:
            while size <= MAX_REQUEST:
                chunk = await stream.receive()
                chunks.append(chunk)
                size += len(chunk)
        except anyio.EndOfStream:
            pass
    return b"".join(chunks)

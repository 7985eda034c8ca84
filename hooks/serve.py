"""A session process: one per session, over a socket (`memhooks session --listen SOCKET`,
started by the session-start hook) or a pipe (`memhooks session`, `hooks.pipe`).

Both transports share one loop: the session's views of the corpus, a watcher that re-reads
only the files edited during the session, one event handled at a time, and the reasons to
leave — session-end, end of input, the harness gone, the socket removed or replaced, the
session's state file gone, memhooks' own files replaced (`hooks.upgraded`), or an idle
timeout. It never outlives its session: no daemon, no orphan, and every way out releases
the socket at once, so a hook never waits on a process that is going away.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, NamedTuple, cast

import anyio
from anyio.abc import SocketAttribute, SocketListener
from anyio.lowlevel import checkpoint

from memhooks.hooks import shared_session
from memhooks.hooks import state as state_io
from memhooks.hooks.adapters import render, render_error
from memhooks.hooks.events import BadEventError, why
from memhooks.hooks.reread import Rereads
from memhooks.hooks.runner import (
    MAX_PAYLOAD,
    Sessions,
    decode,
    end_orphaned,
    handle,
    request_id_of,
)
from memhooks.hooks.spawn import peer_harness
from memhooks.hooks.state import state_rel
from memhooks.hooks.stdin_lines import Dropped
from memhooks.hooks.upgraded import Install
from memhooks.hooks.watch import start_watching, watch_root
from memhooks.hooks.wire import (
    FAILURE_MAX,
    LONGEST_DEADLINE,
    MAX_REQUEST,
    READ_WITHIN,
    ends_session,
    inode_of,
    listen,
    parse_request,
    release,
    reply,
    respond,
)
from memhooks.memory.files import pid_alive
from memhooks.memory.index_file import stop_waiting
from memhooks.memory.lazylog import getLogger
from memhooks.memory.store import make_folder

if TYPE_CHECKING:
    import socket
    from collections.abc import Awaitable, Callable
    from pathlib import Path

    from anyio.abc import SocketStream

    from memhooks.hooks.events import Harness
    from memhooks.hooks.first import Started
    from memhooks.hooks.notify import FolderWatch
    from memhooks.hooks.view import View

logger = getLogger(__name__)

#: How often the process checks that its harness, its socket and its session are still there.
CHECK_EVERY = 0.5
#: A session process reads its corpus after its first answer, or this long after start.
WARM_AFTER = 1.0
#: How long an event in progress may delay the way out.
FINISH_WITHIN = 1.5


class Answer(NamedTuple):
    """One event's reply text (None: the harness expects nothing), and how it went."""

    text: str | None
    ended: bool = False
    error: str | None = None  #: why it failed, as a hook prints it (None: it did not)


async def answer(
    line: bytes | Dropped,
    harness: Harness | None,
    sessions: Sessions,
    caller: int | None = None,
) -> Answer:
    """Answer one event line; failures become an error reply (generic dialect), never raise.

    `Dropped` stands for a line longer than `decode` takes, dropped as it was read;
    `caller` is the harness process that sent it, where known.
    """
    event = None
    try:
        if isinstance(line, Dropped):
            raise BadEventError(f"payload larger than {MAX_PAYLOAD} bytes")
        event = decode(line, harness)
        if event is None:
            return Answer(None)
        event = event._replace(caller=caller or 0)
        if event.kind == "session-end":
            # The corpus's reading, which the session end waits for, may be waiting for
            # another process's build of the index file: nothing reads that file now.
            _stop_waiting(sessions)
        await checkpoint()  # let the watcher deliver edits made just before this event
        reply = await handle(event, sessions)
    except TimeoutError:
        logger.warning("event deadline exceeded; answered with no context")
        error = "deadline exceeded"
        return Answer(render_error(request_id_of(line, event), error), error=error)
    except Exception as e:  # noqa: BLE001 - fail open: one bad event must not end the session
        error = why(e)
        logger.warning("event failed: %s", error)
        said = render_error(request_id_of(line, event), error)
        return Answer(said, error=why(e, FAILURE_MAX))
    reply = sessions.with_rereads(reply)
    return Answer(
        render(event, reply), event.kind == "session-end" and not reply.goes_on
    )


def _stop_waiting(sessions: Sessions) -> None:
    # Each view's build of its index file that waits for another process's gives up
    # (`index_file.stop_waiting`): this process is leaving and reads none.
    for view in sessions.views():
        stop_waiting(view.store)


class Process:
    """What both transports share: the views, the watcher, one event at a time, when to leave."""

    def __init__(
        self, root: Path, idle_timeout: float | None, started: Started | None = None
    ) -> None:
        self.root = root
        self.idle_timeout = idle_timeout
        self.sessions = started.sessions if started else Sessions(root, keep=True)
        self.stop = anyio.Event()
        self.last = anyio.current_time()
        self._lock = anyio.Lock()
        self._answered = anyio.Event()
        self._searched = anyio.Event()  #: an event answered since columns were built
        self.rereads = Rereads(self.sessions.views)
        # Watching from now on: what a view lists after this is kept current.
        early = started.recursive if started is not None else None
        self.watcher = early if early is not None else start_watching(root)
        if started:
            self._hand_over(started.watcher)
        if started and started.answered:
            self._answered.set()

    def _hand_over(self, early: FolderWatch) -> None:
        # What the watch of the project's folders saw until the recursive watch began,
        # and a view it did not wholly cover compared with the disk, now that everything
        # is watched.
        from memhooks.hooks.first import catch_up

        catch_up(early, self.sessions)
        early.close()

    def idled(self) -> float:
        # Seconds without an event once past the idle timeout; 0 before (or without one).
        idle = anyio.current_time() - self.last
        return idle if self.idle_timeout is not None and idle > self.idle_timeout else 0

    async def answer(
        self, line: bytes | Dropped, harness: Harness | None, caller: int | None = None
    ) -> Answer:
        async with self._lock:  # handlers share the session's state
            await self.rereads.settle()  # an edit just made, not a 30 MB note
            result = await answer(line, harness, self.sessions, caller)
        self.last = anyio.current_time()
        self._answered.set()
        self._searched.set()
        if result.ended:
            self.stop.set()
        return result

    async def _warm(self, view: View) -> None:
        # After the first answer (or a quiet moment): reading ten thousand notes holds
        # the interpreter, and the prompt right after SessionStart must not wait on it.
        with anyio.move_on_after(WARM_AFTER):
            await self._answered.wait()
        try:
            await anyio.to_thread.run_sync(view.index)
            await anyio.to_thread.run_sync(view.catch_up)  # edits made while reading
        except Exception:
            logger.exception("reading the corpus failed; answering from the index file")

    async def _build_columns(self) -> None:
        # Between events, the scores of keys the searches lacked (`View.build_column`),
        # one key at a time: an event that comes meanwhile waits for one (~20 ms at ten
        # thousand notes), not for all of a long prompt's.
        while True:
            for view in self.sessions.views():
                while view.columns_wanted():
                    async with self._lock:
                        try:
                            await anyio.to_thread.run_sync(view.build_column)
                        except Exception:  # that key is ranked from its postings
                            logger.exception("a key's scores were not kept")
                    await checkpoint()
            await self._searched.wait()
            self._searched = anyio.Event()

    async def run(
        self,
        requests: Callable[[], Awaitable[None]],
        leave: Callable[[], str | None],
    ) -> None:
        """Serve `requests` until it ends, the session ends, `leave` gives a reason, or idle."""

        async def serve_then_stop() -> None:
            await requests()
            self.stop.set()

        async with anyio.create_task_group() as tg:
            # Requests are served at once: catching up (a stat of every file) can take a
            # while, and a hook must not wait for it.
            tg.start_soon(serve_then_stop)
            tg.start_soon(watch_root, self.root, self.rereads, self.stop, self.watcher)
            for view in self.sessions.views():
                if view.warming:
                    tg.start_soon(self._warm, view)
            tg.start_soon(self._build_columns)
            # The watcher is up: catch up with edits made meanwhile.
            await anyio.sleep(0.1)
            for view in self.sessions.views():
                await anyio.to_thread.run_sync(view.catch_up)
            while not self.stop.is_set():
                with anyio.move_on_after(CHECK_EVERY):
                    await self.stop.wait()
                idle = self.idled()
                reason = leave() or (f"idle for {idle:.0f} s" if idle else None)
                if reason and not self.stop.is_set():
                    logger.info("%s; exiting", reason)
                    break
            self.stop.set()  # the watcher's thread returns on it; cancelling alone waits
            _stop_waiting(self.sessions)
            # An event still running (a session end answered before it was done) finishes
            # first, within what a process may outlive its harness by.
            with anyio.move_on_after(FINISH_WITHIN):
                async with self._lock:
                    pass
            tg.cancel_scope.cancel()


# -- over a socket: the hook commands of one session are thin clients (hooks.client) -----


async def serve_socket(
    path: str,
    *,
    root: Path,
    harness: Harness | None,
    parent_pid: int | None,
    idle_timeout: float,
    session_id: str | None = None,
    project: str | None = None,
    sock: socket.socket | None = None,
    started: Started | None = None,
) -> int:
    """Listen on `path` until the session ends, the harness dies, the socket goes, or idle.

    With `session_id`, it also leaves when that session's state file is gone: a
    session-end handled in-process (no socket yet, or a slow one) has ended the session.
    `sock` is the socket already listening on `path` (the hook that forked this process
    bound it, so that no hook finds the socket missing); `started`, what that process
    did before its event loop (`hooks.first.start`).
    """
    sock = sock or listen(path)
    if sock is None:
        logger.info("a session process already serves %s", path)
        return 0
    ours = inode_of(path)
    installed = started.installed if started else Install()  # `hooks.upgraded`
    killed = False  # the harness died: its session end never came
    born, lived = anyio.current_time(), 0.0  # how long until the harness was gone
    try:
        await anyio.to_thread.run_sync(make_folder, root)
        process = Process(root, idle_timeout, started)
    except BaseException:
        release(path, ours)  # a start that failed leaves no socket behind
        sock.close()
        raise
    if project is not None and started is None:
        # Read while answering: until the corpus is in memory, a prompt is answered from
        # the index file as a hook would be (`View.search`), not kept waiting.
        process.sessions.view(project).read_in_background()

    async def on_connect(stream: SocketStream) -> None:
        # One client's trouble (a liveness probe that hangs up, a hook killed mid-reply)
        # never ends the process: listener.serve would take the whole task group down.
        try:
            async with stream:
                raw = await _read_all(stream)
                if not raw:  # a liveness probe (wire.answers): connect, hang up
                    return
                caller = peer_harness(stream.extra(SocketAttribute.raw_socket))
                process.sessions.peer(caller)
                named, payload = parse_request(raw)
                dialect = cast("Harness | None", named) or harness
                if ends_session(payload):
                    # The harness prints nothing for a session end and waits for the
                    # hook: let it go at once; the record is written as it leaves,
                    # even if it left already (a hook that gave up on a busy process
                    # did it itself: hooks.client; then this finds the session ended).
                    with contextlib.suppress(*_GONE):
                        await stream.send(reply(""))
                        await stream.aclose()
                    await process.answer(payload, dialect, caller)
                    return
                # A request read is answered even as the process leaves (a clear just
                # after a session end); a failed one with why, for the hook's stderr.
                with anyio.move_on_after(READ_WITHIN + LONGEST_DEADLINE, shield=True):
                    got = await process.answer(payload, dialect, caller)
                    await stream.send(respond(got.text, got.error))
        except _GONE as e:
            logger.info("a client hung up before its reply: %s", e)
        except Exception:
            logger.exception("a request failed; still serving")

    def leave() -> str | None:
        nonlocal ours, killed, parent_pid, lived
        if parent_pid is not None and not pid_alive(parent_pid):
            # Another harness process on the session (`shared_session`) goes on with it.
            store = process.sessions.view(project).store
            other = session_id and shared_session.goes_on_after(
                state_io.load(store, session_id), parent_pid
            )
            if not other:
                killed, lived = True, anyio.current_time() - born
                return f"harness process {parent_pid} is gone"
            logger.info("harness process %d is gone; %d goes on", parent_pid, other)
            parent_pid = other
        if inode_of(path) != ours:
            ours = None  # not ours to remove
            return f"socket {path} was removed or replaced"
        if session_id is not None and not os.path.exists(root / state_rel(session_id)):
            return f"session {session_id} ended elsewhere"
        return "memhooks was upgraded or reinstalled" if installed.changed() else None

    try:
        async with await SocketListener.from_socket(sock) as listener:
            try:
                await process.run(lambda: listener.serve(on_connect), leave)
            finally:  # while open: once closed, its inode number may go to the next
                release(path, ours)  # socket bound there, which would look like ours
                ours = None
    finally:
        release(path, ours)
    # A hook run by another process than the one that died: that was a wrapper of the
    # session start's hook (`timeout`, `uv run`), not the harness, which lives on; one
    # that started the session too was another harness process on it, gone now.
    sessions = process.sessions
    wrapped = bool(sessions.peers - {parent_pid} - sessions.starters)
    if killed and not wrapped and session_id is not None:
        await end_orphaned(sessions, session_id, project, lived=lived)
    return 0


#: What sending to a client that hung up raises.
_GONE = (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError)


async def _read_all(stream: SocketStream) -> bytes:
    chunks: list[bytes] = []
    size = 0
    with anyio.move_on_after(READ_WITHIN):
        try:
            while size <= MAX_REQUEST:
                chunk = await stream.receive()
                chunks.append(chunk)
                size += len(chunk)
        except anyio.EndOfStream:
            pass
    return b"".join(chunks)

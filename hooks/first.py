"""The requests to a session process a hook forked, answered before its event loop
starts.

The prompt hook of `claude -p` follows SessionStart's within ~0.2 s: starting asyncio and
anyio (~50 ms) and loading the modules that serve the socket would stand between it and
its answer. Until a request is answered, or for `WITHIN` seconds, requests are answered
here, one at a time and in this thread, by the same handlers, under the same deadlines
(`hooks.runner.handle_now`). What the event loop needs is then made ready a step at a
time (the listing finished, its modules loaded, the whole root watched: ~0.3 s at ten
thousand notes), and a request that comes meanwhile is answered between two steps, not
after all of them; the event loop then takes over.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import select
import time
from typing import TYPE_CHECKING, NamedTuple, cast

from memhooks.hooks.adapters import render
from memhooks.hooks.events import why
from memhooks.hooks.notify import FolderWatch, watching
from memhooks.hooks.runner import Sessions, decode, handle_now
from memhooks.hooks.spawn import peer_harness
from memhooks.hooks.upgraded import Install
from memhooks.hooks.wire import (
    FAILURE_MAX,
    MAX_REQUEST,
    READ_WITHIN,
    ends_session,
    failed,
    parse_request,
    reply,
)
from memhooks.memory.lazylog import getLogger

if TYPE_CHECKING:
    import socket
    from collections.abc import Callable
    from pathlib import Path

    from watchfiles._rust_notify import RustNotify

    from memhooks.hooks.events import Harness

logger = getLogger(__name__)

#: How long requests are answered here before the event loop starts anyway.
WITHIN = 0.5
#: What `anyio.run` loads before it serves a request (~100 ms), a module a step.
_EVENT_LOOP = ("memhooks.hooks.serve", "asyncio", "anyio._backends._asyncio")


def answer_first(
    sock: socket.socket,
    sessions: Sessions,
    harness: Harness | None,
    changes: Callable[[], None],
    idle: Callable[[Callable[[], bool]], bool] | None = None,
) -> str | None:
    """Answer requests on `sock` until one is answered or `WITHIN` passes; the kind of
    the event answered, if any ("session-end": the process should leave).

    `changes` applies what the watcher reported so far, before each event; `idle` runs
    before waiting, told whether a request waits (it should stop then), until it says
    it is done.
    """
    deadline = time.monotonic() + WITHIN
    while (left := deadline - time.monotonic()) > 0:
        if idle is not None:
            if idle(lambda: _waits(sock)):
                idle = None
            left = max(deadline - time.monotonic(), 0.001)
        if not _waits(sock, left):
            return None  # no request yet
        kind = _answer_waiting(sock, sessions, harness, changes)
        if kind is not None:
            return kind
    return None


def _serve(
    conn: socket.socket,
    sessions: Sessions,
    harness: Harness | None,
    changes: Callable[[], None],
) -> str | None:
    # One connection, as `serve.serve_socket` answers it; None: a liveness probe.
    ended = False
    try:
        conn.settimeout(READ_WITHIN)
        raw = _read_all(conn)
        if not raw:
            return None
        caller = peer_harness(conn)
        sessions.peer(caller)
        named, payload = parse_request(raw)
        dialect = cast("Harness | None", named) or harness
        ended = ends_session(payload)
        if ended:  # the harness waits for nothing: let it go at once (even if gone)
            with contextlib.suppress(OSError):
                conn.sendall(reply(""))
            conn.close()
        changes()
        answer, kind = _answer(payload, dialect, sessions, caller)
        if not ended:
            conn.sendall(answer)
    except OSError as e:
        logger.info("a client hung up before its reply: %s", e)
        return "session-end" if ended else "answered"
    return "session-end" if ended and kind != "answered" else kind


def _answer(
    payload: bytes, harness: Harness | None, sessions: Sessions, caller: int | None
) -> tuple[bytes, str]:
    # The reply (when the event failed: no text, and why, for the hook's stderr: fail
    # open) and the event's kind; "answered" for a session end after which the session
    # goes on in another harness process (`shared_session`).
    try:
        event = decode(payload, harness)
        if event is None:
            return reply(""), "ignored"
        event = event._replace(caller=caller or 0)
        done = sessions.with_rereads(handle_now(event, sessions))
        kind = "answered" if done.goes_on else event.kind
        return reply(render(event, done) or ""), kind
    except Exception as e:  # noqa: BLE001 - fail open: the event loop serves the next one
        error = why(e, FAILURE_MAX)  # all a hook prints of it
        logger.warning("event failed: %s", error)
        return failed(error), "failed"


def _read_all(conn: socket.socket) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_REQUEST and (chunk := conn.recv(65536)):
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _waits(sock: socket.socket, within: float = 0.0) -> bool:
    # Whether a client is waiting to be accepted (or comes `within` seconds).
    return bool(select.select([sock], [], [], within)[0])


def _answer_waiting(
    sock: socket.socket,
    sessions: Sessions,
    harness: Harness | None,
    changes: Callable[[], None],
) -> str | None:
    # Answer the requests waiting now, without waiting for more; the kind of the last
    # answered ("session-end" at once, if one ends the session). Accepted without
    # blocking: a client may be gone between the look and the accept.
    kind = None
    sock.setblocking(False)
    try:
        while _waits(sock):
            try:
                conn, _ = sock.accept()
            except OSError:  # a client gone already (or no descriptor left: no loop)
                break
            with conn:
                kind = _serve(conn, sessions, harness, changes) or kind
            if kind == "session-end":
                break
    finally:
        sock.setblocking(True)
    return kind


class Started(NamedTuple):
    """A forked session process before its event loop: what `serve.serve_socket` takes over."""

    sessions: Sessions
    #: the project's folders (`hooks.serve` hands over to `recursive`)
    watcher: FolderWatch
    answered: str | None  #: the kind of the last event answered here, if any
    #: memhooks' files as they were when it was forked (`hooks.upgraded`)
    installed: Install
    #: the whole root, watched (`hooks.watch.start_watching`), unless that failed
    recursive: RustNotify | None = None


def start(
    sock: socket.socket,
    root: Path,
    harness: Harness | None,
    project: str | None,
    warm: Sessions | None,
) -> Started:
    """Watch the project's folders, load what a prompt needs (the index file opened and
    compared with the listing, `View.open_early`), list the project's files unless a
    request waits already (the hook's walk serves it, `hooks.listing`), answer the
    first request (`answer_first`), then make the event loop ready, answering requests
    between its steps; `warm`: the forking hook's sessions."""
    installed = Install()  # first: an upgrade from now on is news to `serve`
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    sessions = Sessions(root, keep=True)
    if warm is not None:
        sessions.adopt(warm)
    view = sessions.view(project) if project is not None else None
    # First: what is listed after this is kept current.
    watcher = FolderWatch(root, view.store.slug if view is not None else None)
    if view is not None:
        view.read_in_background()
    # What a prompt needs beyond what the SessionStart hook loaded.
    from memhooks.hooks import autosearch, recorder  # noqa: F401
    from memhooks.memory import searching  # noqa: F401

    if view is not None:
        try:  # what the first prompt's search needs, done while the prompt's hook starts
            view.open_early()
        except Exception as e:  # noqa: BLE001 - the prompt's search opens it then
            logger.warning("index file not opened early: %s: %s", type(e).__name__, e)

    answered: str | None = None

    def changes() -> None:
        catch_up(watcher, sessions)

    def go_on() -> bool:
        # Answer the requests waiting now; whether the session goes on.
        nonlocal answered
        if answered != "session-end":
            answered = _answer_waiting(sock, sessions, harness, changes) or answered
        return answered != "session-end"

    answered = answer_first(
        sock, sessions, harness, changes, lambda stop: finish(sessions, stop)
    )
    # The rest, a step at a time: a request that comes meanwhile waits for one step (of
    # the listing, 256 files: a paused listing goes on from there, `hooks.listing`).
    recursive = None
    while go_on() and not finish(sessions, functools.partial(_waits, sock)):
        pass
    for module in _EVENT_LOOP:
        if go_on():
            _load(module)
    if go_on():
        recursive = _watch_root(root)
        go_on()
    return Started(sessions, watcher, answered, installed, recursive)


def build_index(sessions: Sessions) -> None:
    """Build the index file a project lacks, before a process whose session ended here
    leaves: the event loop builds it after its first answer (`serve`'s `_warm`), which a
    session over in half a second never reached (`codex exec` with a model that answers
    at once), and a project of more than `view.SCAN_MAX` files gets no auto-search hit
    until one is built. The harness has had its reply; a session starting meanwhile
    forks a process of its own, and such processes build one at a time (`building`)."""
    from memhooks.memory.index_file import building, has_index
    from memhooks.memory.layered import open_index

    for view in sessions.views():
        if not view.warming or has_index(view.store):
            continue
        try:
            with building(view.store) as ours:
                if ours and not has_index(view.store):  # not just built by another
                    open_index(view.store)  # writes the index file it finds missing
        except Exception as e:  # noqa: BLE001 - the next session process tries again
            logger.warning("index file not built: %s: %s", type(e).__name__, e)


def _watch_root(root: Path) -> RustNotify | None:
    # The recursive watch the event loop keeps (`hooks.watch.start_watching`).
    try:
        return watching([str(root)], recursive=True)
    except OSError as e:  # the event loop tries again, and says why
        logger.info("root not watched yet: %s", e)
        return None


def _load(module: str) -> None:
    try:
        importlib.import_module(module)
    except ImportError:  # anyio's own module for asyncio, named otherwise
        logger.debug("%s not loaded early", module)


def finish(sessions: Sessions, stop: Callable[[], bool] | None = None) -> bool:
    """List the files of every view that started from its hook's walk (`Listing`),
    unless `stop` says to leave them for now; whether they all are listed."""
    done = True
    for view in sessions.views():
        if view.listing is not None and not view.listing.complete:
            view.refresh(view.listing.finish(stop))
            done = done and view.listing.complete
    return done


def catch_up(watcher: FolderWatch, sessions: Sessions) -> None:
    """Apply what `watcher` reported to every view; a view whose files it did not all
    watch (a folder created since, another project) is compared with the disk instead."""
    from memhooks.hooks.listing import rescan  # a view with a listing loaded it

    rels = watcher.drain()
    for view in sessions.views():
        if rels:
            view.refresh(rels)
        if not watcher.covers(view.store.slug):
            rescan(view)

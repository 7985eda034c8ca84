"""Run one event through its handler under a deadline: shared by the hook and the session.

Failing open is the rule (docs/design.md): whatever goes wrong, the harness gets exit 0 and no
context, and one line on stderr says why. Exit 2 would block the user's prompt.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from memhooks.hooks import shared_session, stale
from memhooks.hooks import state as state_io
from memhooks.hooks.adapters import to_event
from memhooks.hooks.events import (
    BadEventError,
    Reply,
    id_in_head,
    parse_payload,
    request_id,
)
from memhooks.hooks.handlers import HANDLERS
from memhooks.hooks.view import View
from memhooks.hooks.wire import DEADLINES
from memhooks.memory import Store, project_dir, slug_for
from memhooks.memory.lazylog import getLogger

if TYPE_CHECKING:
    from memhooks.hooks.events import Event, Harness, RequestId
    from memhooks.hooks.state import SessionState
    from memhooks.hooks.stdin_lines import Dropped

logger = getLogger(__name__)

#: Bytes of a hook payload read at most.
MAX_PAYLOAD = 16 * 1024 * 1024
#: Events whose state records a flush in progress or done (fsynced, see `finish`).
_FLUSHES = frozenset({"pre-compaction", "post-compaction", "session-end"})


class Sessions:
    """Who holds views and state: nobody between one-shot runs, the process in a session."""

    def __init__(
        self,
        root: str | Path | None,
        *,
        keep: bool,
        handed_over: bool = False,
        save: bool = True,
    ) -> None:
        self.root = root
        self.keep = keep
        #: Whether a session's state is saved after an event: not for a hook a person
        #: ran by hand (`spawn.harness_pid`), whose session no harness runs.
        self.save = save
        #: A thin client gave this hook an event its session process may also do.
        self.handed_over = handed_over
        #: Sessions an event ran for here (or in the hook that forked this process).
        self._seen: set[str] = set()
        self._views: dict[str, View] = {}
        self._states: dict[str, SessionState] = {}
        #: States the disk refused to save (full, read-only): a session process forked
        #: from this hook goes on from them, not from an older file or none.
        self._unsaved: dict[str, SessionState] = {}
        #: Session ends seen per session id: an event begun before one (a handler past
        #: its deadline, abandoned) must not write the state file back after it.
        self._ends: dict[str, int] = {}
        #: Each session's latest event (kept): what `end_orphaned` ends it as.
        self.last: dict[str, Event] = {}
        #: The harnesses that ran the hooks this process served (`spawn.peer_harness`).
        self.peers: set[int] = set()
        #: Those of them that started a session: harness processes, not wrappers of a
        #: hook (`serve_socket`): a headless resume beside a TUI (`shared_session`).
        self.starters: set[int] = set()

    def view(self, cwd: str | None) -> View:
        where = cwd or str(Path.cwd())
        # One view per project, not per directory: a harness that cd's into a subfolder
        # (or a worktree) keeps using the corpus and index already in memory.
        key = slug_for(str(project_dir(where)))
        if key not in self._views or not self.keep:
            self._views[key] = View.open(self.root, where, indexed=self.keep)
        return self._views[key]

    def started_in(self, view: View, slug: str) -> View:
        """The view of project `slug`, where a session started, beside `view` (same root
        and config): a harness that cd's into another repository inside its project (a
        submodule, a vendored checkout) sends that folder as its `cwd` from then on."""
        if slug not in self._views or not self.keep:
            store = Store(view.store.root, slug)
            self._views[slug] = View(store, view.config, indexed=self.keep)
        return self._views[slug]

    def adopt(self, other: Sessions) -> None:
        """Keep the views `other` read (a hook's, in the session process it forked), and
        the states it could not save."""
        for key, view in other._views.items():
            self._views.setdefault(key, view.kept())
        self._seen |= other._seen
        if self.keep:
            for session_id, st in other._unsaved.items():
                self._states.setdefault(session_id, st)

    def ended_elsewhere(self, view: View, session_id: str) -> bool:
        """True for a session end met with no state file where there was one: another
        process ended the session (a hook that gave up on its session process, or that
        process after the hook did), and its record must not be written twice.
        """
        expected = self.handed_over or session_id in self._seen
        return expected and not state_io.exists(view.store, session_id)

    def peer(self, harness: int | None) -> None:
        if harness is not None:
            self.peers.add(harness)

    def seen(self, session_id: str) -> None:
        self._seen.add(session_id)

    def views(self) -> list[View]:
        return list(self._views.values())

    def with_rereads(self, reply: Reply) -> Reply:
        """`reply`, noting which files the watcher re-read for this event (the proof, in
        the generic dialect, that nothing was rescanned)."""
        reread = [r for v in self.views() for r in v.take_reread()]
        if not reread:
            return reply
        return reply._replace(extra={**reply.extra, "reread": reread})

    def state(self, view: View, session_id: str) -> SessionState:
        if self.keep and session_id in self._states:
            return self._states[session_id]
        st = state_io.load(view.store, session_id) or state_io.SessionState(
            slug=view.store.slug
        )
        if self.keep:
            self._states[session_id] = st
        return st

    def begin(self, session_id: str) -> int:
        """A token for an event starting now, for `finish`."""
        return self._ends.get(session_id, 0)

    def finish(
        self, view: View, event: Event, st: SessionState, begun: int, reply: Reply
    ) -> None:
        if event.kind == "session-end" and not reply.goes_on and not st.ended:
            self.last.pop(event.session_id, None)
            state_io.delete(view.store, event.session_id)
            self._states.pop(event.session_id, None)
            self._ends[event.session_id] = self._ends.get(event.session_id, 0) + 1
            return
        if self._ends.get(event.session_id, 0) != begun:
            logger.info(
                "session %s ended while an event ran; state not saved", event.session_id
            )
            return
        if not self.save:
            # What the block kept beside the state (`held`) goes too, unless a session
            # of that id has a state of its own.
            if not state_io.exists(view.store, event.session_id):
                state_io.delete(view.store, event.session_id)
            return
        try:
            # Only a flush's bookkeeping is worth two fsyncs (where the transcript
            # stood, what the daily log holds already): losing it would record the same
            # things twice. What a block or a prompt left (what was injected or
            # surfaced) is not: an fsync waits for the disk's other writes too, which
            # cost a SessionStart hook up to 0.2 s while another program wrote.
            durable = bool(reply.wrote) or event.kind in _FLUSHES
            state_io.save(view.store, event.session_id, st, durable=durable)
            self._unsaved.pop(event.session_id, None)
        except OSError as e:
            # A read-only or full root: the reply still goes out; the next event starts
            # from the state kept in memory (session process) or on disk (one-shot).
            logger.warning("session state not saved: %s", e)
            self._unsaved[event.session_id] = st


def decode(raw: bytes | str, harness: Harness | None) -> Event | None:
    """Parse stdin bytes into a canonical event (None: an event memhooks ignores).

    Raises:
        BadEventError: not JSON, unknown event, too large.
        TypeError: JSON that is not an object.
    """
    if len(raw) > MAX_PAYLOAD:
        raise BadEventError(f"payload larger than {MAX_PAYLOAD} bytes")
    if not raw.strip():
        raise BadEventError("empty input: expected one JSON event")
    try:
        data = loads(raw)
    except json.JSONDecodeError as e:
        raise BadEventError(f"input is not JSON: {e}") from None
    except RecursionError:
        raise BadEventError("input is nested too deeply") from None
    return to_event(parse_payload(data), harness)


def loads(raw: bytes | str, *, note: bool = True) -> object:
    """JSON as `json.loads` reads it, but bytes that are not UTF-8 (a prompt pasted from
    a binary file) read as U+FFFD each: the event is handled, the rest of it searched.

    Raises:
        json.JSONDecodeError: not JSON.
        RecursionError: nested too deeply.
    """
    if isinstance(raw, str):
        return json.loads(raw)
    try:
        return json.loads(raw)
    except UnicodeDecodeError:
        pass
    if note:
        logger.warning("input is not valid UTF-8; each invalid byte read as U+FFFD")
    return json.loads(raw.decode(json.detect_encoding(raw), "replace"))


def request_id_of(line: bytes | Dropped, event: Event | None) -> RequestId | None:
    """The `id` of a request, if it has one, even when the rest of it is unusable (of a
    line too long to keep: when it comes before what was cut)."""
    if event is not None:
        return event.request_id  # parsed already; only a failed line is parsed again
    if not isinstance(line, bytes):
        return id_in_head(line.head)
    try:
        data = loads(line, note=False)
    except (ValueError, RecursionError):
        return None
    return request_id(data.get("id")) if isinstance(data, dict) else None


def _run_sync(event: Event, sessions: Sessions) -> Reply:
    if event.agent:
        # Codex CLI 0.171.0 runs a spawned subagent's hooks under its parent's session:
        # its task is the model's words, not a prompt of the person's, and its turns are
        # not the session's to record, nor to be told the session's changes.
        return Reply(notes=("a subagent's event: the session is not its own",))
    begun = sessions.begin(event.session_id)
    if sessions.keep:
        sessions.last[event.session_id] = event
    view = sessions.view(event.cwd)
    with state_io.one_at_a_time(view.store, event.session_id):
        if event.kind == "session-end" and sessions.ended_elsewhere(
            view, event.session_id
        ):
            return Reply(notes=("session already ended by another process",))
        sessions.seen(event.session_id)
        st = sessions.state(view, event.session_id)
        if event.kind == "pre-prompt":
            # Gemini CLI 0.61.0 takes a prompt before its SessionStart hook returns: a
            # second harness process on the session may be met first at its prompt.
            shared_session.joins(st, event.caller)
        if event.kind == "session-start":
            sessions.starters.add(event.caller)
            stale.began(
                view.store,
                event.session_id,
                st,
                caller=event.caller,
                again=not sessions.keep,
            )
        if st.slug and st.slug != view.store.slug and event.harness != "generic":
            # The session's memory is the project it started in (Claude Code 2.1.332 sent
            # a nested repository's folder after a `cd` there; its record went there).
            view = sessions.started_in(view, st.slug)
        reply = HANDLERS[event.kind](event, st, view)
        if event.kind == "session-end" and shared_session.goes_on(st, event.caller):
            note = f"the session goes on in harness process {st.harness}"
            reply = reply._replace(goes_on=True, notes=(*reply.notes, note))
        sessions.finish(view, event, st, begun, reply)
    return reply


def handle_now(event: Event, sessions: Sessions) -> Reply:
    """Run the event's handler under its deadline, with no event loop (a one-shot hook).

    A hook command runs one event and exits: a daemon thread and a timed join give it the
    same deadline as `handle` without importing asyncio and anyio, which would cost more
    start-up than the handler itself (README, "Speed").

    Raises:
        TimeoutError: the deadline passed (the thread is abandoned; writes stay atomic).
    """
    out: list[Reply] = []
    failed: list[BaseException] = []

    def work() -> None:
        try:
            out.append(_run_sync(event, sessions))
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
            failed.append(e)

    worker = threading.Thread(target=work, daemon=True, name="hook")
    worker.start()
    worker.join(DEADLINES[event.kind])
    if failed:
        raise failed[0]
    if not out:
        raise TimeoutError(
            f"{event.kind} handler missed its {DEADLINES[event.kind]} s deadline"
        )
    return out[0]


async def handle(event: Event, sessions: Sessions) -> Reply:
    """Run the event's handler in a worker thread under its deadline (a session process).

    Raises:
        TimeoutError: the deadline passed (the thread is abandoned; writes stay atomic).
    """
    import anyio

    with anyio.fail_after(DEADLINES[event.kind]):
        return await anyio.to_thread.run_sync(
            _run_sync, event, sessions, abandon_on_cancel=True
        )


#: A parent that exits this soon (s) after the session process began may be a wrapper
#: of the session start's hook (`timeout`, `uv run`): it goes with the hook, which has
#: 8 s at most (`wire.DEADLINES`), and the harness goes on.
WRAPPER_WITHIN = 20.0


async def end_orphaned(
    sessions: Sessions, session_id: str, project: str | None, *, lived: float = 0.0
) -> None:
    """The session end that a harness killed (SIGKILL, out of memory) never sent: the
    session's record written and its state removed, as its session process leaves
    (`lived`: how long after it began its parent was found gone)."""
    # Only a session this process served a prompt of: a parent that exits right after
    # SessionStart may be a wrapper around the hook, not the harness, and the session
    # then goes on with hooks run in-process, which need its state. One that lived on
    # was the harness, leaving a session it started with no prompt (Gemini CLI's TUI
    # opened, then `/resume` of another chat: no event ends the one it started).
    last = sessions.last.get(session_id)
    if last is None:
        if lived > WRAPPER_WITHIN:
            store = sessions.view(project).store
            st = state_io.load(store, session_id)
            if st is not None and not (st.prompts or st.kept):
                state_io.delete(store, session_id)  # nothing to record
        return
    if not state_io.exists(sessions.view(project).store, session_id):
        return  # ended already
    event = last._replace(kind="session-end", name="SessionEnd", prompt=None)
    event = event._replace(
        summary=None, source=None, reinject=False, request_id=None, killed=True
    )
    try:
        await handle(event, sessions)
    except Exception as e:  # noqa: BLE001 - fail open: the process is leaving anyway
        logger.warning("session %s not ended: %s: %s", session_id, type(e).__name__, e)


async def end_open(sessions: Sessions) -> None:
    """Every session served here that sent no session end, ended as it would have: a
    `memhooks session` whose input closed or whose harness died hears from none again."""
    for session_id, last in list(sessions.last.items()):
        await end_orphaned(sessions, session_id, last.cwd)

"""The state of sessions that never ended (their harness and session process killed, no
session end): swept at a session start (`began`), with the texts kept beside each
(`held`)."""

from __future__ import annotations

import contextlib
import re
import time
from typing import TYPE_CHECKING

from memhooks.hooks import shared_session
from memhooks.hooks.activity import ACTIVITY_DIR
from memhooks.hooks.state import MAX_PROMPTS, SessionState, state_rel
from memhooks.memory import gone
from memhooks.memory.constants import STATE_DIR
from memhooks.memory.files import read_regular
from memhooks.memory.lazylog import getLogger
from memhooks.memory.merging import git_waits
from memhooks.memory.note_format import conflict_line
from memhooks.memory.paths import daily, today

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from memhooks.hooks.events import Event
    from memhooks.hooks.transcript import TranscriptDigest
    from memhooks.hooks.view import View
    from memhooks.memory import Store

logger = getLogger(__name__)

#: A state file untouched this long whose harness is gone is left by a session that never
#: ended (its session process and harness killed, SIGKILL, no SessionEnd): nothing will
#: read it again but a session reusing its id, which would take its prompts for its own.
#: A week: a hook run through a wrapper (`uv run`) notes the wrapper, gone at once, as
#: the harness, and a session may pause for days.
STALE_SECONDS = 7 * 24 * 3600
#: ... and one that names no harness (a hook run by hand, or an older memhooks), this long.
UNOWNED_STALE_SECONDS = 30 * 24 * 3600
#: A state file's name, or its side files' (`held`, `session_writes`): removed with it,
#: or alone as old.
_STATE_NAME = re.compile(r"([0-9a-f]{24})\.(json|shown|wrote)")


def began(
    store: Store, session_id: str, state: SessionState, *, caller: int, again: bool
) -> None:
    """At a session start: note the session's id, and `caller`, the harness process that
    sent it, as the one running the session (`again`: even over one noted, as the hook
    of a resumed session does; a session process only notes a missing one), or beside a
    live one (`shared_session`); record what an earlier end or compaction of it kept
    while git was mid-merge (`deferred`), if it is done; then `sweep` the state of
    sessions that never ended, or ended keeping their record.
    """
    if not shared_session.joins(state, caller) and (again or not state.harness):
        state.harness = caller
    state.session_id = session_id
    if state.kept and _recorded(store.root, state, state.ended or time.time()):
        state.kept, state.prompts = [], []  # a session end of it kept them (`deferred`)
    state.ended = 0  # it goes on
    sweep(store, keep=session_id)
    gone.sweep(store.root, ACTIVITY_DIR, (".jsonl",))  # renamed or deleted projects'


def deferred(
    state: SessionState, digest: TranscriptDigest, view: View, rel: str
) -> bool:
    """At a session end: whether its record must wait, today's log (`rel`) being
    mid-merge (`waits`). Its prompts are then kept in `state` (`kept`), marked `ended`,
    for `sweep` to record once git is done (or the session's next start or end, if it is
    resumed first)."""
    from memhooks.hooks.recorder import kept_prompt, today_log

    why = waits(view.store.root, rel, today_log(view))
    if not why:
        return False
    state.ended = int(time.time())
    state.kept = [kept_prompt(p) for p in digest.prompts][-MAX_PROMPTS:]
    logger.warning(
        "%s: this session's record is kept, and the first session start once git is "
        "done (resolved and committed, or aborted) writes it",
        why,
    )
    return True


#: How long a session end's record waits for the root's lock: its hook has 1 s in all.
SESSION_END_LOCK_WAIT = 0.5


def end_record(
    event: Event, state: SessionState, view: View, digest: TranscriptDigest, body: str
) -> tuple[str, ...]:
    """A session end's record (`body`) written. Where the root's lock stays held past
    `SESSION_END_LOCK_WAIT` (a writer stopped mid-write) or the disk refuses, its
    prompts are kept in `state` (`kept`), marked `ended`, and the next session start
    records them (`sweep`): the session end was abandoned at its deadline before, and
    the state waited a week."""
    from memhooks.hooks import records
    from memhooks.hooks.recorder import kept_prompt, write
    from memhooks.memory.lockwait import at_most

    try:
        with at_most(SESSION_END_LOCK_WAIT):
            return (write(event, state, view, records.SESSION_END, body),)
    except OSError as e:
        state.ended = int(time.time())
        state.kept = [kept_prompt(p) for p in digest.prompts][-MAX_PROMPTS:]
        logger.warning("%s: this session's prompts are kept for the next start", e)
        return ()


def waits(root: Path, rel: str, log: str, *, git: bool = True) -> str:
    """Why a record may not be appended to the log `rel` (its text `log`) now, or "":
    it holds an unresolved git merge conflict (below git's markers, `git merge --abort`
    or `git checkout --theirs` would drop it without a word), or the root's git stands
    in a merge or a rebase (`merge --abort` would refuse, `rebase --abort` drop it)."""
    if (at := conflict_line(log)) is not None:
        return f"{rel}:{at}: an unresolved git merge conflict"
    if git and (what := git_waits(root)):
        return f"the memory root's git is in {what}"
    return ""


def flush_waits(state: SessionState, view: View, prompts: Sequence[str] = ()) -> bool:
    """At a compaction: whether its flush must wait, as a session end's record does
    (`deferred`); `prompts` are then kept for the session's end, in `state.kept`. The
    harness's summary is not recorded then."""
    from memhooks.hooks.recorder import kept_prompt, today_log

    rel = daily(view.store.slug, today()).rel
    why = waits(view.store.root, rel, today_log(view))
    if why:
        kept = [
            *state.kept,
            *(p for p in map(kept_prompt, prompts) if p not in state.kept),
        ]
        state.kept = kept[-MAX_PROMPTS:]
        log = logger.warning if prompts else logger.info  # one line a hook
        log("%s: the compaction's record waits for the session's end", why)
    return bool(why)


def with_kept(state: SessionState, digest: TranscriptDigest) -> TranscriptDigest:
    """`digest` with the prompts an earlier end of this session kept (`deferred`) first."""
    if not state.kept:
        return digest
    from memhooks.hooks.recorder import kept_prompt

    held = set(map(kept_prompt, digest.prompts))
    kept = [p for p in state.kept if p not in held]
    return digest._replace(prompts=(*kept, *digest.prompts))


def sweep(store: Store, *, keep: str = "", now: float | None = None) -> list[str]:
    """Remove the state files of sessions that never ended (`STALE_SECONDS`): never one
    whose harness lives, nor `keep`'s.

    Returns:
        The file names removed.
    """
    import os
    import time

    from memhooks.memory.files import pid_alive

    now = time.time() if now is None else now
    kept = state_rel(keep).rsplit("/", 1)[1][:24] if keep else ""
    removed: list[str] = []
    with contextlib.suppress(OSError), os.scandir(store.root / STATE_DIR) as entries:
        for entry in entries:
            name = _STATE_NAME.fullmatch(entry.name)
            if not name or name[1] == kept:
                continue
            with contextlib.suppress(OSError):
                age = now - entry.stat(follow_symlinks=False).st_mtime
                if not entry.is_file(follow_symlinks=False):
                    continue
                base = entry.path.removesuffix(name[2])
                if name[2] == "json":
                    state = _state_of(read_regular(entry.path).data)
                    harness = state.harness if state else 0
                    if not (state and state.ended) and (
                        age < STALE_SECONDS
                        or (harness and pid_alive(harness))
                        or (not harness and age < UNOWNED_STALE_SECONDS)
                    ):
                        continue
                    # A merge or rebase left standing a week (an abandoned `git am`)
                    # holds up no record longer: only a conflict in the log does.
                    patient = age < STALE_SECONDS
                    if state and not _recorded(
                        store.root, state, now - age, git=patient
                    ):
                        continue  # the next sweep tries again
                elif age < STALE_SECONDS or os.path.lexists(base + "json"):
                    continue  # removed with its state
                os.unlink(entry.path)
                removed.append(entry.name)
                for side in ("shown", "wrote"):  # `held`'s, `session_writes`'
                    with contextlib.suppress(OSError):
                        os.unlink(base + side)
    if removed:
        logger.info("removed the state of %d sessions that never ended", len(removed))
    return removed


def _state_of(raw: bytes) -> SessionState | None:
    try:
        return SessionState.from_json(raw)
    except (ValueError, TypeError, RecursionError):
        return None  # damaged: no session reads it (`state.load`)


def _recorded(root: Path, state: SessionState, at: float, *, git: bool = True) -> bool:
    """The prompts a session that never ended still held (its harness and session
    process killed, the machine off, or a session end that could not write: a full
    disk), recorded in its log of the day it last ran, as its session end would have.
    False when that failed: its state is kept."""
    if not (state.prompts or state.kept) or not state.slug:
        return True
    import datetime as dt

    from memhooks.hooks import records
    from memhooks.hooks.transcript import TranscriptDigest
    from memhooks.memory import MemoryStoreError, Store

    when = dt.datetime.fromtimestamp(at).astimezone()
    store = Store(root, state.slug)
    rel = daily(state.slug, today(when)).rel
    try:
        log = store.read_text(rel)
    except (MemoryStoreError, OSError):
        log = ""
    if why := waits(root, rel, log, git=git):
        logger.info("%s: a session's record waits", why)
        return False
    kept = set(state.kept)  # kept at its end (`deferred`), or seen since its last flush
    prompts = [*state.kept, *(p for p in state.prompts if p not in kept)]
    digest = TranscriptDigest(prompts=tuple(prompts))
    digest = records.news(digest, records.on_record(log))
    if digest.is_empty():
        return True
    try:
        body = records.render(digest, records.SESSION_END_MAX)
        store.append_daily(records.SESSION_END, body, now=when)
    except (MemoryStoreError, OSError) as e:
        logger.warning("prompts of an ended session not recorded: %s", e)
        return False
    return True

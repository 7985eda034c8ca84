"""The memory writes of a command the model ran in its session: `memhooks write`, `edit`,
`forget` or `restore` in its shell (the way the block's tools line tells it to save),
or a tool of the `memhooks mcp` its harness started. What the model wrote itself is no
news to it, and the change notice leaves it out; a person's later save is still told.

Such a command and the session's hooks descend from the same harness process, the one
the session's state names (`SessionState.harness`, `spawn.harness_pid`; or one beside
it, `shared_session`); under Codex CLI the command also names its thread, which is the
session (`CODEX_THREAD`). Seen 2026-12-06 in the TUIs: Claude Code 2.1.332 runs the
model's command as `bash -c 'source <snapshot> && eval …'`, a child of its `claude`
process; Codex CLI 0.171.0 (approvals and sandbox off) as a shell whose parent is its
native `codex` binary; Gemini CLI 0.61.0 as `bash -c` under a `bash -c` under the
`node` process that relaunched itself, which runs its hooks too. So a write whose
ancestors (`spawn.ancestors`, Linux's /proc; elsewhere none) include a live session's
harness, in the same root and project, is that session's; of several sessions on one
harness process (Codex's `/new` keeps the one before), the one whose state was saved
last, at the prompt that began the turn.

The write is recorded only when the model knew the file as it was: unchanged since the
session last looked (`noticed_at`), or as its own last write left it; one a person
changed in between is told as before, the model's lines with the person's. The record,
in the side file `state.wrote_rel` (the session process keeps the state in memory and
writes it whole, so the state file is not touched), holds the file's modification
time after the write and, for MEMORY.md, the scratchpad and a daily log, its text as a
block shows it (`held.shown`). The session's next prompt takes it (`take`): a file
still so is the session's own (`SessionState.own`); one a person saved since is told
from the model's text, the person's lines alone.

Fail-open: the write is done and says what it always says whatever happens here; the
session's lock is waited for at most `LOCK_WAIT` (a flush may hold it), then the write
goes unrecorded, and is told back as before.
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import TYPE_CHECKING

from memhooks.memory.errors import MemoryStoreError
from memhooks.memory.lazylog import getLogger

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping
    from pathlib import Path

    from memhooks.hooks.events import Event
    from memhooks.hooks.state import SessionState
    from memhooks.memory import Doc, Store

logger = getLogger(__name__)

#: Codex CLI 0.171.0 gives the model's commands the thread's id, which its hooks' events
#: name as the session: exact where the process tree is not, in its sandbox (a PID
#: namespace of its own, whose init is `codex-linux-sandbox`: the harness is out of
#: sight), and for a spawned subagent (a thread of its own, which no session is).
CODEX_THREAD = "CODEX_THREAD_ID"
#: How long a write waits for its session's lock before it goes unrecorded.
LOCK_WAIT = 2.0
#: The kinds of file a block may hold whole, whose text a record keeps.
_HELD_KINDS = frozenset({"memory", "scratchpad", "daily"})


@contextlib.contextmanager
def recording(store: Store, target: Callable[[], str]) -> Iterator[None]:
    """Around a write to `store` of the file `target()` names (its path under the root,
    asked only when a session is found): once it succeeded, recorded as the session's
    own if a live session's harness runs this process."""
    try:
        found = _session(store)
    except Exception as e:  # noqa: BLE001 - fail open: the write goes on
        logger.info("no session looked for: %s", e)
        found = None
    if found is None:
        yield
        return
    state_path, state = found
    from memhooks.hooks.state import holding

    digest = state_path.name.removesuffix(".json")
    with holding(store, digest, wait=LOCK_WAIT) as held:
        before = _before(store, target, state_path, state) if held else None
        yield
        if before is not None:
            try:
                _record(store, state_path, *before)
            except Exception as e:  # noqa: BLE001 - fail open: the write is done
                logger.info("the write not recorded as the session's: %s", e)


def _session(store: Store) -> tuple[Path, SessionState] | None:
    """The state file and state of the live session of `store`'s project whose harness
    process is an ancestor of this one (the one saved last, of several); under Codex
    CLI, the session its thread is (`CODEX_THREAD_ID`)."""
    from memhooks.hooks.spawn import ancestors
    from memhooks.hooks.state import SessionState, load, state_rel
    from memhooks.memory.constants import STATE_DIR
    from memhooks.memory.files import read_regular

    if thread := os.environ.get(CODEX_THREAD):
        state = load(store, thread)
        if state is None or state.slug != store.slug or state.ended:
            return None
        return store.path(state_rel(thread)), state
    above = set(ancestors())
    if not above:
        return None
    best: tuple[int, Path, SessionState] | None = None
    with os.scandir(store.root / STATE_DIR) as entries:
        for entry in entries:
            if not entry.name.endswith(".json") or not entry.is_file():
                continue
            try:
                state = SessionState.from_json(read_regular(entry.path).data)
                at = entry.stat().st_mtime_ns
            except (OSError, ValueError, TypeError, RecursionError):
                continue
            runs = {state.harness, *map(int, state.beside)} - {0}
            ours = state.slug == store.slug and runs & above and not state.ended
            if ours and (best is None or at > best[0]):
                best = at, store.root / STATE_DIR / entry.name, state
    return None if best is None else best[1:]


def _before(
    store: Store, target: Callable[[], str], state_path: Path, state: SessionState
) -> tuple[str, int, str | None] | None:
    """The file about to be written, its modification time (0: none yet) and its text
    as a block shows it ("" when there is none yet; None for a kind no block holds
    whole), when the model knows it as it is; None otherwise."""
    try:
        rel = target()
        mtime = _mtime(store, rel)
    except Exception as e:  # noqa: BLE001 - the write reports its own error
        logger.info("the file a write names not found: %s", e)
        return None
    if not state.noticed_at:
        return None  # no block yet: nothing to leave out of a notice
    own = _load(_side(state_path)).get(rel, (0, None))[0]
    if mtime <= state.noticed_at or mtime in (own, state.own.get(rel)):
        return rel, mtime, _shown(store, rel) if mtime else ""
    return None  # changed since by someone else: told, the model's lines with it


def _record(
    store: Store, state_path: Path, rel: str, was: int, was_text: str | None
) -> None:
    # The file `rel` as the write left it, for the session's next prompt; and, kept with
    # the conversation for a resume after the session ended, the write itself.
    from memhooks.hooks import resumed_writes
    from memhooks.memory.files import write_atomic

    now = _mtime(store, rel)
    if not now or now == was:
        return  # gone, or left as it was
    text = _shown(store, rel)
    side = _side(state_path)
    records = {k: [t, x] for k, (t, x) in _load(side).items()}
    records[rel] = [now, text]
    write_atomic(side, json.dumps(records, ensure_ascii=False).encode(), durable=False)
    resumed_writes.note(store, state_path.stem, rel, now, was_text, text)


def _shown(store: Store, rel: str) -> str | None:
    # The text of `rel` as a block shows it, for a kind a block holds whole.
    from memhooks.hooks import held

    doc = store.load(store.locate(rel))
    return held.shown(doc) if doc is not None and doc.kind in _HELD_KINDS else None


def take(
    event: Event,
    state: SessionState,
    store: Store,
    docs: Mapping[str, Doc],
    newest: int,
) -> None:
    """Before a prompt (under the session's lock): the writes of the model's own
    commands since the last prompt. A file each left as it is on disk is the session's
    own write (`state.own`); one changed since, held whole, is what the model was shown
    as the write left it, so that the notice tells the rest. The record is then gone;
    one a block built since covers is left out. `newest`: no document changed after it
    (nothing is read when none did: such records are dropped at a later prompt)."""
    from memhooks.hooks import held
    from memhooks.hooks.ondisk import mtimes_of
    from memhooks.hooks.state import wrote_rel

    if not state.noticed_at or newest <= state.noticed_at:
        return
    try:
        side = store.path(wrote_rel(event.session_id))
        records = _load(side)
        if records:
            side.unlink()
    except (OSError, MemoryStoreError) as e:
        logger.info("the model's own writes not read: %s", e)
        return
    mtimes = mtimes_of(docs) if records else {}
    shown = held.load(store, event.session_id) if records else {}
    kept = False
    for rel, (at, text) in records.items():
        if at <= state.noticed_at:
            continue  # a block built since (a compaction's) showed the file as it was
        if (now := mtimes.get(rel)) is None or now < at:
            continue
        if now == at:
            state.own[rel] = at
        elif text is not None and rel in shown:
            shown[rel], kept = text, True
    if kept:
        held.keep(store, event.session_id, shown)


def write_target(store: Store, to: str, name: str | None) -> str:
    """The file (its path under the root) `commands.write` writes `--to` and `--name`
    name; a write that lands elsewhere (a note's name taken otherwise) goes
    unrecorded."""
    from memhooks.memory import paths

    if to == "memory":
        return paths.memory_file().rel
    if to == "scratchpad":
        return paths.scratchpad(store.slug).rel
    if to == "daily":
        return paths.daily(store.slug, paths.today()).rel
    return store.locate(f"notes/{name}").rel


def _side(state_path: Path) -> Path:
    return state_path.with_suffix(".wrote")


def _load(side: Path) -> dict[str, tuple[int, str | None]]:
    """The records of a side file: path → (modification time, text or None); {} when
    there is none or it is damaged."""
    from memhooks.memory.files import read_regular

    try:
        data = json.loads(read_regular(side).data)
    except (OSError, MemoryStoreError, ValueError, RecursionError):
        return {}
    out: dict[str, tuple[int, str | None]] = {}
    for rel, value in data.items() if isinstance(data, dict) else ():
        if isinstance(value, list) and len(value) == 2:
            at, text = value
            if type(at) is int and (text is None or isinstance(text, str)):
                out[rel] = at, text
    return out


def _mtime(store: Store, rel: str) -> int:
    try:
        return store.path(rel).stat().st_mtime_ns
    except FileNotFoundError:
        return 0

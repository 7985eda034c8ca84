"""One session run by two harness processes at once.

`claude -p --continue` and `gemini --resume latest -p` resume the conversation a TUI has
open, under its session id, and end it when their one prompt is answered. That end is
theirs alone: the session's state and its session process stay with the TUI, and the
headless run's turns, written to the same transcript, are recorded once. Which harness
process sent an event is `Event.caller` (`spawn.harness_pid`, `spawn.peer_harness`);
0, not known, leaves every session to one process, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhooks.memory.files import pid_alive

if TYPE_CHECKING:
    from memhooks.hooks.state import SessionState


def joins(state: SessionState, caller: int) -> bool:
    """At a session start, or a prompt that came before it: whether `caller` runs a
    session that another live harness process runs, noted beside it if so."""
    if not caller or not state.harness or caller == state.harness:
        return False
    if not pid_alive(state.harness):
        return False  # the one that ran it is gone: `caller` takes it over
    state.beside.setdefault(str(caller), 0)
    return True


def lacks_block(state: SessionState, caller: int) -> bool:
    """Whether `caller` runs the session beside another and its model has no block yet."""
    return state.beside.get(str(caller)) == 0


def compressed_elsewhere(state: SessionState, caller: int) -> bool:
    """At `caller`'s prompt after Gemini compressed the history: whether another harness
    process on the session did (it announced the compression): its model lost the
    block, which comes with its next prompt (`lacks_block`); `caller`'s kept its own."""
    by = state.compaction_by
    if not caller or not by or by == caller:
        return False
    state.beside[str(by)] = 0
    return True


def goes_on(state: SessionState, caller: int) -> bool:
    """At a session end from `caller`: whether another live harness process goes on with
    the session. It then keeps the state (handed to it if `caller` ran the session).

    A session end from one that ended its part already (Gemini CLI 0.61.0 runs its
    SessionEnd hook three times on /quit) leaves the session to the one running it."""
    if not caller:
        return False
    live = _live(state, caller)
    if not live:
        return False
    state.harness = live[0]
    state.beside = {str(p): state.beside.get(str(p), 1) for p in live[1:]}
    return True


def goes_on_after(state: SessionState | None, gone: int) -> int:
    """Once harness process `gone` exited: another live one that runs the session of
    `state`, or is beside it, which its session process watches from then on (0: none)."""
    live = [] if state is None else _live(state, gone)
    return live[0] if live else 0


def _live(state: SessionState, but: int) -> list[int]:
    # The harness processes on the session but `but` still running: the one that ran it
    # first, then those beside it.
    on = (state.harness, *map(int, state.beside))
    return [p for p in on if p and p != but and pid_alive(p)]

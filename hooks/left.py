"""The conversations a Codex CLI TUI left for a new one, ended as it starts that one.

Codex CLI 0.171.0's `/new` and `/clear` start a conversation under a new session id
(SessionStart, source `startup` or `clear`), and its `/resume` starts the one picked (a
SessionEnd of that one, then its SessionStart, source `resume`); none sends a SessionEnd
for the one left, nor does `/fork`, which sends no event at all (the fork is met first
at its first prompt, a session with no state). The one left ended only as the TUI quit,
and until then no record of it was written, so the new conversation's block and its
auto-search lacked what had just been done. A TUI holds one conversation at a time, and
runs its hooks in its own process: at such a start or first prompt, the other sessions
that same process runs were left, and each is ended here as its session end would have
(its record written, its state removed, its session process leaving), before the new
conversation's block is built or the fork's prompt answered. The session end Codex
sends for it at `/quit` then finds nothing new (`resumes.skip_recorded`).

For a TUI's own process, which has a terminal on its stdin (`--dangerously-bypass-hook-
trust`). A person who trusted the hooks at "Hooks need review" has them run by Codex's
app-server daemon (`codex app-server … --managed-daemon`, one per $CODEX_HOME), which
serves every TUI under one process id, and a start from it says nothing of which TUI
sent it. The daemon sends the SessionEnd of a conversation a TUI left (`/new`, `/clear`,
`/quit`) when it unloads its thread, about a minute later: a new conversation began
within it, even in a TUI started after `/quit`, lacked the record. When only one live
TUI uses the daemon (`sole_tui`), the start is that TUI's, and what else the daemon runs
was left, as with a TUI's own process; with two or more, nothing is ended here.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from memhooks.hooks.codex_forks import rollout_of
from memhooks.hooks.spawn import stdin_and_argv
from memhooks.hooks.state import SessionState, state_rel
from memhooks.memory.constants import STATE_DIR
from memhooks.memory.files import read_regular

if TYPE_CHECKING:
    from memhooks.hooks.events import Event

#: The sources of the SessionStart of a conversation begun in a TUI in place of another:
#: `/new` (`startup`), `/clear` and `/resume`.
_NEW = frozenset({"startup", "clear", "resume"})


def ends(event: Event, root: Path) -> list[Event]:
    """At `event`, a session start or a fork's first prompt: the session ends of the
    conversations its Codex TUI left for it, oldest state first ([] for any other
    event)."""
    if (
        event.harness != "codex"
        or event.agent
        or not (_started(event) or _forked(event, root))
        or not (tui(event.caller) or sole_tui(event.caller))
    ):
        return []
    found: list[tuple[float, str]] = []
    with contextlib.suppress(OSError), os.scandir(root / STATE_DIR) as entries:
        for entry in entries:
            if not entry.name.endswith(".json"):
                continue
            with contextlib.suppress(OSError, ValueError, TypeError, RecursionError):
                st = SessionState.from_json(read_regular(entry.path).data)
                if (
                    st.harness == event.caller
                    and st.session_id
                    and st.session_id != event.session_id
                    and not st.ended
                ):
                    mtime = entry.stat(follow_symlinks=False).st_mtime
                    found.append((mtime, st.session_id))
    return [_end(event, session_id) for _, session_id in sorted(found)]


def _started(event: Event) -> bool:
    # A conversation begun in place of another: `/new`, `/clear`, `/resume`.
    return event.kind == "session-start" and event.source in _NEW


def _forked(event: Event, root: Path) -> bool:
    # A prompt of a conversation met first there: `/fork`'s.
    return (
        event.kind == "pre-prompt" and not (root / state_rel(event.session_id)).exists()
    )


def _end(event: Event, session_id: str) -> Event:
    # The session end Codex would send for `session_id` from the same TUI, with the
    # rollout of its thread, found beside the new conversation's.
    near = event.transcript_path
    rollout = rollout_of(Path(near), session_id) if near else None
    return event._replace(
        kind="session-end",
        name="SessionEnd",
        session_id=session_id,
        transcript_path=str(rollout) if rollout else None,
        prompt=None,
        summary=None,
        source=None,
        reinject=False,
        request_id=None,
    )


def tui(pid: int) -> bool:
    """Whether process `pid` is a TUI that runs its own hooks: a terminal on its stdin,
    and no app-server. False where that cannot be told (not Linux)."""
    seen = stdin_and_argv(pid)
    return seen is not None and seen[0] and b"app-server" not in seen[1]


def sole_tui(pid: int) -> bool:
    """Whether process `pid` is Codex's app-server daemon and one live TUI, no more,
    uses it: a `codex` process with a terminal on its stdin and no app-server, of the
    same $CODEX_HOME (its default, ~/.codex, where unset). False where that cannot be
    told (not Linux)."""
    argv = _argv(pid)
    if b"app-server" not in argv or b"--managed-daemon" not in argv:
        return False
    home = _codex_home(pid)
    found = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit() or int(entry.name) == pid:
                continue
            them = _argv(int(entry.name))
            if (
                them
                and os.path.basename(them[0]) == b"codex"
                and tui(int(entry.name))
                and _codex_home(int(entry.name)) == home
            ):
                found += 1
    return home is not None and found == 1


def _argv(pid: int) -> list[bytes]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def _codex_home(pid: int) -> bytes | None:
    """The $CODEX_HOME of process `pid`, else its $HOME's .codex, links resolved (one
    folder named two ways is one daemon's); None: not known."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            env = dict(v.partition(b"=")[::2] for v in f.read().split(b"\0") if v)
    except OSError:
        return None
    if home := env.get(b"CODEX_HOME"):
        return os.path.realpath(home)
    return (
        os.path.realpath(os.path.join(env[b"HOME"], b".codex"))
        if b"HOME" in env
        else None
    )

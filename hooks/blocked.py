"""A prompt another hook blocked: what auto-search surfaced for it never reached the model.

Claude Code runs every UserPromptSubmit hook of a prompt at once; when one of another
tool's exits 2 (a policy hook, a secret scanner), Claude Code 2.1.332 drops the prompt and
every hook's context with it, and writes a `system` line to the transcript ("UserPromptSubmit
operation blocked by hook: …", then "Original prompt: …"). The prompt goes back in the input
box. Auto-search had marked its hits shown, so when the person sent it again (reworded, or
the same) the model got none of them. So the hits of each prompt wait here until the next
one: if the transcript says meanwhile that the prompt was blocked, they were never shown.
Gemini CLI 0.61.0 does the same when a BeforeAgent hook exits 2, and writes a `warning`
record ("Agent execution blocked: …") to its chat file. Codex CLI 0.171.0 keeps a blocked
prompt's hook context for the next turn: nothing to take back there.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memhooks.hooks.events import Event
    from memhooks.hooks.state import SessionState

#: The transcript line each harness writes for a blocked prompt, as written: its quotes
#: unescaped, so that no prompt or reply quoting the phrase can match.
_BLOCKED = {
    "claude-code": b'"subtype":"informational","content":"UserPromptSubmit operation blocked by hook',
    "gemini": b'"type":"warning","content":"Agent execution blocked',
}
#: A turn whose tool output is larger than this is read from its end only.
_MAX_READ = 16 * 1024 * 1024


def _transcript(event: Event) -> Path | None:
    path = event.transcript_path
    return Path(path) if event.harness in _BLOCKED and path else None


def _size(path: Path) -> int:
    try:
        st = os.stat(path)
    except OSError:
        return -1
    return st.st_size if stat.S_ISREG(st.st_mode) else -1


def undo_if_blocked(event: Event, state: SessionState) -> None:
    """Before a prompt: take back what the previous one surfaced, if it was blocked."""
    pending, since = state.pending, state.pending_at
    if not pending:
        return
    state.pending, state.pending_at = {}, -1
    path = _transcript(event)
    if path is None or since < 0 or _size(path) < since:
        return
    try:
        with path.open("rb") as f:
            f.seek(max(since, _size(path) - _MAX_READ))
            tail = f.read(_MAX_READ)
    except OSError:
        return
    if _BLOCKED[event.harness] not in tail:
        return
    for rel, entries in pending.items():
        state.surfaced.pop(rel, None)
        if entries and rel in state.seen_entries:
            kept = state.seen_entries[rel][:-entries]
            if kept:
                state.seen_entries[rel] = kept
            else:
                del state.seen_entries[rel]


def remember(event: Event, state: SessionState, shown: dict[str, int]) -> None:
    """After a prompt: what it surfaced (path → entry ids marked seen), until the next."""
    path = _transcript(event)
    if path is not None and shown:
        state.pending, state.pending_at = shown, max(_size(path), 0)

"""What a resumed conversation holds already: the block, and the notes auto-search showed.

A harness that resumes a conversation sends the model its earlier turns again. Read from
the transcript, they tell the session's first hook what not to inject a second time.
"""

from __future__ import annotations

import html
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from memhooks.hooks.state import fingerprint
from memhooks.hooks.transcript import found, holds
from memhooks.hooks.transcript_shapes import gemini_replay
from memhooks.memory.constants import WRAPPER_CLOSE, WRAPPER_OPEN

if TYPE_CHECKING:
    from collections.abc import Iterable

    from memhooks.hooks.events import Event
    from memhooks.hooks.state import SessionState
    from memhooks.hooks.view import View

#: A phrase of the block's wrapper without quotes or "<", so that it reads the same in a
#: JSON transcript and in one that escaped the context (Gemini's "&lt;").
_BLOCK_MARK = WRAPPER_OPEN.split('"')[1].encode()
#: How a block ends (its usage line follows the wrapper), whatever its sections; an
#: auto-search context ends with the wrapper alone.
_BLOCK_END = WRAPPER_CLOSE + "\nMemory tools"


def block_in_transcript(event: Event) -> bool:
    """Whether the transcript holds memhooks' context (the block comes first)."""
    path = event.transcript_path
    return path is not None and path != "" and holds(Path(path), _BLOCK_MARK)


def forked_unwritten(event: Event) -> bool:
    """Whether `event` starts a Claude Code fork whose transcript is not written yet.

    Claude Code 2.1.332 (`--fork-session`, `/branch`) writes it after the first turn,
    with a copy of the conversation forked, block and all; nothing in the event names
    that conversation, so its block is taken to be there (a fork of a conversation
    begun before memhooks was installed goes without, until its next compaction)."""
    path = event.transcript_path
    return (
        event.source == "fork"
        and event.harness == "claude-code"
        and bool(path)
        and not os.path.lexists(path or "")
    )


def skip_recorded(event: Event, state: SessionState) -> None:
    """Start the records of a conversation resumed (or forked) with no state of its
    session left, its earlier run ended, where its transcript ends now: what it holds
    went into a log with that run, a flush or a session end, perhaps days ago, and
    today's log alone is no guard against recording it twice. Only a transcript that
    holds our context: one of a run without memhooks was never recorded.
    """
    fresh = not (state.noticed_at or state.transcript_path)
    if event.source in ("resume", "fork") and fresh and block_in_transcript(event):
        state.transcript_path = event.transcript_path
        state.transcript_offset = _recorded_up_to(event)


def _recorded_up_to(event: Event) -> int:
    # Where the transcript ends now: the end of its last whole line (0: none).
    path = event.transcript_path
    if not path:
        return 0
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return 0  # a FIFO would block the open
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            start = max(size - _TAIL, 0)
            f.seek(start)
            end = f.read(size - start).rfind(b"\n")
    except OSError:
        return 0
    return start + end + 1 if end >= 0 else 0


#: How far back from a transcript's end its last line's end is looked for.
_TAIL = 1024 * 1024


def surfaced_in_transcript(event: Event, view: View) -> dict[str, str]:
    """What auto-search showed earlier in a resumed conversation, as the files are now:
    the same question asked again does not show it twice (like the block, a file edited
    in between is not news)."""
    from memhooks.hooks.autosearch import SHOWN

    shown: set[str] = set()
    path = event.transcript_path
    for raw, compacted in found(Path(path), SHOWN) if path else ():
        if compacted or raw is None:
            shown.clear()  # compacted: what came before is a summary now
        else:
            shown.add(raw.decode("utf-8", "replace"))
    return _as_now(shown, view)


def gemini_replayed(event: Event, view: View) -> tuple[bool, dict[str, str]]:
    """Whether the turns Gemini CLI replays to the model on resume hold a block, and the
    notes auto-search showed in them, as the files are now. Its SessionStart context is
    never replayed; a hook's context that came with a later prompt is."""
    from memhooks.hooks.autosearch import SHOWN

    path = event.transcript_path
    replay = [html.unescape(t) for t in gemini_replay(Path(path))] if path else []
    found_in = (SHOWN.findall(t.encode("utf-8", "replace")) for t in replay)
    shown = (m[0] for ms in found_in for m in ms if m[0])
    return any(_BLOCK_END in t for t in replay), _as_now(
        (raw.decode("utf-8", "replace") for raw in shown), view
    )


def _as_now(shown: Iterable[str], view: View) -> dict[str, str]:
    # Each memory file named in `shown` that is this project's, by its fingerprint now.
    ours = f"projects/{view.store.slug}/"
    out: dict[str, str] = {}
    for rel in shown:
        ok = (rel == "MEMORY.md" or rel.startswith(ours)) and ".." not in rel
        if ok and (doc := view.store.read_listed(rel)) is not None:
            out[rel] = fingerprint(doc)
    return out

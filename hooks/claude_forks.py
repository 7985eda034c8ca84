"""A Claude Code fork (`--fork-session`, `/branch`): a new session whose transcript starts
with a copy of the conversation it forked, block and all.

Claude Code 2.1.332 writes that transcript only after the fork's first turn, and nothing in
the fork's SessionStart names the conversation it copied; so the block is taken to be there
(`unwritten`), and what the copy holds was recorded with the conversation it came from: the
fork's records start where the copy ends (`copy_end`).
"""

from __future__ import annotations

import itertools
import os
from typing import TYPE_CHECKING

from memhooks.hooks.claude_shapes import entry_ns
from memhooks.hooks.transcript import json_line
from memhooks.memory.files import read_regular

if TYPE_CHECKING:
    from memhooks.hooks.events import Event


def unwritten(event: Event) -> bool:
    """Whether `event` starts a Claude Code fork whose transcript is not written yet (a
    fork of a conversation begun before memhooks was installed then goes without the
    block, until its next compaction)."""
    path = event.transcript_path
    return (
        event.source == "fork"
        and event.harness == "claude-code"
        and bool(path)
        and not os.path.lexists(path or "")
    )


def copy_end(path: str, since: int) -> int:
    """Where the copy the fork's transcript at `path` starts with ends: after the last
    line written before the fork began at `since` (ns), as the copied turns keep their
    times (the fork's own lines come after them); 0 when there is none."""
    try:
        data = read_regular(path).data
    except OSError:
        return 0
    lines = data.split(b"\n")
    ends = list(itertools.accumulate(len(line) + 1 for line in lines))
    # From the end: the fork's own lines are a few.
    for line, end in zip(reversed(lines), reversed(ends), strict=True):
        at = entry_ns((json_line(line) or {}).get("timestamp"))
        if at and at < since:
            return min(end, len(data))
    return 0

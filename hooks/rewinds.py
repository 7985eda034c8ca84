"""A Claude Code conversation rewound (`/rewind`, Esc Esc): what its branch holds.

Claude Code 2.1.332 sends no hook event for a rewind, and keeps the turns rewound away
in the transcript: a prompt after it is written with its `parentUuid` an earlier entry
than the one before it in the file, and the model gets only that entry's ancestors.
The prompt is written after its UserPromptSubmit hook returns, so the branch is seen
at the next prompt: a block built then, and what the notices told in the turns left,
may not be in the branch, and what changed since the block it holds is told again.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from memhooks.hooks.resumes import holds_block, keep_held, surfaced_in
from memhooks.hooks.transcript import json_line
from memhooks.hooks.transcript_contexts import BLOCK_MARK, contexts_in
from memhooks.memory.files import open_regular, read_regular

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from memhooks.hooks.events import Event
    from memhooks.hooks.state import SessionState
    from memhooks.hooks.view import View

    Told = Callable[
        [list[str], Mapping[str, str], Event, SessionState, View], str | None
    ]

#: How far back from the transcript's end the last prompt is looked for.
_TAIL = 1024 * 1024
#: The most of a transcript read to walk a branch, as for any transcript.
_MAX_BYTES = 64 * 1024 * 1024


def told(
    event: Event,
    state: SessionState,
    view: View,
    block: Callable[[Event, SessionState, View], str],
    told_since: Told,
) -> str | None:
    """At a Claude Code prompt, when the last one started a branch: the block built
    again (`block`, as on a resume) and kept as seen only what the branch holds, and
    the change notice of what changed since the branch's block (`told_since`)."""
    path = event.transcript_path
    if event.harness != "claude-code" or not path or not state.noticed_at:
        return None
    contexts = branch_contexts(Path(path))
    if contexts is None or not holds_block(contexts):
        return None
    block(event, state, view)
    whole = dict(state.injected)
    keep_held(event, state, view, contexts)
    state.surfaced = surfaced_in(contexts, view)
    return told_since(contexts, whole, event, state, view)


def branch_contexts(path: Path) -> list[str] | None:
    """The texts of our wrapper the conversation's branch holds, oldest first, when the
    last prompt in the transcript at `path` starts a branch (its parent is not the entry
    before it); None when it does not, or when that cannot be read. The last turn's
    lines alone are parsed, from the end, at each prompt."""
    lines = tail_lines(path)
    if lines is None:
        return None
    parent: str | None = ""  # "" until the last prompt is found
    for line in reversed(lines):
        if (entry := _entry(line)) is None:
            continue
        if parent != "":
            if entry[0] == parent:
                return None
            break
        if entry[2]:
            parent = entry[1]
    else:
        return None
    data = whole(path)
    return None if data is None else contexts_in(_branch(data))


def _branch(data: bytes) -> list[bytes]:
    # The lines holding our wrapper on the path from the last entry to the root.
    lines: dict[str, tuple[str | None, bytes]] = {}
    last = None
    for line in data.split(b"\n"):
        if (entry := _entry(line)) is not None:
            lines[entry[0]] = entry[1], line
            last = entry[0]
    kept: list[bytes] = []
    while last in lines:  # each entry once: a loop of parents ends too
        parent, line = lines.pop(last)
        if BLOCK_MARK in line:
            kept.append(line)
        last = parent
    return kept[::-1]


def _entry(line: bytes) -> tuple[str, str | None, bool] | None:
    # An entry of the conversation: its uuid, its parent's, and whether it is a prompt
    # a person typed (not a tool's result, nor one of the harness's own).
    if b'"uuid"' not in line:
        return None
    obj = json_line(line)
    if obj is None or not isinstance(uuid := obj.get("uuid"), str):
        return None
    parent = obj.get("parentUuid")
    return uuid, parent if isinstance(parent, str) else None, is_prompt(obj)


def is_prompt(obj: dict[object, object]) -> bool:
    """Whether a transcript entry is a prompt a person typed (not a tool's result, nor
    one of the harness's own)."""
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return (
        obj.get("type") == "user"
        and not obj.get("isMeta")
        and not obj.get("isSidechain")
        and "toolUseResult" not in obj
        and (
            isinstance(content, str)
            or isinstance(content, list)
            and not _results(content)
        )
    )


def _results(content: list[object]) -> bool:
    # Whether a user message's content holds a tool's result (not a person's prompt).
    return any(isinstance(p, dict) and p.get("type") == "tool_result" for p in content)


def tail_lines(path: Path) -> list[bytes] | None:
    """The whole lines of a transcript's last `_TAIL` bytes, the last turn among them
    (`open_regular` waits for no FIFO); None when it cannot be read."""
    try:
        with os.fdopen(open_regular(path), "rb") as f:
            f.seek(max(os.fstat(f.fileno()).st_size - _TAIL, 0))
            data = f.read(_TAIL)
    except OSError:
        return None
    lines = data.split(b"\n")
    return lines[1:] if len(data) == _TAIL else lines  # the first may be cut


def whole(path: str | Path) -> bytes | None:
    """A transcript whole; None past `_MAX_BYTES` (as for any transcript) or when it
    cannot be read."""
    try:
        data = read_regular(path, _MAX_BYTES).data
    except OSError:
        return None
    return None if len(data) > _MAX_BYTES else data

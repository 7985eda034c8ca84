"""The memory files the model wrote itself, with Claude Code's own file tools, in the
turn before a prompt: what it wrote is no news to it, and the change notice leaves it out.

Claude Code 2.1.332 lets the model Edit or Write over a file only once it has read it,
and refuses the edit when the file changed on disk since: a file its tool wrote holds
nothing the model has not seen, until someone changes it again (a Read of part of a long
file counts as read: MEMORY.md past Read's 2,000 lines is taken as seen). So a memory
file whose modification time is no later than the entry of its edit's result (the
transcript's `timestamp`, in milliseconds) counts as the session's own write
(`SessionState.own`); one a person saved after that is told as before. The turn's lines
alone are read, from the end, as `rewinds` does: the prompt's own line is written after
its hook returns. Gemini CLI's `replace` shows the model 5 lines around its edit, and
Codex's shell shows none: no such rule holds there, and their edits are told.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from memhooks.hooks.claude_shapes import EDIT_TOOLS, PATH_KEYS
from memhooks.hooks.ondisk import mtimes_of
from memhooks.hooks.rewinds import is_prompt, tail
from memhooks.memory.files import read_regular

if TYPE_CHECKING:
    from collections.abc import Mapping

    from memhooks.hooks.events import Event
    from memhooks.hooks.state import SessionState
    from memhooks.memory import Doc

#: How far back from the transcript's end the last turn is read.
_TAIL = 1024 * 1024
#: The most of a transcript read on a resume, as for any transcript.
_MAX_BYTES = 64 * 1024 * 1024
#: A result's `timestamp` is cut to the millisecond; the write before it may fall in
#: the same one.
_MS = 1_000_000


def mark(
    event: Event,
    state: SessionState,
    root: Path,
    docs: Mapping[str, Doc],
    newest: int,
) -> None:
    """Count as the session's own write each memory file in `docs` (under `root`) that
    the model's file tool wrote in the last turn and that nobody changed since
    (`newest`: no document changed after it; nothing is read when none changed)."""
    path = event.transcript_path
    if event.harness != "claude-code" or not path or not state.noticed_at:
        return
    if newest <= state.noticed_at:
        return
    mtimes = mtimes_of(docs)
    fresh = [rel for rel, t in mtimes.items() if t > state.noticed_at]
    if not fresh or not (wrote := model_wrote(Path(path))):
        return
    base = root.resolve()
    for rel in fresh:
        at = wrote.get(base / rel)
        if at is not None and mtimes[rel] <= at + _MS:
            state.own[rel] = mtimes[rel]


def known_on_resume(event: Event, root: Path) -> set[str]:
    """The memory files (paths under `root`) the resumed Claude Code conversation's model
    wrote itself, in any turn, unchanged since: a resume tells them as they are."""
    path = event.transcript_path
    if event.harness != "claude-code" or not path:
        return set()
    try:
        data = read_regular(path, _MAX_BYTES).data
    except OSError:
        return set()
    if len(data) > _MAX_BYTES:
        return set()
    base, known = root.resolve(), set()
    for target, at in model_wrote(Path(path), data).items():
        try:
            if target.stat().st_mtime_ns <= at + _MS:
                known.add(target.relative_to(base).as_posix())
        except (OSError, ValueError):  # gone since, or not memory
            continue
    return known


def model_wrote(path: Path, data: bytes | None = None) -> dict[Path, int]:
    """The files the model's Write, Edit or MultiEdit calls wrote since the last prompt
    in the Claude Code transcript at `path` (resolved), each with the time (ns) of its
    result's entry, the last one's; a call refused or failed wrote nothing. With
    `data` (the whole transcript), in every turn."""
    whole = data is not None
    data = data if whole else tail(path, _TAIL)
    if not data:
        return {}
    lines = data.split(b"\n")
    done: dict[str, int] = {}  # a call's id → when its result came, for those that ran
    wrote: dict[Path, int] = {}
    for line in reversed(lines[1:] if len(data) == _TAIL and not whole else lines):
        obj = _json(line)
        if obj is None or obj.get("isSidechain") is True:
            continue  # a subagent's (older releases wrote them here): not the model's
        if is_prompt(obj) and not whole:
            break
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result" and block.get("is_error") is not True:
                if (at := _ns(obj.get("timestamp"))) and isinstance(
                    use := block.get("tool_use_id"), str
                ):
                    done[use] = at
            elif block.get("type") == "tool_use" and block.get("name") in EDIT_TOOLS:
                args = block.get("input")
                target = next(
                    (
                        p
                        for k in PATH_KEYS
                        if isinstance(args, dict) and isinstance(p := args.get(k), str)
                    ),
                    None,
                )
                ran = done.get(str(block.get("id")), 0)
                if target and ran:
                    key = Path(target).resolve()
                    wrote[key] = max(ran, wrote.get(key, 0))
    return wrote


def _json(line: bytes) -> dict[object, object] | None:
    if b'"tool_' not in line and b'"user"' not in line:
        return None  # neither a call, nor a result, nor a prompt: not parsed
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def _ns(stamp: object) -> int:
    # An entry's ISO 8601 `timestamp` ("2026-12-06T07:57:29.543Z") in ns; 0 if none.
    if not isinstance(stamp, str):
        return 0
    try:
        return round(datetime.fromisoformat(stamp).timestamp() * 1000) * _MS
    except ValueError:
        return 0

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
Codex's `apply_patch` only its context lines: no such rule holds there, and their
edits are replayed on the text the model was shown instead (`replayed_edits`).

Claude Code keeps this rule: it is exact there (the file the model's tool wrote is one
the model read whole, or its edit was refused), it needs no text kept or replayed, and
it holds for MultiEdit and for files the block did not hold whole. No test showed it
wrong (`tests/e2e/test_model_edits.py`), so it stays.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memhooks.hooks.claude_shapes import EDIT_TOOLS, PATH_KEYS, entry_ns
from memhooks.hooks.ondisk import mtimes_of
from memhooks.hooks.rewinds import is_prompt, tail_lines, whole
from memhooks.hooks.transcript import json_line

if TYPE_CHECKING:
    from collections.abc import Mapping

    from memhooks.hooks.events import Event
    from memhooks.hooks.state import SessionState
    from memhooks.memory import Doc

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
    data = whole(path)
    if data is None:
        return set()
    base, known = root.resolve(), set()
    for target, at in model_wrote(Path(path), data.split(b"\n")).items():
        try:
            if target.stat().st_mtime_ns <= at + _MS:
                known.add(target.relative_to(base).as_posix())
        except (OSError, ValueError):  # gone since, or not memory
            continue
    return known


def model_wrote(path: Path, lines: list[bytes] | None = None) -> dict[Path, int]:
    """The files the model's Write, Edit or MultiEdit calls wrote since the last prompt
    in the Claude Code transcript at `path` (resolved), each with the time (ns) of its
    result's entry, the last one's; a call refused or failed wrote nothing. With
    `lines` (the whole transcript's), in every turn. Only the lines that may hold such
    a call, its result or a prompt are parsed (a transcript of tool output is large)."""
    if lines is None:
        lines = tail_lines(path) or []
        turn = (i for i in reversed(range(len(lines))) if _prompt(lines[i]))
        lines = lines[next(turn, -1) + 1 :]
    calls: dict[str, Path] = {}  # an edit call's id → the file it names
    wrote: dict[Path, int] = {}
    for line in lines:
        if any(mark in line for mark in _EDIT_MARKS):
            for block in _blocks(json_line(line), "tool_use"):
                args = block.get("input")
                args = args if isinstance(args, dict) else {}
                named = [
                    p for k in PATH_KEYS if isinstance(p := args.get(k), str) and p
                ]
                if block.get("name") in EDIT_TOOLS and named:
                    calls[str(block.get("id"))] = Path(named[0]).resolve()
        elif _result_of(line) in calls:
            obj = json_line(line)
            at = entry_ns(obj.get("timestamp") if obj is not None else None)
            for block in _blocks(obj, "tool_result"):
                target = calls.get(str(block.get("tool_use_id")))
                if at and target and block.get("is_error") is not True:
                    wrote[target] = max(at, wrote.get(target, 0))
    return wrote


#: How a line holding one of the edit calls names its tool (Claude Code writes its
#: transcript's JSON without spaces).
_EDIT_MARKS = tuple(f'"name":"{name}"'.encode() for name in EDIT_TOOLS)


def _result_of(line: bytes) -> str:
    # The id of the call whose result a line holds (its first), found without parsing.
    at = line.find(_RESULT_ID)
    end = line.find(b'"', at + len(_RESULT_ID)) if at >= 0 else -1
    return (
        line[at + len(_RESULT_ID) : end].decode("ascii", "replace") if end > 0 else ""
    )


_RESULT_ID = b'"tool_use_id":"'


def _prompt(line: bytes) -> bool:
    if b'"type":"user"' not in line or b'"toolUseResult"' in line:
        return False  # a tool's result, or no user entry: not parsed
    return (obj := json_line(line)) is not None and is_prompt(obj)


def _blocks(obj: dict[object, object] | None, kind: str) -> list[dict[object, object]]:
    # The content blocks of `kind` of the model's (not a subagent's) entry `obj`.
    if obj is None or obj.get("isSidechain") is True:
        return []  # a subagent's (older releases wrote them here): not the model's
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    items = content if isinstance(content, list) else []
    return [b for b in items if isinstance(b, dict) and b.get("type") == kind]

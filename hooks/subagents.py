"""What Claude Code's subagents did, for the session's records: the files they edited
and the commands they ran.

Claude Code 2.1.332 writes a subagent's turns to a transcript of its own,
`<session>/subagents/agent-<id>.jsonl` beside the session's (`<session>.jsonl`); the
session's transcript tells only that it finished (`claude_shapes`: an Agent call's
result, or the `<task-notification>` turn of one in the background). Its task, written
by the model, and its answers are no prompt nor answer of the person's conversation:
only its edits and commands are taken, as the session's work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhooks.hooks.claude_shapes import claude_assistant_events, claude_tool_results
from memhooks.hooks.transcript import digest_of, json_line
from memhooks.memory.files import read_regular

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from memhooks.hooks.transcript import TranscriptDigest, TranscriptEvent

#: The most of one subagent's transcript read.
_MAX_BYTES = 16 * 1024 * 1024


def with_subagents(digest: TranscriptDigest, path: Path) -> TranscriptDigest:
    """`digest` of the session's transcript at `path` with the files and commands of the
    subagents it says finished (each file and command once)."""
    files, commands = list(digest.files), list(digest.commands)
    for agent in digest.agents:
        done = _digest(path.with_suffix("") / "subagents" / f"agent-{agent}.jsonl")
        files += [f for f in done.files if f not in files]
        commands += [c for c in done.commands if c not in commands]
    return digest._replace(files=tuple(files), commands=tuple(commands))


def _digest(path: Path) -> TranscriptDigest:
    try:
        data = read_regular(path, _MAX_BYTES).data[:_MAX_BYTES]
    except OSError:
        return digest_of(())
    return digest_of(_events(data[: data.rfind(b"\n") + 1].split(b"\n")))


def _events(lines: list[bytes]) -> Iterator[tuple[TranscriptEvent, str]]:
    # A subagent's calls and their results; its task and its answers left out.
    for obj in filter(None, map(json_line, lines)):
        message = obj.get("message")
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if obj.get("type") == "assistant":
            for event in claude_assistant_events(message, content, False):
                if event[0] != "assistant":
                    yield event
        elif obj.get("type") == "user":
            yield from claude_tool_results(content, obj.get("toolUseResult"))

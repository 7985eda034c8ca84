"""What the subagents of Claude Code, Codex CLI and Gemini CLI did, for the session's
records: the files they edited and the commands they ran.

Each writes a subagent's turns to a file of its own, which the session's transcript
names:

- Claude Code 2.1.332: `<session>/subagents/agent-<id>.jsonl` beside the session's
  `<session>.jsonl`; the session's transcript tells only that it finished
  (`claude_shapes`: an Agent call's result, or the `<task-notification>` turn of one in
  the background).
- Codex CLI 0.171.0: the rollout of a thread of its own, in the same sessions folder
  (`codex_forks.rollout_of`), which the parent's rollout names in its `spawn_agent`
  call's `CollabAgentToolCall` item (`transcript_shapes`); a subagent may spawn its own
  (`[agents] max_depth`), named in its rollout.
- Gemini CLI 0.61.0: `chats/<session id>/<agent id>.jsonl` beside the session's
  `chats/session-….jsonl`, named by the `agentId` of the `invoke_agent` call that ran
  it (`generalist`, with every tool, is on by default).

A subagent's task, written by the model, and its answers are no prompt nor answer of
the person's conversation: only its edits and commands are taken, as the session's work.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memhooks.hooks.claude_shapes import claude_assistant_events, claude_tool_results
from memhooks.hooks.codex_forks import rollout_of
from memhooks.hooks.transcript import digest_of, json_line, parse_lines
from memhooks.memory.files import read_regular
from memhooks.memory.lazylog import getLogger

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from memhooks.hooks.transcript import TranscriptDigest, TranscriptEvent

logger = getLogger(__name__)

#: The most of the subagents' transcripts read for one record, all of them together
#: (as much as of the session's own at its end: about a second's parse).
_MAX_BYTES = 16 * 1024 * 1024
#: The most subagents read for one record (a subagent may start its own).
_MAX_AGENTS = 32
#: A subagent's id as Gemini CLI names its chat file with it.
_AGENT_ID = re.compile(r"[0-9A-Za-z-]{8,64}")
#: A subagent's id as Claude Code names its transcript with it: a name, no path.
_CLAUDE_ID = re.compile(r"[\w-]{1,128}", re.ASCII)


def with_subagents(
    digest: TranscriptDigest, path: Path, *, budget: int = _MAX_BYTES
) -> TranscriptDigest:
    """`digest` of the session's transcript at `path` with the files and commands of the
    subagents it names (each file and command once): Claude Code's that finished, Codex
    CLI's spawned and Gemini CLI's run, and those they started; of their transcripts,
    `budget` bytes in all."""
    where, parse = _transcripts(path)
    files, commands = list(digest.files), list(digest.commands)
    known_files, known_commands = set(files), set(commands)
    agents, seen = list(digest.agents), set(digest.agents)
    while agents and len(seen) <= _MAX_AGENTS:
        if budget <= 0:
            logger.warning(
                "subagents' transcripts past %d MB: %d subagent(s) left out of the "
                "record",
                _MAX_BYTES >> 20,
                len(agents),
            )
            break
        agent = agents.pop(0)
        # Its task (a prompt there) and its answers are read and left: only its files,
        # its commands and the subagents it started are taken.
        data = _read(where(path, agent), budget)
        done = parse(_lines(data))
        budget -= len(data)
        agents += [a for a in done.agents if a not in seen]
        seen.update(done.agents)
        files += [f for f in done.files if f not in known_files]
        commands += [c for c in done.commands if c not in known_commands]
        known_files.update(done.files)
        known_commands.update(done.commands)
    return digest._replace(files=tuple(files), commands=tuple(commands))


def _transcripts(
    path: Path,
) -> tuple[
    Callable[[Path, str], Path | None], Callable[[list[bytes]], TranscriptDigest]
]:
    """Where the harness of the session's transcript at `path` keeps a subagent's
    transcript (None: nowhere to read), and how its lines are read."""
    if path.name.startswith("rollout-"):  # how Codex CLI names its transcripts
        return rollout_of, parse_lines
    if path.name.startswith("session-") and path.parent.name == "chats":
        return _gemini_chat, parse_lines
    return _claude_own, lambda lines: digest_of(_claude_events(lines))


def _claude_own(path: Path, agent: str) -> Path | None:
    # The id is the transcript's: a "/" or a NUL in it names no subagent's file.
    if not _CLAUDE_ID.fullmatch(agent):
        return None
    return path.with_suffix("") / "subagents" / f"agent-{agent}.jsonl"


def _gemini_chat(path: Path, agent: str) -> Path | None:
    # `chats/<session id>/<agent id>.jsonl`: a subagent's subagents there too.
    if not _AGENT_ID.fullmatch(agent):
        return None
    found = sorted(path.parent.glob(f"*/{agent}.jsonl"))
    return found[0] if found else None


def _read(path: Path | None, most: int) -> bytes:
    # The first `most` bytes of a subagent's transcript, b"" when it cannot be read.
    if path is None:
        return b""
    try:
        return read_regular(path, most).data[:most]
    except OSError:
        return b""


def _lines(data: bytes) -> list[bytes]:
    # The complete lines of `data`.
    return data[: data.rfind(b"\n") + 1].split(b"\n")


def _claude_events(lines: list[bytes]) -> Iterator[tuple[TranscriptEvent, str]]:
    # A Claude Code subagent's calls and their results; its task and its answers left out.
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

"""Digest of a harness transcript (JSONL) for the compaction flush and the session end.

Claude Code's transcript is read here; Codex rollouts and Gemini chat files (the file at
`transcript_path` for those harnesses) are recognised line by line and read by
`transcript_shapes`. The formats are undocumented (Claude Code's reverse-engineered by
third parties; tests/data/harness holds real captures), so every accessor checks
types and skips what it does not recognise: a transcript must never make the hook fail.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from typing import TYPE_CHECKING, BinaryIO, Literal, NamedTuple

from memhooks.hooks.claude_shapes import (
    claude_assistant_events,
    claude_blocked_prompt,
    claude_tool_results,
)
from memhooks.hooks.transcript_shapes import (
    GeminiReader,
    codex_events,
    is_codex,
    is_gemini,
    str_at,
)
from memhooks.memory.lazylog import getLogger

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from pathlib import Path

logger = getLogger(__name__)

# User text nobody typed (§4.1: local commands, bash output, a subagent's end notice).
_NOISE = re.compile(
    r"<(local-command-\w+|command-message|command-args|bash-std\w+|task-notification)>"
    r"|\[Request interrupted"
)
# Hooks inject context as <system-reminder> spans in user text (§4.1); unclosed: to the end.
_REMINDER = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.DOTALL)
#: What a transcript line can contribute to a digest; and what tells of one that did not
#: happen ("use": the id of the tool call whose command or file comes next; "unrun",
#: "failed": a call's id, `claude_tool_results`; "blocked": a prompt a hook blocked;
#: "agent": a subagent whose turns are in a file of its own, `subagents`).
_Done = Literal["prompt", "file", "command", "assistant", "summary", "read", "search"]
TranscriptEvent = _Done | Literal["use", "unrun", "failed", "blocked", "agent"]
_SKIP_CHUNK = 64 * 1024


class TranscriptDigest(NamedTuple):
    """What happened in a stretch of transcript, as needed for the daily log."""

    prompts: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    last_assistant: str | None = None
    compact_summary: str | None = None
    #: Where the model went looking on its own: files it read (`Read`, an MCP
    #: `memory_read` target) and its MCP `memory_search` queries. Not written to the
    #: log: `memhooks report` compares them with what auto-search surfaced.
    reads: tuple[str, ...] = ()
    searches: tuple[str, ...] = ()
    #: Prompts a UserPromptSubmit hook blocked: the model never got them.
    blocked: tuple[str, ...] = ()
    #: The subagents Claude Code finished, Codex CLI spawned and Gemini CLI ran (their
    #: turns are in files of their own).
    agents: tuple[str, ...] = ()

    def is_empty(self) -> bool:
        """Return True when there is nothing worth writing to the log."""
        return not any(self[:5])


def _tag(text: str, name: str) -> str | None:
    match = re.search(rf"<{name}>(.*?)</{name}>", text, re.DOTALL)
    return match.group(1).strip() if match else None


def _blocks(content: object) -> list[dict[object, object]]:
    items = content if isinstance(content, list) else []
    return [b for b in items if isinstance(b, dict)]


def _texts(content: object) -> str | None:
    """Join the text of a string content or of the text blocks of a list content."""
    if isinstance(content, str):
        return content
    texts = [str_at(b, "text") for b in _blocks(content) if b.get("type") == "text"]
    return "\n".join(t for t in texts if t) or None


def _prompt(text: str) -> str | None:
    """Reduce a user-typed text to a prompt, or None when it is harness noise."""
    text = _REMINDER.sub("", text).strip()
    if not text:
        return None
    name = _tag(text, "command-name")
    if name is not None:
        # Slash commands are stored as tags (§4.1); keep the "/cmd args" the user typed.
        if not name:
            return None
        args = _tag(text, "command-args") or ""
        return f"{name if name.startswith('/') else '/' + name} {args}".strip()
    bash = _tag(text, "bash-input")
    if bash is not None:
        return f"!{bash}" if bash else None
    return None if harness_wrote(text) else text


def harness_wrote(text: str) -> bool:
    """Whether user text is the harness's own, not typed (a `<task-notification>`…)."""
    return _NOISE.match(text.strip()) is not None


def json_line(raw: bytes | str) -> dict[object, object] | None:
    """A transcript line's JSON object; None for anything else."""
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    try:
        obj = json.loads(text.strip().lstrip("\ufeff") or "null")
    except (ValueError, RecursionError):  # RecursionError: absurdly nested input
        logger.debug("skipping transcript line that is not JSON")
        return None
    return obj if isinstance(obj, dict) else None


def _line_events(
    obj: dict[object, object], gemini: GeminiReader
) -> Iterator[tuple[TranscriptEvent, str]]:
    """What one line contributes, whichever harness wrote it."""
    if is_codex(obj):
        return codex_events(obj)
    if is_gemini(obj):
        return gemini.events(obj)
    return _events(obj)


def _events(obj: dict[object, object]) -> Iterator[tuple[TranscriptEvent, str]]:
    """What one transcript record contributes to the digest, in order."""
    if obj.get("isSidechain") is True:
        return  # sidechain records belong to subagents, not to this conversation
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    kind = str_at(obj, "type") or str_at(message, "role")
    # `system` records, compact_boundary included, add nothing: content before a
    # boundary still counts, since the caller reads only what came after its offset.
    typed: str | None = None
    if kind == "user" and obj.get("isCompactSummary") is True:
        if summary := _texts(content):
            yield "summary", summary
    elif kind == "user":
        tool_result = any(b.get("type") == "tool_result" for b in _blocks(content))
        injected = obj.get("isMeta") is True or "toolUseResult" in obj or tool_result
        typed = None if injected else _texts(content)
        yield from claude_tool_results(content, obj.get("toolUseResult"))
    elif kind == "attachment":
        # A prompt typed while the agent is busy arrives as an attachment (UNVERIFIED).
        attachment = obj.get("attachment")
        if str_at(attachment, "type") == "queued_command":
            typed = str_at(attachment, "prompt")
    elif kind == "assistant" and isinstance(message, dict):
        api_error = obj.get("isApiErrorMessage") is True
        yield from claude_assistant_events(message, content, api_error)
    elif kind == "system" and (blocked := claude_blocked_prompt(obj)) is not None:
        yield "blocked", blocked
    if prompt := _prompt(typed or ""):
        yield "prompt", prompt


def parse_lines(lines: Iterable[bytes | str]) -> TranscriptDigest:
    """Build a digest from transcript lines (JSONL, without or with their line ending;
    bytes decoded as UTF-8 with replacement characters), in transcript order, skipping
    anything not understood: never raises on content."""
    gemini = GeminiReader()
    objs = (obj for raw in lines if (obj := json_line(raw)) is not None)
    return digest_of(e for obj in objs for e in _line_events(obj, gemini))


def digest_of(events: Iterable[tuple[TranscriptEvent, str]]) -> TranscriptDigest:
    """The digest of what transcript lines tell, in order (`parse_lines`)."""
    prompts: list[str] = []
    blocked: list[str] = []  # prompts a hook blocked
    files: list[str] = []
    commands: list[str] = []
    looked: dict[TranscriptEvent, list[str]] = {"read": [], "search": [], "agent": []}
    last: dict[TranscriptEvent, str] = {}
    use = ""  # the id of the tool call whose command or file comes next
    placed: dict[str, tuple[list[str], int]] = {}  # where each call's went
    for event, value in events:
        if event == "prompt":
            prompts.append(value)
        elif event == "use":
            use = value
        elif event in ("unrun", "failed") and value in placed:
            # A failed command ran; a failed edit wrote nothing.
            where, at = placed.pop(value)
            where[at] = "" if event == "unrun" or where is files else where[at]
        elif event == "file" and value not in files:
            files.append(value)
            placed[use], use = (files, len(files) - 1), ""
        elif event == "command" and commands[-1:] != [value]:
            commands.append(value)
            placed[use], use = (commands, len(commands) - 1), ""
        elif event in ("assistant", "summary"):
            last[event] = value
        elif event == "blocked":
            blocked.append(value)
        elif event in looked and value not in looked[event]:
            looked[event].append(value)
    return TranscriptDigest(
        tuple(prompts),
        tuple(f for f in files if f),
        tuple(c for c in commands if c),
        last.get("assistant"),
        last.get("summary"),
        tuple(looked["read"]),
        tuple(looked["search"]),
        tuple(blocked),
        tuple(looked["agent"]),
    )


def _at_line_start(f: BinaryIO, offset: int) -> bool:
    if offset == 0:
        return True
    f.seek(offset - 1)
    return f.read(1) == b"\n"


def _end_of_line(f: BinaryIO, pos: int) -> int | None:
    """Offset just past the next newline at or after pos, None if none yet."""
    f.seek(pos)
    while chunk := f.read(_SKIP_CHUNK):
        index = chunk.find(b"\n")
        if index >= 0:
            return pos + index + 1
        pos += len(chunk)
    return None


def read_transcript(
    path: Path,
    offset: int = 0,
    *,
    max_bytes: int = 64 * 1024 * 1024,
    upto: int | None = None,
) -> tuple[TranscriptDigest, int]:
    """Digest the complete lines of a transcript from a byte offset.

    Args:
        path: The JSONL transcript (`transcript_path` from the hook event).
        offset: Byte offset returned by the previous call, 0 the first time. If it is
            beyond the end of the file or not at a line start, the file was replaced
            or truncated and reading restarts from 0.
        max_bytes: Read at most this many bytes from the offset. A single line longer
            than this is skipped, with a warning.
        upto: Read no line that ends past this offset (what the file held at a moment).

    Returns:
        The digest and the offset just past the last complete line read. A trailing
        partial line (the harness writes asynchronously) is left for the next call.

    Raises:
        FileNotFoundError: If `path` does not exist.
        OSError: If `path` is not a regular file.
    """
    # A FIFO would block the open and /dev/zero never ends: only regular files are read.
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    with path.open("rb") as f:
        size = os.fstat(f.fileno()).st_size
        start = offset if 0 <= offset <= size and _at_line_start(f, offset) else 0
        if start != offset:
            logger.info("offset %d invalid for %s: rereading from 0", offset, path)
        f.seek(start)
        limit = max(max_bytes, 1) if upto is None else min(max_bytes, upto - start)
        data = f.read(limit) if limit > 0 else b""
        end = data.rfind(b"\n") + 1
        if end:
            return parse_lines(data[:end].split(b"\n")), start + end
        if len(data) < max_bytes:  # only a partial line so far (or up to `upto`)
            return TranscriptDigest(), start
        skip_to = _end_of_line(f, start + len(data))
        if skip_to is None:
            return TranscriptDigest(), start
        logger.warning("skipping %d-byte transcript line in %s", skip_to - start, path)
        return TranscriptDigest(), skip_to

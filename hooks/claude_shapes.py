"""What the lines of a Claude Code transcript tell of its tool calls and prompts beyond
their text: which call ran a command or edited a file, which never ran, and which
prompt a hook blocked before the model got it.

`hooks.transcript` reads Claude Code's records and hands these parts to the functions
here. The shapes were read off transcripts the real Claude Code 2.1.332 wrote; they are
not documented, so every accessor checks types and skips the rest.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING

from memhooks.hooks.transcript_shapes import MCP_READ, MCP_SEARCH, dicts_in, str_at

if TYPE_CHECKING:
    from collections.abc import Iterator

    from memhooks.hooks.transcript import TranscriptEvent

EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
PATH_KEYS = ("file_path", "notebook_path")  # NotebookEdit uses notebook_path
#: How a Claude Code tool result begins when the call never ran: a PreToolUse hook
#: blocked or denied it, a permission rule refused it, it waited for an approval `-p`
#: cannot give, the person answered No (2.1.332's words, read off its transcripts).
_UNRUN = re.compile(
    r"PreToolUse:\S+ hook error:|Permission to use \S+ with |The user doesn't want to "
    r"proceed with this tool use|[^\n]* needs approval\b"
)


def claude_assistant_events(
    message: dict[object, object], content: object, api_error: bool
) -> Iterator[tuple[TranscriptEvent, str]]:
    """What a Claude Code model turn says, and its tool calls' commands, edited files,
    memory reads and searches, each command or file after its call's id ("use")."""
    # Synthetic/API-error replies ("No response requested.") are not the model's word.
    speaks = not api_error and message.get("model") != "<synthetic>"
    if isinstance(content, str) and content.strip() and speaks:
        yield "assistant", content
    for block in dicts_in(content):
        kind, name, args = block.get("type"), str_at(block, "name"), block.get("input")
        if kind == "text" and speaks and (text := str_at(block, "text") or "").strip():
            yield "assistant", text
        elif kind != "tool_use":
            continue
        elif name == "Bash" and (command := (str_at(args, "command") or "").strip()):
            yield "use", str_at(block, "id") or ""
            yield "command", command
        elif name in EDIT_TOOLS:
            if paths := [p for k in PATH_KEYS if (p := str_at(args, k)) and p.strip()]:
                yield "use", str_at(block, "id") or ""
                yield "file", paths[0]
        elif name == "Read" or (name or "").endswith(MCP_READ):
            if target := str_at(args, "file_path") or str_at(args, "target"):
                yield "read", target
        elif (name or "").endswith(MCP_SEARCH) and (query := str_at(args, "query")):
            yield "search", query


def claude_blocked_prompt(obj: dict[object, object]) -> str | None:
    """The prompt a Claude Code `system` record says a UserPromptSubmit hook blocked
    (2.1.332: its ending ``blocked_by_hook``, not kept; the prompt after "Original
    prompt: "): the model never got it."""
    ending = obj.get("promptSubmitEnding")
    if not isinstance(ending, dict) or ending.get("promptKept") is not False:
        return None
    if str_at(ending.get("ending"), "kind") != "blocked_by_hook":
        return None
    _, found, prompt = (str_at(obj, "content") or "").partition("\n\nOriginal prompt: ")
    return prompt if found else None


#: The turn Claude Code 2.1.332 starts when a background subagent stops: its id, and
#: whether it finished.
_NOTIFIED = re.compile(
    r"<task-notification>\s*<task-id>([\w-]+)</task-id>.*?<status>completed</status>",
    re.DOTALL,
)


def claude_tool_results(
    content: object, result: object
) -> Iterator[tuple[TranscriptEvent, str]]:
    """The ids of the calls whose result says they never ran ("unrun"), or that they
    failed ("failed": a command that exits 1 ran; an edit that fails writes nothing);
    and of the subagents that finished ("agent"): an Agent call's result in the
    foreground, the `<task-notification>` turn in the background."""
    done = isinstance(result, dict) and result.get("status") == "completed"
    if done and (agent := str_at(result, "agentId")):
        yield "agent", agent
    if isinstance(content, str) and (notified := _NOTIFIED.match(content.strip())):
        yield "agent", notified[1]
    for block in dicts_in(content):
        use = str_at(block, "tool_use_id")
        if block.get("type") != "tool_result" or block.get("is_error") is not True:
            continue
        text = (
            "\n".join(
                t for b in dicts_in(block.get("content")) if (t := str_at(b, "text"))
            )
            or str_at(block, "content")
            or ""
        )
        unrun = result == "User rejected tool use" or _UNRUN.match(text)
        if use:
            yield ("unrun" if unrun else "failed"), use


def entry_ns(stamp: object) -> int:
    """A transcript entry's ISO 8601 `timestamp` ("2026-12-06T07:57:29.543Z", to the
    millisecond) in ns since the epoch; 0 if it has none, or none with a zone."""
    if not isinstance(stamp, str):
        return 0
    try:
        at = datetime.fromisoformat(stamp)
    except ValueError:
        return 0
    return round(at.timestamp() * 1000) * 1_000_000 if at.tzinfo else 0

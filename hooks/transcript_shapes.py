"""What one line of a Codex rollout or a Gemini chat file contributes to a digest.

`hooks.transcript` reads any of the three transcript shapes line by line; it hands the
lines that are not Claude Code's to the functions here. Both shapes were read off files
the real CLIs wrote (tests/data/harness/: Codex CLI 0.171.0 rollouts, Gemini CLI 0.61.0
chat files); neither is documented, so every accessor checks types and skips the rest.

- Codex rollout: `{"timestamp", "type", "payload"}` per line. What the user typed and what
  the model said are `event_msg` lines (`item_completed` with a `UserMessage` or
  `AgentMessage` item; older builds: `user_message` / `agent_message`); `response_item`
  lines repeat them next to injected context, so only their tool calls are read;
  `compacted` holds the compaction summary. A subagent is named in an `item_completed`
  `CollabAgentToolCall` (`spawn_agent`, `wait`, …: `receiver_thread_ids`, its rollout's
  thread, `subagents`) and in the `<subagent_notification>` message once it finished.
- Gemini chat file: a header line, then message records `{"id", "type": "user" |
  "gemini" | "info" | …, "content"}`, and `{"$set": …}` lines that rewrite the history
  (after a compression) and repeat what came before. A record may be written twice with
  the same id (a model turn, then again with its `toolCalls`). A subagent the model ran
  (`invoke_agent`) is a tool call whose `agentId` names its own chat file
  (`subagents`). What a chat file holds as the model's history, at a resume or after a
  rewind, is read in `hooks.gemini_history`.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from memhooks.hooks.adapters import strip_hook_context

if TYPE_CHECKING:
    from collections.abc import Iterator

    from memhooks.hooks.transcript import TranscriptEvent

# The MCP tools' names end so in every harness (`mcp__memhooks__memory_read`, …).
MCP_READ, MCP_SEARCH = "memory_read", "memory_search"
_CODEX_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
)
_CODEX_SHELL = frozenset({"exec_command", "shell", "container.exec", "local_shell"})
# apply_patch input names each file it touches on a line of its own.
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update) File: (.+)$", re.MULTILINE)
# ...sent as a command (`apply_patch <<'EOF'` …), which Codex applies itself (a model
# without its own apply_patch tool, e.g. on a custom provider).
_PATCH_CALL = re.compile(
    r"(?:^|\s)(?:apply_patch|applypatch)\b[^\n]*\n?\s*\*\*\* Begin Patch", re.MULTILINE
)
#: What a Codex call's output begins with when a PreToolUse hook refused it (0.171.0).
_CODEX_BLOCKED = "Command blocked by PreToolUse hook:"
_NOTIFIED = re.compile(r'<subagent_notification>\s*\{"agent_path":"([^"]+)"')
_GEMINI_SHELL = frozenset({"run_shell_command"})
#: What a Gemini CLI call shows when a BeforeTool hook refused it (0.61.0).
_GEMINI_BLOCKED = "Tool execution blocked:"
_GEMINI_EDITS = frozenset({"write_file", "replace", "edit"})
#: The tool Gemini CLI's model runs a subagent with (`generalist`, …).
_GEMINI_AGENT = "invoke_agent"
#: Gemini's own first user message: the workspace description, not a prompt.
SESSION_CONTEXT = "<session_context>"
# Gemini's own user message when folders join the workspace (`--include-directories`
# in its TUI, `/directory add`): their list and tree (`getDirectoryContextString`).
_DIRECTORY_CONTEXT = "- **Workspace Directories:**"
#: What Gemini's compression summary is wrapped in.
SNAPSHOT = "<state_snapshot>"


def str_at(obj: object, key: str) -> str | None:
    """The string at `key` of a JSON object; None when it is not an object or not a string."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, str) else None


def dicts_in(value: object) -> list[dict[object, object]]:
    """The objects of a JSON list; none when it is not a list."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _joined(parts: list[dict[object, object]]) -> str:
    return "\n".join(t for p in parts if (t := str_at(p, "text")))


def is_codex(obj: dict[object, object]) -> bool:
    """True for a line of a Codex rollout."""
    return str_at(obj, "type") in _CODEX_TYPES and isinstance(obj.get("payload"), dict)


def is_gemini(obj: dict[object, object]) -> bool:
    """True for a line of a Gemini chat file (a record, a `$set`, or the header)."""
    if "$set" in obj or ("projectHash" in obj and "sessionId" in obj):
        return True
    # Claude Code's records keep their text under "message"; Gemini's under "content".
    return "message" not in obj and "id" in obj and "content" in obj


def codex_events(obj: dict[object, object]) -> Iterator[tuple[TranscriptEvent, str]]:
    """What one rollout line contributes: prompts, replies, commands, files, summary."""
    payload = obj.get("payload")
    kind = obj.get("type")
    if kind == "compacted":
        if summary := str_at(payload, "message"):
            yield "summary", summary
    elif kind == "event_msg" and isinstance(payload, dict):
        yield from _codex_message(payload)
    elif kind == "response_item" and isinstance(payload, dict):
        yield from _codex_tool(payload)


def _codex_message(
    payload: dict[object, object],
) -> Iterator[tuple[TranscriptEvent, str]]:
    kind = payload.get("type")
    if kind in ("user_message", "agent_message"):
        text = (str_at(payload, "message") or "").strip()
        if text:
            yield ("prompt" if kind == "user_message" else "assistant"), text
        return
    item = payload.get("item") if kind == "item_completed" else None
    item_kind = str_at(item, "type")
    if item_kind == "CollabAgentToolCall":
        # A subagent spawned, waited for, …: its turns are in a rollout of its own.
        threads = item.get("receiver_thread_ids") if isinstance(item, dict) else None
        for thread in threads if isinstance(threads, list) else ():
            if isinstance(thread, str) and thread:
                yield "agent", thread
        return
    if item_kind not in ("UserMessage", "AgentMessage") or not isinstance(item, dict):
        return
    text = _joined(dicts_in(item.get("content"))).strip()
    if text:
        yield ("prompt" if item_kind == "UserMessage" else "assistant"), text


def _looked(name: str | None, args: object) -> Iterator[tuple[TranscriptEvent, str]]:
    """A memory file read or a memory search through the MCP tools (or Gemini's read_file)."""
    name = name or ""
    if name == "read_file" or name.endswith(MCP_READ):
        if target := str_at(args, "file_path") or str_at(args, "target"):
            yield "read", target
    elif name.endswith(MCP_SEARCH) and (query := str_at(args, "query")):
        yield "search", query


def _codex_tool(payload: dict[object, object]) -> Iterator[tuple[TranscriptEvent, str]]:
    kind, name = payload.get("type"), str_at(payload, "name")
    if kind == "function_call" and name and name.endswith((MCP_READ, MCP_SEARCH)):
        try:
            yield from _looked(name, json.loads(str_at(payload, "arguments") or ""))
        except (ValueError, RecursionError):
            return
    elif kind == "function_call" and name in _CODEX_SHELL:
        if (command := codex_command(payload)) is None:
            return
        yield "use", str_at(payload, "call_id") or ""
        if command and _PATCH_CALL.search(command):
            for path in _PATCH_FILE.findall(command):
                yield "file", path.strip()
        elif command and command.strip():
            yield "command", command.strip()
    elif kind == "function_call_output" and (call := str_at(payload, "call_id")):
        if (str_at(payload, "output") or "").startswith(_CODEX_BLOCKED):
            yield "unrun", call
    elif kind == "local_shell_call":
        argv = payload.get("action")
        argv = argv.get("command") if isinstance(argv, dict) else None
        if isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv):
            yield "command", " ".join(argv)
    elif kind == "message" and (
        told := _NOTIFIED.match(_joined(dicts_in(payload.get("content"))))
    ):
        yield "agent", told[1]  # finished: read again, for its work since a record
    elif kind == "custom_tool_call" and name == "apply_patch":
        for path in _PATCH_FILE.findall(str_at(payload, "input") or ""):
            yield "file", path.strip()


def codex_command(payload: dict[object, object]) -> str | None:
    """The command of a Codex shell call (a rollout's `function_call` payload): "" when
    it names none, None when it is no shell call or its arguments are no JSON."""
    if (
        payload.get("type") != "function_call"
        or payload.get("name") not in _CODEX_SHELL
    ):
        return None
    try:
        args = json.loads(str_at(payload, "arguments") or "")
    except (ValueError, RecursionError):
        return None
    command = str_at(args, "cmd") or str_at(args, "command")
    if command is None and isinstance(args, dict):
        argv = args.get("command")
        if isinstance(argv, list) and all(isinstance(a, str) for a in argv):
            command = " ".join(argv)
    return command or ""


def codex_patch(command: str) -> str | None:
    """The patch of a shell command that runs apply_patch (Codex applies it itself),
    from its `*** Begin Patch`; None for any other command."""
    if not _PATCH_CALL.search(command):
        return None
    return command[command.find("*** Begin Patch") :]


class GeminiReader:
    """Gemini chat lines → digest events; remembers the tool calls already seen by id."""

    def __init__(self) -> None:
        self._calls: set[str] = set()

    def events(
        self, obj: dict[object, object]
    ) -> Iterator[tuple[TranscriptEvent, str]]:
        """What one chat-file line contributes (a `$set` line: the summary of a compression)."""
        kind = obj.get("type")
        if isinstance(rewrite := obj.get("$set"), dict):
            yield from self._snapshot(rewrite.get("messages"))
        elif kind == "user":
            yield from self._prompt(obj.get("content"))
        elif kind == "gemini":
            content = obj.get("content")
            if isinstance(content, str) and content.strip():
                yield "assistant", content
            for call in dicts_in(obj.get("toolCalls")):
                yield from self._tool(call)

    @staticmethod
    def _snapshot(messages: object) -> Iterator[tuple[TranscriptEvent, str]]:
        # A compressed history starts with the model's summary, a `<state_snapshot>`
        # message; the history a `$set` merely repeats holds none.
        for message in dicts_in(messages):
            for part in dicts_in(message.get("content")):
                text = (str_at(part, "text") or "").strip()
                if text.startswith(SNAPSHOT):
                    yield (
                        "summary",
                        text.removeprefix(SNAPSHOT)
                        .removesuffix(SNAPSHOT.replace("<", "</"))
                        .strip(),
                    )
                    return

    @staticmethod
    def _prompt(content: object) -> Iterator[tuple[TranscriptEvent, str]]:
        parts = dicts_in(content) if isinstance(content, list) else []
        texts = (
            [content]
            if isinstance(content, str)
            else [str_at(p, "text") for p in parts]
        )
        # Tool results come back as user records holding functionResponse parts only.
        kept = [strip_hook_context(t) for t in texts if t]
        prompt = "\n".join(t for t in kept if t).strip()
        if prompt and not prompt.startswith((SESSION_CONTEXT, _DIRECTORY_CONTEXT)):
            yield "prompt", prompt

    def _tool(
        self, call: dict[object, object]
    ) -> Iterator[tuple[TranscriptEvent, str]]:
        key = str_at(call, "id")
        if str_at(call, "name") == _GEMINI_AGENT and (agent := str_at(call, "agentId")):
            # A subagent it ran, once done: its turns are in a chat file of its own.
            yield "agent", agent
        # A call a BeforeTool hook blocked, or the person cancelled, never ran; an edit
        # that failed wrote nothing (a command that exits 1 is a "success" here).
        shown = str_at(call, "resultDisplay") or ""
        ended: TranscriptEvent | None = None
        if str_at(call, "status") == "cancelled" or shown.startswith(_GEMINI_BLOCKED):
            ended = "unrun"
        elif call.get("status") == "error":
            ended = "failed"
        if key is not None:
            if key in self._calls:
                if ended:
                    yield ended, key
                return
            self._calls.add(key)
        name, args = str_at(call, "name"), call.get("args")
        if name in _GEMINI_SHELL:
            if command := (str_at(args, "command") or "").strip():
                yield "use", key or ""
                yield "command", command
        elif name in _GEMINI_EDITS:
            path = str_at(args, "file_path") or str_at(args, "absolute_path")
            if path and path.strip():
                yield "use", key or ""
                yield "file", path
        else:
            yield from _looked(name, args)
        if ended and key:
            yield ended, key

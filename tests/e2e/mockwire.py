"""The wire shapes of the three model APIs the mock speaks: what a request's user typed
last, and how an answer is encoded (Anthropic Messages, OpenAI Responses, Gemini).

Shapes follow what Claude Code 2.1.197 and 2.1.332, Codex CLI 0.171.0 and Gemini CLI
0.61.0 sent and accepted (tests/e2e/README.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


def texts(value: Any) -> list[str]:
    """Every string under a JSON value, in order (the text of any message shape)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for item in value for t in texts(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in texts(item)]
    return []


@dataclass(frozen=True)
class Answer:
    """One model turn: text, or a call of `tool` with `args`."""

    text: str = ""
    tool: str | None = None
    args: dict[str, Any] = field(default_factory=dict)


def side_call(body: Any) -> bool:
    """True for a CLI's own structured side request (a title, routing, a next-speaker
    check): it wants JSON of a schema's shape, not a conversation turn."""
    if not isinstance(body, dict):
        return False
    config = body.get("generationConfig")  # Gemini
    if (
        isinstance(config, dict)
        and config.get("responseMimeType") == "application/json"
    ):
        return True
    return _json_format(body) is not None


def _json_format(body: dict[str, Any]) -> dict[str, Any] | None:
    # OpenAI Responses `text.format` (Codex's thread title); Anthropic `output_config.format`
    # (Claude Code 2.1.100's session title, a request of its own before the turn's).
    for key in ("text", "output_config"):
        holder = body.get(key)
        form = holder.get("format") if isinstance(holder, dict) else None
        if isinstance(form, dict) and form.get("type") == "json_schema":
            return form
    return None


def side_schema(body: dict[str, Any]) -> Any:
    config = body.get("generationConfig") or {}
    if config:
        return config.get("responseJsonSchema") or config.get("responseSchema")
    form = _json_format(body)
    return form.get("schema") if form else None


# --- Anthropic -------------------------------------------------------------------------


def _is_result(content: Any) -> bool:
    blocks = content if isinstance(content, list) else []
    return any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks)


def anthropic_last_user(body: dict[str, Any]) -> tuple[str, int]:
    """The user's last typed message, and how many tool results came after it."""
    users = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    users = [m for m in users if m.get("role") == "user"]
    results = 0
    for message in reversed(users):
        content = message.get("content")
        if not _is_result(content):
            return "\n".join(texts(content)), results
        results += 1
    return "", results


def anthropic_events(model: str, answer: Answer, n: int, usage: int) -> list[Any]:
    if answer.tool:
        block = {"type": "tool_use", "id": f"toolu_mock{n}", "name": answer.tool}
        start, delta = (
            {**block, "input": {}},
            {
                "type": "input_json_delta",
                "partial_json": json.dumps(answer.args),
            },
        )
        stop = "tool_use"
    else:
        start, delta = (
            {"type": "text", "text": ""},
            {
                "type": "text_delta",
                "text": answer.text,
            },
        )
        stop = "end_turn"
    message: dict[str, Any] = {
        "id": f"msg_mock{n}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": usage, "output_tokens": 1},
    }
    return [
        ("message_start", {"type": "message_start", "message": message}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": start},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": delta},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 10},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


def anthropic_message(model: str, answer: Answer, n: int, usage: int) -> dict[str, Any]:
    content: dict[str, Any] = (
        {
            "type": "tool_use",
            "id": f"toolu_mock{n}",
            "name": answer.tool,
            "input": answer.args,
        }
        if answer.tool
        else {"type": "text", "text": answer.text}
    )
    return {
        "id": f"msg_mock{n}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [content],
        "stop_reason": "tool_use" if answer.tool else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": usage, "output_tokens": 10},
    }


# --- OpenAI Responses ------------------------------------------------------------------


#: How Codex CLI 0.171.0 begins the user message that tells a subagent finished.
_NOTIFIED = "<subagent_notification>"


def responses_last_user(body: dict[str, Any]) -> tuple[str, int]:
    """The user's last message, and how many tool results (function_call_output & co)
    came after it. Codex CLI 0.171.0 tells the parent that a subagent finished in a
    user message of its own (`<subagent_notification>`), which nobody typed."""
    items = [i for i in body.get("input") or [] if isinstance(i, dict)]
    results = 0
    for item in reversed(items):
        text = "\n".join(texts(item.get("content")))
        if item.get("role") == "user" and _NOTIFIED not in text:
            return text, results
        results += str(item.get("type", "")).endswith("_output")
    return "", results


#: What a script writes in a tool's arguments for the id of the subagent the model
#: spawned last (Codex's `spawn_agent` answers `{"agent_id": …}`), which the mock
#: cannot know beforehand: `{"tool": "multi_agent_v1/wait_agent", "args": {"targets":
#: [SPAWNED]}}` waits for it, as a model would.
SPAWNED = "{spawned}"


def with_spawned(answer: Answer, body: dict[str, Any]) -> Answer:
    """`answer` with `SPAWNED` in its arguments' strings replaced by the `agent_id` of
    the last `spawn_agent` output in the Responses request `body`."""
    found = ""
    for item in body.get("input") or []:
        output = item.get("output") if isinstance(item, dict) else None
        try:
            data = json.loads(output) if isinstance(output, str) else None
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("agent_id"), str):
            found = data["agent_id"]
    if not found or SPAWNED not in json.dumps(answer.args):
        return answer
    args = json.loads(json.dumps(answer.args).replace(SPAWNED, found))
    return Answer(answer.text, answer.tool, args)


#: How a script names a freeform tool of the Responses API ("freeform:apply_patch"),
#: whose `args` hold its text as "input".
FREEFORM = "freeform:"


def responses_events(answer: Answer, n: int, usage: int) -> list[Any]:
    rid = f"resp_mock{n}"
    if answer.tool and answer.tool.startswith(FREEFORM):
        # A freeform tool (Codex's apply_patch): its input is text, not JSON arguments.
        item: dict[str, Any] = {
            "type": "custom_tool_call",
            "id": f"ctc_mock{n}",
            "call_id": f"call_mock{n}",
            "name": answer.tool.removeprefix(FREEFORM),
            "input": str(answer.args.get("input", "")),
            "status": "completed",
        }
    elif answer.tool:
        # "NAMESPACE/NAME": a tool of a namespace (Codex puts an MCP server's there).
        namespace, _, name = answer.tool.rpartition("/")
        item = {
            "type": "function_call",
            "id": f"fc_mock{n}",
            "call_id": f"call_mock{n}",
            "name": name,
            **({"namespace": namespace} if namespace else {}),
            "arguments": json.dumps(answer.args),
            "status": "completed",
        }
    else:
        item = {
            "type": "message",
            "role": "assistant",
            "id": f"msg_{rid}",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": answer.text, "annotations": []}
            ],
        }
    completed = {
        "id": rid,
        "usage": {
            "input_tokens": usage,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 10,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage + 10,
        },
    }
    return [
        ("response.created", {"type": "response.created", "response": {"id": rid}}),
        (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        ),
        ("response.completed", {"type": "response.completed", "response": completed}),
    ]


# --- Gemini ----------------------------------------------------------------------------


def gemini_last_user(body: dict[str, Any]) -> tuple[str, int]:
    """The user's last typed message, and how many function responses came after it."""
    contents = [c for c in body.get("contents") or [] if isinstance(c, dict)]
    results = 0
    for content in reversed([c for c in contents if c.get("role") == "user"]):
        parts = [p for p in content.get("parts") or [] if isinstance(p, dict)]
        if not any("functionResponse" in p for p in parts):
            texts_ = [p["text"] for p in parts if isinstance(p.get("text"), str)]
            return "\n".join(texts_), results
        results += 1
    return "", results


def from_schema(schema: Any) -> Any:
    """A value of a JSON schema's shape (Gemini's next-speaker check and router)."""
    if not isinstance(schema, dict):
        return "mock"
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        choices = [str(c) for c in schema["enum"]]
        for preferred in ("user", "flash"):
            if preferred in choices:
                return preferred
        return choices[0]
    kind = str(schema.get("type", "string")).lower()
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: from_schema(v) for k, v in props.items()}
    if kind == "array":
        return []
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    return "mock"


def gemini_response(answer: Answer, usage: int) -> dict[str, Any]:
    part = (
        {"functionCall": {"name": answer.tool, "args": answer.args}}
        if answer.tool
        else {"text": answer.text}
    )
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [part]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": usage,
            "candidatesTokenCount": 10,
            "totalTokenCount": usage + 10,
        },
        "modelVersion": "mock",
    }

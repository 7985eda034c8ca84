"""A stand-in for the three model APIs, on 127.0.0.1, that logs what the model would receive.

    python tests/e2e/mockapi.py DIR

listens on 127.0.0.1 (a free port, written to DIR/port once it listens), appends every
request to DIR/requests.jsonl (`{"n", "method", "path", "body"}`, the body parsed as JSON
when it is JSON) and answers in the shape each CLI expects:

- Anthropic Messages API (Claude Code): `POST /v1/messages`, streamed as SSE when the
  request says `"stream": true`; `count_tokens` and anything else under /v1 get a
  plausible JSON answer.
- OpenAI Responses API (Codex CLI custom provider): `POST /v1/responses`, SSE events
  `response.created` … `response.completed`; `GET /v1/models` lists one model.
- Gemini API (Gemini CLI): `…:generateContent`, `…:streamGenerateContent?alt=sse`,
  `…:countTokens`.

What the model says comes from DIR/script.json, read again at every request so that a
test can change it between turns: `{"rules": [{"when": TEXT, "reply": TEXT}], "usage":
N}`. A rule matches when TEXT occurs in the last text the user typed (for Anthropic,
in the last user message); `"usage"` is the input-token count every reply reports (a
big one makes a CLI compact). Whatever the script says, a request asking for a
conversation summary gets `<analysis>…</analysis><summary>…</summary>` (Claude Code and
Codex) or `<state_snapshot>…</state_snapshot>` (Gemini), and Gemini's JSON side calls
(next-speaker check, model routing) get a JSON object of their schema's shape.

The process serves until its standard input closes, so it never outlives the test.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

SUMMARY_ANALYSIS = "<analysis>\nMock analysis: the scratchpad the summary prompt asks for.\n</analysis>"
SUMMARY_TEXT = "Mock compaction summary: the user asked about the mock project."
GEMINI_SNAPSHOT = (
    "<state_snapshot>\n<overall_goal>"
    + SUMMARY_TEXT
    + "</overall_goal>\n</state_snapshot>"
)
DEFAULT_REPLY = "Mock reply {n}."
# Phrases of each CLI's own compaction prompt (observed in their requests).
_SUMMARY_ASKS = (
    "create a detailed summary of the conversation",  # Claude Code /compact
    "CONTEXT CHECKPOINT COMPACTION",  # Codex
    "handoff summary",  # Codex (other wording)
)
_GEMINI_SNAPSHOT_ASK = "state_snapshot"


def _texts(value: Any) -> list[str]:
    """Every string under a JSON value, in order (the text of any message shape)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for item in value for t in _texts(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _texts(item)]
    return []


class Script:
    """What the mock model says, from DIR/script.json (re-read on every request)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def reply(self, last_user: str, n: int) -> str:
        """The scripted reply to the user's last text; "Mock reply N." by default."""
        for rule in self.load().get("rules", []):
            if isinstance(rule, dict) and str(rule.get("when", "")) in last_user:
                return str(rule.get("reply", DEFAULT_REPLY)).format(n=n)
        return DEFAULT_REPLY.format(n=n)

    def usage(self) -> int:
        value = self.load().get("usage", 100)
        return value if isinstance(value, int) else 100


def _summary_asked(body: Any) -> bool:
    text = "\n".join(_texts(body))
    return any(ask.lower() in text.lower() for ask in _SUMMARY_ASKS)


# --- Anthropic -------------------------------------------------------------------------


def _anthropic_last_user(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            return "\n".join(_texts(message.get("content")))
    return ""


def _anthropic_message(model: str, text: str, usage: int) -> dict[str, Any]:
    return {
        "id": f"msg_mock{time.monotonic_ns()}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": usage, "output_tokens": 10},
    }


def _anthropic_sse(message: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    text = message["content"][0]["text"]
    start = {**message, "content": [], "stop_reason": None}
    start["usage"] = {**message["usage"], "output_tokens": 1}
    return [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 10},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


# --- OpenAI Responses ------------------------------------------------------------------


def _responses_last_user(body: dict[str, Any]) -> str:
    for item in reversed(body.get("input") or []):
        if isinstance(item, dict) and item.get("role") == "user":
            return "\n".join(_texts(item.get("content")))
    return ""


def _responses_sse(text: str, usage: int) -> list[tuple[str, dict[str, Any]]]:
    rid = f"resp_mock{time.monotonic_ns()}"
    item = {
        "type": "message",
        "role": "assistant",
        "id": f"msg_{rid}",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    return [
        ("response.created", {"type": "response.created", "response": {"id": rid}}),
        (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        ),
        (
            "response.completed",
            {
                "type": "response.completed",
                "response": {
                    "id": rid,
                    "usage": {
                        "input_tokens": usage,
                        "input_tokens_details": {"cached_tokens": 0},
                        "output_tokens": 10,
                        "output_tokens_details": {"reasoning_tokens": 0},
                        "total_tokens": usage + 10,
                    },
                },
            },
        ),
    ]


# --- Gemini ----------------------------------------------------------------------------


def _gemini_last_user(body: dict[str, Any]) -> str:
    for content in reversed(body.get("contents") or []):
        if not isinstance(content, dict) or content.get("role") != "user":
            continue
        parts = [p for p in content.get("parts") or [] if isinstance(p, dict)]
        texts = [p["text"] for p in parts if isinstance(p.get("text"), str)]
        if texts:
            return "\n".join(texts)
        if parts:  # a function response: the model's turn goes on
            return ""
    return ""


def _from_schema(schema: Any) -> Any:
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
        return {k: _from_schema(v) for k, v in props.items()}
    if kind == "array":
        return []
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    return "mock"


def _gemini_response(text: str, usage: int) -> dict[str, Any]:
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": text}]},
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


def _gemini_text(body: dict[str, Any], script: Script, n: int) -> str:
    config = body.get("generationConfig") or {}
    if config.get("responseMimeType") == "application/json":
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        return json.dumps(_from_schema(schema))
    system = "\n".join(_texts(body.get("systemInstruction")))
    if _GEMINI_SNAPSHOT_ASK in system:
        return GEMINI_SNAPSHOT
    return script.reply(_gemini_last_user(body), n)


# --- server ----------------------------------------------------------------------------


class MockServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, folder: Path) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.folder = folder
        self.script = Script(folder / "script.json")
        self.log_lock = threading.Lock()
        self.count = 0

    def record(self, method: str, path: str, body: Any) -> int:
        """Log one request; its number (1, 2, …) in this mock's life."""
        with self.log_lock:
            self.count += 1
            line = {"n": self.count, "t": time.time(), "method": method}
            line |= {"path": path, "body": body}
            with (self.folder / "requests.jsonl").open("a") as f:
                f.write(json.dumps(line) + "\n")
            return self.count


class Handler(BaseHTTPRequestHandler):
    server: MockServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # requests.jsonl is the log

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.headers.get("Content-Encoding") in ("gzip", "zstd", "br", "deflate"):
            return {"undecoded": self.headers["Content-Encoding"], "size": len(raw)}
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _json(self, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, events: list[tuple[str | None, dict[str, Any]]]) -> None:
        chunks = []
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            chunks.append(f"{head}data: {json.dumps(data)}\n\n".encode())
        payload = b"".join(chunks)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        self.server.record("GET", self.path, None)
        if path.endswith("/models"):
            self._json(
                200,
                {
                    "object": "list",
                    "data": [{"id": "mock-model", "object": "model"}],
                    "models": [],
                },
            )
        else:
            self._json(404, {"error": {"message": f"mock: no GET {path}"}})

    def do_HEAD(self) -> None:
        self.server.record("HEAD", self.path, None)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        body = self._body()
        n = self.server.record("POST", self.path, body)
        path = urlsplit(self.path).path
        body = body if isinstance(body, dict) else {}
        script = self.server.script
        if path.endswith("/messages/count_tokens"):
            self._json(200, {"input_tokens": script.usage()})
        elif path.endswith("/messages"):
            self._anthropic(body, script, n)
        elif path.endswith("/responses"):
            text = (
                SUMMARY_ANALYSIS + "\n<summary>\n" + SUMMARY_TEXT + "\n</summary>"
                if _summary_asked(body.get("input"))
                else script.reply(_responses_last_user(body), n)
            )
            self._sse(list(_responses_sse(text, script.usage())))
        elif path.endswith(":countTokens"):
            self._json(200, {"totalTokens": script.usage()})
        elif path.endswith(":streamGenerateContent"):
            reply = _gemini_response(_gemini_text(body, script, n), script.usage())
            self._sse([(None, reply)])
        elif path.endswith(":generateContent"):
            self._json(
                200, _gemini_response(_gemini_text(body, script, n), script.usage())
            )
        else:
            self._json(404, {"error": {"message": f"mock: no POST {path}"}})

    def _anthropic(self, body: dict[str, Any], script: Script, n: int) -> None:
        if _summary_asked(body.get("messages")):
            text = SUMMARY_ANALYSIS + "\n\n<summary>\n" + SUMMARY_TEXT + "\n</summary>"
        else:
            text = script.reply(_anthropic_last_user(body), n)
        message = _anthropic_message(
            str(body.get("model", "mock")), text, script.usage()
        )
        if body.get("stream"):
            self._sse(list(_anthropic_sse(message)))
        else:
            self._json(200, message)


def main(argv: list[str]) -> int:
    folder = Path(argv[0])
    folder.mkdir(parents=True, exist_ok=True)
    server = MockServer(folder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port_file = folder / "port"
    tmp = port_file.with_suffix(".tmp")
    tmp.write_text(str(server.server_address[1]))
    tmp.replace(port_file)
    sys.stdin.read()  # serve until the test closes our stdin (or dies)
    server.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

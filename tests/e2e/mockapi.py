"""A stand-in for the three model APIs, on 127.0.0.1, that logs what the model would receive.

    python -m tests.e2e.mockapi DIR     (from the repository's root)

listens on 127.0.0.1 (a free port, written to DIR/port once it listens), appends every
request to DIR/requests.jsonl (`{"n", "method", "path", "body"}`, the body parsed as JSON
when it is JSON) and answers in the shape each CLI expects:

- Anthropic Messages API (Claude Code): `POST /v1/messages`, streamed as SSE when the
  request says `"stream": true`; `count_tokens` gets a count.
- OpenAI Responses API (Codex CLI custom provider): `POST /v1/responses`, SSE events
  `response.created` … `response.completed`; `GET /v1/models` lists one model.
- Gemini API (Gemini CLI): `…:generateContent`, `…:streamGenerateContent?alt=sse`,
  `…:countTokens`.

What the model says comes from DIR/script.json, read again at every request so that a
test can change it between turns: `{"rules": [{"when": TEXT, "reply": TEXT} | {"when":
TEXT, "tool": NAME, "args": {...}, "then": [{"tool": NAME, "args": {...}}, ...]}], "usage":
N}` (NAME as `NAMESPACE/NAME` for a tool in a namespace, as Codex offers an MCP server's:
`mcp__memhooks/memory_write`; `"{spawned}"` in a tool's arguments stands for the id of
the subagent Codex's `spawn_agent` started last). The first rule whose TEXT occurs in
the user's last typed message wins: it answers with that text, or calls that tool; with
each tool result that comes back it calls the next tool of `then`, and after the last
the model answers the rule's `reply`, or "Mock reply N." (N: the request's number, also
the default answer).
`"usage"` is the input-token count every reply reports (a big one makes a CLI compact),
or `{"anthropic": N, "responses": N, "gemini": N}` to tell the three APIs apart (100 for
one not named). Whatever the script says, a request asking for a conversation summary
gets `<analysis>…</analysis><summary>…</summary>` (Claude Code, Codex) or
`<state_snapshot>…</state_snapshot>` (Gemini), and the JSON side calls (Gemini's routing and
next-speaker check, Codex's thread title, older Claude Code's session title) get an object
of their schema's shape.

The process serves until its standard input closes, so it never outlives the test.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from tests.e2e.mockwire import (
    Answer,
    anthropic_events,
    anthropic_last_user,
    anthropic_message,
    from_schema,
    gemini_last_user,
    gemini_response,
    responses_events,
    responses_last_user,
    side_call,
    side_schema,
    texts,
    with_spawned,
)

if TYPE_CHECKING:
    from collections.abc import Callable

SUMMARY_ANALYSIS = "<analysis>\nMock analysis: the scratchpad the summary prompt asks for.\n</analysis>"
SUMMARY_TEXT = "Mock compaction summary: the user asked about the mock project."
SUMMARY = f"{SUMMARY_ANALYSIS}\n\n<summary>\n{SUMMARY_TEXT}\n</summary>"
GEMINI_SNAPSHOT = (
    f"<state_snapshot>\n<overall_goal>{SUMMARY_TEXT}</overall_goal>\n</state_snapshot>"
)
DEFAULT_REPLY = "Mock reply {n}."
# Phrases of each CLI's own compaction prompt (seen in their requests).
_SUMMARY_ASKS = (
    "create a detailed summary of the conversation",  # Claude Code /compact
    "context checkpoint compaction",  # Codex
)
_GEMINI_SNAPSHOT_ASK = "state_snapshot"


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

    def answer(self, asked: tuple[str, int], n: int) -> Answer:
        """The answer to the user's last text, after as many tool results as `asked`
        counts: the rule's first tool, the next of its `then`, or its reply."""
        default = Answer(DEFAULT_REPLY.format(n=n))
        last_user, results = asked
        for rule in self.load().get("rules", []):
            if not isinstance(rule, dict) or str(rule.get("when", "")) not in last_user:
                continue
            calls = [rule, *(rule.get("then") or [])] if rule.get("tool") else []
            if results < len(calls):
                call = calls[results]
                return Answer(tool=str(call["tool"]), args=dict(call.get("args") or {}))
            if results and not calls:
                return default
            return Answer(str(rule.get("reply", DEFAULT_REPLY)).format(n=n))
        return default

    def usage(self, api: str) -> int:
        """The input tokens a reply of `api` ("anthropic", "responses", "gemini") reports."""
        value = self.load().get("usage", 100)
        if isinstance(value, dict):
            value = value.get(api, 100)
        return value if isinstance(value, int) else 100


def _summary_asked(body: Any) -> bool:
    text = "\n".join(texts(body)).lower()
    return any(ask in text for ask in _SUMMARY_ASKS)


def _answer(
    script: Script,
    body: dict[str, Any],
    n: int,
    asked: str,
    last_user: Callable[[dict[str, Any]], tuple[str, int]],
) -> Answer:
    # The reply to an Anthropic or OpenAI request: a side call's JSON, a compaction's
    # summary (the conversation at `asked` asks for one), or the script's next answer.
    if side_call(body):
        return Answer(json.dumps(from_schema(side_schema(body))))
    if _summary_asked(body.get(asked)):
        return Answer(SUMMARY)
    return script.answer(last_user(body), n)


def _gemini_answer(body: dict[str, Any], script: Script, n: int) -> Answer:
    if side_call(body):
        return Answer(json.dumps(from_schema(side_schema(body))))
    if _GEMINI_SNAPSHOT_ASK in "\n".join(texts(body.get("systemInstruction"))):
        return Answer(GEMINI_SNAPSHOT)
    return script.answer(gemini_last_user(body), n)


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

    def _sse(self, events: list[Any]) -> None:
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
            model = {"id": "mock-model", "object": "model"}
            self._json(200, {"object": "list", "data": [model], "models": []})
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
        api = "anthropic" if "/messages" in path else "responses"
        api = "gemini" if ":" in path.rsplit("/", 1)[-1] else api
        usage = script.usage(api)
        if path.endswith("/messages/count_tokens"):
            self._json(200, {"input_tokens": usage})
        elif path.endswith("/messages"):
            answer = _answer(script, body, n, "messages", anthropic_last_user)
            model = str(body.get("model", "mock"))
            if body.get("stream"):
                self._sse(anthropic_events(model, answer, n, usage))
            else:
                self._json(200, anthropic_message(model, answer, n, usage))
        elif path.endswith("/responses"):
            answer = _answer(script, body, n, "input", responses_last_user)
            answer = with_spawned(answer, body)
            self._sse(responses_events(answer, n, usage))
        elif path.endswith(":countTokens"):
            self._json(200, {"totalTokens": usage})
        elif path.endswith(":streamGenerateContent"):
            reply = gemini_response(_gemini_answer(body, script, n), usage)
            self._sse([(None, reply)])
        elif path.endswith(":generateContent"):
            self._json(200, gemini_response(_gemini_answer(body, script, n), usage))
        else:
            self._json(404, {"error": {"message": f"mock: no POST {path}"}})


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

"""MCP's stdio transport, as `memhooks mcp` needs it: JSON-RPC 2.0 messages, one per line,
read from stdin and answered on stdout, in the order they came (the spec's "stdio"
transport; a batch, a JSON array, is answered with one). A server here only answers: it
sends no request of its own, so a response it is sent is ignored.

Every line gets its answer, or none when it is a notification: a line that is no JSON
(or nested past what the parser takes) a parse error, a message with no method an invalid
request, a method the server does not know its error, and a bug in a handler an internal
error in one line, the server serving on. Strings the client sends may hold lone
surrogates ("\\ud800" is valid JSON, as Node writes for a cut emoji): replies are UTF-8,
each such character made U+FFFD.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memhooks.hooks.constants import ERROR_MAX_BYTES
from memhooks.hooks.events import why
from memhooks.hooks.stdin_lines import Dropped, lines
from memhooks.memory.lazylog import getLogger
from memhooks.memory.text import one_line, scrub_surrogates

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import BinaryIO

logger = getLogger(__name__)

#: JSON-RPC 2.0's error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
#: A message longer than this (bytes) is refused unread: a tool's text is at most 64 Mi
#: characters (`memhooks write`'s stdin cap), which JSON escapes can make longer.
LINE_MAX = 256 * 1024 * 1024


class RpcError(Exception):
    """A JSON-RPC error reply: `code` (one of the codes above) and a one-line message."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def serve(
    handle: Callable[[str, dict[str, Any]], Any], stdin: BinaryIO, stdout: BinaryIO
) -> None:
    """Answer each message of `stdin` on `stdout` until the client closes it. `handle`
    takes a method and its params and returns its result (None for a notification), or
    raises `RpcError`."""
    for line in lines(stdin, LINE_MAX):
        if isinstance(line, Dropped):
            reply: bytes | None = _encode(
                _error(None, PARSE_ERROR, f"message over {LINE_MAX:,} bytes")
            )
        else:
            reply = answer(handle, line)
        if reply is not None:
            stdout.write(reply)
            stdout.flush()


def answer(handle: Callable[[str, dict[str, Any]], Any], line: bytes) -> bytes | None:
    """The reply to one line (with its newline), or None when none is due."""
    if not line.strip():
        return None
    try:
        message = json.loads(line)
    except (ValueError, RecursionError) as e:
        return _encode(_error(None, PARSE_ERROR, f"Parse error: {e}"))
    if isinstance(message, list):
        if not message:
            return _encode(
                _error(None, INVALID_REQUEST, "Invalid Request: empty batch")
            )
        replies = [r for m in message if (r := _one(handle, m)) is not None]
        return _encode(replies) if replies else None
    reply = _one(handle, message)
    return None if reply is None else _encode(reply)


def _one(
    handle: Callable[[str, dict[str, Any]], Any], message: object
) -> dict[str, Any] | None:
    if not isinstance(message, dict):
        return _error(None, INVALID_REQUEST, "Invalid Request: not an object")
    ident = message.get("id")
    method = message.get("method")
    if not isinstance(method, str):
        if "result" in message or "error" in message:
            return None  # a response: this server sends no request to be answered
        return _error(ident, INVALID_REQUEST, "Invalid Request: no method")
    params = message.get("params") or {}  # left out, or null as some clients send
    try:
        if not isinstance(params, dict):
            raise RpcError(INVALID_PARAMS, "Invalid params: not an object")
        result = handle(method, params)
    except RpcError as e:
        reply = _error(ident, e.code, str(e))
    except Exception as e:  # noqa: BLE001 - a bug: one line for the client, serving goes on
        said = why(e)
        logger.warning("%s failed: %s", method, said)
        reply = _error(ident, INTERNAL_ERROR, f"Internal error: {said}")
    else:
        reply = {"jsonrpc": "2.0", "id": ident, "result": result}
    return None if "id" not in message else reply


def _error(ident: object, code: int, message: str) -> dict[str, Any]:
    said = one_line(message, ERROR_MAX_BYTES)  # it may quote what the client sent
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": said}}


def _encode(reply: object) -> bytes:
    text = json.dumps(reply, ensure_ascii=False, separators=(",", ":"))
    return scrub_surrogates(text).encode() + b"\n"


__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "RpcError",
    "answer",
    "serve",
]

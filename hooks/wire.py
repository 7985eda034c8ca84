"""What crosses the process boundary between a hook command and its session process.

Import-free on purpose (a hook command pays for every import on every prompt): the socket's
place and privacy, the framing of a request and a reply, and the handlers' deadlines, which
the thin client needs to know how long to wait.

A request is one JSON header line ``{"harness": NAME|null}`` then the harness's payload as
sent; the client then shuts its side. A reply is ``"0"`` then the text the hook prints
(empty: nothing to print — a failed event is answered that way too: fail open). A
connection that sends nothing is a liveness probe and gets no reply.
"""

from __future__ import annotations

import json
import os

#: Not `typing.TYPE_CHECKING`: importing `typing` (or `logging`) would cost a thin client
#: more than the rest of its work. Type checkers read this name the same way.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket
    from typing import Literal

    Kind = Literal[
        "session-start",
        "pre-prompt",
        "pre-compaction",
        "post-compaction",
        "session-end",
    ]

KINDS: tuple[Kind, ...] = (
    "session-start",
    "pre-prompt",
    "pre-compaction",
    "post-compaction",
    "session-end",
)
#: Claude Code's and Codex's event names (docs/design.md).
CLAUDE_EVENTS: dict[str, Kind] = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "pre-prompt",
    "PreCompact": "pre-compaction",
    "PostCompact": "post-compaction",
    "SessionEnd": "session-end",
}
#: Gemini CLI's event names.
GEMINI_EVENTS: dict[str, Kind] = {
    "SessionStart": "session-start",
    "BeforeAgent": "pre-prompt",
    "PreCompress": "pre-compaction",
    "SessionEnd": "session-end",
}
#: How long each handler may run (seconds) before the hook answers without it.
DEADLINES: dict[Kind, float] = {
    "session-start": 8.0,
    "pre-prompt": 8.0,
    "pre-compaction": 25.0,
    "post-compaction": 8.0,
    "session-end": 1.0,
}
#: What a thin client adds to a handler's deadline for the round trip.
ROUND_TRIP = 1.0
OK = b"0"


def reply_deadline(event_name: object) -> float:
    """How long a thin client waits for the reply to a harness event (or a generic one)."""
    name = str(event_name)
    kind = CLAUDE_EVENTS.get(name) or GEMINI_EVENTS.get(name)
    if kind is None and name in KINDS:
        kind = name  # a generic event names its kind
    return DEADLINES.get(kind or "pre-prompt", DEADLINES["pre-prompt"]) + ROUND_TRIP


def ends_session(payload: bytes) -> bool:
    """True for a harness's SessionEnd payload (its reply is never printed)."""
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("hook_event_name") == "SessionEnd"


def request(harness: str | None, payload: bytes) -> bytes:
    """The bytes a thin client sends: the header line, then the payload."""
    return json.dumps({"harness": harness}).encode() + b"\n" + payload


def parse_request(raw: bytes) -> tuple[str | None, bytes]:
    """(harness named by the client, payload) of a request; a bad header names none."""
    header, _, payload = raw.partition(b"\n")
    try:
        harness = json.loads(header).get("harness")
    except (ValueError, AttributeError):
        harness = None
    return (harness if isinstance(harness, str) else None), payload


def reply(text: str) -> bytes:
    """The bytes a session process answers with."""
    return OK + text.encode("utf-8", "surrogatepass")


def parse_reply(raw: bytes) -> str:
    """The text to print from a session process's reply ("" for anything malformed)."""
    text = raw.decode("utf-8", "replace")
    return text[1:] if text.startswith(OK.decode()) else ""


#: Longest path a Unix socket can bind (sun_path holds 108 bytes on Linux, NUL included).
_SOCKET_PATH_MAX = 107
_SOCKET_NAME = 24 + len(".sock")


def socket_dir() -> str:
    """A private folder for session sockets: under $XDG_RUNTIME_DIR, or /tmp when that
    is unset or so deep that a socket path there could not be bound (every prompt would
    then start a session process that cannot listen).
    """
    name = f"memhooks-{os.getuid()}"
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        folder = os.path.join(runtime, name)
        if len(os.fsencode(folder)) + 1 + _SOCKET_NAME <= _SOCKET_PATH_MAX:
            return folder
    return os.path.join("/tmp", name)


def socket_path(root: str, session_id: str) -> str:
    """Where the session process for (`root`, `session_id`) listens."""
    import hashlib  # here and below: `memhooks search` and the like never use them

    key = hashlib.sha256(
        f"{os.path.realpath(root)}\0{session_id}".encode("utf-8", "surrogatepass")
    )
    return os.path.join(socket_dir(), key.hexdigest()[:24] + ".sock")


def private_dir_ok(path: str) -> bool:
    """True for a folder we own that nobody else can enter (sockets live in a shared /tmp)."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (
        st.st_uid == os.getuid()
        and (st.st_mode & 0o077) == 0
        and not os.path.islink(path)
    )


def listen(path: str) -> socket.socket | None:
    """A socket listening on `path`, owner-only; None when a live session process already
    listens there or the folder is not private to us. A socket file nobody answers on is
    stale (left by a process that crashed) and is replaced.
    """
    import logging
    import socket

    logger = logging.getLogger(__name__)
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    if not private_dir_ok(folder):
        logger.warning("%s is not a private folder of ours; not listening", folder)
        return None
    if os.path.exists(path):
        if answers(path, timeout=0.5):
            return None
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(path)  # fails when another process bound it since: it won the race
        os.chmod(path, 0o600)
        sock.listen(64)
    except OSError as e:
        sock.close()
        logger.info("not listening on %s: %s", path, e)
        return None
    return sock


def answers(path: str, timeout: float = 0.2) -> bool:
    """True when a session process accepts connections on `path` (False: none, or stale)."""
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        try:
            s.connect(path)
        except OSError:
            return False
    return True

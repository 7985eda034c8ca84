"""What crosses the process boundary between a hook command and its session process.

Import-free on purpose (a hook command pays for every import on every prompt): the socket's
place and privacy, the framing of a request and a reply, and the handlers' deadlines, which
the thin client needs to know how long to wait. The thin client imports neither `json`,
`socket` nor `hashlib`: through `re`, `enum` and OpenSSL they cost it more than Python's own
start (`python -c 'import json, socket, hashlib'` 65 ms, `python -c pass` 25 ms). It reads
the payload with the C scanner `json` itself uses (`parse_object`), hashes with `_blake2`
and connects with `_socket` (hooks/client.py), each the C half of the public module, which
stands in where there is none.

A request is one JSON header line ``{"harness": NAME|null}`` then the harness's payload as
sent; the client then shuts its side. A reply is ``"0"`` then the text the hook prints
(empty: nothing to print — a failed event is answered that way too: fail open). A
connection that sends nothing is a liveness probe and gets no reply.
"""

from __future__ import annotations

import os

from memhooks.memory.digests import blake2b

try:
    from _json import make_scanner
except ImportError:  # not CPython: `parse_object` sends callers to the full path
    make_scanner = None  # type: ignore[assignment, misc]

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
#: The longest of them: a session process answers a request it read within this of its read.
LONGEST_DEADLINE = max(DEADLINES.values())
#: What a thin client adds to a handler's deadline for the round trip.
ROUND_TRIP = 1.0
#: How long a thin client waits for a session process to take a session end. The process
#: answers before it does the work, so this covers only its waking up; past it (a process
#: stopped or swapped out), the hook does the work itself, well inside the 1.5 s that
#: Claude Code gives all SessionEnd hooks together (docs/reliability.md).
SESSION_END_WAIT = 0.4
#: Set by a thin client that gave up on its session process for the full hook it runs
#: instead, to why: the process may still do the same event (`runner.Sessions`).
HANDED_OVER_ENV = "MEMHOOKS_HANDED_OVER"
#: Set by a thin client for the full hook it runs: when the hook began (ns since the epoch).
BEGAN_ENV = "MEMHOOKS_HOOK_BEGAN"
#: The largest request a session process reads, and how long a client may take to send it.
MAX_REQUEST = 16 * 1024 * 1024
READ_WITHIN = 10.0
OK = b"0"
#: A reply to an event the session process failed: the reason follows, for the hook's stderr.
FAILED = b"1"
#: The most of that reason a hook prints (its line stays within `hookcmd.MAX_LINE`).
FAILURE_MAX = 400


def reply_deadline(event_name: object) -> float:
    """How long a thin client waits for the reply to a harness event (or a generic one)."""
    name = str(event_name)
    kind = CLAUDE_EVENTS.get(name) or GEMINI_EVENTS.get(name)
    if kind is None and name in KINDS:
        kind = name  # a generic event names its kind
    if kind == "session-end":
        return SESSION_END_WAIT
    return DEADLINES.get(kind or "pre-prompt", DEADLINES["pre-prompt"]) + ROUND_TRIP


class _Defaults:
    """What the C scanner reads from a `json.JSONDecoder`: its defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float  # NaN, Infinity, -Infinity, as json reads them


# typeshed types the context as a scanner; it is any object with the attributes above.
_scan = make_scanner(_Defaults()) if make_scanner is not None else None  # type: ignore[arg-type]


def parse_object(raw: bytes) -> dict[str, object] | None:
    """A JSON object as `json.loads` reads it, or None where that would not give one.

    Anything unusual (not plain UTF-8, a BOM, not an object, no C scanner) is None too:
    the caller then takes the full path, where `json` itself reads it.
    """
    try:
        text = raw.decode("utf-8").strip(" \t\n\r")
    except UnicodeDecodeError:
        return None
    if _scan is None or not text.startswith("{"):
        return None
    try:
        value, end = _scan(text, 0)
    # Malformed input: on Python 3.11 the scanner raises json's JSONDecodeError only where
    # `json` was imported, here a SystemError ("returned NULL without setting an
    # exception"); from 3.12 it imports `json.decoder` to raise it (the full path's anyway).
    except (StopIteration, ValueError, RecursionError, SystemError):
        return None
    return value if end == len(text) and isinstance(value, dict) else None


def ends_session(payload: bytes) -> bool:
    """True for a harness's SessionEnd payload (its reply is never printed)."""
    import json

    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("hook_event_name") == "SessionEnd"


def request(harness: str | None, payload: bytes) -> bytes | None:
    """The bytes a thin client sends: the header line, then the payload.

    None for a harness name that is not a plain word: the full command line rejects it.
    """
    if harness is None:
        header = b'{"harness": null}'
    elif harness.isascii() and harness.replace("-", "").isalpha():
        header = b'{"harness": "%s"}' % harness.encode()
    else:
        return None
    return header + b"\n" + payload


def parse_request(raw: bytes) -> tuple[str | None, bytes]:
    """(harness named by the client, payload) of a request; a bad header names none."""
    import json

    header, _, payload = raw.partition(b"\n")
    try:
        harness = json.loads(header).get("harness")
    except (ValueError, AttributeError):
        harness = None
    return (harness if isinstance(harness, str) else None), payload


def reply(text: str) -> bytes:
    """The bytes a session process answers with."""
    return OK + text.encode("utf-8", "surrogatepass")


def failed(reason: str) -> bytes:
    """The bytes a session process answers with for an event it failed: why, one line."""
    from memhooks.memory.text import one_line  # the session process's side only

    return FAILED + one_line(reason, FAILURE_MAX).encode("utf-8", "surrogatepass")


def respond(text: str | None, error: str | None) -> bytes:
    """A session process's answer to an event: its text, or why it failed."""
    return reply(text or "") if error is None else failed(error)


def fail_line(reason: str) -> str:
    """The one stderr line of a hook that answers with no context (the thin client's
    and `hookcmd`'s: `PROG` spelt out, for the client imports no `hooks.constants`)."""
    return f"memhooks hook: {reason}; no context"


def failure(raw: bytes) -> str | None:
    """Why the session process failed the event, from its reply; None if it did not."""
    if not raw.startswith(FAILED):
        return None
    return raw[len(FAILED) :].decode("utf-8", "replace")


def parse_reply(raw: bytes) -> str:
    """The text to print from a session process's reply ("" for anything malformed)."""
    text = raw.decode("utf-8", "replace")
    return text[1:] if text.startswith(OK.decode()) else ""


#: Longest path a Unix socket can bind (sun_path holds 108 bytes on Linux, NUL included).
_SOCKET_PATH_MAX = 107
_SOCKET_NAME = 24 + len(".sock")


def socket_dir() -> str:
    """A private folder for session sockets: under $XDG_RUNTIME_DIR, or /tmp when that
    is unset, not ours to write in, or so deep that a socket path there could not be
    bound (every prompt would then start a session process that cannot listen).
    """
    name = f"memhooks-{os.getuid()}"
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    # Another user's (kept by `sudo -E`) or on a read-only disk: no socket there.
    if runtime and os.path.isdir(runtime) and os.access(runtime, os.W_OK | os.X_OK):
        folder = os.path.join(runtime, name)
        if len(os.fsencode(folder)) + 1 + _SOCKET_NAME <= _SOCKET_PATH_MAX:
            return folder
    return os.path.join("/tmp", name)


def socket_path(root: str, session_id: str) -> str:
    """Where the session process for (`root`, `session_id`) listens."""
    key = blake2b(
        f"{os.path.realpath(root)}\0{session_id}".encode("utf-8", "surrogatepass"),
        digest_size=12,
    )
    return os.path.join(socket_dir(), key.hexdigest() + ".sock")


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
    import socket

    from memhooks.memory.lazylog import getLogger

    logger = getLogger(__name__)
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError as e:  # a file there, a full disk: hooks answer in-process
        logger.warning("cannot make %s (%s); no session process", folder, e.strerror)
        return None
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


def inode_of(path: str) -> int | None:
    """The inode of the socket at `path` (None: gone): whose it is."""
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def release(path: str, ours: int | None) -> None:
    """Remove the socket at `path` if it is still ours (the inode `ours`)."""
    if ours is not None and inode_of(path) == ours:
        try:
            os.unlink(path)
        except OSError:
            pass  # removed meanwhile

"""The `memhooks` entry point, with a fast path for hook commands.

A hook command runs before every prompt, so its start-up is paid on every turn. When the
session-start hook has started a session process for this session, later hook commands
are thin clients: they import nothing heavy (no pydantic, no anyio), forward the event
over a private Unix socket and print the reply. Anything else — another command, no
session process, a slow or broken one — goes to the full command line in-process.
"""

from __future__ import annotations

import gc
import os
import sys
import time

#: Not `typing.TYPE_CHECKING`: a thin client does not import `typing` (`memory.home`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

from memhooks.hooks.wire import (
    BEGAN_ENV,
    HANDED_OVER_ENV,
    fail_line,
    failure,
    parse_object,
    parse_reply,
    private_dir_ok,
    reply_deadline,
    request,
    socket_path,
)
from memhooks.memory.home import root_dir

#: How long a thin client waits to reach the session process before doing the work itself.
CONNECT_TIMEOUT = 0.5
MAX_REPLY = 1024 * 1024
#: How long a hook waits for the harness to close stdin, and how long stdin may stay
#: quiet after a whole JSON object before the object is taken as the event.
STDIN_WAIT = 5.0
STDIN_QUIET = 0.2


def _option(argv: list[str], name: str) -> str | None:
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def forward(argv: list[str], payload: bytes) -> str | None:
    """Send a hook event to its session process; the text to print, or None to do it in-process."""
    data = parse_object(payload)
    if data is None or not isinstance(data.get("session_id"), str):
        return None
    if (
        data.get("hook_event_name") == "SessionStart"
        and data.get("source") == "startup"
    ):
        # A session process for a session only starting is one a start of the same
        # session run at the same time forked: done here, under the session's lock, this
        # one finds the block injected since it began and says nothing (`handlers`).
        return None
    root = _option(argv, "--root")
    if root == "":
        return None  # the full command says why it is refused
    path = socket_path(root_dir(root), str(data["session_id"]))
    if not os.path.exists(path) or not private_dir_ok(os.path.dirname(path)):
        return None
    sent = request(_option(argv, "--harness"), payload)  # a copy of the payload
    if sent is None:
        return None
    # Only now, and the C half of `socket` (wire.py): a SessionStart hook never needs it.
    try:
        from _socket import AF_UNIX, SHUT_WR, SOCK_STREAM, socket
    except ImportError:
        from socket import AF_UNIX, SHUT_WR, SOCK_STREAM, socket  # type: ignore[assignment]

    s = socket(AF_UNIX, SOCK_STREAM)
    try:
        s.settimeout(CONNECT_TIMEOUT)
        try:
            s.connect(path)
        except OSError:
            return None  # gone or stale: do the work here
        # Once connected, the session process does the work (and its writes) whatever we
        # do: past the deadline the reply is dropped, never done twice (fail open). A
        # session end is done here too: its hook has 1.5 s, and a process stopped or
        # swapped out may not wake for minutes. Both take the session's lock, and the
        # second finds the session ended (`runner.Sessions.ended_elsewhere`).
        wait = reply_deadline(data.get("hook_event_name"))
        s.settimeout(wait)
        chunks = []
        try:
            s.sendall(sent)
            s.shutdown(SHUT_WR)
            while chunk := s.recv(65536):
                chunks.append(chunk)
                if sum(map(len, chunks)) > MAX_REPLY:
                    raise OSError("reply too large")
        except OSError as e:
            if isinstance(e, (ConnectionResetError, BrokenPipeError)) and not chunks:
                # Shut before it read the request, or with it still queued: a process
                # leaving (a clear just after a session end). Nothing was done.
                return None
            if data.get("hook_event_name") == "SessionEnd":
                os.environ[HANDED_OVER_ENV] = (
                    f"session process did not answer in {wait:g} s ({e}); "
                    "the hook ends the session itself"
                )
                return None
            sys.stderr.write(fail_line(f"session process did not answer ({e})") + "\n")
            return ""
    finally:
        s.close()
    if not chunks:
        # Shut with no reply, which always says something: a process leaving took the
        # request but never did it (its leaving cancels a request still being read).
        return None
    raw = b"".join(chunks)
    if (why := failure(raw)) is not None:
        # As the hook would have said it had it done the event itself (`hookcmd`).
        sys.stderr.write(fail_line(why) + "\n")
        return ""
    return parse_reply(raw)


def read_event(fd: int = 0) -> bytes | None:
    """The hook's payload: stdin up to its end, or up to a pause after a whole JSON
    object (a harness that keeps stdin open must not hang the hook); None when stdin
    neither ended nor gave an object within `STDIN_WAIT` seconds."""
    import select
    import time

    chunks: list[bytes] = []
    end = time.monotonic() + STDIN_WAIT
    while (left := end - time.monotonic()) > 0:
        wait = min(left, STDIN_QUIET) if chunks else left
        if select.select([fd], [], [], wait)[0]:
            if not (chunk := os.read(fd, 1 << 20)):
                return b"".join(chunks)  # closed: the usual way
            chunks.append(chunk)
        elif chunks and parse_object(b"".join(chunks)) is not None:
            return b"".join(chunks)
    return b"".join(chunks) if chunks else None


def main() -> int:
    """Console entry point of `memhooks`."""
    argv = sys.argv[1:]
    if argv[:1] != ["hook"]:
        if argv[:1] == ["search"]:
            # It lives a tenth of a second: a collection of young objects each 700
            # allocations, as its modules load, cost ~2 ms of CPU (3%); each 100,000.
            gc.set_threshold(100_000, 50, 100)
        code = _full(argv, None)
        if argv[:1] != ["search"]:
            return code
        # A search's page is out and its index files are written and closed: as for a
        # hook, the teardown of the modules and of the index it read is skipped.
        _exit(code)
    os.environ[BEGAN_ENV] = str(time.time_ns())  # before any wait: `hookcmd`
    payload = read_event()
    if payload is None:
        wait = f"stdin neither ended nor gave an event in {STDIN_WAIT:g} s"
        sys.stderr.write(fail_line(wait) + "\n")
        _exit(0)
    out = forward(argv, payload)
    if out is None:
        code = _full(argv, payload)
    else:
        code = 0
        if out:
            # JSON its harness reads as UTF-8, whatever the locale (`cli._stdout`).
            if reconfigure := getattr(sys.stdout, "reconfigure", None):
                reconfigure(encoding="utf-8")
            sys.stdout.write(out + "\n")
    # A hook is paid on every prompt: its reply is out and its files are written and
    # closed, so the interpreter's teardown (10-20 ms with the core imported) is skipped.
    _exit(code)


def _exit(code: int) -> NoReturn:
    """Flush stdout and stderr, then end the process at once (no interpreter teardown)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the reader stopped reading: nothing to tell
            pass
    os._exit(code)


def _full(argv: list[str], payload: bytes | None) -> int:
    import io

    from memhooks.hooks.cli import main as cli_main

    if payload is None:
        return cli_main(argv)
    stdin = io.TextIOWrapper(
        io.BytesIO(payload), encoding="utf-8", errors="surrogateescape"
    )
    return cli_main(argv, stdin=stdin)

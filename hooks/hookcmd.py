"""`memhooks hook` (one event per process) and `memhooks session` (one process per session)."""

from __future__ import annotations

import functools
import io
import os
import sys
from typing import TYPE_CHECKING, TextIO

from memhooks.hooks.constants import ENV_SESSION_PROCESS, EXIT_OK, PROG
from memhooks.memory import default_root

if TYPE_CHECKING:
    import socket
    from pathlib import Path

    from memhooks.hooks.events import Event, Harness
    from memhooks.hooks.runner import Sessions


def cmd_hook(
    harness: Harness | None, root: str | None, stdin: TextIO, out: TextIO
) -> int:
    """One event in, one reply out; fails open: exit 0 and no context on any failure."""
    try:
        from memhooks.hooks import spawn
        from memhooks.hooks.adapters import render
        from memhooks.hooks.runner import Sessions, decode, handle_now

        raw = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read()
        event = decode(raw, harness)
        if event is None:
            return EXIT_OK
        sessions = Sessions(root, keep=False)
        text = render(event, handle_now(event, sessions))
        if text:
            out.write(text + "\n")
        out.flush()  # the reply is out before a session process starts
        if _wants_server(event):
            spawn.ensure_server(
                default_root(root),
                event.session_id,
                event.harness,
                event.cwd,
                serve=functools.partial(
                    run_session, sys.stdin, sys.stdout, warm=sessions
                ),
            )
    except TimeoutError:
        sys.stderr.write(f"{PROG} hook: deadline exceeded; no context\n")
        sys.stderr.flush()
        # The handler's thread was abandoned; don't let interpreter shutdown wait for it.
        os._exit(EXIT_OK)
    except Exception as e:  # noqa: BLE001 - fail open (docs/design.md): never block or crash the agent
        fail_open(f"{type(e).__name__}: {_one_line(e)}")
    return EXIT_OK


def fail_open(reason: str) -> None:
    """The one stderr line of a hook that answers with no context."""
    sys.stderr.write(f"{PROG} hook: {reason}; no context\n")


def _wants_server(event: Event) -> bool:
    # Later hook commands of this session then forward to it instead of starting cold.
    return (
        event.harness != "generic"
        and event.kind in ("session-start", "pre-prompt", "post-compaction")
        and os.environ.get(ENV_SESSION_PROCESS, "1") != "0"
    )


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:300]


def run_session(
    stdin: TextIO,
    out: TextIO,
    *,
    harness: Harness | None,
    root: str | Path | None,
    idle_timeout: float,
    listen: str | None = None,
    parent_pid: int | None = None,
    session_id: str | None = None,
    project: str | None = None,
    sock: socket.socket | None = None,
    warm: Sessions | None = None,
) -> int:
    """`memhooks session`, and the session process a hook forks: where a session runs.

    Over stdin/stdout, or serving hook commands on the socket `listen` (`sock`: already
    listening there; `warm`: the forking hook's sessions, whose corpus is kept).
    """
    import anyio

    from memhooks.hooks.serve import serve_pipe, serve_socket

    def write(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    where = default_root(root)
    if listen:
        return anyio.run(
            functools.partial(
                serve_socket,
                listen,
                root=where,
                harness=harness,
                parent_pid=parent_pid,
                idle_timeout=idle_timeout,
                session_id=session_id,
                project=project,
                sock=sock,
                warm=warm,
            )
        )
    binary = (
        stdin.buffer if hasattr(stdin, "buffer") else io.BytesIO(stdin.read().encode())
    )
    return anyio.run(
        functools.partial(
            serve_pipe,
            binary,
            write,
            root=where,
            harness=harness,
            idle_timeout=idle_timeout,
        )
    )


__all__ = ["cmd_hook", "fail_open", "run_session"]

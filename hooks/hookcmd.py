"""`memhooks hook` (one event per process) and `memhooks session` (one process per session)."""

from __future__ import annotations

import contextlib
import functools
import io
import os
import sys
from typing import TYPE_CHECKING, TextIO

from memhooks.hooks.constants import ENV_SESSION_PROCESS, EXIT_OK, PROG
from memhooks.hooks.errors import UsageError, absolute_root
from memhooks.hooks.events import why
from memhooks.hooks.wire import FAILURE_MAX, fail_line
from memhooks.memory import default_root, lazylog
from memhooks.memory.text import cut, nbytes, one_line

if TYPE_CHECKING:
    import socket
    from pathlib import Path

    from memhooks.hooks.events import Event, Harness
    from memhooks.hooks.runner import Sessions


def cmd_hook(
    harness: Harness | None, root: str | None, stdin: TextIO, out: TextIO
) -> int:
    """One event in, one reply out; fails open: exit 0 and no context on any failure.

    Whatever goes wrong, and however many times, stderr gets at most one line.
    """
    try:
        absolute_root(root or "", "--root")
    except UsageError as e:
        fail_open(e.message)
        return EXIT_OK
    problems = _Problems()
    before = lazylog.capture(problems.add)
    try:
        return _hook(harness, root, stdin, out, problems)
    finally:
        lazylog.capture(before)
        problems.write()


def _hook(
    harness: Harness | None,
    root: str | None,
    stdin: TextIO,
    out: TextIO,
    problems: _Problems,
) -> int:
    try:
        from memhooks.hooks import left, spawn
        from memhooks.hooks.adapters import render
        from memhooks.hooks.runner import Sessions, decode, handle_now
        from memhooks.hooks.wire import BEGAN_ENV, HANDED_OVER_ENV

        began = _began(os.environ.pop(BEGAN_ENV, ""))

        raw = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read()
        event = decode(raw, harness)
        if event is None:
            return EXIT_OK
        event = event._replace(began=began, caller=spawn.harness_pid() or 0)
        if (where := default_root(root)).exists() and not where.is_dir():
            from memhooks.hooks.commands import root_exists

            try:  # said as the commands say it, not as what then fails to read
                root_exists(where)
            except UsageError as e:
                problems.lead = fail_line(str(e))
                return EXIT_OK
        # A thin client that gave up on its session process (hooks.client) says why.
        handed_over = os.environ.pop(HANDED_OVER_ENV, None)
        if handed_over is not None:
            problems.add(handed_over)
        # A hook a person ran by hand (no harness: `spawn.harness_pid`) keeps no session
        # state: no session follows, and a kept state would have its prompt recorded as
        # a session's and its notes not shown again.
        sessions = Sessions(
            root,
            keep=False,
            handed_over=handed_over is not None,
            save=bool(event.caller),
        )
        for end in left.ends(event, where):
            # A conversation this Codex TUI left for this one (`/new`, `/clear`,
            # `/resume`): ended first, so that this one's block (resumed: its first
            # prompt's auto-search) holds its record.
            try:
                handle_now(end, sessions)
            except Exception as e:  # noqa: BLE001 - fail open: the new one starts all the same
                problems.add(f"conversation {end.session_id} not ended: {why(e)}")
        text = render(event, handle_now(event, sessions))
        if text:
            out.write(text + "\n")
        out.flush()  # the reply is out before a session process starts
        if _wants_server(event):
            spawn.ensure_server(
                where,
                event.session_id,
                event.harness,
                event.cwd,
                parent=event.caller,
                serve=functools.partial(
                    run_session, sys.stdin, sys.stdout, warm=sessions
                ),
            )
    except TimeoutError:
        problems.lead = fail_line("deadline exceeded")
        problems.write()
        sys.stderr.flush()
        # The handler's thread was abandoned; don't let interpreter shutdown wait for it.
        os._exit(EXIT_OK)
    except Exception as e:  # noqa: BLE001 - fail open (docs/design.md): never block or crash the agent
        problems.lead = fail_line(why(e, FAILURE_MAX))
    return EXIT_OK


def fail_open(reason: str) -> None:
    """The one stderr line of a hook that answers with no context."""
    sys.stderr.write(fail_line(reason) + "\n")


#: The longest stderr line a hook writes (its first problem whole, then the others cut).
MAX_LINE = 500
#: Problems a hook keeps the text of (the others are counted).
_KEPT = 20


class _Problems:
    """A hook's warnings, held and written as one line: a harness shows a hook's stderr
    as one notice (23 unreadable files are one problem to the person reading it).
    """

    def __init__(self) -> None:
        self.lead: str | None = None  #: why the hook answered with no context
        self.seen: list[str] = []
        self.count = 0  #: distinct problems, kept or not
        self._written = False

    def add(self, message: str) -> None:
        with contextlib.suppress(Exception):
            text = one_line(message, FAILURE_MAX)
            if text not in self.seen:
                self.count += 1
                if len(self.seen) < _KEPT:
                    self.seen.append(text)

    def write(self) -> None:
        """Write the one line (once): the lead or first problem, then how many more."""
        if self._written:
            return
        self._written = True
        first = self.lead or (f"{PROG}: {self.seen[0]}" if self.seen else None)
        if first is None:
            return
        rest = self.seen if self.lead else self.seen[1:]
        n = self.count if self.lead else self.count - 1
        if n:
            more = f" (and {n} more: {' | '.join(rest)}"
            room = max(MAX_LINE - nbytes(first) - 2, 40)
            first += cut(more, room, "").rstrip() + (
                "…)" if nbytes(more) > room else ")"
            )
        sys.stderr.write(first + "\n")


def _wants_server(event: Event) -> bool:
    # Later hook commands of this session then forward to it instead of starting cold
    # (not when a person ran the hook: `spawn.harness_pid`).
    return (
        event.harness != "generic"
        and event.kind in ("session-start", "pre-prompt", "post-compaction")
        and os.environ.get(ENV_SESSION_PROCESS, "1").strip().lower() not in _OFF
    )


#: The values of `ENV_SESSION_PROCESS` that keep every hook in-process.
_OFF = ("0", "false", "no", "off")


def _began(value: str) -> int:
    # When the hook began: as the thin client noted it, else now.
    import time

    return int(value) if value.isdigit() else time.time_ns()


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
    where = default_root(root)
    started = None
    if listen and sock is not None:
        # Forked by a hook: the first prompt follows at once; answer it before the
        # event loop is started (`hooks.first`).
        from memhooks.hooks.first import build_index, start
        from memhooks.hooks.wire import inode_of, release

        inode = inode_of(listen)
        try:
            started = start(sock, where, harness, project, warm)
        except BaseException:
            release(listen, inode)  # a start that failed leaves no socket behind
            raise
        if started.answered == "session-end":
            release(listen, inode)
            build_index(started.sessions)
            return 0

    import anyio

    def write(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    if listen:
        from memhooks.hooks.serve import serve_socket

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
                started=started,
            )
        )
    from memhooks.hooks.pipe import serve_pipe

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

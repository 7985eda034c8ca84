"""The one module that starts processes: session processes for hook commands and `simulate`,
and a harness CLI asked its version (`memhooks doctor`)."""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
from typing import TYPE_CHECKING

from memhooks.hooks.wire import answers, inode_of, listen, release, socket_path
from memhooks.memory.lazylog import getLogger

if TYPE_CHECKING:
    import socket
    from collections.abc import Callable
    from pathlib import Path

    from anyio.abc import Process

logger = getLogger(__name__)

#: How memhooks starts itself: `-P` keeps the working directory (the user's project, which may
#: hold its own `memory/` or `hooks/`) off `sys.path`.
SELF = (sys.executable, "-P", "-m", "memhooks.hooks")

#: Where a terminal is, as a process's file descriptor names it.
_TERMINALS = ("/dev/pts/", "/dev/tty")

#: What `ps` calls a session process a hook forked (at most 15 bytes: Linux's limit).
PROCESS_NAME = "memhooks-serve"
_SHELLS = {"sh", "bash", "dash", "zsh", "fish", "ksh"}
#: A session process with no event for this long exits; the next hook answers in-process
#: and starts a new one.
IDLE_TIMEOUT = 15 * 60


def harness_pid() -> int | None:
    """The harness that ran this hook: the parent, skipping shells that wrap the command.

    None when a person ran it: a harness gives its hooks pipes, so a terminal on this
    process's output or on a shell it skips (the one the command was typed in, its
    output redirected) means no harness, and no session follows.
    """
    if os.isatty(1) or os.isatty(2):
        return None
    return _above_shells(os.getppid(), at_terminal=_at_terminal)


def peer_harness(sock: socket.socket) -> int | None:
    """The harness that ran the hook at the other end of a Unix socket (its parent,
    skipping shells); None where that cannot be told (not Linux, the hook gone)."""
    import socket
    import struct

    try:
        creds = sock.getsockopt(
            socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")
        )
    except (OSError, AttributeError):
        return None
    parent = _stat(struct.unpack("3i", creds)[0])
    return None if parent is None else _above_shells(parent[1])


def headless_gemini(pid: int) -> bool:
    """True when process `pid` is Gemini CLI with no terminal on its stdin (a script's
    pipe or /dev/null): it runs headless. False where that cannot be told (not Linux)."""
    if (seen := stdin_and_argv(pid)) is None:
        return False
    at_terminal, argv = seen
    # The program, or node's script after node's options: `gemini` as npm links it, or
    # its bundle's gemini.js (not an argument that names it: `--harness gemini`).
    script = next((a for a in argv[1:8] if a and not a.startswith(b"-")), b"")
    ours = any(os.path.basename(a).startswith(b"gemini") for a in (argv[0], script))
    return ours and not at_terminal


def stdin_and_argv(pid: int) -> tuple[bool, list[bytes]] | None:
    """Whether process `pid` has a terminal on its stdin, and its command line; None
    where that cannot be read (gone, not Linux)."""
    if pid <= 0:
        return None
    try:
        stdin = os.readlink(f"/proc/{pid}/fd/0")
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return None
    return stdin.startswith(_TERMINALS), argv


def ancestors() -> list[int]:
    """The process ids above this process, its parent first, up to init; [] where
    /proc cannot tell (not Linux)."""
    found: list[int] = []
    pid = os.getppid()
    while pid > 1 and len(found) < 64 and (stat := _stat(pid)) is not None:
        found.append(pid)
        pid = stat[1]
    return found


def _stat(pid: int) -> tuple[str, int] | None:
    # A process's name and parent (Linux), or None.
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    return stat[stat.find("(") + 1 : stat.rfind(")")], int(
        stat[stat.rfind(")") + 2 :].split()[1]
    )


def _above_shells(
    pid: int, at_terminal: Callable[[int], bool] = lambda _: False
) -> int | None:
    # `pid`, or the first of its ancestors that is not a shell; None: a shell at a terminal.
    for _ in range(4):
        if (stat := _stat(pid)) is None:
            return pid  # not Linux: trust the parent
        comm, parent = stat
        if comm not in _SHELLS or parent <= 1:
            return pid
        if at_terminal(pid):
            return None
        pid = parent
    return pid


def _at_terminal(pid: int) -> bool:
    # A terminal on one of process `pid`'s standard streams (Linux).
    for fd in (0, 1, 2):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{pid}/fd/{fd}").startswith(_TERMINALS):
                return True
    return False


def ensure_server(
    root: Path,
    session_id: str,
    harness: str,
    cwd: str | None,
    *,
    parent: int,
    serve: Callable[..., int],
) -> None:
    """Make sure a session process serves this session, once the hook's reply is out.

    Where it can, the hook forks itself into the session process, which runs `serve`
    (`hookcmd.run_session`) with the socket and these arguments: the socket listens before
    the hook exits, so the next hook never finds it missing, and the child keeps what the
    hook imported and read instead of starting Python over. `parent` is the harness
    process that ran the hook (`harness_pid`; 0: none), which the session process watches.
    """
    if not parent:
        return  # run by hand: nothing would end the process but its idle timeout
    path = socket_path(str(root), session_id)
    if os.path.exists(path) and answers(path):
        return
    args = {
        "root": root,
        "harness": harness,
        "parent_pid": parent,
        "idle_timeout": IDLE_TIMEOUT,
        "session_id": session_id,
        "project": cwd,
    }
    if hasattr(os, "fork"):
        _fork(path, functools.partial(serve, listen=path, **args))
        return
    with contextlib.suppress(OSError):
        os.unlink(path)  # left by a session process that crashed: nobody listens
    cmd = [*SELF, "session", "--listen", path]
    for name, value in args.items():
        if value is not None:
            cmd += [f"--{name.replace('_', '-')}", str(value)]
    import subprocess  # where there is no fork only

    # Detached from the hook (which exits now) but watching the harness, so never an orphan.
    subprocess.Popen(
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )
    logger.debug("started a session process on %s", path)


def _name(name: str) -> None:
    """Name this process as `ps` and `top` show it (Linux; elsewhere it keeps the hook's)."""
    with contextlib.suppress(OSError), open("/proc/self/comm", "w") as comm:
        comm.write(name)


def _fork(path: str, serve: Callable[..., int]) -> None:
    sock = listen(path)
    if sock is None:
        return  # another process serves the session already
    sys.stdout.flush()
    sys.stderr.flush()
    if os.fork():
        sock.close()
        return
    # The child: a session process of its own, detached from the hook's pipes and group.
    code = 1
    try:
        os.setsid()
        _name(PROCESS_NAME)
        # `kill PID`: its socket goes with it, as on every other way out.
        ours = inode_of(path)
        signal.signal(signal.SIGTERM, functools.partial(_terminated, path, ours))
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        code = serve(sock=sock)
    except BaseException:  # nobody to tell but the log; never return into the hook
        logger.exception("session process failed")
    finally:
        os._exit(code)


def _terminated(path: str, ours: int | None, signum: int, _frame: object) -> None:
    release(path, ours)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


async def open_session(root: Path) -> Process:
    """A `memhooks session` process over pipes (what `simulate` drives)."""
    import anyio

    cmd = [*SELF, "session", "--root", str(root)]
    return await anyio.open_process(cmd, stderr=None)


def output_of(argv: list[str], timeout: float) -> str | None:
    """What a short command prints on stdout (stdin empty), or None: it could not run,
    took longer than `timeout` seconds, or exited with an error."""
    import subprocess

    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return done.stdout if done.returncode == 0 else None

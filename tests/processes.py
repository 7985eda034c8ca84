"""Find the session processes serving a memory root (tests and benchmarks)."""

from __future__ import annotations

import os
from pathlib import Path

from memhooks.hooks.spawn import PROCESS_NAME


def session_processes(root: Path | str, session_id: str | None = None) -> list[int]:
    """Pids of session processes for `root` (and `session_id`, when given).

    A hook forks its session process, which keeps the hook's command line and environment
    but is named PROCESS_NAME; one started as `memhooks session --listen` names the root
    and the session on its command line.
    """
    root_b = str(root).encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            comm = (entry / "comm").read_bytes().strip()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            env = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if comm == PROCESS_NAME.encode():
            mine = b"MEMHOOKS_HOME=" + root_b in env or root_b in argv
        else:
            mine = b"--listen" in argv and root_b in argv
        if mine and (session_id is None or _serves(entry, session_id, argv, env)):
            pids.append(int(entry.name))
    return pids


def _serves(entry: Path, session_id: str, argv: list[bytes], env: list[bytes]) -> bool:
    if session_id.encode() in argv:
        return True
    # A forked one: the hook's payload named the session; its socket says which.
    from memhooks.hooks.wire import socket_path

    root = next(
        (e[len(b"MEMHOOKS_HOME=") :] for e in env if e.startswith(b"MEMHOOKS_HOME=")),
        None,
    )
    if root is None:
        return False
    path = socket_path(root.decode(), session_id)
    with open("/proc/net/unix") as table:
        inodes = {
            f"socket:[{cols[6]}]"
            for line in table
            if len(cols := line.split()) > 7 and cols[7] == path
        }
    try:
        return any(os.readlink(fd) in inodes for fd in (entry / "fd").iterdir())
    except OSError:
        return False

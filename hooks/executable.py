"""Whether a command in a harness's settings (a hook, an MCP server) can start, for
`memhooks doctor`: the program it names exists, so does the Python its `#!` line names,
and the module it runs is one memhooks has.

A console script that pip, pipx or uv installed starts the Python of its virtual
environment by absolute path. When that Python is gone (Homebrew or pyenv removed the
version the venv was made from, or the venv was moved), the script is still there, but
every hook exits 127 with ``not found`` and the harness carries on without memory.
"""

from __future__ import annotations

import itertools
import os
import shlex
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

#: What is read of a script to find its interpreter: pip's launcher for a path with a
#: space is a `#!/bin/sh` line, then ``'''exec' "PYTHON" "$0" "$@"``.
_HEAD = 1024
#: Said of a program whose interpreter is gone: the fix is a new install, not a new path.
GONE = "is gone"
#: The module the first release ran as (``python -m hooks hook``), and what it became.
_RENAMED = ("-m", "hooks")
_MODULE = "it is memhooks.hooks since 2026-12-01"


def executable_problem(
    command: str, project: Path, which: Callable[[str], str | None]
) -> str | None:
    """Why `command` cannot start (None: it can, as far as can be told without running it)."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return "cannot be split into words (unbalanced quotes)"
    if not argv:
        return "is empty"
    exe = argv[0]
    for var in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CODEX_PROJECT_DIR"):
        exe = exe.replace(f"${{{var}}}", str(project)).replace(f"${var}", str(project))
    exe = os.path.expanduser(exe)
    if "/" in exe:
        if not os.path.isfile(exe):
            return f"runs {exe}, which does not exist"
        if not os.access(exe, os.X_OK):
            return f"runs {exe}, which is not executable"
        shown = exe
    elif (found := which(exe)) is None:
        return f"runs `{exe}`, which is not on PATH"
    else:
        shown, exe = f"`{exe}` ({found})", found
    python = interpreter(exe)
    if python is not None and not os.path.exists(python):
        return f"runs {shown}, whose Python {python} {GONE}"
    if _RENAMED in itertools.pairwise(argv):
        # What memhooks wrote where no `memhooks` script sat beside its Python (a `pip
        # install --user`), until its modules moved under `memhooks.` (fdd8eeb): the
        # Python starts, finds no module `hooks` and exits 1, at every event.
        return f"runs {shown} -m hooks, a module memhooks no longer has ({_MODULE})"
    return None


def other_install(command: str) -> str | None:
    """The Python of another install than this one that `command` names by path (its
    script's `#!`, or the Python itself), or None: this install, a bare command, a program
    that is not a Python script. Upgrading the memhooks that runs doctor does not change
    what such a hook runs (a venv an older `install` wrote the path of)."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    exe = os.path.expanduser(argv[0]) if argv else ""
    if "/" not in exe or "$" in exe:
        return None
    python = exe if _is_python(exe) else interpreter(exe)
    if python is None or not _is_python(python):
        return None
    here = os.path.realpath(os.path.dirname(sys.executable))
    return None if os.path.realpath(os.path.dirname(python)) == here else python


def _is_python(path: str) -> bool:
    return os.path.basename(path).startswith("python")


def interpreter(path: str) -> str | None:
    """The program the script at `path` starts, by absolute path (``/usr/bin/env`` for
    ``#!/usr/bin/env python3``); None for a compiled program or an unreadable file."""
    try:
        with open(path, "rb") as f:
            head = f.read(_HEAD)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    lines = head[2:].decode("utf-8", "surrogateescape").splitlines()
    words = lines[0].split()
    if not words or not words[0].startswith("/"):
        return None
    if words[0] == "/bin/sh" and len(lines) > 1 and lines[1].startswith("'''exec' "):
        try:
            launched = shlex.split(lines[1].removeprefix("'''exec' "))
        except ValueError:
            return None
        return launched[0] if launched and launched[0].startswith("/") else None
    return words[0]


__all__ = ["GONE", "executable_problem", "interpreter", "other_install"]

"""How the block's tools line names the `memhooks` command for the model's shell.

The hooks run by the absolute path `memhooks install` wrote; the model runs the tools
line's commands by name in its shell tool. Measured with the real CLIs in the e2e sandbox
(memhooks in a venv on the PATH the CLI was started with, no profile file naming it):
Claude Code 2.1.332 ran the model's command in `bash -c` after a snapshot that exports
its own PATH, and Gemini CLI 0.61.0 in `bash -c` with its own environment: both found the
venv's `memhooks`. Codex CLI 0.171.0 ran it in `bash -c` with the PATH of a login shell,
which Debian's /etc/profile sets afresh: the model's `memhooks write` said "memhooks:
command not found" (exit 127) and nothing was saved. Codex's hooks get Codex's own PATH,
so a hook cannot see that one, and a login shell per hook is too slow and runs a person's
profile. So for Codex a folder counts as on the login shell's PATH when it is one of the
system's, or when a start-up file the login shell reads names it; else the tools line
names this install's `memhooks` by its path. Doctor runs the login shell itself
(`shellcheck`).
"""

from __future__ import annotations

import os
import pwd
import shlex
import shutil
import sys
from pathlib import Path

from memhooks.hooks.constants import PROG

#: The folders every login shell's PATH holds (Debian's /etc/profile sets these).
SYSTEM_DIRS = ("/usr/local/bin", "/usr/bin", "/bin")
#: The files a login shell of each kind reads at start, after /etc/profile; bash reads
#: only the first of its three that exists.
_STARTUP = {
    "bash": (".bash_profile", ".bash_login", ".profile"),
    "sh": (".profile",),
    "dash": (".profile",),
    "zsh": (".zshenv", ".zprofile", ".zlogin"),
}


def script() -> Path:
    """This install's `memhooks` command: the script beside the running Python."""
    return Path(sys.executable).parent / PROG


def login_shell() -> str:
    """The person's login shell, as Codex CLI runs the model's commands with it."""
    try:
        shell = pwd.getpwuid(os.getuid()).pw_shell
    except KeyError:
        shell = ""
    return shell or os.environ.get("SHELL") or "/bin/sh"


def same_file(found: str | None, ours: Path) -> bool:
    try:
        return found is not None and os.path.samefile(found, ours)
    except OSError:
        return False


def startup_files(shell: str, home: Path) -> list[Path]:
    """The files a login shell named `shell` reads that may set PATH."""
    kind = os.path.basename(shell)
    names = _STARTUP.get(kind, ())
    if kind == "bash":
        names = next(((n,) for n in names if (home / n).is_file()), ())
    return [Path("/etc/profile"), *(home / n for n in names)]


def named_at_login(folder: Path, home: Path, shell: str | None = None) -> bool:
    """True when `folder` is a system folder, or a line (not a comment) of a start-up
    file of the login shell names it: by its path, or ``~/``, ``$HOME/``, ``${HOME}/``
    and the rest of it."""
    if str(folder) in SYSTEM_DIRS:
        return True
    spelled = {str(folder)}
    if folder.is_relative_to(home):
        rest = folder.relative_to(home).as_posix()
        spelled |= {f"~/{rest}", f"$HOME/{rest}", f"${{HOME}}/{rest}"}
    for path in startup_files(shell or login_shell(), home):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            if not line.lstrip().startswith("#") and any(s in line for s in spelled):
                return True
    return False


def model_prog(harness: str | None, home: Path | None = None) -> str:
    """`memhooks` when a plain `memhooks` in the model's shell of `harness` runs this
    install, else this install's script by its path, shell-quoted. Claude Code's and Gemini
    CLI's shells have the harness's PATH, which the hook has too; Codex's a login
    shell's (`named_at_login`). Reads PATH and a few small files: no process is run."""
    ours = script()
    if not ours.is_file():
        return PROG  # no script beside this Python: nothing better to name
    if harness == "codex":
        found = named_at_login(ours.parent, home or Path.home())
    else:
        found = same_file(shutil.which(PROG), ours)
    return PROG if found else shlex.quote(str(ours))


def shell_prog() -> str:
    """`memhooks` as a command this process prints should name it: this process has the
    PATH of the shell that started it (the model's, when the model ran it), so the
    command runs there as it is named (`model_prog`, no harness)."""
    return model_prog(None)


__all__ = [
    "SYSTEM_DIRS",
    "login_shell",
    "model_prog",
    "named_at_login",
    "same_file",
    "script",
    "shell_prog",
    "startup_files",
]

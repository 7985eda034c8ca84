"""`memhooks doctor`: whether the login shell Codex CLI runs the model's commands with
finds this install's `memhooks` (`modelshell` tells why it may not).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhooks.hooks.constants import PROG
from memhooks.hooks.harnesscheck import Finding, our_handlers, short_path
from memhooks.hooks.mcp_config import registrations
from memhooks.hooks.modelshell import (
    login_shell,
    model_prog,
    same_file,
    script,
    startup_files,
)
from memhooks.hooks.sandboxcheck import codex_sandbox
from memhooks.hooks.spawn import output_of

if TYPE_CHECKING:
    from pathlib import Path

#: How long doctor waits for a login shell to say where `memhooks` is.
LOGIN_TIMEOUT = 10.0


def login_finds(shell: str | None = None) -> str | None:
    """Where a login shell finds `memhooks` (None: it does not, or the shell failed or
    took longer than `LOGIN_TIMEOUT`)."""
    out = output_of(
        [shell or login_shell(), "-lc", f"command -v {PROG}"], LOGIN_TIMEOUT
    )
    lines = (out or "").strip().splitlines()
    return lines[-1] if lines else None


def check_model_shell(project: Path, home: Path) -> list[Finding]:
    """A finding when memhooks' hooks run in Codex for `project`, the block names the
    shell commands, and the login shell Codex runs the model's commands with finds no
    `memhooks` of this install: a problem when the tools line still says `memhooks`, a
    warning when it names the script's path (longer, and `memhooks` typed there fails)."""
    if not our_handlers("codex", project, home):
        return []
    if any(r.ours for r in registrations(project, home, "codex")):
        return []  # the block names the MCP tools, which Codex runs itself
    ours = script()
    if not ours.is_file():
        return []
    shell = login_shell()
    found = login_finds(shell)
    if same_file(found, ours):
        return []
    seen = f"finds {found}" if found else f"finds no `{PROG}`"
    bin_dir = str(ours.parent)
    if bin_dir.startswith(str(home) + "/"):
        bin_dir = "$HOME" + bin_dir[len(str(home)) :]
    files = [p for p in startup_files(shell, home) if p.parent == home]
    where = short_path(files[0], home) if files else "~/.profile"
    fix = (
        f'add `export PATH="{bin_dir}:$PATH"` to {where} (read by a login shell), '
        f"or install memhooks with pipx"
    )
    if model_prog("codex", home) == PROG:
        return [
            Finding(
                "fix",
                f"Codex: the model's commands run in a login shell ({shell} -l), which "
                f"{seen}, not {ours}: the `{PROG} write` the block tells it to run "
                f"fails. {fix[0].upper()}{fix[1:]}",
            )
        ]
    return [
        Finding(
            "warn",
            f"Codex: the model's commands run in a login shell ({shell} -l), which "
            f"{seen}, not {ours}: the block names memhooks by that path, and `{PROG}` "
            f"typed there fails. To have `{PROG}` work: {fix}",
        )
    ]


def codex_commands(root: Path, project: Path, home: Path) -> list[Finding]:
    """What the model's commands meet in Codex CLI: its sandbox (`codex_sandbox`), and
    the login shell's PATH (`check_model_shell`)."""
    return codex_sandbox(root, project, home) + check_model_shell(project, home)


__all__ = ["check_model_shell", "codex_commands", "login_finds"]

"""`memhooks install` and `memhooks uninstall`: which file, which command, what next.

The project is the git repository around ``--project`` (default: the current directory),
its main checkout for a worktree, as the memory itself resolves it: run from any
subfolder, the hooks land where the harness and `memhooks doctor` look for them.

The command written is bare ``memhooks hook --harness …`` for ``--scope project``: that
file is committed and shared, so it must work for everyone who clones the repository
with memhooks on their PATH, however they installed it. ``--scope local`` and ``user``
(files only this person reads) and ``--absolute`` name this install by its path.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from memhooks.hooks import codexreview, install
from memhooks.hooks.constants import EXIT_OK, PROG
from memhooks.hooks.errors import UsageError, project_folder
from memhooks.hooks.harnessversion import check_version, version_of
from memhooks.hooks.startedcheck import started_in
from memhooks.memory import project_dir

if TYPE_CHECKING:
    from collections.abc import Callable

_NAMES = {"claude-code": "Claude Code", "codex": "Codex CLI", "gemini": "Gemini CLI"}


def _settings(harness: install.Harness, scope: install.Scope, root: Path) -> Path:
    """The file `scope` names; a local scope only where the harness has a local file."""
    if scope == "local" and harness != "claude-code":
        raise UsageError(
            f"--scope local: {_NAMES[harness]} has no settings file of yours alone in "
            "a project; use --scope project (the file the repository shares) or "
            "--scope user (yours, every project); nothing was written"
        )
    return install.settings_path(harness, scope, project_dir=root, home=Path.home())


def hook_command(harness: install.Harness, *, absolute: bool) -> str:
    """How a harness should run us: `memhooks` from PATH, or this install by its path."""
    if not absolute:
        return f"{PROG} hook --harness {harness}"
    script = Path(sys.executable).parent / PROG
    if script.exists():
        return install.hook_command(harness, script)
    return (
        f"{shlex.quote(sys.executable)} -P -m memhooks.hooks hook --harness {harness}"
    )


def cmd_install(
    harness: install.Harness,
    out: TextIO,
    *,
    scope: install.Scope = "project",
    project: str | None = None,
    dry_run: bool = False,
    absolute: bool = False,
    which: Callable[[str], str | None] = shutil.which,
) -> int:
    """Merge our hooks into the settings file of `scope`; say what to do next."""
    here = project_folder(project)
    root = project_dir(here)
    path = _settings(harness, scope, root)
    bare = scope == "project" and not absolute
    before = _bytes(path)
    result = install.install(
        harness, path, hook_command(harness, absolute=not bare), dry_run=dry_run
    )
    lines = [result.describe(), *_moved(harness, path, before, dry_run)]
    if install.TRUST_STEPS[harness]:
        lines.append(install.TRUST_STEPS[harness])
    if dry_run:
        out.write("\n".join(lines) + "\n")
        return EXIT_OK
    if bare and not which(PROG):
        lines.append(
            f"warning: `{PROG}` is not on PATH here, so these hooks cannot run yet: "
            "install memhooks with pipx or `uv tool` (see the README), "
            "or use --absolute (then the file holds this machine's path)"
        )
    if bare and (root / ".git").exists():  # outside git there is nothing to commit to
        lines.append(
            f"Commit {path.relative_to(root)}: it runs `{PROG}` from PATH, "
            "so it works for everyone with memhooks installed."
        )
    version = version_of(harness, which)
    start = started_in(harness, here, root, Path.home(), version)
    if start:
        lines.append(f"warning: {start.message}")
    # Claude Code before 2.1.76 runs no hook of the file just written: say so now.
    lines += [f"warning: {f.message}" for f in check_version(harness, version)]
    lines.append(
        f"Next: restart {_NAMES[harness]} (it reads hooks when it starts), "
        f"then run `{PROG} doctor` in {root}."
    )
    out.write("\n".join(lines) + "\n")
    return EXIT_OK


def cmd_uninstall(
    harness: install.Harness,
    out: TextIO,
    *,
    scope: install.Scope = "project",
    project: str | None = None,
    dry_run: bool = False,
) -> int:
    """Remove every hook of ours from the settings file of `scope`."""
    root = project_dir(project_folder(project))
    path = _settings(harness, scope, root)
    before = _bytes(path)
    result = install.uninstall(harness, path, dry_run=dry_run)
    lines = [result.describe(), *_moved(harness, path, before, dry_run)]
    out.write("\n".join(lines) + "\n")
    return EXIT_OK


def _bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _moved(
    harness: install.Harness, path: Path, before: bytes | None, dry_run: bool
) -> list[str]:
    """Other tools' Codex hooks that changed place, which Codex must be told to trust."""
    if harness != "codex" or dry_run:
        return []
    events = codexreview.moved(before, _bytes(path))
    return [f"warning: {codexreview.review_again(path, events)}"] if events else []


__all__ = ["cmd_install", "cmd_uninstall", "hook_command"]

"""A harness started in a subfolder or worktree of the project, for `memhooks install`
and `memhooks doctor`: the project's settings file is not the one it reads there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from memhooks.hooks import install
from memhooks.hooks.harnesscheck import HARNESS_NAMES, Finding, has_ours
from memhooks.hooks.harnessversion import LOCAL_AT_ROOT, Version, lacks

if TYPE_CHECKING:
    from pathlib import Path

#: Harnesses that read a project's settings file only in the folder they start in
#: (Claude Code 2.1.332 and Gemini CLI 0.61.0, started in a subfolder, ran none of the
#: project's hooks: tests/e2e), and the scope of a file they read from any subfolder
#: (Claude Code's local file, which it looks for at the repository's root too, from
#: 2.1.211 on). Codex 0.171.0 reads the one at the root of the checkout it starts in: a
#: worktree's own.
READ_WHERE_STARTED = {"claude-code": "local", "gemini": "user"}


def started_in(
    harness: str,
    here: Path,
    project: Path,
    home: Path,
    version: Version | None = None,
) -> Finding | None:
    """A warning when our hooks are only in the project's settings file: the harness
    started in `here`, a subfolder or worktree of the project, runs none of them.
    `version`: the harness's release, if known; a Claude Code before `LOCAL_AT_ROOT`
    reads its local file only where it starts, so only the user's file helps there."""
    other = READ_WHERE_STARTED.get(harness)
    if harness == "codex":
        here = next((d for d in (here, *here.parents) if (d / ".git").exists()), here)
        other = "user"
    if harness == "claude-code" and lacks(version, LOCAL_AT_ROOT):
        other = "user"
    if other is None or here == project:
        return None
    h = cast("install.Harness", harness)

    def ours(scope: install.Scope, where: Path) -> bool:
        return has_ours(install.settings_path(h, scope, project_dir=where, home=home))

    if not ours("project", project) or ours("project", here):
        return None
    if ours("user", project) or ours(cast("install.Scope", other), project):
        return None
    name = HARNESS_NAMES[harness]
    mine = install.settings_path(h, "project", project_dir=here, home=home)
    return Finding(
        "warn",
        f"{name} started in {here} reads {mine.relative_to(here)} there, not "
        f"{project}'s, and runs no memhooks hook: start it in {project}, or install "
        f"with `--scope {other}` in place of `--scope project`",
    )


__all__ = ["READ_WHERE_STARTED", "started_in"]

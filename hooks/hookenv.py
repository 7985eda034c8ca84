"""The memory root Claude Code's settings give its hooks, for `memhooks doctor`.

Claude Code passes its settings' `env` to every hook it runs: with `"env":
{"MEMHOOKS_HOME": "~/claude-mem"}` in `.claude/settings.json`, Claude Code 2.1.332's hooks
used that root, empty (no block reached the model), while `memhooks write` and doctor,
run from a shell without it, used another, and doctor said nothing of the two.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from memhooks.hooks.harness_dirs import claude_dir
from memhooks.hooks.harnesscheck import Finding, our_handlers, short_path
from memhooks.hooks.hooksoff import CLAUDE_MANAGED, read_settings
from memhooks.hooks.mcp_config import ROOT_VARIABLES
from memhooks.memory.home import root_dir

if TYPE_CHECKING:
    from pathlib import Path


def claude_root(root: Path, project: Path, home: Path) -> list[Finding]:
    """A warning when Claude Code's settings point its hooks at another root than `root`."""
    if not our_handlers("claude-code", project, home):
        return []
    env: dict[str, str] = {}
    where: dict[str, Path] = {}
    # Lowest precedence first: the user's, the project's, the local file, managed.
    for path in (
        claude_dir(home) / "settings.json",
        project / ".claude" / "settings.json",
        project / ".claude" / "settings.local.json",
        CLAUDE_MANAGED,
    ):
        given = read_settings(path).get("env")
        for name in ROOT_VARIABLES:
            if isinstance(given, dict) and isinstance(given.get(name), str):
                env[name], where[name] = given[name], path
    if not env:
        return []
    theirs = root_dir(env={**os.environ, **env})
    if os.path.realpath(theirs) == os.path.realpath(root):
        return []
    name = next(n for n in ROOT_VARIABLES if n in env)
    return [
        Finding(
            "warn",
            f"Claude Code: {short_path(where[name], home)} sets {name}={env[name]} for "
            f"its hooks, so they use the memory root {theirs}, not {root}: set the same "
            "in your shell (or take it out of the settings) to keep one memory",
        )
    ]


__all__ = ["claude_root"]

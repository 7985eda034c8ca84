"""Checks of the registrations of `memhooks mcp` for `memhooks doctor`: each one's
command exists, and its server works on the hooks' memory root.
"""

from __future__ import annotations

import os
import shlex
from typing import TYPE_CHECKING

from memhooks.hooks.harnesscheck import (
    HARNESS_NAMES,
    Finding,
    executable_problem,
    short_path,
)
from memhooks.hooks.mcp_config import registrations, root_problem

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


def check_mcp(
    project: Path, home: Path, which: Callable[[str], str | None]
) -> list[Finding]:
    """Registrations of `memhooks mcp`: each one's command exists, on the hooks' root."""
    found = []
    for reg in registrations(project, home):
        if not reg.ours:
            continue
        name = HARNESS_NAMES.get(reg.harness, reg.harness)
        problem = executable_problem(shlex.join(reg.argv), project, which)
        problem = problem or root_problem(reg, os.environ)
        where = short_path(reg.path, home)
        if problem:
            found.append(
                Finding("fix", f"{name}: MCP server {reg.name!r} in {where} {problem}")
            )
            continue
        found.append(Finding("ok", f"{name}: MCP server {reg.name!r} in {where}"))
    return found


__all__ = ["check_mcp"]

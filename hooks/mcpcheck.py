"""Checks of the registrations of `memhooks mcp` for `memhooks doctor`: each one's
command exists, its server works on the hooks' memory root, and its tools may run where
no person is there to approve them (`claude -p`, `codex exec`, `gemini -p`).
"""

from __future__ import annotations

import os
import shlex
from typing import TYPE_CHECKING

from memhooks.hooks.executable import executable_problem
from memhooks.hooks.harnesscheck import HARNESS_NAMES, Finding, short_path
from memhooks.hooks.hooksoff import claude_settings, read_settings
from memhooks.hooks.mcp_config import registrations, root_problem, server_entry
from memhooks.memory.toolsline import MCP_TOOLS

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from memhooks.hooks.mcp_config import Registration

#: The tools of `memhooks mcp` that write, which Codex asks a person to approve.
_WRITERS = ("memory_write", "memory_edit", "memory_forget")


def check_mcp(
    project: Path, home: Path, which: Callable[[str], str | None]
) -> list[Finding]:
    """Registrations of `memhooks mcp`: each one's command exists, on the hooks' root;
    its tools run unattended (`_unattended`)."""
    found = []
    for reg in registrations(project, home):
        if not reg.ours:
            continue
        name = HARNESS_NAMES.get(reg.harness, reg.harness)
        problem = executable_problem(shlex.join(reg.argv), project, which)
        problem = problem or root_problem(reg, os.environ)
        where = short_path(reg.path, home)
        said = f"{name}: MCP server {reg.name!r} in {where}"
        if problem:
            found.append(Finding("fix", f"{said} {problem}"))
        elif warning := _unattended(reg, project, home):
            found.append(Finding("warn", f"{said}: {warning}"))
        else:
            found.append(Finding("ok", said))
    return found


def _unattended(reg: Registration, project: Path, home: Path) -> str | None:
    """What a run with nobody to approve a tool call (`claude -p`, `codex exec`,
    `gemini -p`) refuses of the entry's tools, and the fix; None when they all run."""
    if reg.harness == "claude-code" and not _claude_allows(reg, project, home):
        return (
            "`claude -p`, which cannot ask before a tool call, refuses its tools; allow "
            "them in .claude/settings.json (or ~/.claude/settings.json): "
            f'"permissions": {{"allow": ["mcp__{reg.name}"]}}'
        )
    if reg.harness == "gemini" and server_entry(reg).get("trust") is not True:
        # Gemini CLI 0.61.0: `gemini -p` listed none of an untrusted server's tools.
        return (
            "`gemini -p` offers the model none of its tools (Gemini asks before a call "
            'of an untrusted server\'s, and a headless run cannot ask); add "trust": '
            "true to its entry to let them run unasked"
        )
    asks = _codex_asks(reg)
    if not asks:
        return None
    return (
        f"Codex asks before each call of {', '.join(asks)} and `codex exec`, which "
        'cannot ask, refuses them; add default_tools_approval_mode = "approve" to '
        f"[mcp_servers.{reg.name}]"
    )


def _claude_allows(reg: Registration, project: Path, home: Path) -> bool:
    """Whether Claude Code's settings let every tool of the server run unasked: a
    `permissions.allow` rule `mcp__NAME` or `mcp__NAME__*`, a rule for each tool, or
    `defaultMode` "bypassPermissions" (Claude Code 2.1.332's `claude -p` answered any
    other call "Claude requested permissions to use mcp__memhooks__memory_search, but
    you haven't granted it yet")."""
    server = f"mcp__{reg.name}"
    rules: set[str] = set()
    for path in claude_settings(project, home):
        perms = read_settings(path).get("permissions")
        if not isinstance(perms, dict):
            continue
        if perms.get("defaultMode") == "bypassPermissions":
            return True
        if isinstance(allow := perms.get("allow"), list):
            rules.update(r for r in allow if isinstance(r, str))
    if rules & {server, f"{server}__*"}:
        return True
    return all(f"{server}__{tool}" in rules for tool in MCP_TOOLS)


def _codex_asks(reg: Registration) -> list[str]:
    """The writing tools a Codex entry leaves to a person's approval: those whose
    `approval_mode` (`[mcp_servers.NAME.tools.TOOL]`), else the entry's
    `default_tools_approval_mode`, is not "approve" (Codex CLI 0.171.0 runs a tool so
    approved under `codex exec`, and answers any other call of it "MCP tool call
    requires approval, but approval policy is never")."""
    if reg.harness != "codex":
        return []
    table = server_entry(reg)
    default = table.get("default_tools_approval_mode")
    tools = table.get("tools")
    tools = tools if isinstance(tools, dict) else {}

    def mode(tool: str) -> object:
        own = tools.get(tool)
        own = own.get("approval_mode") if isinstance(own, dict) else None
        return own if own is not None else default

    return [t for t in _WRITERS if mode(t) != "approve"]


__all__ = ["check_mcp"]

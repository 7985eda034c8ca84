"""Where each harness keeps its user's files: its own variable moves them from home.

Claude Code reads `settings.json` in `$CLAUDE_CONFIG_DIR`, else `~/.claude`, and its
state (MCP servers of `claude mcp add`) from `.claude.json` there, else `~/.claude.json`;
Codex CLI reads `hooks.json` and `config.toml` in `$CODEX_HOME`, else `~/.codex`; Gemini
CLI reads `settings.json` in `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. With the
variable set, Claude Code 2.1.332, Codex CLI 0.171.0 and Gemini CLI 0.61.0 ran none of the
hooks a user-scope install had put in the home folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def _moved(variable: str, default: Path) -> Path:
    value = os.environ.get(variable)
    return Path(value).expanduser() if value else default


def claude_dir(home: Path) -> Path:
    """Claude Code's user folder (`settings.json`)."""
    return _moved("CLAUDE_CONFIG_DIR", home / ".claude")


def claude_state(home: Path) -> Path:
    """Claude Code's user state file (`mcpServers`, per project too)."""
    return _moved("CLAUDE_CONFIG_DIR", home) / ".claude.json"


def codex_dir(home: Path) -> Path:
    """Codex CLI's user folder (`hooks.json`, `config.toml`)."""
    return _moved("CODEX_HOME", home / ".codex")


def codex_config(path: Path) -> dict[str, Any]:
    """A Codex `config.toml` (the user's in `codex_dir`, or a project's
    ``.codex/config.toml``) as its table: {} when missing or unreadable."""
    import tomllib  # only where a config.toml is read

    try:
        return tomllib.loads(path.read_text("utf-8"))
    except (OSError, ValueError):  # ValueError: bad TOML or UTF-8
        return {}


def gemini_dir(home: Path) -> Path:
    """Gemini CLI's user folder (`settings.json`)."""
    return _moved("GEMINI_CLI_HOME", home) / ".gemini"


__all__ = ["claude_dir", "claude_state", "codex_config", "codex_dir", "gemini_dir"]

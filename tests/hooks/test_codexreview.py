"""`memhooks uninstall codex` says when another tool's reviewed Codex hooks moved.

With Codex CLI 0.171.0: memhooks installed, then another tool's SessionStart group
appended after ours in `.codex/hooks.json`, every hook trusted in the TUI's "Hooks need
review" (config.toml: `[hooks.state."<hooks.json>:session_start:1:0"] trusted_hash`);
`codex exec` ran both. After `memhooks uninstall codex` that group sat at `:0:0`, where
the hash was ours: `codex exec` ran it no more, and said nothing, nor did the uninstall.
"""

from __future__ import annotations

import json
import subprocess
from typing import TYPE_CHECKING

import pytest

from tests.conftest import run_cli

if TYPE_CHECKING:
    from pathlib import Path

OTHER = {"hooks": [{"type": "command", "command": "echo other-tool-context"}]}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path / "p")], check=True)
    return tmp_path / "p"


def _add_other(settings: Path, event: str, *, first: bool) -> None:
    data = json.loads(settings.read_text())
    groups = data["hooks"][event]
    data["hooks"][event] = [OTHER, *groups] if first else [*groups, OTHER]
    settings.write_text(json.dumps(data, indent=2))


def test_another_tools_hooks_after_ours_are_named_for_review(repo: Path) -> None:
    assert run_cli("install", "codex", cwd=repo).returncode == 0
    settings = repo / ".codex" / "hooks.json"
    _add_other(settings, "SessionStart", first=False)
    _add_other(settings, "UserPromptSubmit", first=True)  # before ours: stays

    done = run_cli("uninstall", "codex", cwd=repo)

    assert done.returncode == 0, done.stderr
    warned = [ln for ln in done.stdout.splitlines() if ln.startswith("warning:")]
    assert warned == [
        (
            f"warning: Codex: the other hooks on SessionStart in {settings} moved, and "
            "Codex runs a hook only at the place it was reviewed: review them again with "
            "/hooks in `codex` (until then Codex skips them, and `codex exec` does so "
            "silently)"
        )
    ]
    kept = json.loads(settings.read_text())["hooks"]
    assert kept == {"SessionStart": [OTHER], "UserPromptSubmit": [OTHER]}


@pytest.mark.parametrize("harness", ["codex", "claude-code"])
def test_nothing_moved_nothing_said(repo: Path, harness: str) -> None:
    assert run_cli("install", harness, cwd=repo).returncode == 0
    folder = ".codex/hooks.json" if harness == "codex" else ".claude/settings.json"
    _add_other(repo / folder, "SessionStart", first=harness == "codex")

    done = run_cli("uninstall", harness, cwd=repo)

    assert done.returncode == 0, done.stderr
    assert "warning:" not in done.stdout

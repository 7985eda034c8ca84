"""`memhooks doctor` warns when Claude Code's settings give its hooks another memory root.

Claude Code 2.1.332 ran memhooks' hooks with the `env` of its settings: with
`"MEMHOOKS_HOME": "~/claude-mem"` in the project's `.claude/settings.json` they used that
root (empty: no block reached the model) while doctor, run from the shell, said nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memhooks.hooks.install import install, settings_path
from tests.conftest import run_cli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    p.mkdir()
    return p


@pytest.fixture
def settings(project: Path) -> Path:
    path = settings_path(
        "claude-code", "project", project_dir=project, home=Path(os.environ["HOME"])
    )
    install("claude-code", path, "memhooks hook --harness claude-code")
    return path


def _warned(project: Path) -> list[str]:
    out = run_cli("doctor", "--project", str(project)).stdout
    return [ln for ln in out.splitlines() if "for its hooks" in ln]


def _env(path: Path, env: dict[str, str]) -> None:
    data = json.loads(path.read_text()) if path.exists() else {}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**data, "env": env}))


def test_settings_that_move_the_hooks_root_are_warned_about(
    memory_root: Path, project: Path, settings: Path
) -> None:
    _env(settings, {"MEMHOOKS_HOME": "~/claude-mem", "OTHER": "x"})
    other = Path(os.environ["HOME"]) / "claude-mem"

    assert _warned(project) == [
        (
            f"warn: Claude Code: {settings} sets MEMHOOKS_HOME=~/claude-mem for its hooks, "
            f"so they use the memory root {other}, not {memory_root}: set the same in "
            "your shell (or take it out of the settings) to keep one memory"
        )
    ]
    # The local file wins over the project's: the same root as the shell's is no news.
    _env(
        project / ".claude" / "settings.local.json", {"MEMHOOKS_HOME": str(memory_root)}
    )
    assert _warned(project) == []


def test_settings_that_name_the_same_root_or_none_say_nothing(
    memory_root: Path, project: Path, settings: Path
) -> None:
    assert _warned(project) == []
    _env(settings, {"MEMHOOKS_HOME": str(memory_root)})
    assert _warned(project) == []
    # Without memhooks' hooks in Claude Code, its env is not ours to judge.
    settings.unlink()
    _env(settings, {"MEMHOOKS_HOME": "/elsewhere"})
    assert _warned(project) == []

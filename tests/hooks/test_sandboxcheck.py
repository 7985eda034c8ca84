"""`memhooks doctor` warns when Codex's sandbox keeps the model's `memhooks write` from
the memory root.

Each config.toml below was run with the real Codex CLI 0.171.0 (`codex exec`, the mock
model running `memhooks write --to daily …` through its shell tool, the project trusted,
`approval_policy = "never"`): `fails` is what that write did.
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
def codex_config(project: Path) -> Path:
    home = Path(os.environ["HOME"])
    hooks = settings_path("codex", "project", project_dir=project, home=home)
    install("codex", hooks, "memhooks hook --harness codex")
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    return config


def _warned(project: Path) -> list[str]:
    out = run_cli("doctor", "--project", str(project)).stdout
    return [ln for ln in out.splitlines() if "Codex's sandbox" in ln]


#: What every run's config.toml held besides (the project trusted, as Codex records it).
BASE = (
    'model = "m"\napproval_policy = "never"\n\n'
    '[projects."{project}"]\ntrust_level = "trusted"\n'
)


@pytest.mark.parametrize(
    ("head", "tail", "fails"),
    [
        pytest.param("", "", True, id="nothing-set"),
        pytest.param('sandbox_mode = "workspace-write"\n', "", True, id="workspace"),
        pytest.param(
            'sandbox_mode = "read-only"\n', "{roots}", True, id="read-only-with-roots"
        ),
        pytest.param("", "{roots}", False, id="writable-roots"),
        pytest.param('sandbox_mode = "workspace-write"\n', "{roots}", False, id="both"),
        pytest.param('sandbox_mode = "danger-full-access"\n', "", False, id="full"),
    ],
)
def test_a_sandbox_that_cannot_write_the_root_is_warned_about(
    memory_root: Path,
    project: Path,
    codex_config: Path,
    head: str,
    tail: str,
    fails: bool,
) -> None:
    roots = f"\n[sandbox_workspace_write]\nwritable_roots = [{json.dumps(str(memory_root))}]\n"
    codex_config.write_text(
        head + BASE.format(project=project) + tail.format(roots=roots)
    )

    warned = _warned(project)

    if not fails:
        assert warned == []
        return
    (line,) = warned
    assert line.startswith("warn: Codex: the model's commands run in Codex's sandbox")
    assert f"cannot write the memory root {memory_root}: " in line
    # The fix it names is the one that made the write work.
    assert f"writable_roots = [{json.dumps(str(memory_root))}]" in line
    assert "~/.codex/config.toml" in line


def test_a_root_given_from_home_is_the_root(
    memory_root: Path, project: Path, codex_config: Path
) -> None:
    # Codex expands "~" in writable_roots (a root given so, relative to home, wrote).
    rel = os.path.relpath(memory_root, Path(os.environ["HOME"]))
    codex_config.write_text(
        f'[sandbox_workspace_write]\nwritable_roots = ["~/{rel}"]\n'
    )
    assert _warned(project) == []


def test_no_warning_when_the_block_names_the_mcp_tools(
    project: Path, codex_config: Path
) -> None:
    # Registered, the block names the MCP tools, which Codex runs outside its sandbox.
    codex_config.write_text(
        '[mcp_servers.memhooks]\ncommand = "memhooks"\nargs = ["mcp"]\n'
        'env_vars = ["MEMHOOKS_HOME"]\n'
    )
    assert _warned(project) == []


def test_no_warning_without_memhooks_hooks_in_codex(project: Path) -> None:
    assert _warned(project) == []

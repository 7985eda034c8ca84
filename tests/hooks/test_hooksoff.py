"""`memhooks doctor` names a harness setting that turns memhooks' hooks off.

The settings are those that, set so, made Claude Code 2.1.332, Codex CLI 0.171.0 and
Gemini CLI 0.61.0 run no memhooks hook in a real session (no block reached the mock
model), while doctor said "ok" of every harness.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from memhooks.hooks.install import install, settings_path
from tests.conftest import run_cli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "my proj"
    p.mkdir()
    return p


@pytest.fixture
def home() -> Path:
    h = Path(os.environ["HOME"])  # the memory_root fixture points it at a temp folder
    h.mkdir(exist_ok=True)
    return h


def _doctor(project: Path) -> list[str]:
    """Doctor's lines that are neither ok nor the memory root's."""
    # The hooks run `memhooks` from PATH: this install's, as a harness would find it.
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    proc = run_cli("doctor", "--project", str(project), env={"PATH": path})
    return [
        ln
        for ln in proc.stdout.splitlines()[:-1]
        if not ln.startswith("ok: ") and "memory root" not in ln
    ]


def _installed(harness: str, project: Path, home: Path, scope: str = "project") -> None:
    path = settings_path(harness, scope, project_dir=project, home=home)  # type: ignore[arg-type]
    install(harness, path, f"memhooks hook --harness {harness}")  # type: ignore[arg-type]


def _merge(path: Path, extra: dict[str, object]) -> None:
    data = json.loads(path.read_text()) if path.exists() else {}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**data, **extra}))


def test_claude_code_with_all_hooks_disabled(project: Path, home: Path) -> None:
    _installed("claude-code", project, home)
    assert _doctor(project) == []
    _merge(home / ".claude" / "settings.json", {"disableAllHooks": True})

    assert _doctor(project) == [
        (
            "fix: Claude Code: disableAllHooks is true in ~/.claude/settings.json, so "
            "Claude Code runs no hook, memhooks' neither: remove it"
        )
    ]
    # A false elsewhere: which one wins is Claude Code's to say (a warning).
    _merge(project / ".claude" / "settings.local.json", {"disableAllHooks": False})
    (line,) = _doctor(project)
    assert line.startswith("warn: Claude Code: disableAllHooks is true in ~/.claude/")
    assert f"(false in {project}/.claude/settings.local.json)" in line


def test_codex_with_the_hooks_feature_off(project: Path, home: Path) -> None:
    _installed("codex", project, home)
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "m"\n\n[features]\nhooks = false\n')

    fixes = [ln for ln in _doctor(project) if ln.startswith("fix: ")]

    assert fixes == [
        (
            "fix: Codex: [features] hooks = false in ~/.codex/config.toml, so Codex runs "
            "no hook, memhooks' neither: remove that line"
        )
    ]
    # The project's config.toml wins over the user's (Codex ran the hooks so).
    (project / ".codex" / "config.toml").write_text("[features]\nhooks = true\n")
    assert not [ln for ln in _doctor(project) if "[features]" in ln]


@pytest.mark.parametrize(
    ("user", "expected"),
    [
        (
            {"enabled": False},
            (
                "fix: Gemini CLI: hooksConfig.enabled is false in ~/.gemini/settings.json, "
                "so Gemini CLI runs no hook, memhooks' neither: remove it"
            ),
        ),
        (
            {"disabled": ["memhooks"]},  # what `/hooks disable memhooks` writes
            (
                "fix: Gemini CLI: hooksConfig.disabled in ~/.gemini/settings.json lists "
                "'memhooks', so Gemini CLI skips memhooks' hooks: take it out (or "
                "`/hooks enable memhooks` in Gemini CLI)"
            ),
        ),
    ],
)
def test_gemini_with_hooks_disabled(
    project: Path, home: Path, user: dict[str, object], expected: str
) -> None:
    _installed("gemini", project, home)
    _merge(home / ".gemini" / "trustedFolders.json", {str(project): "TRUST_FOLDER"})
    # The workspace's "enabled": true does not turn them on again (Gemini CLI 0.61.0).
    _merge(project / ".gemini" / "settings.json", {"hooksConfig": {"enabled": True}})
    _merge(home / ".gemini" / "settings.json", {"hooksConfig": user})

    assert _doctor(project) == [expected]


@pytest.mark.parametrize("scope", ["project", "user"])
def test_gemini_in_a_folder_it_does_not_trust(
    project: Path, home: Path, scope: str
) -> None:
    # Gemini CLI 0.61.0 started there said "project settings … will not be applied"
    # and ran none of memhooks' hooks, those in ~/.gemini/settings.json neither (which
    # doctor gave as the way round it); doctor said ok.
    _installed("gemini", project, home, scope)
    rules = home / ".gemini" / "trustedFolders.json"
    _merge(rules, {str(project): "DO_NOT_TRUST"})

    assert _doctor(project) == [
        (
            f"fix: Gemini CLI: ~/.gemini/trustedFolders.json marks {project} DO_NOT_TRUST, "
            f"so Gemini CLI runs no hook of its settings in {project}, memhooks' neither "
            "(~/.gemini/settings.json's neither): trust it (/permissions in Gemini CLI)"
        )
    ]
    proc = run_cli(
        "doctor", "--project", str(project), env={"GEMINI_CLI_TRUST_WORKSPACE": "true"}
    )
    assert "DO_NOT_TRUST" not in proc.stdout
    # The longest rule wins: the project trusted in a folder that is not.
    rules.write_text(
        json.dumps({str(project.parent): "DO_NOT_TRUST", str(project): "TRUST_FOLDER"})
    )
    assert _doctor(project) == []


def test_gemini_in_a_folder_it_was_never_asked_to_trust(
    project: Path, home: Path
) -> None:
    # Gemini CLI 0.61.0's `gemini -p` there exits 55 ("not running in a trusted
    # directory"); its TUI asks first. Doctor said ok.
    _installed("gemini", project, home)
    assert _doctor(project) == [
        (
            f"warn: Gemini CLI: {project} is not trusted yet, and Gemini CLI runs the "
            "hooks of its settings, memhooks' too (~/.gemini/settings.json's as well), "
            "only in a trusted folder: trust it when Gemini CLI asks at its next start "
            "there (`gemini -p` cannot ask, and exits)"
        )
    ]
    # Trusted with its parent (what "Trust parent folder" records).
    rules = home / ".gemini" / "trustedFolders.json"
    _merge(rules, {str(project / "src"): "TRUST_PARENT"})
    assert _doctor(project) == []


def test_a_switch_without_memhooks_installed_is_not_ours_to_report(
    project: Path, home: Path
) -> None:
    _merge(home / ".claude" / "settings.json", {"disableAllHooks": True})
    _merge(home / ".gemini" / "settings.json", {"hooksConfig": {"enabled": False}})

    assert not [ln for ln in _doctor(project) if "disable" in ln or "enabled" in ln]

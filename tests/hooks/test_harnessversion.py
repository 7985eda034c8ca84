"""`memhooks doctor` names a harness release older than memhooks needs, and which it needs.

The CLIs here are stand-ins on PATH printing what the real ones print for `--version`
(Claude Code 2.0.76 and 2.1.165, Codex CLI 0.134.0, Gemini CLI 0.24.0, 0.44.0 and
0.45.2, installed from npm on 2026-12-05); `memhooks doctor` runs as a user runs it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memhooks.hooks.install import hook_command, install, settings_path
from tests.conftest import run_cli

#: What each real CLI printed for `--version`.
PRINTED = {
    ("claude-code", "2.0.76"): "2.0.76 (Claude Code)",
    ("claude-code", "2.1.165"): "2.1.165 (Claude Code)",
    ("claude-code", "2.1.332"): "2.1.332 (Claude Code)",
    ("codex", "0.134.0"): "codex-cli 0.134.0",
    ("codex", "0.144.6"): "codex-cli 0.144.6",
    ("codex", "0.171.0"): "codex-cli 0.171.0",
    ("gemini", "0.24.0"): "0.24.0",
    ("gemini", "0.44.0"): "0.44.0",
    ("gemini", "0.45.2"): "0.45.2",
}
COMMAND = {"claude-code": "claude", "codex": "codex", "gemini": "gemini"}


def _cli(folder: Path, harness: str, printed: str, *, status: int = 0) -> None:
    folder.mkdir(exist_ok=True)
    path = folder / COMMAND[harness]
    path.write_text(f"#!/bin/sh\necho '{printed}'\nexit {status}\n")
    path.chmod(0o755)


def _doctor(project: Path, bins: Path) -> list[str]:
    path = f"{bins}{os.pathsep}{os.environ['PATH']}"
    done = run_cli("doctor", "--project", str(project), env={"PATH": path})
    return [ln for ln in done.stdout.splitlines() if " is older than " in ln]


@pytest.fixture
def project(memory_root: Path, tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    p.mkdir()
    Path(os.environ["HOME"]).mkdir(exist_ok=True)
    return p


def _install(harness: str, project: Path) -> None:
    where = settings_path(harness, "project", project_dir=project, home=Path.home())  # type: ignore[arg-type]
    install(harness, where, hook_command(harness, Path("memhooks")))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("harness", "version", "expected"),
    [
        pytest.param(
            "claude-code",
            "2.1.165",
            "warn: Claude Code 2.1.165 is older than 2.1.211, the release memhooks "
            "needs: run from a subfolder it reads .claude/settings.local.json there",
            id="claude-2.1.165",
        ),
        pytest.param(
            "claude-code",
            "2.0.76",
            "warn: Claude Code 2.0.76 is older than 2.1.211, the release memhooks "
            "needs: it does not know the PostCompact event and runs no hook of a "
            "settings file that names it, so no memhooks hook runs at all; run from a "
            "subfolder",
            id="claude-2.0.76",
        ),
        pytest.param(
            "gemini",
            "0.44.0",
            "warn: Gemini CLI 0.44.0 is older than 0.45.2, the release memhooks needs: "
            "`gemini --resume` sends the model the first prompt's hook context again",
            id="gemini-0.44.0",
        ),
        pytest.param(
            "gemini",
            "0.24.0",
            "warn: Gemini CLI 0.24.0 is older than 0.45.2, the release memhooks needs: "
            'it runs hooks only with "hooks": {"enabled": true} in '
            "~/.gemini/settings.json (add it, or no memhooks hook runs); `gemini "
            "--resume` sends",
            id="gemini-0.24.0",
        ),
        pytest.param(
            "codex",
            "0.134.0",
            "warn: Codex 0.134.0 is older than 0.141.0, the release memhooks needs: "
            "`codex exec --dangerously-bypass-hook-trust` runs no unreviewed hook",
            id="codex-0.134.0",
        ),
    ],
)
def test_an_older_release_is_named_with_the_one_needed(
    project: Path, tmp_path: Path, harness: str, version: str, expected: str
) -> None:
    _install(harness, project)
    _cli(tmp_path / "bin", harness, PRINTED[harness, version])
    lines = _doctor(project, tmp_path / "bin")
    assert len(lines) == 1, lines
    assert lines[0].startswith(expected), lines
    assert lines[0].endswith("or as you installed it)"), lines
    # Not to be taken for the warning of a harness started in a subfolder.
    assert "started in" not in lines[0], lines


@pytest.mark.parametrize(
    ("harness", "version"),
    [
        ("claude-code", "2.1.332"),
        ("codex", "0.144.6"),
        ("codex", "0.171.0"),
        ("gemini", "0.45.2"),
    ],
)
def test_a_release_memhooks_works_with_is_not_reported(
    project: Path, tmp_path: Path, harness: str, version: str
) -> None:
    _install(harness, project)
    _cli(tmp_path / "bin", harness, PRINTED[harness, version])
    assert _doctor(project, tmp_path / "bin") == []


def test_nothing_is_said_of_an_old_cli_memhooks_is_not_installed_for(
    project: Path, tmp_path: Path
) -> None:
    _cli(tmp_path / "bin", "codex", PRINTED["codex", "0.134.0"])
    assert _doctor(project, tmp_path / "bin") == []


def test_a_cli_that_fails_or_prints_no_version_is_not_reported(
    project: Path, tmp_path: Path
) -> None:
    _install("codex", project)
    _cli(tmp_path / "bin", "codex", PRINTED["codex", "0.134.0"], status=1)
    assert _doctor(project, tmp_path / "bin") == []
    _cli(tmp_path / "bin", "codex", "codex-cli (development build)")
    assert _doctor(project, tmp_path / "bin") == []


def test_codex_before_session_end_is_not_asked_to_review_a_hook_it_never_lists(
    project: Path, tmp_path: Path
) -> None:
    """Codex 0.134.0's /hooks listed 4 memhooks hooks (no SessionEnd) and, trusted, wrote
    these keys into config.toml (2026-12-05); doctor kept asking for a review it cannot
    make. Codex 0.171.0 lists SessionEnd too: the same review leaves it unreviewed."""
    _install("codex", project)
    hooks = project / ".codex" / "hooks.json"
    reviewed = "".join(
        f'[hooks.state."{hooks}:{event}:0:0"]\ntrusted_hash = "sha256:c306ea4b"\n'
        for event in (
            "pre_compact",
            "post_compact",
            "session_start",
            "user_prompt_submit",
        )
    )
    codex = Path.home() / ".codex"
    codex.mkdir()
    trusted = f'[projects."{project}"]\ntrust_level = "trusted"\n'
    (codex / "config.toml").write_text(trusted + "[hooks.state]\n" + reviewed)
    review = 'trust them when it shows "Hooks need review"'
    for version, asked in (("0.134.0", False), ("0.171.0", True)):
        _cli(tmp_path / "bin", "codex", PRINTED["codex", version])
        path = f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"
        done = run_cli("doctor", "--project", str(project), env={"PATH": path})
        assert (review in done.stdout) is asked, (version, done.stdout)


def test_install_says_at_once_that_the_release_runs_none_of_its_hooks(
    project: Path, tmp_path: Path
) -> None:
    """Claude Code 2.0.76 ran no hook of the file `memhooks install` had just written (it
    names PostCompact), with no error anywhere: install says so, as doctor does."""
    _cli(tmp_path / "bin", "claude-code", PRINTED["claude-code", "2.0.76"])
    path = f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"
    done = run_cli(
        "install", "claude-code", "--project", str(project), env={"PATH": path}
    )
    assert done.returncode == 0, done.stderr
    said = [ln for ln in done.stdout.splitlines() if " is older than " in ln]
    assert len(said) == 1, done.stdout
    assert said[0].startswith(
        "warning: Claude Code 2.0.76 is older than 2.1.211, the release memhooks needs: "
        "it does not know the PostCompact event"
    ), said
    _cli(tmp_path / "bin", "claude-code", PRINTED["claude-code", "2.1.332"])
    done = run_cli(
        "install", "claude-code", "--project", str(project), env={"PATH": path}
    )
    assert " is older than " not in done.stdout, done.stdout


def test_a_subfolder_is_told_the_scope_that_its_claude_code_reads(
    project: Path, tmp_path: Path
) -> None:
    """Claude Code 2.1.165, started in a subfolder, read .claude/settings.local.json there
    and not at the repository's root (tests/e2e; 2.1.211 reads the root's): the
    `--scope local` that install and doctor advised ran no hook. For it they advise
    `--scope user`; for 2.1.332 `--scope local`, as before."""
    import subprocess

    subprocess.run(["git", "init", "-q", str(project)], check=True)
    sub = project / "pkg"
    sub.mkdir()
    path = f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"
    for version, scope in (("2.1.165", "user"), ("2.1.332", "local")):
        _cli(tmp_path / "bin", "claude-code", PRINTED["claude-code", version])
        said = run_cli("install", "claude-code", cwd=sub, env={"PATH": path}).stdout
        advice = f"or install with `--scope {scope}` in place of `--scope project`"
        assert f"started in {sub} reads" in said and advice in said, (version, said)
        doctor = run_cli("doctor", cwd=sub, env={"PATH": path}).stdout
        assert advice in doctor, (version, doctor)
        run_cli("uninstall", "claude-code", cwd=sub)
    # A local install, read from a subfolder by 2.1.332 only.
    run_cli("install", "claude-code", "--scope", "local", cwd=sub)
    run_cli("install", "claude-code", cwd=project)
    for version, warned in (("2.1.165", True), ("2.1.332", False)):
        _cli(tmp_path / "bin", "claude-code", PRINTED["claude-code", version])
        doctor = run_cli("doctor", cwd=sub, env={"PATH": path}).stdout
        assert (f"started in {sub} reads" in doctor) is warned, (version, doctor)

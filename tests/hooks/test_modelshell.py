"""The `memhooks` the block's tools line names, and doctor's check of the login shell
Codex CLI runs the model's commands with (hooks/modelshell.py, hooks/shellcheck.py).

tests/e2e/test_first_day.py runs the three real CLIs: Claude Code's and Gemini CLI's
model found the venv's `memhooks` on the PATH the CLI had; Codex's, in a login shell,
found none until ~/.profile put the venv's bin on PATH.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memhooks.hooks import modelshell, shellcheck
from memhooks.hooks.install import install, settings_path
from memhooks.hooks.modelshell import model_prog, named_at_login, script
from memhooks.memory import Store, slug_for
from tests.conftest import run_cli

BIN = script().parent


@pytest.fixture
def home() -> Path:
    h = Path(os.environ["HOME"])
    h.mkdir(exist_ok=True)
    return h


@pytest.fixture
def bash(monkeypatch: pytest.MonkeyPatch) -> None:
    """The person's login shell is bash, whatever this machine's account says."""
    monkeypatch.setattr(modelshell, "login_shell", lambda: "/bin/bash")
    monkeypatch.setattr(shellcheck, "login_shell", lambda: "/bin/bash")


def test_claude_and_gemini_name_it_plain_when_their_path_finds_this_install() -> None:
    # tests/conftest.py puts this venv's bin first on PATH, as an activated venv does.
    assert model_prog("claude-code") == "memhooks"
    assert model_prog("gemini") == "memhooks"
    assert model_prog(None) == "memhooks"


def test_a_path_without_it_or_with_another_memhooks_first_names_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert model_prog("claude-code") == shlex.quote(str(script()))
    other = tmp_path / "old" / "memhooks"  # an older install, first on PATH
    other.parent.mkdir()
    other.write_text("#!/bin/sh\n")
    other.chmod(0o755)
    monkeypatch.setenv("PATH", f"{other.parent}:{BIN}:/usr/bin")
    assert model_prog("gemini") == shlex.quote(str(script()))


@pytest.mark.usefixtures("bash")
def test_codex_names_the_path_unless_a_login_shell_file_names_the_folder(
    home: Path,
) -> None:
    # Codex's PATH is the hook's too, but not the model's: PATH is not looked at.
    assert model_prog("codex", home) == str(script())
    profile = home / ".profile"
    profile.write_text(f'# PATH="{BIN}:$PATH"\n')  # a comment sets nothing
    assert model_prog("codex", home) == str(script())
    profile.write_text(f'export PATH="{BIN}:$PATH"\n')
    assert model_prog("codex", home) == "memhooks"
    # bash, a login shell, reads only the first of these three that exists.
    (home / ".bash_profile").write_text("umask 022\n")
    assert model_prog("codex", home) == str(script())


def test_a_folder_under_home_is_named_by_any_spelling_of_home(home: Path) -> None:
    folder = home / ".local" / "bin"
    assert not named_at_login(folder, home, "/bin/bash")
    for spelled in ("~/.local/bin", "$HOME/.local/bin", "${HOME}/.local/bin"):
        (home / ".profile").write_text(f'PATH="{spelled}:$PATH"\n')
        assert named_at_login(folder, home, "/bin/bash"), spelled
        assert named_at_login(folder, home, "/bin/sh"), spelled
        assert not named_at_login(folder, home, "/usr/bin/fish"), spelled
    (home / ".zprofile").write_text('path+=("$HOME/.local/bin")\n')
    assert named_at_login(folder, home, "/bin/zsh")
    assert named_at_login(Path("/usr/bin"), home, "/usr/bin/fish")


def test_the_check_reads_no_more_than_a_few_files(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a hook pays for it: PATH looked up, or a few small files read; no process
    is run (a login shell per hook costs some 330 ms)."""
    read: list[Path] = []
    real = Path.read_text

    def counted(self: Path, *args: Any, **kwargs: Any) -> str:
        read.append(self)
        return real(self, *args, **kwargs)

    def refused(*args: object, **kwargs: object) -> None:
        pytest.fail("a process was run")

    monkeypatch.setattr(Path, "read_text", counted)
    monkeypatch.setattr(subprocess, "Popen", refused)
    (home / ".profile").write_text("export EDITOR=vi\n")
    model_prog("claude-code")
    assert read == []
    model_prog("codex", home)
    assert 1 <= len(read) <= 4, read


def _codex_installed(project: Path, home: Path) -> None:
    hooks = settings_path("codex", "project", project_dir=project, home=home)
    install("codex", hooks, "memhooks hook --harness codex")


def _findings(project: Path, home: Path) -> list[str]:
    return [
        f"{f.level}: {f.message}" for f in shellcheck.check_model_shell(project, home)
    ]


@pytest.mark.usefixtures("bash")
def test_doctor_says_when_codex_login_shell_finds_no_memhooks(
    tmp_path: Path, home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    assert _findings(project, home) == []  # no Codex hooks: not asked
    _codex_installed(project, home)
    # The real login shell: /etc/profile sets PATH, no file of HOME adds the venv.
    (warn,) = _findings(project, home)
    assert warn.startswith("warn: Codex: the model's commands run in a login shell")
    assert (
        "finds no `memhooks`" in warn
        and "the block names memhooks by that path" in warn
    )
    assert f'add `export PATH="{BIN}:$PATH"` to ~/.profile' in warn
    out = run_cli("doctor", "--project", str(project)).stdout
    assert "Codex: the model's commands run in a login shell" in out
    # Doctor's fix, taken: the login shell finds it, and nothing is said.
    (home / ".profile").write_text(f'export PATH="{BIN}:$PATH"\n')
    assert _findings(project, home) == []


@pytest.mark.usefixtures("bash")
def test_a_file_that_names_the_folder_but_leaves_it_off_path_is_a_problem(
    tmp_path: Path, home: Path
) -> None:
    """The tools line says plain `memhooks` (a start-up file names the venv), yet the
    login shell does not find it: the model's write fails, so doctor exits 1."""
    project = tmp_path / "proj"
    project.mkdir()
    _codex_installed(project, home)
    (home / ".profile").write_text(f'[ -d /nowhere ] && PATH="{BIN}:$PATH"\n')
    assert model_prog("codex", home) == "memhooks"
    (fix,) = _findings(project, home)
    assert fix.startswith("fix: Codex:") and "`memhooks write` the block tells" in fix


def _hits_header(project: Path, env: dict[str, str], session: str) -> str:
    payload = {
        "session_id": session,
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "How do we deploy the billing service?",
    }
    proc = run_cli("hook", input=json.dumps(payload), env=env)
    assert proc.returncode == 0, proc.stderr
    ctx: str = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    return next(ln for ln in ctx.splitlines() if ln.startswith("Related memory"))


def test_auto_search_names_the_same_command_as_the_tools_line(
    project: Path, memory_root: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_note(
        "billing", "# Billing\nWe deploy the billing service with make ship."
    )
    plain = _hits_header(project, {}, "s1")
    assert "(auto-search; `memhooks read PATH` for the whole file)" in plain
    gone = _hits_header(project, {"PATH": "/usr/bin:/bin"}, "s2")
    assert f"(auto-search; `{script()} read PATH` for the whole file)" in gone


def _block(project: Path, env: dict[str, str], session: str) -> str:
    payload = {
        "session_id": session,
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    proc = run_cli("hook", input=json.dumps(payload), env=env)
    assert proc.returncode == 0, proc.stderr
    block: str = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    return block


def test_the_notes_title_names_the_same_command_as_the_tools_line(
    project: Path, memory_root: Path
) -> None:
    """The block's index of notes says how to read one: with the command the model's
    shell runs, as its last line does; `memhooks inject` shows the block so too."""
    Store(memory_root, slug_for(str(project))).write_note("billing", "# Billing\nx\n")
    plain = _block(project, {}, "s1")
    assert "## Notes (read with `memhooks read notes/NAME`)" in plain
    gone = _block(project, {"PATH": "/usr/bin:/bin"}, "s2")
    assert f"## Notes (read with `{script()} read notes/NAME`)" in gone
    assert f"`{script()} write --to" in gone.splitlines()[-1]
    shown = run_cli("inject", cwd=project, env={"PATH": "/usr/bin:/bin"})
    assert f"## Notes (read with `{script()} read notes/NAME`)" in shown.stdout


def test_a_commands_hints_name_memhooks_as_its_shell_runs_it(project: Path) -> None:
    """What a command tells its caller to run next names `memhooks` as the caller's shell
    finds this install: the model in Codex's login shell runs it by its path, and a hint
    that said plain `memhooks` failed there as the block's commands did."""
    secret = "export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ"
    for env, prog in (({}, "memhooks"), ({"PATH": "/usr/bin:/bin"}, str(script()))):
        wrote = run_cli(
            "write", "--to", "memory", "--text", secret, cwd=project, env=env
        )
        assert wrote.returncode == 0, wrote.stderr
        assert f"stored as given, remove it with `{prog} edit`" in wrote.stderr
        daily = ("write", "--to", "daily", "--mode", "overwrite", "--text", "x")
        refused = run_cli(*daily, cwd=project, env=env)
        assert f"change an entry with `{prog} edit`" in refused.stderr
        dashed = run_cli("search", "--cap", cwd=project, env=env)
        assert f"put -- before the terms: {prog} search -- --cap" in dashed.stderr

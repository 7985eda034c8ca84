"""A hook command whose script is there but whose Python is gone, as after `brew upgrade`
removed the Python a venv (or pipx's) was made from: every hook exits 127, and doctor
must say so rather than 'command found'."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memhooks.hooks.executable import interpreter
from memhooks.hooks.install import hook_command, install, settings_path
from memhooks.memory import Store
from tests.conftest import run_cli

#: The console script of this very install, as pip wrote it.
MEMHOOKS = Path(sys.executable).parent / "memhooks"


def _stranded_venv(at: Path) -> Path:
    """A venv whose `bin/python3` links to a Python removed since: its memhooks script
    is pip's, byte for byte, but for the Python its first line names."""
    bin_ = at / "bin"
    bin_.mkdir(parents=True)
    python = bin_ / "python3"
    python.symlink_to(at / "gone" / "python3.11")  # the link dangles
    script = MEMHOOKS.read_bytes().split(b"\n", 1)[1]
    memhooks = bin_ / "memhooks"
    memhooks.write_bytes(b"#!" + bytes(python) + b"\n" + script)
    memhooks.chmod(0o755)
    return memhooks


def _healthy(memory_root: Path, project: Path) -> None:
    Store.for_project(memory_root, project).write_memory("- a rule")


def _stranded(memory_root: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A healthy project, and the memhooks script of a venv whose Python is gone."""
    project = tmp_path / "proj"
    project.mkdir()
    _healthy(memory_root, project)
    return project, _stranded_venv(tmp_path / "venv")


def test_a_hook_whose_python_is_gone_is_named(
    memory_root: Path, tmp_path: Path
) -> None:
    project, memhooks = _stranded(memory_root, tmp_path)
    home = Path(os.environ["HOME"])
    settings = settings_path("claude-code", "project", project_dir=project, home=home)
    install("claude-code", settings, hook_command("claude-code", memhooks))
    # What the harness meets: the shell it runs the command with finds no program.
    ran = subprocess.run(
        ["/bin/sh", "-c", f"{memhooks} hook --harness claude-code"],
        input="{}",
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 127, ran

    proc = run_cli("doctor", "--project", str(project))

    assert proc.returncode == 1, proc.stdout
    python = tmp_path / "venv" / "bin" / "python3"
    said = (
        f"fix: Claude Code: hook in {settings} runs {memhooks}, whose Python {python} "
        "is gone: reinstall memhooks with a Python that is there (`pipx reinstall "
        "memhooks`, `uv tool install --reinstall .` in a clone, or a new venv), then "
        "run `memhooks install claude-code --scope project` with it"
    )
    assert [ln for ln in proc.stdout.splitlines() if ln.startswith("fix: ")] == [said]


def test_the_memhooks_on_path_whose_python_is_gone_is_named(
    memory_root: Path, tmp_path: Path
) -> None:
    # The plain `memhooks hook` a shared settings file holds, found on PATH (pipx's link).
    project, memhooks = _stranded(memory_root, tmp_path)
    on_path = tmp_path / "local-bin"
    on_path.mkdir()
    (on_path / "memhooks").symlink_to(memhooks)
    home = Path(os.environ["HOME"])
    settings = settings_path("claude-code", "project", project_dir=project, home=home)
    install("claude-code", settings, "memhooks hook --harness claude-code")

    proc = run_cli(
        "doctor",
        "--project",
        str(project),
        env={"PATH": os.pathsep.join([str(on_path), "/usr/bin", "/bin"])},
    )

    assert proc.returncode == 1, proc.stdout
    python = tmp_path / "venv" / "bin" / "python3"
    said = (
        f"fix: Claude Code: hook in {settings} runs `memhooks` "
        f"({on_path / 'memhooks'}), whose Python {python} is gone: reinstall memhooks "
        "with a Python that is there (`pipx reinstall memhooks`, `uv tool install "
        "--reinstall .` in a clone, or a new venv)"
    )
    assert [ln for ln in proc.stdout.splitlines() if ln.startswith("fix: ")] == [said]


@pytest.mark.parametrize(
    ("head", "named"),
    [
        pytest.param(b"#!/opt/venv/bin/python3\nimport sys\n", "/opt/venv/bin/python3"),
        pytest.param(b"#!/opt/venv/bin/python -I\n", "/opt/venv/bin/python", id="args"),
        # pip's launcher for a venv under a path with a space
        pytest.param(
            b"#!/bin/sh\n'''exec' \"/my venvs/m/bin/python\" \"$0\" \"$@\"\n' '''\n",
            "/my venvs/m/bin/python",
            id="sh-launcher",
        ),
        pytest.param(b"#!/usr/bin/env python3\n", "/usr/bin/env", id="env"),
        pytest.param(b"\x7fELF\x02\x01\x01", None, id="compiled"),
        pytest.param(b"#!python\n", None, id="relative"),
    ],
)
def test_the_python_a_script_starts(tmp_path: Path, head: bytes, named: str) -> None:
    script = tmp_path / "memhooks"
    script.write_bytes(head)

    assert interpreter(str(script)) == named


def test_a_hook_run_as_the_first_release_named_its_module_is_named(
    memory_root: Path, tmp_path: Path
) -> None:
    # `python -m hooks hook`: what memhooks wrote where no `memhooks` script sat beside
    # its Python (a `pip install --user`), until its modules moved under `memhooks.`.
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    _healthy(memory_root, project)
    home = Path(os.environ["HOME"])
    settings = settings_path("claude-code", "project", project_dir=project, home=home)
    old = f"{sys.executable} -m hooks hook --harness claude-code"
    install("claude-code", settings, old)
    ran = subprocess.run(
        ["/bin/sh", "-c", old],
        input="{}",
        capture_output=True,
        text=True,
        cwd=project,
        check=False,
    )
    assert (ran.returncode, ran.stderr) == (
        1,
        f"{sys.executable}: No module named hooks\n",
    )

    proc = run_cli("doctor", "--project", str(project))

    said = (
        f"fix: Claude Code: hook in {settings} runs {sys.executable} -m hooks, a module "
        "memhooks no longer has (it is memhooks.hooks since 2026-12-01): run `memhooks "
        "install claude-code --scope project` with the memhooks you use"
    )
    assert [ln for ln in proc.stdout.splitlines() if ln.startswith("fix: ")] == [said]
    path = {"PATH": os.pathsep.join([str(MEMHOOKS.parent), "/usr/bin", "/bin"])}
    assert run_cli("install", "claude-code", cwd=project, env=path).returncode == 0
    assert "-m hooks" not in settings.read_text()
    assert run_cli("doctor", "--project", str(project), env=path).returncode == 0


def test_a_hook_of_another_install_is_named(memory_root: Path, tmp_path: Path) -> None:
    # `memhooks install` of an older venv wrote its script's path; memhooks upgraded
    # elsewhere (pipx) since: the hooks go on running the old venv's code.
    project = tmp_path / "proj"
    project.mkdir()
    _healthy(memory_root, project)
    bin_ = tmp_path / "old-venv" / "bin"
    bin_.mkdir(parents=True)
    python = bin_ / "python3"
    python.symlink_to(sys.executable)  # a Python that is there: nothing is broken
    memhooks = bin_ / "memhooks"
    script = MEMHOOKS.read_bytes().split(b"\n", 1)[1]
    memhooks.write_bytes(b"#!" + bytes(python) + b"\n" + script)
    memhooks.chmod(0o755)
    home = Path(os.environ["HOME"])
    settings = settings_path("claude-code", "project", project_dir=project, home=home)
    install("claude-code", settings, hook_command("claude-code", memhooks))

    proc = run_cli("doctor", "--project", str(project))

    assert proc.returncode == 0, proc.stdout
    said = (
        f"warn: Claude Code: hook in {settings} runs {memhooks}, of another install "
        f"than this memhooks (its Python is {python}, this one's {sys.executable}): "
        "upgrading this one does not change what the hooks run; run `memhooks install "
        "claude-code --scope project` with this one to point them here"
    )
    assert [ln for ln in proc.stdout.splitlines() if "another install" in ln] == [said]
    install("claude-code", settings, hook_command("claude-code", MEMHOOKS))
    again = run_cli("doctor", "--project", str(project)).stdout
    assert "another install" not in again

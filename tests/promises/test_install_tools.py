"""Installed as a user would: a wheel and an sdist into fresh venvs, `pipx install .` and
`uv tool install .` from a clone, then wired into a separate git project (issue #16).

Real processes throughout; each tool is skipped only when it is not installed (the dev
group brings build, pipx and uv, so CI runs them all).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

BIN = Path(sys.executable).parent
pytestmark = pytest.mark.timeout(900)


def _tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=str(BIN))
    if not found:
        pytest.skip(f"{name} is not installed")
    return found


def _run(
    argv: list[str],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        input=input,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert proc.returncode == 0, f"{argv}: {proc.stdout}{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's tracked files as they are now: what a fresh clone holds."""
    dest = tmp_path_factory.mktemp("clone") / "memhooks"
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for rel in filter(None, listed):
        src = REPO / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def _smoke(memhooks: Path, tmp: Path) -> None:
    env = {**os.environ, "MEMHOOKS_HOME": str(tmp / "root"), "HOME": str(tmp)}
    version = _run([str(memhooks), "--version"], env=env)
    assert version.stdout.startswith("memhooks ")
    _run([str(memhooks), "write", "--to", "memory", "--text", "- smoke line"], env=env)
    found = _run([str(memhooks), "search", "smoke"], env=env, cwd=tmp)
    assert "MEMORY.md" in found.stdout


def _launcher_imports(memhooks: Path) -> list[str]:
    """What the installed `memhooks` imports before memhooks' own code runs."""
    # Run by its own first line (pipx's adds -E, which ignores PYTHONPROFILEIMPORTTIME).
    python, *options = memhooks.read_text("utf-8").splitlines()[0][2:].split()
    proc = _run(
        [python, "-X", "importtime", *options, str(memhooks), "hook"],
        input="",  # no payload: the hook fails open
    )
    names = [line.rpartition("|")[2].strip() for line in proc.stderr.splitlines()]
    return names[: names.index("memhooks")]


def test_wheel_and_sdist_install_in_fresh_venvs(clone: Path, tmp_path: Path) -> None:
    uv = _tool("uv")
    out = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--outdir", str(out), str(clone)])
    (wheel,) = out.glob("memhooks-*.whl")
    (sdist,) = out.glob("memhooks-*.tar.gz")
    for artifact in (wheel, sdist):
        venv = tmp_path / f"venv-{artifact.suffix}"
        _run([uv, "venv", "-q", "--python", sys.executable, str(venv)])
        _run(
            [
                uv,
                "pip",
                "install",
                "-q",
                "--python",
                str(venv / "bin/python"),
                str(artifact),
            ]
        )
        _smoke(venv / "bin" / "memhooks", tmp_path)
        # Every hook command pays for what the launcher imports.
        assert "re" not in _launcher_imports(venv / "bin" / "memhooks")
        # Installed as memhooks.*: no top-level `hooks` or `memory` package.
        probe = "import importlib.util as u; print(u.find_spec('hooks'), u.find_spec('memory'))"
        names = _run([str(venv / "bin/python"), "-c", probe], cwd=tmp_path)
        assert names.stdout.split() == ["None", "None"]
    # pip into a venv under a path with a space (a HOME with one): the script memhooks
    # was got `#!/…/with space/venv/bin/python` from pip, which no system runs (127).
    spaced = tmp_path / "with space" / "venv"
    _run([sys.executable, "-m", "venv", str(spaced)])
    pip = [str(spaced / "bin/python"), "-m", "pip", "install", "-q", "--no-deps"]
    _run([*pip, str(wheel)])
    version = _run([str(spaced / "bin" / "memhooks"), "--version"])
    assert version.stdout.startswith("memhooks ")


def _installed(tool: str, clone: Path, tmp: Path) -> Path:
    """Install the clone with pipx or uv into private folders; the bin folder."""
    bin_dir = tmp / f"{tool}-bin"
    env = {
        **os.environ,
        "PIPX_HOME": str(tmp / "pipx"),
        "PIPX_BIN_DIR": str(bin_dir),
        "UV_TOOL_DIR": str(tmp / "uv-tools"),
        "UV_TOOL_BIN_DIR": str(bin_dir),
    }
    if tool == "pipx":
        _run(
            [_tool("pipx"), "install", "--python", sys.executable, str(clone)], env=env
        )
    else:
        _run(
            [_tool("uv"), "tool", "install", "--python", sys.executable, str(clone)],
            env=env,
        )
    assert (bin_dir / "memhooks").is_file()
    return bin_dir


def _hook(command: str, project: Path, bin_dir: Path, root: Path) -> dict[str, object]:
    """Run the committed command as Claude Code would: through a shell, on its PATH; a
    session of its own for each install (a second start of one session within 2 s says
    nothing: hooks.handlers)."""
    env = {
        "PATH": os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"]),
        "HOME": str(project.parent),
        "MEMHOOKS_HOME": str(root),
        "MEMHOOKS_SESSION_PROCESS": "0",
    }
    event = {
        "session_id": f"s-{bin_dir.name}",
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    proc = _run(["sh", "-c", command], cwd=project, env=env, input=json.dumps(event))
    reply: dict[str, object] = json.loads(proc.stdout)
    return reply


def test_pipx_and_uv_installs_wire_a_project_for_a_team(
    clone: Path, tmp_path: Path
) -> None:
    pipx_bin = _installed("pipx", clone, tmp_path)
    uv_bin = _installed("uv", clone, tmp_path)
    project = tmp_path / "team-project"
    (project / "src" / "api").mkdir(parents=True)
    _run(["git", "init", "-q"], cwd=project)
    root = tmp_path / "root"
    env = {
        **os.environ,
        "MEMHOOKS_HOME": str(root),
        "HOME": str(tmp_path),
        "PATH": os.pathsep.join([str(pipx_bin), "/usr/bin", "/bin"]),
    }
    # Alice installed with pipx; she wires the project from a subfolder.
    _run(["memhooks", "install", "claude-code"], cwd=project / "src" / "api", env=env)
    _run(
        ["memhooks", "write", "--to", "memory", "--text", "- Deploy with make ship."],
        cwd=project,
        env=env,
    )
    doctor = _run(["memhooks", "doctor"], cwd=project / "src", env=env)
    assert "Claude Code: memhooks on 5 events, once each" in doctor.stdout
    settings = json.loads((project / ".claude" / "settings.json").read_text("utf-8"))
    (group,) = settings["hooks"]["SessionStart"]
    (handler,) = group["hooks"]
    # Alice, and Bob with uv and no pipx, run the same committed command unedited.
    for bin_dir in (pipx_bin, uv_bin):
        # pipx's and pip's generated launchers import `re` (~10 ms a hook command).
        assert "re" not in _launcher_imports(bin_dir / "memhooks")
        reply = _hook(handler["command"], project, bin_dir, root)
        context = reply["hookSpecificOutput"]["additionalContext"]  # type: ignore[index]
        assert "- Deploy with make ship." in context

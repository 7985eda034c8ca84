"""`memhooks install`: the project's settings, a command everyone can run, what next."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

BIN = str(Path(sys.executable).parent)


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    project = tmp_path / "myapp"
    (project / "src" / "deep").mkdir(parents=True)
    _git("init", "-q", cwd=project)
    return project


def _commands(settings: Path) -> set[str]:
    hooks = json.loads(settings.read_text("utf-8"))["hooks"]
    return {
        h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]
    }


def _path_env(*dirs: str) -> dict[str, str]:
    return {"PATH": os.pathsep.join([*dirs, "/usr/bin", "/bin"])}


def test_install_from_a_subfolder_writes_the_repository_settings(repo: Path) -> None:
    proc = run_cli(
        "install", "claude-code", cwd=repo / "src" / "deep", env=_path_env(BIN)
    )

    assert proc.returncode == 0, proc.stderr
    settings = repo / ".claude" / "settings.json"
    assert not (repo / "src" / "deep" / ".claude").exists()
    # Shared with everyone who clones the repository: no path of this machine in it.
    assert _commands(settings) == {"memhooks hook --harness claude-code"}
    lines = proc.stdout.splitlines()
    assert "Commit .claude/settings.json" in proc.stdout
    assert lines[-1] == (
        f"Next: restart Claude Code (it reads hooks when it starts), "
        f"then run `memhooks doctor` in {repo}."
    )


def test_install_outside_git_says_nothing_of_a_commit(tmp_path: Path) -> None:
    # Before: "Commit .claude/settings.json" in a folder that is no repository.
    folder = tmp_path / "scratch"
    folder.mkdir()
    proc = run_cli("install", "claude-code", cwd=folder, env=_path_env(BIN))
    assert proc.returncode == 0, proc.stderr
    assert (folder / ".claude" / "settings.json").is_file()
    assert "Commit" not in proc.stdout


def test_install_in_a_worktree_writes_the_main_checkout(repo: Path) -> None:
    (repo / "README").write_text("x")
    _git("add", ".", cwd=repo)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x", cwd=repo)
    tree = repo.parent / "wt"
    _git("worktree", "add", "-q", str(tree), cwd=repo)

    proc = run_cli("install", "claude-code", cwd=tree, env=_path_env(BIN))

    assert proc.returncode == 0, proc.stderr
    assert (repo / ".claude" / "settings.json").is_file()
    assert not (tree / ".claude").exists()
    # Claude Code started in the worktree reads its own .claude/settings.json, not the
    # main checkout's (tests/e2e): install and doctor there say so (they said nothing).
    warning = f"Claude Code started in {tree} reads .claude/settings.json there"
    assert f"warning: {warning}" in proc.stdout
    doctor = run_cli("doctor", cwd=tree, env=_path_env(BIN))
    assert f"warn: {warning}" in doctor.stdout
    local = run_cli("install", "claude-code", "--scope", "local", cwd=tree)
    assert local.returncode == 0, local.stderr
    assert warning not in run_cli("doctor", cwd=tree, env=_path_env(BIN)).stdout


def test_codex_in_a_worktree_is_warned_about_and_in_a_subfolder_not(
    repo: Path,
) -> None:
    # Codex reads .codex/hooks.json at the root of the checkout it starts in: the
    # repository's from a subfolder, a worktree's own in a worktree (tests/e2e).
    (repo / "README").write_text("x")
    _git("add", ".", cwd=repo)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x", cwd=repo)
    tree = repo.parent / "wt"
    _git("worktree", "add", "-q", str(tree), cwd=repo)
    (tree / "src").mkdir()

    proc = run_cli("install", "codex", cwd=tree / "src", env=_path_env(BIN))

    assert proc.returncode == 0, proc.stderr
    warning = f"Codex started in {tree} reads .codex/hooks.json there, not {repo}'s"
    assert f"warning: {warning}" in proc.stdout
    assert "--scope user" in proc.stdout
    assert f"warn: {warning}" in run_cli("doctor", cwd=tree, env=_path_env(BIN)).stdout
    sub = run_cli("doctor", cwd=repo / "src", env=_path_env(BIN))
    assert "started in" not in sub.stdout


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        pytest.param(["--scope", "local"], "settings.local.json", id="local"),
        pytest.param(["--absolute"], "settings.json", id="absolute"),
    ],
)
def test_local_scope_and_absolute_name_this_install(
    repo: Path, argv: list[str], name: str
) -> None:
    proc = run_cli("install", "claude-code", *argv, "--project", str(repo / "src"))

    assert proc.returncode == 0, proc.stderr
    (command,) = _commands(repo / ".claude" / name)
    exe = command.split()[0]
    assert os.path.isabs(exe) and os.access(exe, os.X_OK), command
    assert "Commit" not in proc.stdout


@pytest.mark.parametrize(
    ("harness", "variable", "settings"),
    [
        ("claude-code", "CLAUDE_CONFIG_DIR", "settings.json"),
        ("codex", "CODEX_HOME", "hooks.json"),
        ("gemini", "GEMINI_CLI_HOME", ".gemini/settings.json"),
    ],
)
def test_user_scope_follows_the_harness_folder_variable(
    repo: Path, tmp_path: Path, harness: str, variable: str, settings: str
) -> None:
    # Claude Code 2.1.332 with CLAUDE_CONFIG_DIR set (Codex 0.171.0 with CODEX_HOME,
    # Gemini CLI 0.61.0 with GEMINI_CLI_HOME) reads its user settings there: `install
    # --scope user` wrote them in the home folder, the harness ran no hook, and doctor
    # said "ok" of the file it never reads.
    moved = tmp_path / "moved"
    env = {**_path_env(BIN), variable: str(moved)}
    proc = run_cli("install", harness, "--scope", "user", cwd=repo, env=env)

    assert proc.returncode == 0, proc.stderr
    assert str(moved / settings) in proc.stdout
    assert _commands(moved / settings)
    assert not (Path(os.environ["HOME"]) / settings).exists()
    doctor = run_cli("doctor", cwd=repo, env=env).stdout
    assert doctor.count(": no memhooks hooks for this project") == 2, doctor
    gone = run_cli("uninstall", harness, "--scope", "user", cwd=repo, env=env)
    assert gone.returncode == 0 and not (moved / settings).exists(), gone.stdout


def test_install_warns_when_memhooks_is_not_on_path(repo: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "memhooks.hooks", "install", "claude-code"],
        cwd=repo,
        env={**os.environ, **_path_env()},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "warning: `memhooks` is not on PATH here" in proc.stdout
    assert _commands(repo / ".claude" / "settings.json") == {
        "memhooks hook --harness claude-code"
    }


def test_doctor_checks_the_bare_command_is_on_path(repo: Path) -> None:
    run_cli("install", "claude-code", cwd=repo, env=_path_env(BIN))

    found = run_cli("doctor", cwd=repo / "src", env=_path_env(BIN))
    missing = subprocess.run(
        [sys.executable, "-m", "memhooks.hooks", "doctor"],
        cwd=repo / "src",
        env={**os.environ, **_path_env()},
        capture_output=True,
        text=True,
        check=False,
    )

    assert "Claude Code: memhooks on 5 events, once each" in found.stdout
    assert missing.returncode == 1
    assert "runs `memhooks`, which is not on PATH: install memhooks" in missing.stdout


BOM = "\ufeff"
SETTINGS = {"model": "opus", "env": {"GREETING": "héllo"}, "permissions": {"deny": []}}


def _layout(
    value: object,
    *,
    indent: int | str = 2,
    newline: str = "\n",
    bom: bool = False,
    final_newline: bool = True,
) -> bytes:
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    text += "\n" if final_newline else ""
    return ((BOM if bom else "") + text.replace("\n", newline)).encode()


@pytest.mark.parametrize(
    ("original", "form"),
    [
        pytest.param(
            _layout(SETTINGS, indent=4, newline="\r\n", bom=True),
            {"indent": 4, "newline": "\r\n", "bom": True},
            id="bom-crlf-4-spaces",
        ),
        pytest.param(
            _layout(SETTINGS, indent="\t", final_newline=False),
            {"indent": "\t", "final_newline": False},
            id="tabs-no-final-newline",
        ),
        pytest.param(
            json.dumps(SETTINGS).encode() + b"\n",
            {},
            id="one-line-gets-the-default-indent",
        ),
    ],
)
def test_install_and_uninstall_keep_the_layout_of_the_file(
    repo: Path, original: bytes, form: dict[str, Any]
) -> None:
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(original)

    installed = run_cli("install", "claude-code", cwd=repo, env=_path_env(BIN))

    assert installed.returncode == 0, installed.stderr
    after = settings.read_bytes()
    data = json.loads(after.decode("utf-8-sig"))
    assert list(data) == [*SETTINGS, "hooks"]
    assert after == _layout(data, **form)
    assert settings.with_name("settings.json.bak").read_bytes() == original

    removed = run_cli("uninstall", "claude-code", cwd=repo)

    assert removed.returncode == 0, removed.stderr
    # The backup holds what is left: its bytes come back, one line as one line.
    assert settings.read_bytes() == original


def test_install_then_uninstall_gives_back_the_same_bytes(repo: Path) -> None:
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = _layout(SETTINGS, indent=4, newline="\r\n", bom=True)
    settings.write_bytes(original)

    for command in ("install", "uninstall"):
        done = run_cli(command, "claude-code", cwd=repo, env=_path_env(BIN))
        assert done.returncode == 0, done.stderr

    assert settings.read_bytes() == original


@pytest.mark.parametrize(
    ("harness", "rel"),
    [
        pytest.param("claude-code", ".claude/settings.json", id="claude-code"),
        pytest.param("codex", ".codex/hooks.json", id="codex"),
        pytest.param("gemini", ".gemini/settings.json", id="gemini"),
    ],
)
def test_uninstall_gives_back_a_hand_written_layout(
    repo: Path, harness: str, rel: str
) -> None:
    # Laid out by a person, not by json.dumps: one-line objects, aligned values.
    original = (
        b'{\r\n    "env":   {"A": "\xc3\xa9", "B": 1},\r\n'
        b'    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]},\r\n'
        b'    "flag":  true\r\n}'
    )
    settings = repo / rel
    settings.parent.mkdir()
    settings.write_bytes(original)

    for command in ("install", "install", "uninstall"):
        done = run_cli(command, harness, cwd=repo, env=_path_env(BIN))
        assert done.returncode == 0, done.stderr

    assert settings.read_bytes() == original


def test_install_keeps_every_byte_outside_hooks(repo: Path) -> None:
    # A person's compact layout: only the "hooks" member is written anew.
    before = b'{\r\n    "env":   {"A": "\\u00e9"},\r\n    "flag":  true\r\n}'
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(before)

    done = run_cli("install", "claude-code", cwd=repo, env=_path_env(BIN))

    assert done.returncode == 0, done.stderr
    after = settings.read_bytes()
    head = b'{\r\n    "env":   {"A": "\\u00e9"},\r\n    "flag":  true,\r\n    "hooks": {\r\n'
    assert after.startswith(head) and after.endswith(b"\r\n    }\r\n}")
    assert b"\n" not in after.replace(b"\r\n", b"")
    assert list(json.loads(after)) == ["env", "flag", "hooks"]


@pytest.mark.parametrize("hooks_first", [False, True])
def test_uninstall_after_an_edit_keeps_every_byte_outside_hooks(
    repo: Path, hooks_first: bool
) -> None:
    # The person changed a value after install, so the backup no longer holds the file:
    # only the "hooks" member (and its comma) goes, the compact layout stays.
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    rest = b'\r\n\t"model":"opus" ,  "allow": ["a", "b"]\r\n}'
    settings.write_bytes(b"{" + rest)
    done = run_cli("install", "claude-code", cwd=repo, env=_path_env(BIN))
    assert done.returncode == 0, done.stderr
    edited = rest.replace(b'"opus"', b'"sonnet"')
    if hooks_first:  # moved to the top by hand
        hooks = json.loads(settings.read_bytes())["hooks"]
        hooks_member = b'\r\n\t"hooks": ' + json.dumps(hooks).encode() + b","
        settings.write_bytes(b"{" + hooks_member + edited)
    else:
        settings.write_bytes(settings.read_bytes().replace(b'"opus"', b'"sonnet"'))

    done = run_cli("uninstall", "claude-code", cwd=repo, env=_path_env(BIN))

    assert done.returncode == 0, done.stderr
    assert settings.read_bytes() == b"{" + edited


@pytest.mark.parametrize("harness", ["codex", "gemini"])
@pytest.mark.parametrize("verb", ["install", "uninstall"])
def test_scope_local_is_refused_where_the_harness_has_no_local_file(
    repo: Path, harness: str, verb: str
) -> None:
    # Before: `install gemini --scope local` wrote this machine's absolute path into
    # .gemini/settings.json, the file the repository shares, as if it were private.
    proc = run_cli(verb, harness, "--scope", "local", cwd=repo, env=_path_env(BIN))

    assert proc.returncode == 1
    (line,) = proc.stderr.splitlines()
    assert "--scope project" in line and "--scope user" in line, line
    assert sorted(p.name for p in repo.iterdir()) == [".git", "src"]  # nothing written


@pytest.mark.parametrize("verb", ["install", "uninstall"])
def test_help_names_the_file_of_each_harness(verb: str) -> None:
    # A Codex or Gemini CLI user reads `--help` for where the hooks go, not Claude's file.
    proc = run_cli(verb, "--help")

    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    for name in (".claude/settings.json", ".codex/hooks.json", ".gemini/settings.json"):
        assert name in text


def test_a_layout_given_between_uninstall_and_install_is_kept(repo: Path) -> None:
    # Attacked on purpose (2026-12-06): the second install wrote back the backup the
    # first one's uninstall left (the installed text, in the old layout), since it held
    # the same values: the person's tabs and key order were gone.
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(b'{\n  "model": "opus",\n  "env": {"A": "1"}\n}\n')
    for command in ("install", "uninstall"):
        done = run_cli(command, "claude-code", cwd=repo, env=_path_env(BIN))
        assert done.returncode == 0, done.stderr
    mine = b'{\n\t"env": {"A": "1"},\n\t"model": "opus"\n}\n'
    settings.write_bytes(mine)

    done = run_cli("install", "claude-code", cwd=repo, env=_path_env(BIN))
    assert done.returncode == 0, done.stderr
    assert settings.read_bytes().startswith(
        b'{\n\t"env": {"A": "1"},\n\t"model": "opus",'
    )
    done = run_cli("uninstall", "claude-code", cwd=repo, env=_path_env(BIN))
    assert done.returncode == 0, done.stderr
    assert settings.read_bytes() == mine

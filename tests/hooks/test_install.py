from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import pytest

from memhooks.hooks.install import (
    InstallError,
    InstallResult,
    hook_command,
    install,
    is_ours,
    read_jsonc,
    settings_path,
    uninstall,
)

if TYPE_CHECKING:
    from pathlib import Path

CMD = "'/opt/my venv/bin/memhooks' hook --harness claude-code"
OLD_CMD = "/old/.venv/bin/memhooks hook --harness claude-code"
CLAUDE_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
)
FOREIGN_START = {
    "matcher": "startup",
    "hooks": [{"type": "command", "command": "echo hi", "timeout": 5}],
}
EXISTING: dict[str, Any] = {
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
    "hooks": {
        "SessionStart": [FOREIGN_START],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint.sh"}]}
        ],
    },
    "env": {"GREETING": "héllo"},
}


def write(path: Path, value: Any) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = json.dumps(value, indent=4).encode()
    path.write_bytes(raw)
    return raw


def ours(
    settings: dict[str, Any], event: str
) -> list[tuple[str | None, dict[str, Any]]]:
    return [
        (group.get("matcher"), handler)
        for group in settings["hooks"].get(event, [])
        for handler in group["hooks"]
        if is_ours(handler["command"])
    ]


@pytest.fixture
def settings(tmp_path: Path) -> Path:
    path = tmp_path / "proj" / ".claude" / "settings.json"
    write(path, EXISTING)
    return path


def test_install_merges_once_per_event_and_keeps_foreign(settings: Path) -> None:
    original = settings.read_bytes()

    result = install("claude-code", settings, CMD)

    assert result == InstallResult(
        settings, True, CLAUDE_EVENTS, (), settings.with_name("settings.json.bak")
    )
    text = settings.read_text(encoding="utf-8")
    data = json.loads(text)
    # Laid out as `write` wrote it: four spaces, no final newline, its "\u00e9" kept.
    assert text == json.dumps(data, indent=4)
    assert list(data) == ["model", "permissions", "hooks", "env"]
    assert {k: v for k, v in data.items() if k != "hooks"} == {
        k: v for k, v in EXISTING.items() if k != "hooks"
    }
    assert list(data["hooks"]) == ["SessionStart", "PreToolUse", *CLAUDE_EVENTS[1:]]
    assert data["hooks"]["SessionStart"][0] == FOREIGN_START
    assert data["hooks"]["PreToolUse"] == EXISTING["hooks"]["PreToolUse"]
    expected = {
        "SessionStart": ("startup|resume|clear|compact|fork", 10),
        "UserPromptSubmit": (None, 10),
        "PreCompact": ("manual|auto", 30),
        "PostCompact": ("manual|auto", 10),
        "SessionEnd": (None, 2),
    }
    for event, (matcher, timeout) in expected.items():
        assert ours(data, event) == [
            (matcher, {"type": "command", "command": CMD, "timeout": timeout})
        ]
    assert "matcher" not in data["hooks"]["UserPromptSubmit"][0]
    assert settings.with_name("settings.json.bak").read_bytes() == original


def test_install_twice_is_a_no_op(settings: Path) -> None:
    install("claude-code", settings, CMD)
    after_first = settings.read_bytes()
    backup = settings.with_name("settings.json.bak").read_bytes()

    result = install("claude-code", settings, CMD)

    assert result == InstallResult(settings, False, (), (), None)
    assert result.describe() == f"already installed: {settings}"
    assert settings.read_bytes() == after_first
    assert settings.with_name("settings.json.bak").read_bytes() == backup
    for event in CLAUDE_EVENTS:
        assert len(ours(json.loads(after_first), event)) == 1


def test_uninstall_restores_original_value(settings: Path) -> None:
    install("claude-code", settings, CMD)

    result = uninstall("claude-code", settings)

    assert result.changed
    assert result.removed == CLAUDE_EVENTS
    assert result.added == ()
    assert json.loads(settings.read_bytes()) == EXISTING
    assert uninstall("claude-code", settings).describe() == f"not installed: {settings}"


def test_uninstall_keeps_foreign_handlers_in_a_shared_group(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    mine = {"type": "command", "command": CMD, "timeout": 10}
    theirs = {"type": "command", "command": "notify.sh"}
    write(path, {"hooks": {"SessionEnd": [{"matcher": "", "hooks": [mine, theirs]}]}})

    uninstall("claude-code", path)

    assert json.loads(path.read_bytes()) == {
        "hooks": {"SessionEnd": [{"matcher": "", "hooks": [theirs]}]}
    }


def test_uninstall_removes_hooks_key_it_emptied(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"hooks": {}}')
    install("claude-code", path, CMD)

    uninstall("claude-code", path)

    assert json.loads(path.read_bytes()) == {}


def test_uninstall_deletes_the_file_and_folder_an_install_made(tmp_path: Path) -> None:
    # Before: install then uninstall in a fresh repository left `.claude/settings.json`
    # holding `{}` and a `settings.json.bak` of our hooks: two untracked files in git.
    path = tmp_path / "repo" / ".claude" / "settings.json"
    install("claude-code", path, CMD)
    dry = uninstall("claude-code", path, dry_run=True)
    assert dry.deleted and path.exists()
    assert f"would delete {path}" in dry.describe()

    result = uninstall("claude-code", path)

    assert result.deleted and result.backup is None
    assert f"deleted {path}: install made it" in result.describe()
    assert not path.parent.exists() and (tmp_path / "repo").exists()


def test_uninstall_keeps_a_file_that_was_there_before_the_install(
    tmp_path: Path,
) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    (path.parent / "agents.md").write_text("mine")
    path.write_bytes(b"{ }\n")
    install("claude-code", path, CMD)

    result = uninstall("claude-code", path)

    assert not result.deleted and path.read_bytes() == b"{ }\n"
    # A file made by install, in a folder that holds more, goes alone.
    other = path.parent / "settings.local.json"
    install("claude-code", other, CMD)
    assert uninstall("claude-code", other).deleted
    assert sorted(p.name for p in path.parent.iterdir()) == [
        "agents.md",
        "settings.json",
        "settings.json.bak",
    ]


def test_uninstall_missing_file_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"

    result = uninstall("claude-code", path)

    assert not result.changed
    assert not path.parent.exists()


@pytest.mark.parametrize("action", [pytest.param("install"), pytest.param("uninstall")])
def test_dry_run_writes_nothing(settings: Path, action: str) -> None:
    if action == "uninstall":
        install("claude-code", settings, CMD)
        settings.with_name("settings.json.bak").unlink()
    before = settings.read_bytes()

    if action == "install":
        result = install("claude-code", settings, CMD, dry_run=True)
    else:
        result = uninstall("claude-code", settings, dry_run=True)

    assert result.changed
    assert result.backup is None
    assert result.describe().startswith("would ")
    assert settings.read_bytes() == before
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]


def test_dry_run_reports_same_as_real_install(settings: Path) -> None:
    dry = install("claude-code", settings, CMD, dry_run=True)
    real = install("claude-code", settings, CMD)
    assert (dry.changed, dry.added, dry.removed) == (
        real.changed,
        real.added,
        real.removed,
    )


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b'{"model": "opus",', id="truncated"),
        pytest.param(b"\xff\xfe{}", id="not-utf8"),
        pytest.param(b"[1, 2]", id="top-level-array"),
        pytest.param(b'{"hooks": []}', id="hooks-not-object"),
        pytest.param(b'{"hooks": {"SessionStart": {}}}', id="event-not-list"),
        pytest.param(b'{\n  // my theme\n  "theme": "dark"\n}\n', id="comments"),
        # No harness reads these, and json.dumps would write Infinity for the last.
        pytest.param(b'{"ratio": NaN}', id="nan"),
        pytest.param(b'{"ratio": -Infinity}', id="infinity"),
        pytest.param(b'{"ratio": 1e999}', id="float-overflow"),
    ],
)
def test_unparseable_file_is_never_overwritten(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(content)

    with pytest.raises(InstallError) as excinfo:
        install("claude-code", path, CMD)

    assert excinfo.value.path == path
    assert "\n" not in str(excinfo.value)
    assert path.read_bytes() == content
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]


@pytest.mark.parametrize(
    "content", [pytest.param(b"", id="empty"), pytest.param(b"\n ", id="blank")]
)
def test_empty_file_counts_as_empty_object(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(content)

    result = install("claude-code", path, CMD)

    assert result.added == CLAUDE_EVENTS
    assert list(json.loads(path.read_bytes())) == ["hooks"]


def test_missing_file_and_parents_are_created_without_backup(tmp_path: Path) -> None:
    path = tmp_path / "home" / ".claude" / "settings.json"

    result = install("claude-code", path, CMD)

    assert result.backup is None
    assert result.describe().splitlines()[0] == f"added SessionStart hook to {path}"
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


def test_stale_and_duplicate_commands_are_replaced(settings: Path) -> None:
    install("claude-code", settings, OLD_CMD)
    data = json.loads(settings.read_bytes())
    dup = {"hooks": [{"type": "command", "command": OLD_CMD, "timeout": 10}]}
    data["hooks"]["UserPromptSubmit"].append(dup)
    write(settings, data)

    result = install("claude-code", settings, CMD)

    assert result.added == CLAUDE_EVENTS
    assert result.removed == CLAUDE_EVENTS
    assert f"updated PreCompact hook in {settings}" in result.describe().splitlines()
    data = json.loads(settings.read_bytes())
    for event in CLAUDE_EVENTS:
        assert [h["command"] for _, h in ours(data, event)] == [CMD]
    assert data["hooks"]["SessionStart"][0] == FOREIGN_START


def test_changed_timeout_of_ours_is_reset(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    install("claude-code", path, CMD)
    data = json.loads(path.read_bytes())
    data["hooks"]["PreCompact"][0]["hooks"][0]["timeout"] = 99
    write(path, data)

    result = install("claude-code", path, CMD)

    assert (result.added, result.removed) == (("PreCompact",), ("PreCompact",))
    assert ours(json.loads(path.read_bytes()), "PreCompact")[0][1]["timeout"] == 30


def test_comments_are_named_as_the_reason(tmp_path: Path) -> None:
    # Gemini CLI allows comments in its settings; rewriting the file would drop them.
    path = tmp_path / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text('{\n  /* UI */ "theme": "a//b", // mine\n  "x": 1\n}\n')
    with pytest.raises(InstallError, match="has comments, which memhooks cannot keep"):
        install("gemini", path, "memhooks hook --harness gemini")
    assert read_jsonc(path.read_text()) == {"theme": "a//b", "x": 1}
    # Before: uninstall said the same, where there was nothing of ours to take out.
    before = path.read_bytes()
    result = uninstall("gemini", path)
    assert not result.changed and result.describe() == f"not installed: {path}"
    assert path.read_bytes() == before


def test_gemini_shape_uses_milliseconds(tmp_path: Path) -> None:
    path = tmp_path / ".gemini" / "settings.json"
    write(path, {"theme": "dark"})
    cmd = "/v/bin/memhooks hook --harness gemini"

    result = install("gemini", path, cmd)

    def group(timeout: int) -> list[dict[str, Any]]:
        handler = {
            "type": "command",
            "command": cmd,
            "name": "memhooks",
            "timeout": timeout,
        }
        return [{"hooks": [handler]}]

    assert result.added == ("SessionStart", "BeforeAgent", "PreCompress", "SessionEnd")
    assert json.loads(path.read_bytes()) == {
        "theme": "dark",
        "hooks": {
            "SessionStart": group(10000),
            "BeforeAgent": group(10000),
            "PreCompress": group(30000),
            "SessionEnd": group(2000),
        },
    }
    assert not install("gemini", path, cmd).changed
    uninstall("gemini", path)
    assert json.loads(path.read_bytes()) == {"theme": "dark"}


def test_symlinked_settings_file_stays_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    write(real, {"model": "opus"})
    link = tmp_path / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)

    install("claude-code", link, CMD)

    assert link.is_symlink()
    assert "hooks" in json.loads(real.read_bytes())


@pytest.mark.parametrize("undo", [False, True], ids=["install", "uninstall"])
def test_a_read_only_settings_file_is_left_alone(settings: Path, undo: bool) -> None:
    # Before: a settings file made read-only on purpose (a team's locked policy, a
    # managed dotfile) was replaced through a rename, which its mode does not stop.
    if undo:
        install("claude-code", settings, CMD)
    os.chmod(settings, 0o444)
    before = settings.read_bytes()
    backups = sorted(settings.parent.iterdir())
    with pytest.raises(InstallError, match="read-only"):
        if undo:
            uninstall("claude-code", settings)
        else:
            install("claude-code", settings, CMD)
    assert settings.read_bytes() == before
    assert sorted(settings.parent.iterdir()) == backups  # no .bak made either
    assert settings.stat().st_mode & 0o777 == 0o444


def test_file_mode_is_preserved(settings: Path) -> None:
    os.chmod(settings, 0o600)
    install("claude-code", settings, CMD)
    assert settings.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    ("harness", "scope", "expected"),
    [
        pytest.param(
            "claude-code", "user", "home/.claude/settings.json", id="claude-user"
        ),
        pytest.param(
            "claude-code", "project", "proj/.claude/settings.json", id="claude-project"
        ),
        pytest.param(
            "claude-code",
            "local",
            "proj/.claude/settings.local.json",
            id="claude-local",
        ),
        pytest.param("gemini", "user", "home/.gemini/settings.json", id="gemini-user"),
        pytest.param(
            "gemini", "project", "proj/.gemini/settings.json", id="gemini-project"
        ),
        pytest.param(
            "gemini", "local", "proj/.gemini/settings.json", id="gemini-local"
        ),
    ],
)
def test_settings_path(tmp_path: Path, harness: Any, scope: Any, expected: str) -> None:
    got = settings_path(
        harness, scope, project_dir=tmp_path / "proj", home=tmp_path / "home"
    )
    assert got == tmp_path / expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        pytest.param(CMD, True, id="quoted-script"),
        pytest.param("memhooks hook --harness gemini", True, id="bare-script"),
        pytest.param(
            "/home/me/memhooks/.venv/bin/memhooks hook", True, id="repo-named-memhooks"
        ),
        pytest.param(
            "/home/me/memhooks/.venv/bin/python -m memhooks.hooks hook",
            True,
            id="python-m",
        ),
        pytest.param('"C:\\Tools\\memhooks.exe" hook', True, id="windows-exe"),
        pytest.param("echo hi", False, id="foreign"),
        pytest.param("memhooks-lint hook", False, id="similar-name"),
        pytest.param("python3 ~/memhooks/hook.py", False, id="path-contains-memhooks"),
        pytest.param("memhooks doctor", False, id="other-subcommand"),
    ],
)
def test_is_ours(command: str, expected: bool) -> None:
    assert is_ours(command) is expected


def test_hook_command_quotes_executable() -> None:
    got = hook_command("claude-code", "/opt/my venv/bin/memhooks")
    assert got == CMD
    assert is_ours(got)


def test_unreadable_or_unwritable_path_raises_install_error(tmp_path: Path) -> None:
    (tmp_path / "settings.json").mkdir()
    with pytest.raises(InstallError, match="cannot read"):
        install("claude-code", tmp_path / "settings.json", CMD)

    path = tmp_path / "sub" / "settings.json"
    original = write(path, {})
    path.with_name("settings.json.bak").mkdir()  # os.replace onto a dir fails
    with pytest.raises(InstallError, match="cannot write"):
        install("claude-code", path, CMD)
    assert path.read_bytes() == original
    assert sorted(p.name for p in path.parent.iterdir()) == [
        "settings.json",
        "settings.json.bak",
    ]


def test_uninstall_leaves_shapes_it_does_not_understand(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    odd = {"Stop": "not-a-list", "SessionEnd": [42, {"matcher": "x"}]}
    write(path, {"hooks": odd})
    install("claude-code", path, CMD)

    uninstall("claude-code", path)

    assert json.loads(path.read_bytes()) == {"hooks": odd}


def test_install_codex_writes_its_hooks_file_and_says_how_to_trust_it(
    tmp_path: Path,
) -> None:
    from tests.conftest import run_cli

    project = tmp_path / "app"
    (project / ".git").mkdir(parents=True)
    done = run_cli("install", "codex", "--project", str(project), cwd=project)
    assert done.returncode == 0, done.stderr
    # Codex 0.171.0 asks at its start ("Hooks need review"): no need to find /hooks.
    assert 'trust them when it shows "Hooks need review"' in done.stdout
    data = json.loads((project / ".codex" / "hooks.json").read_text())
    assert sorted(data["hooks"]) == [
        "PostCompact",
        "PreCompact",
        "SessionEnd",
        "SessionStart",
        "UserPromptSubmit",
    ]
    command = data["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert command.endswith("hook --harness codex")
    assert data["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"] <= 3

"""A person's own hooks in a settings file keep their bytes while memhooks is installed.

Found walking an upgrade with a user's own hooks (2026-12-06): `install` wrote the whole
``hooks`` member anew in the file's indent, so a bash guard and another tool's prompt
hook written one object a line came back spread over twelve lines each; once anything
else in the file changed (Claude Code adds ``env`` to ~/.claude/settings.json by itself),
`uninstall` could no longer give the backup back, and the person's layout was gone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli

BIN = str(Path(sys.executable).parent)
ENV = {"PATH": os.pathsep.join([BIN, "/usr/bin", "/bin"])}

#: A person's own hooks, each matcher group on one line; another tool's prompt hook
#: shares UserPromptSubmit with ours.
GUARD = (
    b'{ "matcher": "Bash", "hooks": [ { "type": "command", "command": "guard.sh" } ] }'
)
OTHER = b'{ "hooks": [ { "type": "command", "command": "ctx.sh", "timeout": 5 } ] }'
OWN = (
    b'{\n    "permissions": { "allow": ["Bash(git status)"] },\n'
    b'    "hooks": {\n'
    b'        "PreToolUse": [\n            ' + GUARD + b"\n        ],\n"
    b'        "UserPromptSubmit": [\n            ' + OTHER + b"\n        ]\n"
    b"    },\n"
    b'    "model": "opus"\n}\n'
)
FILES = {
    "claude-code": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


@pytest.mark.parametrize("harness", list(FILES))
def test_own_hooks_keep_their_bytes_through_install_and_uninstall(
    repo: Path, harness: str
) -> None:
    settings = repo / FILES[harness]
    settings.parent.mkdir()
    settings.write_bytes(OWN.replace(b"UserPromptSubmit", _prompt_event(harness)))

    done = run_cli("install", harness, cwd=repo, env=ENV)

    assert done.returncode == 0, done.stderr
    installed = settings.read_bytes()
    # Both of the person's groups are there as they wrote them, on their own lines.
    assert b"\n            " + GUARD + b"\n" in installed
    assert b"\n            " + OTHER + b",\n" in installed
    assert installed.startswith(OWN[: OWN.index(b"            " + GUARD)])
    hooks = json.loads(installed)["hooks"]
    ours = [g for g in hooks[_prompt_event(harness).decode()] if g != json.loads(OTHER)]
    assert len(ours) == 1 and "memhooks hook" in ours[0]["hooks"][0]["command"]

    # Another change to the file (a harness writing a setting): the backup no longer
    # holds it, so uninstall takes our hooks out of the file as it now is.
    settings.write_bytes(installed.replace(b'"opus"', b'"sonnet"'))
    done = run_cli("uninstall", harness, cwd=repo, env=ENV)

    assert done.returncode == 0, done.stderr
    expected = OWN.replace(b"UserPromptSubmit", _prompt_event(harness))
    assert settings.read_bytes() == expected.replace(b'"opus"', b'"sonnet"')


def _prompt_event(harness: str) -> bytes:
    return b"BeforeAgent" if harness == "gemini" else b"UserPromptSubmit"


def test_a_one_line_hooks_member_and_a_shared_group_keep_the_rest(repo: Path) -> None:
    # CRLF, the hooks member on one line, one group holding the person's handler and a
    # memhooks handler of a venv since moved (which install replaces).
    stop = b'"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]'
    shared = (
        b'"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "ctx.sh"}, '
        b'{"type": "command", "command": "/old/venv/bin/memhooks hook --harness claude-code"}]}]'
    )
    before = (
        b'{\r\n  "hooks": {' + stop + b", " + shared + b'},\r\n  "model": "opus"\r\n}'
    )
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(before)

    done = run_cli("install", "claude-code", cwd=repo, env=ENV)

    assert done.returncode == 0, done.stderr
    after = settings.read_bytes()
    assert b"\r\n    " + stop + b",\r\n" in after  # its own line, its bytes
    assert b"\n" not in after.replace(b"\r\n", b"")
    assert after.endswith(b'\r\n  },\r\n  "model": "opus"\r\n}')
    hooks = json.loads(after)["hooks"]
    assert hooks["UserPromptSubmit"] == [
        {"hooks": [{"type": "command", "command": "ctx.sh"}]},
        {
            "hooks": [
                {
                    "type": "command",
                    "command": "memhooks hook --harness claude-code",
                    "timeout": 10,
                }
            ]
        },
    ]
    assert len(hooks) == 6

    settings.write_bytes(after.replace(b'"opus"', b'"sonnet"'))
    done = run_cli("uninstall", "claude-code", cwd=repo, env=ENV)

    assert done.returncode == 0, done.stderr
    left = settings.read_bytes()
    # Laid out on lines of their own by the install, the person's bytes still there.
    assert left.startswith(b'{\r\n  "hooks": {\r\n    ' + stop + b",\r\n")
    assert left.endswith(b'},\r\n  "model": "sonnet"\r\n}')
    assert json.loads(left)["hooks"]["UserPromptSubmit"] == [
        {"hooks": [{"type": "command", "command": "ctx.sh"}]}
    ]

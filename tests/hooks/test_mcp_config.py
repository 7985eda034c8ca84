"""The block's last line names the tools the model has: MCP tool names once `memhooks mcp`
is registered for the project, the shell commands otherwise.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from memhooks.hooks.mcp_config import is_ours, registrations, usage_line
from memhooks.hooks.modelshell import script
from memhooks.memory import Store
from memhooks.memory.toolsline import USAGE, USAGE_MCP, USAGE_SHELL, usage_mcp
from tests.conftest import run_cli


@pytest.fixture
def project(tmp_path: Path, memory_root: Path) -> Path:
    p = tmp_path / "proj"
    p.mkdir()
    Store.for_project(memory_root, p).write_memory("- Prefer small commits.")
    return p


@pytest.fixture
def home() -> Path:
    h = Path(os.environ["HOME"])
    h.mkdir(exist_ok=True)
    return h


def _server(command: str, *args: str) -> dict[str, object]:
    return {"command": command, "args": list(args)}


@pytest.mark.parametrize(
    ("command", "ours"),
    [
        pytest.param("memhooks mcp", True, id="console-script"),
        pytest.param(
            "'/opt/my venv/bin/memhooks' mcp --root /x", True, id="quoted-path"
        ),
        pytest.param("/usr/bin/python3 -m memhooks.hooks mcp", True, id="module"),
        pytest.param("memhooks hook --harness claude-code", False, id="hook"),
        pytest.param("memhooks-lint mcp", False, id="other-tool"),
        pytest.param("npx @modelcontextprotocol/server-memory", False, id="foreign"),
    ],
)
def test_is_ours(command: str, ours: bool) -> None:
    assert is_ours(command) is ours


def test_project_mcp_json_switches_the_usage_line(project: Path) -> None:
    proc = run_cli("inject", "--project", str(project))
    assert proc.stdout.rstrip("\n").endswith("\n" + USAGE)

    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"memhooks": _server("memhooks", "mcp")}})
    )

    proc = run_cli("inject", "--project", str(project))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip("\n").endswith("\n" + USAGE_MCP)


def test_session_start_hook_uses_the_mcp_line(project: Path) -> None:
    (project / ".mcp.json").write_text(
        json.dumps(
            {"mcpServers": {"mem": _server("python3", "-m", "memhooks.hooks", "mcp")}}
        )
    )
    event = _started(project)

    proc = run_cli(
        "hook",
        input=json.dumps(event),
        env={"MEMHOOKS_SESSION_PROCESS": "0"},
    )

    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Prefer small commits" in context
    assert context.endswith("\n" + usage_mcp("mem", "mcp__{server}__{tool}"))


@pytest.mark.parametrize(
    "where",
    [".claude/settings.local.json", ".claude/settings.json", "~/.claude/settings.json"],
)
def test_a_declined_mcp_json_server_keeps_the_cli_line(
    project: Path, home: Path, where: str
) -> None:
    # Claude Code 2.1.332 asks before it starts a server of .mcp.json; "Continue without
    # using this MCP server" wrote {"disabledMcpjsonServers": ["memhooks"]} to
    # .claude/settings.local.json and the model got no memory tool, while the block told
    # it its memory tools were memory_search & co, and no longer named the commands.
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"memhooks": _server("memhooks", "mcp")}})
    )
    settings = home / where[2:] if where.startswith("~/") else project / where
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"disabledMcpjsonServers": ["memhooks"]}, indent=2))

    proc = run_cli("inject", "--project", str(project))

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip("\n").endswith("\n" + USAGE)
    settings.write_text(json.dumps({"disabledMcpjsonServers": ["another"]}))
    assert usage_line(project) == USAGE_MCP


def test_a_server_declined_in_claude_json_keeps_the_cli_line(
    project: Path, home: Path
) -> None:
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"memhooks": _server("memhooks", "mcp")}})
    )
    entry = {"disabledMcpjsonServers": ["memhooks"]}
    (home / ".claude.json").write_text(json.dumps({"projects": {str(project): entry}}))
    assert usage_line(project) == USAGE
    assert registrations(project, home) == []


def test_a_codex_server_switched_off_keeps_the_cli_line(
    project: Path, home: Path
) -> None:
    # Codex CLI 0.171.0 starts no server whose table says `enabled = false`: the model
    # had no memory tool, while the block named memory_search & co.
    table = '[mcp_servers.memhooks]\ncommand = "memhooks"\nargs = ["mcp"]\n'
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(table + "enabled = false\n")
    # By its path: no file a login shell reads names this venv (hooks/modelshell.py).
    assert usage_line(project, "codex") == USAGE_SHELL.format(prog=script())
    config.write_text(table + "enabled = true\n")
    assert usage_line(project, "codex") == USAGE_MCP


def test_registrations_in_every_harness_file(project: Path, home: Path) -> None:
    (home / ".claude.json").write_text(
        json.dumps(
            {
                "mcpServers": {"other": _server("npx", "x")},
                "projects": {
                    str(project): {"mcpServers": {"m": _server("memhooks", "mcp")}}
                },
            }
        )
    )
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(
        '[mcp_servers.memhooks]\ncommand = "memhooks"\nargs = ["mcp"]\n'
    )
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text(
        json.dumps({"mcpServers": {"memhooks": _server("memhooks", "mcp")}})
    )

    found = [(r.harness, r.name, r.ours) for r in registrations(project, home)]

    assert found == [
        ("claude-code", "other", False),
        ("claude-code", "m", True),
        ("codex", "memhooks", True),
        ("gemini", "memhooks", True),
    ]
    assert [r.name for r in registrations(project, home, "codex")] == ["memhooks"]
    assert usage_line(project, "claude-code") == usage_mcp("m", "mcp__{server}__{tool}")


def test_unreadable_or_foreign_files_keep_the_cli_line(
    project: Path, home: Path
) -> None:
    (project / ".mcp.json").write_text("{broken")
    (home / ".claude.json").write_text(
        json.dumps({"mcpServers": {"m": "not an object"}})
    )

    assert usage_line(project, "claude-code") == USAGE
    assert usage_line(None) == USAGE


#: The tool names each CLI gave the model once `memhooks mcp` was registered as
#: "memhooks" (the request's tool list, logged by tests/e2e/mockapi.py).
_SEEN = json.loads(
    (Path(__file__).parents[1] / "data/harness/mcp-tool-names.json").read_text()
)
_REGISTER = {
    "claude-code": ".mcp.json",
    "gemini": ".gemini/settings.json",
    "codex": ".codex/config.toml",
}


@pytest.mark.parametrize("harness", sorted(_REGISTER))
def test_the_mcp_line_names_the_tools_as_the_harness_does(
    project: Path, harness: str
) -> None:
    # Gemini CLI 0.61.0 offered the model mcp_memhooks_memory_search and Claude Code
    # 2.1.332 mcp__memhooks__memory_search (behind its ToolSearch), while the block told
    # the model to call `memory_search`, a tool it did not have by that name.
    config = project / _REGISTER[harness]
    config.parent.mkdir(exist_ok=True)
    if harness == "codex":
        config.write_text(
            '[mcp_servers.memhooks]\ncommand = "memhooks"\nargs = ["mcp"]\n'
        )
    else:
        server = {"memhooks": _server("memhooks", "mcp")}
        config.write_text(json.dumps({"mcpServers": server}))
    event = _started(project)

    proc = run_cli(
        "hook",
        "--harness",
        harness,
        input=json.dumps(event),
        env={"MEMHOOKS_SESSION_PROCESS": "0"},
    )

    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    named = re.findall(r"`([^`]+)`", context.rsplit("\n", 1)[-1])
    assert sorted(named) == _SEEN[harness]["names"], context


def test_a_server_name_is_spelled_as_the_harness_spells_it(
    project: Path, home: Path
) -> None:
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"my memory": _server("memhooks", "mcp")}})
    )
    line = usage_line(project, "claude-code")
    assert "`mcp__my_memory__memory_search`" in line
    assert line.startswith("Memory tools (MCP server my_memory):")
    assert usage_line(project) == usage_line(project, "generic")
    assert "`memory_search`" in usage_line(project)
    # Gemini CLI 0.61.0 offered a server "mem.hooks-x" as mcp_mem.hooks-x_memory_search.
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text(
        json.dumps({"mcpServers": {"mem.hooks-x": _server("memhooks", "mcp")}})
    )
    assert "`mcp_mem.hooks-x_memory_search`" in usage_line(project, "gemini")


def _started(project: Path) -> dict[str, str]:
    """A session's SessionStart event in `project`, as Claude Code sends it."""
    return {
        "session_id": "s1",
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }

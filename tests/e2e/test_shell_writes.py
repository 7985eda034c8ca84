"""The model saves a memory the way the block's tools line tells it: `memhooks write` run
with its shell tool (Claude Code's Bash, Codex CLI's exec_command, Gemini CLI's
run_shell_command), in each one's TUI; then a person adds a MEMORY.md rule. What the
model's own command wrote is no news to it; what the person wrote is told.

Found with Claude Code 2.1.332, Codex CLI 0.171.0 and Gemini CLI 0.61.0 (2026-12-06):
the prompt after the model's `memhooks write --to memory` told the model its own rule
back ("Memory changed on disk since this session's block was built: MEMORY.md." and the
rule as `+`), as if someone else had written it."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import (
    codex_daemon_stop,
    codex_tui,
    setup_claude,
    setup_codex,
    setup_gemini,
)
from tests.e2e.memory_fixture import RULE, blocks_in, seed
from tests.e2e.sandbox import REPO
from tests.e2e.test_claude_code import hook_errors as claude_errors
from tests.e2e.test_claude_code import wait_ready
from tests.e2e.test_codex import hook_errors as codex_errors
from tests.e2e.test_first_day import (
    CHANGED,
    LAST,
    MODEL_RULE,
    NEXT,
    PERSON_RULE,
    REMEMBER,
    SAVE,
)
from tests.e2e.test_gemini import hook_errors as gemini_errors
from tests.e2e.test_harness_edits import gemini_tui, tui_ask

if TYPE_CHECKING:
    from pathlib import Path

    from tests.e2e.sandbox import Sandbox
    from tests.e2e.tmux import Tmux

pytestmark = pytest.mark.timeout(240)

HITS = "Related memory (auto-search"
MCP_WRITE = "mcp__memhooks__memory_write"
#: How each harness runs a shell command for the model: the tool and its arguments.
SHELL = {
    "claude": ("Bash", {"command": SAVE}),
    "codex": ("exec_command", {"cmd": SAVE}),
    # Codex's sandbox on, the memory root writable: the harness is out of the
    # command's sight (a PID namespace of its own), its thread's id is not.
    "codex-sandbox": ("exec_command", {"cmd": SAVE}),
    # The hooks trusted as a person does: Codex's app-server daemon runs them and the
    # model's command, several TUIs' under one process.
    "codex-daemon": ("exec_command", {"cmd": SAVE}),
    "gemini": ("run_shell_command", {"command": SAVE, "description": "save"}),
    # The same save through the `memhooks mcp` Claude Code started (`claude mcp add`).
    "claude-mcp": (MCP_WRITE, {"to": "memory", "text": MODEL_RULE}),
    "codex-mcp": ("mcp__memhooks/memory_write", {"to": "memory", "text": MODEL_RULE}),
    "gemini-mcp": ("mcp_memhooks_memory_write", {"to": "memory", "text": MODEL_RULE}),
}


def _ours(text: str) -> str:
    """Our change notice in `text` ("" when none); auto-search's hits aside."""
    found = re.findall(r"<memory note=[^>]*>\n(.*?)</memory>", text, re.DOTALL)
    return "".join(n.split(HITS)[0] for n in found if n.startswith(CHANGED))


def _tui(cli: str, sb: Sandbox) -> tuple[Tmux, Path | None]:
    """The CLI's TUI, its model's shell commands run without asking; and where its
    hook errors are read (Claude Code's debug log; None for the others: the screen).
    Claude Code in its default mode: in auto mode (2.1.332's default) its TUI never ran
    the command (it stayed "Running" with no request sent)."""
    if cli.startswith("claude"):
        env, log = setup_claude(sb), sb.base / "debug.log"
        add = ["claude", "mcp", "add", "memhooks", "--", "memhooks", "mcp"]
        assert cli == "claude" or sb.run(add, env=env).returncode == 0
        allowed = "Bash" if cli == "claude" else MCP_WRITE
        argv = ["claude", "--debug-file", str(log), "--allowedTools", allowed]
        tmux = sb.tmux([*argv, "--permission-mode", "default"], env=env)
        wait_ready(tmux)
        return tmux, log
    if cli.startswith("codex"):
        env = setup_codex(sb)
        if cli == "codex-mcp":  # registered as examples/mcp/README.md says
            readme = (REPO / "examples" / "mcp" / "README.md").read_text()
            table = re.search(
                r"```toml\n(\[mcp_servers\.memhooks\].*?)```", readme, re.DOTALL
            )
            assert table, "no [mcp_servers.memhooks] table in examples/mcp/README.md"
            with (sb.home / ".codex" / "config.toml").open("a") as config:
                config.write("\n" + table[1])
        free = ["--dangerously-bypass-approvals-and-sandbox"]
        if (
            cli == "codex-sandbox"
        ):  # the root writable: its commands run in a PID namespace
            free = [
                "--sandbox",
                "workspace-write",
                "--add-dir",
                str(sb.root),
                "-a",
                "never",
            ]
        mode = "daemon" if cli == "codex-daemon" else "bypass"
        return codex_tui(sb, env, mode, *free), None
    env = setup_gemini(sb)
    if cli == "gemini-mcp":  # trusted: its tools run unasked
        settings = sb.project / ".gemini" / "settings.json"
        config = json.loads(settings.read_text())
        server = {"command": "memhooks", "args": ["mcp"], "trust": True}
        settings.write_text(json.dumps(config | {"mcpServers": {"memhooks": server}}))
    return gemini_tui(sb, env), None


@pytest.mark.parametrize("cli", list(SHELL))
def test_the_models_memhooks_write_is_not_told_back_a_persons_rule_is(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None, cli: str
) -> None:
    """A prompt whose turn runs the model's `memhooks write --to memory`, a prompt (no
    notice: the model wrote that rule itself), a person's rule, a prompt (told: the
    person's line alone), quit. Every line of both writers is in MEMORY.md."""
    with sandbox(tmp_path_factory.mktemp(f"shell-writes-{cli}"), cli_bins, netns) as sb:
        seed(sb)
        tool, args = SHELL[cli]
        sb.script(
            [
                {"when": LAST, "reply": "Mock reply {n}."},
                {"when": NEXT, "reply": "Mock reply {n}."},
                {"when": REMEMBER, "tool": tool, "args": args},
            ]
        )
        tmux, log = _tui(cli, sb)
        tui_ask(sb, tmux, REMEMBER, calls=1)
        memory = sb.root / "MEMORY.md"
        saved = memory.read_text()
        assert saved.startswith(RULE) and saved.endswith(f"\n{MODEL_RULE}\n"), saved
        tui_ask(sb, tmux, NEXT, calls=0)
        memory.write_text(memory.read_text() + PERSON_RULE + "\n")  # the person's
        tui_ask(sb, tmux, LAST, calls=0)
        screen = tmux.screen()
        tmux.type("/exit" if cli.startswith("claude") else "/quit")
        tmux.wait_exit()
        if cli == "codex-daemon":  # its session ends now, not in 30-60 s
            codex_daemon_stop(sb)

        def after(prompt: str) -> str:
            # What came with `prompt` (each CLI puts a prompt's context after it).
            return _ours(sb.turn(prompt).text.split(prompt)[-1])

        assert memory.read_text() == f"{saved}{PERSON_RULE}\n"
        assert CHANGED not in after(NEXT), "the model's own write was told back"
        told = after(LAST)
        assert f"{CHANGED}MEMORY.md." in told and f"\n+{PERSON_RULE}\n" in told
        assert MODEL_RULE not in told, "the model's own line came with the person's"
        prompts = (REMEMBER, NEXT, LAST)
        assert [blocks_in(sb.turn(p)) for p in prompts] == [1] * 3
        if log is not None:
            # The MCP server's start-up line names its timeout: no hook's error.
            found = claude_errors(log.read_text())
            assert not [ln for ln in found if 'MCP server "memhooks"' not in ln]
        else:
            assert not (codex_errors if cli == "codex" else gemini_errors)(screen)
        assert not sb.leftovers()

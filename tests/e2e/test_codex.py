"""Codex CLI 0.171.0 drives memhooks: `codex exec` (+ resume) and an interactive session in tmux."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import capture_dir, sandbox
from tests.e2e.harnesses import (
    CODEX_MODES,
    codex_daemon_stop,
    codex_exec,
    codex_tui,
    setup_codex,
)
from tests.e2e.memory_fixture import (
    AFTER_COMPACT,
    AFTER_EDIT,
    ASK,
    BLOCK_OPEN,
    CHANGE_NOTICE,
    FACT,
    RESUME,
    RULE,
    blocks_in,
    edit_on_disk,
    seed,
)
from tests.e2e.sandbox import MEMHOOKS, REPO

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.e2e.sandbox import Leftovers, Sandbox

pytestmark = pytest.mark.timeout(300)

COMMAND = "echo resumed > resumed.txt"
#: Codex's auto-compaction fires once the last reply reported more tokens than this.
COMPACT_LIMIT = 2000


def hook_errors(output: str) -> list[str]:
    """Lines where Codex reports a failed hook, or memhooks wrote its one stderr line."""
    return [
        ln
        for ln in output.splitlines()
        if ("hook" in ln.lower() and ("failed" in ln.lower() or "error" in ln.lower()))
        or "memhooks" in ln
        and ": error" in ln
        or ln.startswith("memhooks hook:")
    ]


@dataclass
class ExecRuns:
    sb: Sandbox
    output: str
    first_end: str
    leftovers: Leftovers


@pytest.fixture(scope="module")
def execd(tmp_path_factory, cli_bins: Path, netns: bool) -> Iterator[ExecRuns]:
    """`codex exec ASK`, then `codex exec resume --last RESUME`."""
    with sandbox(tmp_path_factory.mktemp("codex-exec"), cli_bins, netns) as sb:
        env = setup_codex(sb, capture=capture_dir("codex"))
        seed(sb)
        # In the resumed session the model runs a command: the record must name it.
        sb.script([{"when": RESUME, "tool": "exec_command", "args": {"cmd": COMMAND}}])
        first = sb.run(codex_exec(ASK), env=env)
        assert first.returncode == 0, first.stderr
        first_end = "\n".join(sb.entries("session end", at_least=1))
        resumed = sb.run(codex_exec(RESUME, "resume", "--last"), env=env)
        assert resumed.returncode == 0, resumed.stderr
        assert sb.requests(), "the mock model API saw no request"
        output = first.stdout + first.stderr + resumed.stdout + resumed.stderr
        yield ExecRuns(sb, output, first_end, sb.leftovers())


def test_exec_block_reaches_the_model(execd: ExecRuns) -> None:
    got = execd.sb.turn(ASK).text
    assert BLOCK_OPEN in got and RULE in got


def test_exec_auto_search_hit_reaches_the_model(execd: ExecRuns) -> None:
    got = execd.sb.turn(ASK).text
    assert got.count(FACT) == 1


def test_exec_resumed_session_end_record_names_the_command(execd: ExecRuns) -> None:
    ends = execd.sb.entries("session end", at_least=2)
    assert len(ends) == 2, execd.sb.daily()
    assert RESUME in ends[1] and COMMAND in ends[1]
    assert (execd.sb.project / "resumed.txt").exists(), "the command did not run"


def test_exec_session_end_record(execd: ExecRuns) -> None:
    assert ASK in execd.first_end, execd.sb.daily()


def test_exec_resume_does_not_inject_the_block_again(execd: ExecRuns) -> None:
    got = execd.sb.turn(RESUME)
    assert blocks_in(got) == 1, f"{blocks_in(got)} blocks in the resumed conversation"


def test_exec_leaves_no_process_socket_or_state(execd: ExecRuns) -> None:
    assert not execd.leftovers, execd.leftovers


def test_exec_reports_no_hook_error(execd: ExecRuns) -> None:
    assert "hook: SessionStart Completed" in execd.output
    assert not hook_errors(execd.output)


# --- an interactive session under tmux ----------------------------------------------------


@dataclass
class Interactive:
    sb: Sandbox
    daily_before_compact: str
    leftovers: Leftovers
    screen: str


# What the TUI shows under its input box once it takes a prompt: 0.171.0 "? for
# shortcuts"; 0.145.0 and older the model and folder, "mock-model default · <folder>".
_READY = ("? for shortcuts", "mock-model default")


@pytest.fixture(scope="module", params=CODEX_MODES)
def interactive(
    request, tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> Iterator[Interactive]:
    """Ask (twice), edit memory on disk, ask, force an auto-compaction, ask, /quit; in
    both of the ways the TUI runs its hooks (`CODEX_MODES`)."""
    with sandbox(tmp_path_factory.mktemp("codex-tui"), cli_bins, netns) as sb:
        env = setup_codex(sb, capture=capture_dir("codex"), auto_compact=COMPACT_LIMIT)
        seed(sb)
        tmux = codex_tui(sb, env, request.param)
        sb.ask(tmux, ASK)
        sb.ask(tmux, ASK, 1)
        edit_on_disk(sb)
        # The reply to this prompt reports more tokens than the limit: the next turn
        # starts with an auto-compaction.
        sb.script(usage=COMPACT_LIMIT * 4)
        sb.ask(tmux, AFTER_EDIT)
        daily_before_compact = sb.daily()
        sb.script()
        sb.ask(tmux, AFTER_COMPACT)
        screen = tmux.screen()
        tmux.type("/quit")
        tmux.wait_exit()
        if request.param == "daemon":
            codex_daemon_stop(sb)  # the session ends now, not in 30-60 s
        assert sb.requests(), "the mock model API saw no request"
        yield Interactive(sb, daily_before_compact, sb.leftovers(), screen)


def test_interactive_block_reaches_the_model(interactive: Interactive) -> None:
    got = interactive.sb.turn(ASK).text
    assert BLOCK_OPEN in got and RULE in got


def test_interactive_auto_search_hit_reaches_the_model(
    interactive: Interactive,
) -> None:
    assert interactive.sb.turn(ASK).text.count(FACT) == 1


def test_interactive_repeated_prompt_gets_no_duplicate(
    interactive: Interactive,
) -> None:
    assert interactive.sb.turn(ASK, 1).text.count(FACT) == 1


def test_interactive_change_notice_after_an_edit_on_disk(
    interactive: Interactive,
) -> None:
    assert CHANGE_NOTICE not in interactive.sb.turn(ASK, 1).text
    assert CHANGE_NOTICE in interactive.sb.turn(AFTER_EDIT).text


def test_interactive_auto_compaction_happened(interactive: Interactive) -> None:
    summary_asks = [
        r
        for r in interactive.sb.requests()
        if "CONTEXT CHECKPOINT COMPACTION" in r.text
    ]
    assert summary_asks, "Codex never asked the model for a compaction summary"
    assert "compaction summary" not in interactive.daily_before_compact


def test_interactive_compaction_flushes_the_prompts(interactive: Interactive) -> None:
    flushes = interactive.sb.entries("compaction summary")
    assert flushes, interactive.sb.daily()
    assert ASK in flushes[0] and AFTER_EDIT in flushes[0]


def test_interactive_block_comes_back_once_after_compaction(
    interactive: Interactive,
) -> None:
    got = interactive.sb.turn(AFTER_COMPACT)
    assert "CONTEXT CHECKPOINT COMPACTION" not in got.text, "not compacted"
    assert blocks_in(got) == 1, f"{blocks_in(got)} blocks after the compaction"


def test_interactive_session_end_record(interactive: Interactive) -> None:
    ends = interactive.sb.entries("session end", at_least=1)
    assert ends and AFTER_COMPACT in ends[-1], interactive.sb.daily()


def test_interactive_leaves_no_process_socket_or_state(
    interactive: Interactive,
) -> None:
    assert not interactive.leftovers, interactive.leftovers


@pytest.mark.xfail(
    strict=True,
    reason="Codex's app-server daemon runs every TUI's hooks with the environment of the "
    "TUI that started it: a second TUI's MEMHOOKS_HOME (or PATH, venv) never reaches "
    "them, and a hook cannot tell which TUI it runs for when two are open",
)
def test_daemon_tui_started_with_another_memory_root_writes_there(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """Two TUIs, the hooks trusted as a person does, the second started with another
    MEMHOOKS_HOME (as a per-project environment sets it), a prompt in each. With
    `--dangerously-bypass-hook-trust` each TUI's own process runs its hooks with its own
    environment, and the second's record is in the other root; under the daemon (seen
    2026-12-07) it went to the first TUI's root, and the other root got nothing."""
    with sandbox(tmp_path_factory.mktemp("codex-env"), cli_bins, netns) as sb:
        env = setup_codex(sb)
        seed(sb)
        other = sb.base / "other-root"
        one = codex_tui(sb, env, "daemon")
        sb.ask(one, ASK)
        two = codex_tui(sb, {**env, "MEMHOOKS_HOME": str(other)}, "daemon")
        sb.ask(two, RESUME)
        for tmux in (one, two):
            tmux.type("/quit")
            tmux.wait_exit()
        codex_daemon_stop(sb)
        assert len(sb.entries("session end", at_least=2, wait=3)) == 1, sb.daily()
        assert RESUME not in sb.daily()
        assert any(RESUME in p.read_text() for p in other.rglob("daily/*.md"))


def test_mcp_write_under_codex_exec_with_the_documented_config(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """The `[mcp_servers.memhooks]` table of examples/mcp/README.md, copied into
    config.toml: the model's `memory_write` under `codex exec` writes the note. Codex
    asks before each call of a tool that writes, and `codex exec` cannot ask: without
    `default_tools_approval_mode` every write was refused ("MCP tool call requires
    approval, but approval policy is never")."""
    readme = (REPO / "examples" / "mcp" / "README.md").read_text()
    table = re.search(r"```toml\n(\[mcp_servers\.memhooks\].*?)```", readme, re.DOTALL)
    assert table, "no [mcp_servers.memhooks] table in examples/mcp/README.md"
    fact = "The wombat proxy moved to port 7432."
    with sandbox(tmp_path_factory.mktemp("codex-mcp"), cli_bins, netns) as sb:
        env = setup_codex(sb)
        config = sb.home / ".codex" / "config.toml"
        # No `mcp_optional_startup_grace_ms`: `codex exec` waits ~1.1 s for an optional
        # server before its first request, which `memhooks mcp` took ~1 s to answer
        # with the mcp SDK (the tools missed on a busy machine); it takes ~0.15 s now.
        base = config.read_text()
        args = {"to": "note", "name": "wombat", "text": fact}
        sb.script([{"when": ASK, "tool": "mcp__memhooks/memory_write", "args": args}])

        def outputs() -> list[str]:
            return [
                json.dumps(i)
                for r in sb.requests()
                for i in (r.body or {}).get("input") or []
                if isinstance(i, dict) and i.get("type") == "function_call_output"
            ]

        def doctor() -> list[str]:
            done = sb.run([str(MEMHOOKS), "doctor"], env=env)
            return [ln for ln in done.stdout.splitlines() if "MCP server" in ln]

        # Without the approval line the write is refused, and doctor says how to fix it.
        unapproved = table[1].replace('default_tools_approval_mode = "approve"\n', "")
        config.write_text(base + "\n" + unapproved)
        done = sb.run(codex_exec(ASK), env=env)
        assert done.returncode == 0, done.stderr
        # 0.171.0: "... requires approval, but approval policy is never"; 0.145.0 and
        # older: "user cancelled MCP tool call".
        refused = ("requires approval", "user cancelled MCP tool call")
        assert any(r in outputs()[-1] for r in refused), outputs()
        (said,) = doctor()
        assert said.startswith("warn: Codex: MCP server 'memhooks'"), said
        assert 'add default_tools_approval_mode = "approve"' in said, said

        config.write_text(base + "\n" + table[1])
        done = sb.run(codex_exec(ASK), env=env)
        assert done.returncode == 0, done.stderr
        assert len(outputs()) == 2 and "wrote projects/" in outputs()[-1], outputs()
        notes = list(sb.root.glob("projects/*/notes/wombat.md"))
        assert [n.read_text() for n in notes] == [fact + "\n"]
        assert [ln.split(":")[0] for ln in doctor()] == ["ok"], doctor()


def test_mcp_tools_on_the_default_root_named_by_xdg_data_home(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """No MEMHOOKS_HOME, and XDG_DATA_HOME set to ~/.local/share, the default, as many
    profiles set it; the `[mcp_servers.memhooks]` table of examples/mcp/README.md, which
    passes no XDG_DATA_HOME. The server finds the hooks' root from HOME: the model's
    `memory_write` lands there. Doctor said "fix: … does not get XDG_DATA_HOME …: its
    tools use another memory root than the hooks" and exited 1."""
    readme = (REPO / "examples" / "mcp" / "README.md").read_text()
    table = re.search(r"```toml\n(\[mcp_servers\.memhooks\].*?)```", readme, re.DOTALL)
    assert table, "no [mcp_servers.memhooks] table in examples/mcp/README.md"
    fact = "The wombat proxy moved to port 7432."
    with sandbox(tmp_path_factory.mktemp("codex-xdg"), cli_bins, netns) as sb:
        env = setup_codex(sb)
        del env["MEMHOOKS_HOME"]
        root = sb.home / ".local" / "share" / "memhooks"
        assert env["XDG_DATA_HOME"] == str(root.parent)
        config = sb.home / ".codex" / "config.toml"
        config.write_text(config.read_text() + "\n" + table[1])
        args = {"to": "note", "name": "wombat", "text": fact}
        sb.script([{"when": ASK, "tool": "mcp__memhooks/memory_write", "args": args}])

        done = sb.run(codex_exec(ASK), env=env)

        assert done.returncode == 0, done.stderr
        notes = list(root.glob("projects/*/notes/wombat.md"))
        assert [n.read_text() for n in notes] == [fact + "\n"]
        doctor = sb.run([str(MEMHOOKS), "doctor"], env=env)
        said = [ln for ln in doctor.stdout.splitlines() if "MCP server" in ln]
        assert [ln.split(":")[0] for ln in said] == ["ok"], said
        assert doctor.returncode == 0, doctor.stdout


def test_worktree_runs_no_project_hook_and_install_says_so(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """Started in a `git worktree` of the project, Codex reads the worktree's
    .codex/hooks.json, not the main checkout's that `install` writes (from a subfolder
    it reads the repository's): no hook runs, and `install` there says so."""
    with sandbox(tmp_path_factory.mktemp("codex-worktree"), cli_bins, netns) as sb:
        env = setup_codex(sb)
        seed(sb)
        tree = sb.worktree(env)
        config = sb.home / ".codex" / "config.toml"
        trust = f'\n[projects."{tree}"]\ntrust_level = "trusted"\n'
        config.write_text(config.read_text() + trust)
        done = sb.run(codex_exec(ASK), env=env, cwd=tree)
        assert done.returncode == 0, done.stderr
        assert BLOCK_OPEN not in sb.turn(ASK).text, "Codex read the main checkout's"
        said = sb.memhooks("install", "codex", "--project", str(tree))
        assert f"Codex started in {tree} reads .codex/hooks.json there" in said
        sub = sb.project / "pkg"
        sub.mkdir()
        done = sb.run(codex_exec(RESUME), env=env, cwd=sub)
        assert done.returncode == 0, done.stderr
        assert BLOCK_OPEN in sb.turn(RESUME).text  # a subfolder: the repository's file
        assert "started in" not in sb.memhooks(
            "install", "codex", "--project", str(sub)
        )

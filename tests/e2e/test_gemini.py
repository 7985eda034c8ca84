"""Gemini CLI 0.61.0 drives memhooks: `gemini -p` and an interactive session in tmux."""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memhooks.memory.toolsline import usage_mcp
from tests.e2e.conftest import capture_dir, sandbox
from tests.e2e.harnesses import setup_gemini
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
from tests.e2e.sandbox import MEMHOOKS

if TYPE_CHECKING:
    from collections.abc import Iterator

    from tests.e2e.sandbox import Leftovers, Sandbox

pytestmark = pytest.mark.timeout(300)

#: Tokens every reply reports in the interactive session: /compress compares the
#: history's size with its summary's, and a small history is "not beneficial" to compress.
BIG_HISTORY = 200_000


def hook_errors(output: str) -> list[str]:
    """Gemini shows a hook's stderr as "Hook system message: …" when its stdout is empty."""
    return [
        ln
        for ln in output.splitlines()
        if "Hook system message" in ln
        or "memhooks hook:" in ln
        or "Hook execution" in ln
    ]


@dataclass
class PrintRun:
    sb: Sandbox
    output: str
    leftovers: Leftovers


@pytest.fixture(scope="module")
def printed(tmp_path_factory, cli_bins: Path, netns: bool) -> Iterator[PrintRun]:
    with sandbox(tmp_path_factory.mktemp("gemini-p"), cli_bins, netns) as sb:
        env = setup_gemini(sb, capture=capture_dir("gemini"))
        seed(sb)
        done = sb.run(["gemini", "-p", ASK], env=env)
        assert done.returncode == 0, done.stderr
        assert sb.requests(), "the mock model API saw no request"
        yield PrintRun(sb, done.stdout + done.stderr, sb.leftovers())


def test_print_block_reaches_the_model(printed: PrintRun) -> None:
    got = printed.sb.turn(ASK).text
    assert f"<hook_context>{BLOCK_OPEN}" in got
    assert RULE in got


def test_print_auto_search_hit_reaches_the_model(printed: PrintRun) -> None:
    assert FACT in printed.sb.turn(ASK).text


def test_print_session_end_record(printed: PrintRun) -> None:
    ends = printed.sb.entries("session end", at_least=1)
    assert ends and ASK in ends[-1], printed.sb.daily()


def test_print_leaves_no_process_socket_or_state(printed: PrintRun) -> None:
    assert not printed.leftovers, printed.leftovers


def test_print_shows_no_hook_error(printed: PrintRun) -> None:
    assert not hook_errors(printed.output), printed.output


# --- an interactive session under tmux ----------------------------------------------------


@dataclass
class Interactive:
    sb: Sandbox
    daily_before_compress: str
    leftovers: Leftovers
    screen: str


@pytest.fixture(scope="module")
def interactive(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> Iterator[Interactive]:
    """Ask (twice), edit memory on disk, ask, /compress, ask, /quit."""
    with sandbox(tmp_path_factory.mktemp("gemini-tui"), cli_bins, netns) as sb:
        env = setup_gemini(sb, capture=capture_dir("gemini"))
        seed(sb)
        sb.script(usage=BIG_HISTORY)
        tmux = sb.tmux(["gemini"], env=env)
        tmux.wait_text("Type your message", timeout=60)
        sb.ask(tmux, ASK)
        sb.ask(tmux, ASK, 1)
        edit_on_disk(sb)
        sb.ask(tmux, AFTER_EDIT)
        daily_before_compress = sb.daily()
        tmux.type("/compress")
        tmux.wait_text("compressed from", timeout=60)
        sb.ask(tmux, AFTER_COMPACT)
        screen = tmux.screen()
        tmux.type("/quit")
        tmux.wait_exit()
        assert sb.requests(), "the mock model API saw no request"
        yield Interactive(sb, daily_before_compress, sb.leftovers(), screen)


def test_interactive_block_reaches_the_model(interactive: Interactive) -> None:
    got = interactive.sb.turn(ASK).text
    assert f"<hook_context>{BLOCK_OPEN}" in got
    assert RULE in got


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


def test_interactive_no_flush_before_a_compression(interactive: Interactive) -> None:
    assert "compaction summary" not in interactive.daily_before_compress


def test_interactive_prompts_are_in_the_log_when_compressed(
    interactive: Interactive,
) -> None:
    flushed = "\n".join(interactive.sb.entries("compaction summary"))
    assert ASK in flushed and AFTER_EDIT in flushed, interactive.sb.daily()


def test_interactive_block_after_compress(interactive: Interactive) -> None:
    got = interactive.sb.turn(AFTER_COMPACT)
    assert "state_snapshot" in got.text, "not compressed"
    assert blocks_in(got) == 1


def test_interactive_session_end_record(interactive: Interactive) -> None:
    ends = interactive.sb.entries("session end", at_least=1)
    assert ends and AFTER_COMPACT in ends[-1], interactive.sb.daily()


def test_interactive_leaves_no_process_socket_or_state(
    interactive: Interactive,
) -> None:
    assert not interactive.leftovers, interactive.leftovers


def test_interactive_report_shows_how_the_session_grew_the_log(
    interactive: Interactive,
) -> None:
    # Gemini CLI runs its SessionEnd hook more than once on `/quit`: the session's
    # growth is still what it wrote (the log is the session's alone), not +0 B.
    sb = interactive.sb
    assert sb.entries("session end", at_least=1)
    (session,) = json.loads(sb.memhooks("report", "--json"))["sessions"]
    size = len(sb.daily().encode())
    assert (session["log_bytes"], session["log_growth"]) == (size, size)


def test_interactive_shows_no_hook_error(interactive: Interactive) -> None:
    assert not hook_errors(interactive.screen), interactive.screen


def test_resumed_session_gets_the_block_and_the_note(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """`gemini --resume` sends the model the earlier turns without the hook context they
    had (its chat file keeps it): the block, and a note auto-search showed, come again."""
    with sandbox(tmp_path_factory.mktemp("gemini-resume"), cli_bins, netns) as sb:
        env = setup_gemini(sb)
        seed(sb)
        for argv in (
            ["gemini", "-p", ASK],
            ["gemini", "--resume", "latest", "-p", ASK],
        ):
            done = sb.run(argv, env=env)
            assert done.returncode == 0, done.stderr
        first, again = [r for r in sb.requests() if r.carries(ASK)]
        assert blocks_in(first) == 1 and first.text.count(FACT) == 1
        assert blocks_in(again) == 1, "no block in the resumed session"
        assert again.text.count(FACT) == 1


def test_resumed_twice_gets_one_block_and_the_note_once(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """A prompt of a resumed session brings the block (and a note) in its BeforeAgent
    context, and Gemini replays that prompt with it on the next resume: there the block
    and the note are in the conversation already, and do not come a second time."""
    with sandbox(tmp_path_factory.mktemp("gemini-resume-twice"), cli_bins, netns) as sb:
        env = setup_gemini(sb)
        seed(sb)
        for argv in (
            ["gemini", "-p", RESUME],
            ["gemini", "--resume", "latest", "-p", ASK],
            ["gemini", "--resume", "latest", "-p", ASK],
        ):
            done = sb.run(argv, env=env)
            assert done.returncode == 0, done.stderr
        first, again = sb.turn(ASK), sb.turn(ASK, 1)
        assert blocks_in(first) == 1 and first.text.count(FACT) == 1
        assert blocks_in(again) == 1, "the block came again with the prompt"
        assert again.text.count(FACT) == 1, "the note came again with the prompt"


def test_interactive_resumed_session_gets_the_block(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """`gemini --resume latest` in the TUI replays the earlier turns with their BeforeAgent
    context but not the SessionStart block, and adds no SessionStart context: the block
    comes with the first prompt, once; the note auto-search showed in a replayed turn is
    in the conversation, and asked for again it does not come a second time."""
    with sandbox(tmp_path_factory.mktemp("gemini-tui-resume"), cli_bins, netns) as sb:
        env = setup_gemini(sb)
        seed(sb)
        for argv, prompts in (
            (["gemini"], [(ASK, 0)]),
            (["gemini", "--resume", "latest"], [(AFTER_EDIT, 0), (ASK, 1)]),
        ):
            tmux = sb.tmux(argv, env=env)
            tmux.wait_text("Type your message", timeout=60)
            for prompt, nth in prompts:
                sb.ask(tmux, prompt, nth)
            tmux.type("/quit")
            tmux.wait_exit()
        assert blocks_in(sb.turn(AFTER_EDIT)) == 1, "no block in the resumed session"
        assert sb.turn(ASK, 1).text.count(FACT) == 1, "the replayed note came again"
        assert not sb.leftovers().states


def test_clear_gets_the_block_with_the_next_prompt(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """`/clear` starts a new session: Gemini CLI sends SessionStart (`clear`) but keeps only
    its `systemMessage`, not the context: the block comes with the next prompt, once."""
    with sandbox(tmp_path_factory.mktemp("gemini-tui-clear"), cli_bins, netns) as sb:
        env = setup_gemini(sb)
        seed(sb)
        tmux = sb.tmux(["gemini"], env=env)
        tmux.wait_text("Type your message", timeout=60)
        sb.ask(tmux, ASK)
        tmux.type("/clear")
        sb.ask(tmux, AFTER_EDIT)
        sb.ask(tmux, AFTER_COMPACT)
        tmux.type("/quit")
        tmux.wait_exit()
        assert blocks_in(sb.turn(AFTER_EDIT)) == 1, "no block after /clear"
        assert blocks_in(sb.turn(AFTER_COMPACT)) == 1


def test_worktree_runs_no_project_hook_and_install_says_so(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """Started in a `git worktree` of the project, Gemini CLI reads the worktree's
    .gemini/settings.json, not the main checkout's that `install` writes: no hook runs,
    and `install` there says so; the user file reaches it."""
    with sandbox(tmp_path_factory.mktemp("gemini-worktree"), cli_bins, netns) as sb:
        env = setup_gemini(sb)
        seed(sb)
        tree = sb.worktree(env)
        done = sb.run(["gemini", "-p", ASK], env=env, cwd=tree)
        assert done.returncode == 0, done.stderr
        assert BLOCK_OPEN not in sb.turn(ASK).text, "Gemini read the main checkout's"
        said = sb.memhooks("install", "gemini", "--project", str(tree))
        assert f"Gemini CLI started in {tree} reads" in said
        sb.memhooks("install", "gemini", "--scope", "user")
        done = sb.run(["gemini", "-p", RESUME], env=env, cwd=tree)
        assert done.returncode == 0, done.stderr
        assert BLOCK_OPEN in sb.turn(RESUME).text


def test_a_folder_not_trusted_runs_no_hook_of_the_user_either_and_doctor_says_so(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """In a folder it was told not to trust, Gemini CLI 0.61.0 runs no hook of its
    settings, those of ~/.gemini/settings.json too: `install --scope user`, which install
    and doctor gave as the way round an untrusted folder, brought no block, and doctor
    said "ok" of it."""
    with sandbox(tmp_path_factory.mktemp("gemini-distrust"), cli_bins, netns) as sb:
        env = setup_gemini(sb)
        seed(sb)
        sb.memhooks("uninstall", "gemini")
        said = sb.memhooks("install", "gemini", "--scope", "user")
        assert "--scope user" not in said, said
        rules = sb.home / ".gemini" / "trustedFolders.json"
        rules.write_text(json.dumps({str(sb.project): "DO_NOT_TRUST"}))
        del env["GEMINI_CLI_TRUST_WORKSPACE"]
        tmux = sb.tmux(["gemini"], env=env)
        tmux.wait_text("Type your message", timeout=60)
        sb.ask(tmux, ASK)
        tmux.type("/quit")
        tmux.wait_exit()
        assert BLOCK_OPEN not in sb.turn(ASK).text, "a hook ran in the untrusted folder"
        assert not sb.entries("session end")
        done = sb.run([str(MEMHOOKS), "doctor"], env=env)
        lines = [ln for ln in done.stdout.splitlines() if "Gemini CLI" in ln]
        assert any(ln.startswith("fix: ") and "DO_NOT_TRUST" in ln for ln in lines), (
            lines
        )
        assert not any("--scope user" in ln for ln in lines), lines


def test_the_block_names_the_mcp_tools_as_gemini_offers_them(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """With `memhooks mcp` registered, Gemini CLI 0.61.0 gives the model
    `mcp_memhooks_memory_search` & co; the block told it to call `memory_search`, a
    tool it did not have. `gemini -p` offers none of them unless the entry says
    "trust": true, and doctor said "ok" of the entry without it."""
    with sandbox(tmp_path_factory.mktemp("gemini-mcp"), cli_bins, netns) as sb:
        env = setup_gemini(sb)
        seed(sb)
        settings = sb.project / ".gemini" / "settings.json"
        data = json.loads(settings.read_text())
        line = usage_mcp("memhooks", "mcp_{server}_{tool}")
        named = set(re.findall(r"`([^`]+)`", line))

        def offered(prompt: str) -> set[str]:
            return {
                f["name"]
                for tool in sb.turn(prompt).body.get("tools") or []
                for f in tool.get("functionDeclarations") or []
            }

        def doctor() -> list[str]:
            done = sb.run([str(MEMHOOKS), "doctor"], env=env)
            return [ln for ln in done.stdout.splitlines() if "MCP server" in ln]

        for trust, prompt in ((False, RESUME), (True, ASK)):
            entry = {"command": "memhooks", "args": ["mcp"]}
            data["mcpServers"] = {
                "memhooks": entry | ({"trust": True} if trust else {})
            }
            settings.write_text(json.dumps(data, indent=2))
            done = sb.run(["gemini", "-p", prompt], env=env)
            assert done.returncode == 0, done.stderr
            (said,) = doctor()
            if not trust:
                assert not named & offered(prompt), sorted(offered(prompt))
                assert said.startswith("warn: ") and '"trust": true' in said, said
                continue
            assert line in sb.turn(prompt).text
            assert named <= offered(prompt), sorted(offered(prompt))
            assert said.startswith("ok: "), said


def test_the_model_calls_memory_search_through_memhooks_mcp(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """`memhooks mcp` registered as examples/mcp/README.md says (trusted, so that `gemini
    -p` may call it unasked): the model's `memory_search` call reaches the server, and its
    answer the model. The server speaks MCP itself since 2026-12-05 (no SDK)."""
    question = "Search memory for the wombat proxy."
    with sandbox(tmp_path_factory.mktemp("gemini-mcp"), cli_bins, netns) as sb:
        env = setup_gemini(sb)
        seed(sb)
        settings = sb.project / ".gemini" / "settings.json"
        config = json.loads(settings.read_text())
        server = {"command": "memhooks", "args": ["mcp"], "trust": True}
        config["mcpServers"] = {"memhooks": server}
        settings.write_text(json.dumps(config, indent=2))
        args = {"query": "wombat proxy"}
        sb.script(
            [{"when": question, "tool": "mcp_memhooks_memory_search", "args": args}]
        )
        done = sb.run(["gemini", "-p", question], env=env)
        assert done.returncode == 0, done.stderr
        answered = [r.text for r in sb.requests() if "Searched 2 terms" in r.text]
        assert answered, [r.text[-500:] for r in sb.requests()]
        assert "wombat(1) proxy(1)" in answered[0] and FACT in answered[0]


def test_a_tui_left_open_ends_with_its_sandbox(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """A test that fails before `/quit` closes its sandbox with the TUI still open:
    Gemini CLI outlived the SIGHUP of tmux's `kill-server`, and two node processes of
    every such test kept running after the tier."""
    with sandbox(tmp_path_factory.mktemp("gemini-left"), cli_bins, netns) as sb:
        tmux = sb.tmux(["gemini"], env=setup_gemini(sb))
        tmux.wait_text("Type your message", timeout=60)
        sb.ask(tmux, ASK)
        time.sleep(5)  # Gemini CLI ended with the server only in its first seconds
    marker = f"MEMHOOKS_HOME={sb.root}".encode()

    def running() -> list[str]:
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            with contextlib.suppress(OSError):
                environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                if marker in environ and state[0] != "Z":
                    found.append(pid)
        return found

    deadline = time.monotonic() + 5
    while running() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not running()

"""Claude Code (the version `install_clis.sh` pins) drives memhooks: `claude -p` runs and
an interactive session in tmux."""

from __future__ import annotations

import json
import os
import re
import signal
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pytest

from memhooks.memory.toolsline import usage_mcp
from tests.e2e.conftest import capture_dir, runs, sandbox
from tests.e2e.harnesses import setup_claude
from tests.e2e.memory_fixture import (
    AFTER_COMPACT,
    AFTER_EDIT,
    ASK,
    BLOCK_OPEN,
    CHANGE_NOTICE,
    EDIT,
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
    from pathlib import Path

    from tests.e2e.sandbox import Leftovers, Sandbox
    from tests.e2e.tmux import Tmux

# `claude -p` takes 2-10 s a run on a busy 2-core machine; MEMHOOKS_E2E_RUNS sets how many.
pytestmark = pytest.mark.timeout(max(300, 120 + 20 * runs()))

# What Claude Code's debug log says when a hook failed or timed out.
_HOOK_ERROR = re.compile(
    r"hook.{0,80}(error|failed|timed out|timeout|non-blocking|status [1-9])"
    r"|memhooks( hook)?: ",
    re.IGNORECASE,
)


def hook_errors(debug: str) -> list[str]:
    return [ln for ln in debug.splitlines() if _HOOK_ERROR.search(ln)]


# What the TUI shows under its input box once it takes a prompt: 2.1.197 "? for
# shortcuts"; 2.1.332, in auto mode by default, "auto mode on (shift+tab to cycle)".
_READY = ("? for shortcuts", "shift+tab to cycle")


def wait_ready(tmux: Tmux) -> None:
    """Wait until the interactive TUI shows its input box."""
    tmux.wait_for(
        lambda: any(m in tmux.screen() for m in _READY),
        timeout=60,
        what="the input box",
    )


@dataclass
class PrintRuns:
    sb: Sandbox
    outputs: list[str] = field(default_factory=list)
    leftovers: list[Leftovers] = field(default_factory=list)
    debug: str = ""
    resumed: str = ""


@pytest.fixture(scope="module")
def printed(tmp_path_factory, cli_bins: Path, netns: bool) -> Iterator[PrintRuns]:
    """`claude -p` run MEMHOOKS_E2E_RUNS times (5 by default), then once with --continue."""
    with sandbox(tmp_path_factory.mktemp("claude-p"), cli_bins, netns) as sb:
        env = setup_claude(sb, capture=capture_dir("claude-code"))
        seed(sb)
        result = PrintRuns(sb)
        debug = []
        for i in range(runs()):
            prompt = ASK if i == 0 else f"Say hello to run {i}."
            log = sb.base / f"debug-{i}.txt"
            done = sb.run(["claude", "-p", prompt, "--debug-file", str(log)], env=env)
            assert done.returncode == 0, done.stderr
            result.outputs.append(done.stdout)
            result.leftovers.append(sb.leftovers())
            debug.append(log.read_text() if log.exists() else "")
        log = sb.base / "debug-resume.txt"
        done = sb.run(
            ["claude", "-p", "--continue", RESUME, "--debug-file", str(log)], env=env
        )
        assert done.returncode == 0, done.stderr
        result.resumed = done.stdout
        debug.append(log.read_text() if log.exists() else "")
        result.debug = "\n".join(debug)
        assert sb.requests(), "the mock model API saw no request"
        yield result


def test_print_block_reaches_the_model(printed: PrintRuns) -> None:
    sb = printed.sb
    for i in range(runs()):
        prompt = ASK if i == 0 else f"Say hello to run {i}."
        got = sb.turn(prompt).text
        assert f"SessionStart hook additional context: {BLOCK_OPEN}" in got
        assert RULE in got


def test_print_auto_search_hit_reaches_the_model(printed: PrintRuns) -> None:
    got = printed.sb.turn(ASK).text
    assert f"UserPromptSubmit hook additional context: {BLOCK_OPEN}" in got
    assert FACT in got
    # From auto-search, not from the block's note index.
    assert got.count(FACT) == 1


def test_print_every_run_leaves_a_session_end_record(printed: PrintRuns) -> None:
    ends = printed.sb.entries("session end", at_least=runs())
    prompts = [ASK] + [f"Say hello to run {i}." for i in range(1, runs())]
    for prompt in prompts:
        assert [e for e in ends if prompt in e], f"no session-end record for {prompt!r}"


def test_print_runs_leave_no_process_socket_or_state(printed: PrintRuns) -> None:
    left = [(i, lo) for i, lo in enumerate(printed.leftovers) if lo]
    assert not left, f"{len(left)} of {runs()} runs left something: {left}"


def test_print_runs_log_no_hook_error(printed: PrintRuns) -> None:
    assert printed.debug, "Claude Code wrote no debug log"
    assert not hook_errors(printed.debug)


def test_print_continue_does_not_inject_the_block_again(printed: PrintRuns) -> None:
    got = printed.sb.turn(RESUME)
    assert blocks_in(got) == 1, f"{blocks_in(got)} blocks in the resumed conversation"


# --- an interactive session under tmux ----------------------------------------------------


@dataclass
class Interactive:
    sb: Sandbox
    screen: str = ""
    debug: str = ""
    daily_before_compact: str = ""
    leftovers: Leftovers | None = None


@pytest.fixture(scope="module")
def interactive(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> Iterator[Interactive]:
    """Ask (twice), edit memory on disk, ask, /compact, ask, /exit."""
    with sandbox(tmp_path_factory.mktemp("claude-tui"), cli_bins, netns) as sb:
        env = setup_claude(sb, capture=capture_dir("claude-code"))
        seed(sb)
        log = sb.base / "debug.txt"
        tmux = sb.tmux(["claude", "--debug-file", str(log)], env=env)
        wait_ready(tmux)
        sb.ask(tmux, ASK)
        sb.ask(tmux, ASK, 1)
        edit_on_disk(sb)
        sb.ask(tmux, AFTER_EDIT)
        result = Interactive(sb)
        result.daily_before_compact = sb.daily()
        tmux.type("/compact")
        tmux.wait_text("Compacted", timeout=60)
        sb.ask(tmux, AFTER_COMPACT)
        tmux.type("/exit")
        tmux.wait_exit()
        result.leftovers = sb.leftovers()
        result.debug = log.read_text()
        assert sb.requests(), "the mock model API saw no request"
        yield result


def test_interactive_block_reaches_the_model(interactive: Interactive) -> None:
    got = interactive.sb.turn(ASK).text
    assert f"SessionStart hook additional context: {BLOCK_OPEN}" in got
    assert RULE in got


def test_interactive_auto_search_hit_reaches_the_model(
    interactive: Interactive,
) -> None:
    got = interactive.sb.turn(ASK).text
    assert f"UserPromptSubmit hook additional context: {BLOCK_OPEN}" in got
    assert got.count(FACT) == 1


def test_interactive_repeated_prompt_gets_no_duplicate(
    interactive: Interactive,
) -> None:
    again = interactive.sb.turn(ASK, 1).text
    assert again.count(FACT) == 1, "the note was injected a second time"


def test_interactive_change_notice_after_an_edit_on_disk(
    interactive: Interactive,
) -> None:
    before = interactive.sb.turn(ASK, 1).text
    after = interactive.sb.turn(AFTER_EDIT).text
    assert CHANGE_NOTICE not in before
    assert CHANGE_NOTICE in after
    assert EDIT in after, "the edited line did not come with the prompt it answers"


def test_interactive_compact_flushes_the_prompts(interactive: Interactive) -> None:
    flushes = interactive.sb.entries("compaction summary")
    assert len(flushes) == 1, interactive.sb.daily()
    assert ASK in flushes[0] and AFTER_EDIT in flushes[0]
    assert "compaction summary" not in interactive.daily_before_compact


def test_interactive_block_comes_back_after_compact(interactive: Interactive) -> None:
    got = interactive.sb.turn(AFTER_COMPACT).text
    assert "Summary:" in got, "the request after /compact does not hold the summary"
    assert f"SessionStart hook additional context: {BLOCK_OPEN}" in got
    assert blocks_in(interactive.sb.turn(AFTER_COMPACT)) == 1


def test_interactive_harness_summary_is_logged(interactive: Interactive) -> None:
    (entry,) = interactive.sb.entries("compaction summary (from the harness)")
    assert "Mock compaction summary" in entry


def test_interactive_harness_summary_drops_the_analysis(
    interactive: Interactive,
) -> None:
    (entry,) = interactive.sb.entries("compaction summary (from the harness)")
    assert "<analysis>" not in entry and "Mock analysis" not in entry


def test_interactive_slash_commands_are_not_logged_as_prompts(
    interactive: Interactive,
) -> None:
    daily = interactive.sb.daily()
    assert "- /compact" not in daily and "- /exit" not in daily


def test_interactive_session_end_record(interactive: Interactive) -> None:
    (end,) = interactive.sb.entries("session end", at_least=1)
    assert AFTER_COMPACT in end


def test_interactive_leaves_no_process_socket_or_state(
    interactive: Interactive,
) -> None:
    assert not interactive.leftovers, interactive.leftovers


def test_interactive_logs_no_hook_error(interactive: Interactive) -> None:
    assert not hook_errors(interactive.debug)


def test_compact_refused_writes_no_flush(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """Claude Code sends PreCompact, then refuses to compact an empty conversation: no
    flush then, and the compaction made after a prompt is flushed once, with the prompt."""
    with sandbox(tmp_path_factory.mktemp("claude-nocompact"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        seed(sb)
        tmux = sb.tmux(["claude"], env=env)
        wait_ready(tmux)
        tmux.type("/compact")
        tmux.wait_text("Not enough messages to compact", timeout=60)
        sb.ask(tmux, ASK)
        refused = sb.entries("compaction summary")
        # Claude Code 2.1.263 and older refuse to compact one exchange too (2.1.319 does).
        sb.ask(tmux, AFTER_EDIT)
        tmux.type("/compact")
        tmux.wait_text("Compacted", timeout=60)
        made = sb.entries("compaction summary", at_least=1)
        tmux.type("/exit")
        tmux.wait_exit()
        assert not refused, sb.daily()
        assert len(made) == 1 and ASK in made[0], sb.daily()


def test_continue_does_not_surface_a_note_the_conversation_holds(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """The same question asked again in a `--continue`d conversation: the note that
    auto-search showed the first time is in the conversation, and is not shown again."""
    with sandbox(tmp_path_factory.mktemp("claude-continue-ask"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        seed(sb)
        for argv in (["claude", "-p", ASK], ["claude", "-p", "--continue", ASK]):
            done = sb.run(argv, env=env)
            assert done.returncode == 0, done.stderr
        first, again = sb.turn(ASK).text, sb.turn(ASK, 1).text
        assert first.count(FACT) == 1
        assert again.count(FACT) == 1, "the note was shown again after --continue"


def test_a_question_in_a_sentence_gets_the_note_on_its_subject(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """ "What's the status of the wombat": the note names the wombat, not a status. The
    prompt hook took "status" for a subject word, a hit had to hold two, and the model got
    nothing; it reads the question's frame now, as `memhooks search` does."""
    question = "What's the status of the wombat"
    with sandbox(tmp_path_factory.mktemp("claude-question"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        seed(sb)
        done = sb.run(["claude", "-p", question], env=env)
        assert done.returncode == 0, done.stderr
        got = sb.turn(question).text
        assert f"UserPromptSubmit hook additional context: {BLOCK_OPEN}" in got
        assert got.count(FACT) == 1


def test_the_model_calls_memory_search_through_memhooks_mcp(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """`memhooks mcp` added with `claude mcp add` as the README says, its tools allowed:
    the model's `memory_search` call reaches the server, and its answer the model. The
    server speaks MCP itself since 2026-12-05 (no SDK)."""
    question = "Search memory for the wombat proxy."
    tool = "mcp__memhooks__memory_search"
    with sandbox(tmp_path_factory.mktemp("claude-mcp"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        seed(sb)
        add = ["claude", "mcp", "add", "memhooks", "--", "memhooks", "mcp"]
        added = sb.run(add, env=env)
        assert added.returncode == 0, added.stderr
        sb.script([{"when": question, "tool": tool, "args": {"query": "wombat proxy"}}])
        done = sb.run(["claude", "-p", question, "--allowedTools", tool], env=env)
        assert done.returncode == 0, done.stderr
        answered = [r.text for r in sb.requests() if "Searched 2 terms" in r.text]
        assert answered, [r.text[-500:] for r in sb.requests()]
        assert "wombat(1) proxy(1)" in answered[0]


def test_claude_p_runs_the_mcp_tools_once_allowed_as_doctor_says(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """`claude -p` cannot ask before a tool call: it refused every `memhooks mcp` tool
    added with `claude mcp add` ("…you haven't granted it yet"), while `memhooks doctor`
    said "ok". Doctor now warns with the allow rule, and with that rule the write lands."""
    prompt = "Remember that the staging port is 8443."
    fact = "- The staging port is 8443."
    tool = "mcp__memhooks__memory_write"
    with sandbox(tmp_path_factory.mktemp("claude-mcp-p"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        add = ["claude", "mcp", "add", "memhooks", "--", "memhooks", "mcp"]
        assert sb.run(add, env=env).returncode == 0
        sb.script(
            [{"when": prompt, "tool": tool, "args": {"to": "memory", "text": fact}}]
        )
        refused = sb.run(["claude", "-p", prompt], env=env)
        assert refused.returncode == 0, refused.stderr
        assert not (sb.root / "MEMORY.md").exists()
        warned = [ln for ln in _doctor(sb, sb.project).splitlines() if "MCP" in ln]
        assert len(warned) == 1 and warned[0].startswith("warn: Claude Code"), warned
        rule = re.search(r'"permissions": \{"allow": \["(.+?)"\]\}', warned[0])
        assert rule, warned[0]
        local = sb.project / ".claude" / "settings.local.json"
        local.write_text(json.dumps({"permissions": {"allow": [rule[1]]}}))
        done = sb.run(["claude", "-p", prompt], env=env)
        assert done.returncode == 0, done.stderr
        assert fact in (sb.root / "MEMORY.md").read_text()
        assert "ok: Claude Code: MCP server 'memhooks'" in _doctor(sb, sb.project)


def test_fork_does_not_inject_the_block_again(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """`--fork-session` copies the conversation, block and all, under a new session id
    whose transcript is written only after the first turn: the fork got a second block."""
    forked = "Take the other branch from here."
    with sandbox(tmp_path_factory.mktemp("claude-fork"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        seed(sb)
        for argv in (
            ["claude", "-p", "Say hello."],
            ["claude", "-p", "--continue", "--fork-session", forked],
        ):
            done = sb.run(argv, env=env)
            assert done.returncode == 0, done.stderr
        got = sb.turn(forked)
        assert blocks_in(got) == 1, (
            f"{blocks_in(got)} blocks in the forked conversation"
        )


def test_killed_session_keeps_its_record(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """Claude Code killed (SIGKILL: no SessionEnd hook runs): what the session did is still
    recorded, and neither its session process nor its state file is left behind."""
    with sandbox(tmp_path_factory.mktemp("claude-killed"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        seed(sb)
        tmux = sb.tmux(["claude"], env=env)
        wait_ready(tmux)
        sb.ask(tmux, ASK)
        os.kill(int(tmux._tmux("list-panes", "-F", "#{pane_pid}")), signal.SIGKILL)
        ends = sb.entries("session end", at_least=1)
        left = sb.leftovers()
        assert len(ends) == 1 and ASK in ends[0], sb.daily()
        # Claude Code's own socket stays: only ours count.
        assert not left.processes and not left.states, left
        assert not [s for s in left.sockets if "memhooks" in s], left


def test_subfolder_runs_no_project_hook_and_doctor_says_so(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """Started in a subfolder of the project, Claude Code reads that folder's
    .claude/settings.json, not the project's: no hook runs, and `memhooks install` and
    `memhooks doctor` there say so; the local file, read from the repository's root,
    reaches it."""
    with sandbox(tmp_path_factory.mktemp("claude-subfolder"), cli_bins, netns) as sb:
        env = setup_claude(sb, install=False)
        seed(sb)
        sub = sb.project / "pkg"
        sub.mkdir()
        said = sb.memhooks("install", "claude-code", "--project", str(sub))
        done = sb.run(["claude", "-p", ASK], env=env, cwd=sub)
        assert done.returncode == 0, done.stderr
        assert blocks_in(sb.turn(ASK)) == 0, "Claude Code read the project's file"
        assert f"Claude Code started in {sub} reads" in said
        assert f"warn: Claude Code started in {sub} reads" in _doctor(sb, sub)
        assert "started in" not in _doctor(sb, sb.project)
        sb.memhooks("uninstall", "claude-code")
        said = sb.memhooks("install", "claude-code", "--scope", "local")
        done = sb.run(["claude", "-p", RESUME], env=env, cwd=sub)
        assert done.returncode == 0, done.stderr
        assert blocks_in(sb.turn(RESUME)) == 1
        assert "started in" not in _doctor(sb, sub)


def test_worktree_runs_no_project_hook_and_install_says_so(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """Started in a `git worktree` of the project, Claude Code reads the worktree's
    .claude/settings.json, not the main checkout's that `install` writes: no hook runs,
    and `install` and `doctor` there say so; the main checkout's local file reaches it."""
    with sandbox(tmp_path_factory.mktemp("claude-worktree"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        seed(sb)
        tree = sb.worktree(env)
        done = sb.run(["claude", "-p", ASK], env=env, cwd=tree)
        assert done.returncode == 0, done.stderr
        assert blocks_in(sb.turn(ASK)) == 0, "Claude Code read the main checkout's file"
        said = sb.memhooks("install", "claude-code", "--project", str(tree))
        assert f"Claude Code started in {tree} reads" in said
        assert f"warn: Claude Code started in {tree} reads" in _doctor(sb, tree)
        sb.memhooks("install", "claude-code", "--scope", "local")
        done = sb.run(["claude", "-p", RESUME], env=env, cwd=tree)
        assert done.returncode == 0, done.stderr
        assert blocks_in(sb.turn(RESUME)) == 1
        assert "started in" not in _doctor(sb, tree)


def test_claude_config_dir_gets_the_user_scope_hooks_and_mcp(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """With CLAUDE_CONFIG_DIR set, Claude Code reads its user settings and state there,
    not in ~/.claude: `install --scope user` wrote ~/.claude/settings.json, no hook ran,
    and doctor said "ok"; `claude mcp add` there was not seen either."""
    with sandbox(tmp_path_factory.mktemp("claude-config-dir"), cli_bins, netns) as sb:
        env = setup_claude(sb, install=False)
        config = sb.base / "claude-config"
        config.mkdir()
        (config / ".claude.json").write_text((sb.home / ".claude.json").read_text())
        env["CLAUDE_CONFIG_DIR"] = str(config)
        seed(sb)
        for argv in (
            [str(MEMHOOKS), "install", "claude-code", "--scope", "user"],
            ["claude", "mcp", "add", "memhooks", "--", "memhooks", "mcp"],
            ["claude", "-p", ASK],
        ):
            done = sb.run(argv, env=env)
            assert done.returncode == 0, done.stderr
        got = sb.turn(ASK)
        assert blocks_in(got) == 1, (
            "no block: the hooks are not where Claude Code looks"
        )
        line = usage_mcp("memhooks", "mcp__{server}__{tool}")
        assert line in got.text
        # The names the block gives are those the request offers (deferred tools, which
        # the model loads by name with ToolSearch).
        offered = json.dumps(got.body).replace(json.dumps(line)[1:-1], "")
        missing = [n for n in re.findall(r"`([^`]+)`", line) if n not in offered]
        assert not missing, missing
        doctor = sb.run([str(MEMHOOKS), "doctor"], env=env).stdout
        assert "ok: Claude Code: memhooks on 5 events" in doctor, doctor
        assert str(config / "settings.json") in doctor, doctor


def _doctor(sb: Sandbox, where: Path) -> str:
    """`memhooks doctor` run in `where` (its exit code says whether a fix is due)."""
    done = sb.run([str(MEMHOOKS), "doctor"], env=sb.env(), cwd=where)
    return done.stdout


def test_continue_after_compact_surfaces_the_note_again(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """A note auto-search showed before a `/compact` is in the summary's past: asked again
    after `--continue`, the model gets it again."""
    with sandbox(
        tmp_path_factory.mktemp("claude-compact-continue"), cli_bins, netns
    ) as sb:
        env = setup_claude(sb)
        seed(sb)
        tmux = sb.tmux(["claude"], env=env)
        wait_ready(tmux)
        sb.ask(tmux, ASK)
        # Claude Code 2.1.263 and older refuse to compact one exchange (2.1.319 does).
        sb.ask(tmux, AFTER_EDIT)
        tmux.type("/compact")
        tmux.wait_text("Compacted", timeout=60)
        tmux.type("/exit")
        tmux.wait_exit()
        done = sb.run(["claude", "-p", "--continue", ASK], env=env)
        assert done.returncode == 0, done.stderr
        again = [r for r in sb.requests() if r.carries(ASK)][-1]
        assert "Summary:" in again.text, "not the compacted conversation"
        assert again.text.count(FACT) == 1, "the note did not come back"


def test_a_question_typed_after_a_paste_is_in_the_record(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """A 60 KB log pasted into the TUI, the question typed after it: until 2026-12-06
    the session-end record held the paste's first 300 characters, and the question was
    nowhere in the log (found driving the real TUI)."""
    with sandbox(tmp_path_factory.mktemp("claude-paste"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        seed(sb)
        tmux = sb.tmux(["claude"], env=env)
        wait_ready(tmux)
        tmux.paste("\n".join(f"line {i}: build step output" for i in range(1200)))
        time.sleep(2)
        tmux.type(" " + ASK)
        tmux.wait_for(lambda: any(ASK in r.text for r in sb.requests()), timeout=60)
        assert next(r for r in sb.requests() if ASK in r.text).text.count(FACT) == 1
        tmux.type("/exit")
        tmux.wait_exit()
        assert sb.daily().count(ASK) == 1, sb.daily()

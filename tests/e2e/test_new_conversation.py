"""A person starts another conversation inside the same TUI, or goes back to an earlier
one, without quitting: Claude Code's `/clear` and `/resume`, Codex CLI's `/new`,
`/clear`, `/fork` and `/resume`, Gemini CLI's `/resume` (its browser of saved chats).

What each sends (Claude Code 2.1.332, Codex CLI 0.171.0, Gemini CLI 0.61.0, 2026-12-06):
- Claude Code `/clear`: SessionEnd(reason `clear`), then SessionStart(source `clear`)
  under a new id; `/resume`: SessionEnd(reason `resume`) of the one left, then
  SessionStart(source `resume`) of the one picked.
- Codex `/new` and `/clear`: SessionStart (source `startup`, `clear`) under a new id, and
  no SessionEnd for the one left: every conversation the TUI held ends at `/quit`. The
  hooks run in the TUI's own process (with `--dangerously-bypass-hook-trust`): memhooks
  ends the one left as the new one starts there (`hooks/left.py`). Trusted as a person
  does, they run in Codex's app-server daemon, one process for all TUIs, which sends the
  SessionEnd of a conversation left (`/new`, `/clear`, `/quit`) as it unloads its
  thread, about 60 s later: memhooks ends it at the next start while one TUI alone uses
  the daemon.
  `/resume`: SessionEnd of the one picked, then its SessionStart(source `resume`),
  and none for the one left: memhooks ends that one there too (`left`).
  `/fork`: nothing at all; the fork's first prompt comes under a new id, its rollout's
  first line names the thread it forked from (`history_base`), which holds its history.
- Gemini `/resume`: nothing; the next prompt comes under the id of the chat picked.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

import pytest

from memhooks.hooks.runner import WRAPPER_WITHIN
from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import (
    CODEX_MODES,
    codex_daemon_stop,
    codex_env,
    codex_tui,
    setup_claude,
    setup_codex,
    setup_gemini,
)
from tests.e2e.memory_fixture import RULE, seed
from tests.e2e.test_change_notice import BUILT, NEW_RULE
from tests.e2e.test_claude_code import hook_errors as claude_errors
from tests.e2e.test_claude_code import wait_ready
from tests.e2e.test_codex import hook_errors as codex_errors
from tests.e2e.test_gemini import hook_errors as gemini_errors
from tests.e2e.test_rewind import TOLD, _heads, _replace_rule

if TYPE_CHECKING:
    from pathlib import Path

    from tests.e2e.modellog import Request
    from tests.e2e.sandbox import Sandbox
    from tests.e2e.tmux import Tmux

pytestmark = pytest.mark.timeout(300)

#: Prompts that search finds no note for (no "?": Gemini's TUI takes it for help).
FIRST = "Say hello in the first chat."
SECOND = "Say hello in the second chat."
EDITED = "Say hello after the edit."
RESUMED = "Say goodbye in the first chat."
AGAIN = "Say hello once more in it."


def _daily_once(sb: Sandbox, *prompts: str) -> None:
    """Each of `prompts` in one record; waited for up to 10 s (Codex and Gemini do not
    await the SessionEnd hook of `/quit`: the session process writes on)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not all(
        f"- {p}\n" in sb.daily() for p in prompts
    ):
        time.sleep(0.2)
    for prompt in prompts:
        assert sb.daily().count(f"- {prompt}\n") == 1, (prompt, sb.daily())


def _resumed_told_once(sb: Sandbox) -> Request:
    """The first conversation resumed after a rule replaced was told in the second: one
    block in each of its requests, the change told once; each prompt in one record.
    The request of its first prompt resumed."""
    assert TOLD in sb.turn(EDITED).text
    resumed, again = sb.turn(RESUMED), sb.turn(AGAIN)
    assert resumed.count(SECOND) == 0  # the first conversation
    assert _heads(resumed) == 1 and _heads(again) == 1
    assert resumed.text.count(TOLD) == 1 and again.text.count(TOLD) == 1
    _daily_once(sb, FIRST, SECOND, EDITED, RESUMED, AGAIN)
    return resumed


def _report(sb: Sandbox) -> list[dict[str, object]]:
    return list(json.loads(sb.memhooks("report", "--json"))["sessions"])


def _sections(session: dict[str, object]) -> list[str]:
    shares = session["shares"]
    assert isinstance(shares, list)
    return [str(s["title"]).split(" (", 1)[0] for s in shares]


# --- Claude Code --------------------------------------------------------------------


def _claude(sb: Sandbox) -> tuple[Tmux, Path]:
    seed(sb)
    log = sb.base / "debug.txt"
    tmux = sb.tmux(["claude", "--debug-file", str(log)], env=setup_claude(sb))
    wait_ready(tmux)
    return tmux, log


def _claude_clear(tmux: Tmux, gone: str) -> None:
    tmux.type("/clear")
    tmux.wait_for(lambda: gone not in tmux.screen(), what="the screen cleared")
    wait_ready(tmux)


def test_claude_code_clear_brings_one_block_as_the_files_are(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """A prompt, a MEMORY.md rule replaced by hand, `/clear`, two prompts: the new
    conversation's block shows the rule as it is and the record of the one before it
    (written at its SessionEnd, which Claude Code awaits), and no change notice comes
    on top of it; each prompt is in one record."""
    with sandbox(tmp_path_factory.mktemp("clear-claude"), cli_bins, netns) as sb:
        tmux, log = _claude(sb)
        sb.ask(tmux, FIRST)
        _replace_rule(sb)
        _claude_clear(tmux, FIRST)
        sb.ask(tmux, SECOND)
        sb.ask(tmux, AGAIN)
        tmux.type("/exit")
        tmux.wait_exit()
        second, again = sb.turn(SECOND), sb.turn(AGAIN)
        assert [_heads(r) for r in (sb.turn(FIRST), second, again)] == [1, 1, 1]
        assert f"## MEMORY.md\n{NEW_RULE}" in second.text and RULE not in second.text
        assert f"- {FIRST}\n" in second.text  # the record of the conversation left
        assert "Memory changed on disk" not in second.text + again.text
        _daily_once(sb, FIRST, SECOND, AGAIN)
        assert len(sb.entries("session end")) == 2, sb.daily()
        assert not claude_errors(log.read_text()), claude_errors(log.read_text())
        assert not sb.leftovers()


def test_claude_code_resumed_in_the_tui_is_told_the_change_once(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """A prompt, `/clear`, a prompt, a MEMORY.md rule replaced, a prompt (told there),
    `/resume` of the first conversation, two prompts: it holds its own block with the
    old rule, so its first prompt is told the change, the next not; its earlier prompt
    is not recorded again. `memhooks report` shows for it the block its model got: the
    block built at the resume to compare with is not sent, and until 2026-12-06 it was
    counted as that conversation's block, sections it never held included."""
    with sandbox(tmp_path_factory.mktemp("resume-claude"), cli_bins, netns) as sb:
        tmux, log = _claude(sb)
        sb.ask(tmux, FIRST)
        _claude_clear(tmux, FIRST)
        sb.ask(tmux, SECOND)
        _replace_rule(sb)
        sb.ask(tmux, EDITED)
        tmux.type("/resume")
        tmux.wait_text("Resume session")
        tmux.wait_for(
            lambda: any(
                ln.strip().startswith(f"❯ {FIRST}") for ln in tmux.screen().splitlines()
            ),
            what="the first conversation picked",
        )
        tmux.keys("Enter")
        tmux.wait_text(FIRST)
        wait_ready(tmux)
        sb.ask(tmux, RESUMED)
        sb.ask(tmux, AGAIN)
        tmux.type("/exit")
        tmux.wait_exit()
        _resumed_told_once(sb)
        assert not claude_errors(log.read_text()), claude_errors(log.read_text())
        assert not sb.leftovers()
        first, second = _report(sb)
        # The first conversation's block was built before any log was written.
        assert "Daily log" not in " ".join(_sections(first)), first
        assert "Daily log" in " ".join(_sections(second)), second


# --- Codex CLI ----------------------------------------------------------------------


def _codex(sb: Sandbox, mode: str = "bypass") -> Tmux:
    seed(sb)
    return codex_tui(sb, setup_codex(sb), mode)


def _codex_new(tmux: Tmux, command: str) -> None:
    """`/new` or `/fork`: in a git project Codex first asks where the new conversation
    runs (Enter keeps the current worktree); `/clear` asks nothing."""
    tmux.type(command)
    if command == "/clear":
        tmux.wait_for(lambda: "Mock reply" not in tmux.screen(), what="cleared")
    else:
        tmux.wait_text("Use current Git worktree")
        time.sleep(0.3)
        tmux.keys("Enter")
        tmux.wait_for(
            lambda: "Use current Git worktree" not in tmux.screen(),
            what=f"{command} done",
        )
    time.sleep(1)


def test_codex_new_and_clear_bring_one_block_each_and_record_each_chat(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """A prompt, a MEMORY.md rule replaced, `/new`, a prompt, `/clear`, a prompt,
    `/quit`: Codex sends no SessionEnd for a conversation left by `/new` or `/clear`,
    and ends the three at `/quit`. One block in each request, the new ones showing the
    rule as it is and the record of the conversation left (ended as the new one
    starts), with no notice; each prompt in one record; nothing left."""
    with sandbox(tmp_path_factory.mktemp("new-codex"), cli_bins, netns) as sb:
        tmux = _codex(sb)
        sb.ask(tmux, FIRST)
        _replace_rule(sb)
        _codex_new(tmux, "/new")
        sb.ask(tmux, SECOND)
        _codex_new(tmux, "/clear")
        sb.ask(tmux, AGAIN)
        screen = tmux.screen()
        tmux.type("/quit")
        tmux.wait_exit()
        second, again = sb.turn(SECOND), sb.turn(AGAIN)
        assert [_heads(r) for r in (sb.turn(FIRST), second, again)] == [1, 1, 1]
        for r, before in ((second, FIRST), (again, SECOND)):
            assert f"## MEMORY.md\n{NEW_RULE}" in r.text and RULE not in r.text
            assert r.count(FIRST) == 0 and "Memory changed on disk" not in r.text
            assert f"- {before}\n" in r.text  # the record of the one left
        assert len(sb.entries("session end", at_least=3)) == 3, sb.daily()
        _daily_once(sb, FIRST, SECOND, AGAIN)
        assert not codex_errors(screen), screen
        assert not sb.leftovers()


@pytest.mark.parametrize("command", ["/new", "/clear", "/new-daemon"])
def test_codex_new_conversation_holds_the_record_of_the_one_left(
    command: str, tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """A prompt, `/new` (or `/clear`), a prompt, `/quit`: Codex sends no SessionEnd for
    the conversation left until the TUI quits. Until 2026-12-06 its record was written
    only then: the new conversation's block lacked what had just been done, and so did
    the daily log for the rest of the TUI's life. Now the new conversation's start,
    from the same TUI process, ends the one left first: its record is in the log and in
    the new block, and the session end `/quit` brings writes it no second time. Under
    Codex's app-server daemon ("-daemon": the hooks trusted, no bypass flag) the same,
    as the TUI is the only one on it; until 2026-12-07 the record came a minute later."""
    mode = "daemon" if command.endswith("-daemon") else "bypass"
    command = command.removesuffix("-daemon")
    with sandbox(tmp_path_factory.mktemp("left-codex"), cli_bins, netns) as sb:
        tmux = _codex(sb, mode)
        sb.ask(tmux, FIRST)
        _codex_new(tmux, command)
        sb.ask(tmux, SECOND)
        ended = sb.entries("session end")  # before the TUI quits
        second = sb.turn(SECOND)
        assert len(ended) == 1 and f"- {FIRST}\n" in ended[0], sb.daily()
        assert second.count(FIRST) == 0  # a new conversation
        assert f"- {FIRST}\n" in second.text  # the record of the one left
        assert _heads(second) == 1
        screen = tmux.screen()
        tmux.type("/quit")
        tmux.wait_exit()
        if mode == "daemon":
            codex_daemon_stop(sb)  # its session end comes now, not in a minute
        assert len(sb.entries("session end", at_least=2)) == 2, sb.daily()
        _daily_once(sb, FIRST, SECOND)
        assert not codex_errors(screen), screen
        assert not sb.leftovers()


def test_codex_tui_started_after_quit_holds_the_record_of_the_last(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """A prompt, `/quit`, a new TUI at once, a prompt, the hooks trusted as a person
    does. Codex's app-server daemon sends the first conversation's SessionEnd when it
    unloads its thread, about a minute after `/quit`: until 2026-12-07 the second TUI's
    block lacked its record, and so did the log till then. Now the second TUI's start,
    the one TUI on the daemon, ends it first; the session end that comes later writes it
    no second time. (A TUI that runs its own hooks sends it at `/quit`.)"""
    mode = "daemon"
    with sandbox(tmp_path_factory.mktemp("quit-codex"), cli_bins, netns) as sb:
        tmux = _codex(sb, mode)
        sb.ask(tmux, FIRST)
        tmux.type("/quit")
        tmux.wait_exit()
        again = codex_tui(sb, codex_env(sb), mode)
        sb.ask(again, SECOND)
        second = sb.turn(SECOND)
        assert f"- {FIRST}\n" in second.text  # the record of the last conversation
        assert second.count(FIRST) == 0 and _heads(second) == 1  # a new one
        assert len(sb.entries("session end")) == 1, sb.daily()
        screen = tmux.screen() + again.screen()
        again.type("/quit")
        again.wait_exit()
        codex_daemon_stop(sb)
        assert len(sb.entries("session end", at_least=2)) == 2, sb.daily()
        _daily_once(sb, FIRST, SECOND)
        assert not codex_errors(screen), screen
        assert not sb.leftovers()


@pytest.mark.parametrize("mode", CODEX_MODES)
def test_codex_new_in_one_tui_leaves_the_other_tuis_conversation_open(
    mode: str, tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """Two Codex TUIs in one project, a prompt in each, `/new` and a prompt in the
    second: only the conversation the second TUI left is ended there (each TUI runs its
    hooks in its own process); the first TUI's goes on, a prompt in it after, and is
    recorded once, whole, as that TUI quits. Under Codex's app-server daemon ("daemon",
    the hooks trusted as a person does) one process runs both TUIs' hooks and a start
    does not say which TUI sent it: nothing is ended at `/new`, the record of the one
    left comes as the daemon unloads it (here `codex app-server daemon stop`)."""
    with sandbox(tmp_path_factory.mktemp("left-two-codex"), cli_bins, netns) as sb:
        one = _codex(sb, mode)
        sb.ask(one, FIRST)
        two = codex_tui(sb, codex_env(sb), mode)
        sb.ask(two, SECOND)
        _codex_new(two, "/new")
        sb.ask(two, AGAIN)
        ended = sb.entries("session end")
        if mode == "bypass":
            assert len(ended) == 1 and f"- {SECOND}\n" in ended[0], sb.daily()
        else:
            assert ended == [], sb.daily()
        assert FIRST not in sb.daily()  # the first TUI's conversation goes on
        sb.ask(one, RESUMED)
        screens = one.screen() + two.screen()
        for tmux in (one, two):
            tmux.type("/quit")
            tmux.wait_exit()
        if mode == "daemon":
            codex_daemon_stop(sb)
        assert len(sb.entries("session end", at_least=3)) == 3, sb.daily()
        _daily_once(sb, FIRST, SECOND, AGAIN, RESUMED)
        (first,) = [e for e in sb.entries("session end") if f"- {FIRST}\n" in e]
        assert f"- {RESUMED}\n" in first, first
        assert not codex_errors(screens), screens
        assert not sb.leftovers()


@pytest.mark.parametrize("told", [False, True], ids=["untold", "told-before"])
def test_codex_fork_is_told_the_change_its_block_misses(
    told: bool, tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """A prompt, a MEMORY.md rule replaced, (a prompt told the change,) `/fork`, two
    prompts: the fork holds the conversation's block with the old rule (in the rollout
    it forked from), and Codex sends no SessionStart for it. Until 2026-12-06 memhooks
    met the fork first at its prompt, with no state, and never told it the change: its
    model followed the old rule. Now its first prompt is told, once, unless a turn the
    fork holds told it; its record holds its own prompts."""
    with sandbox(tmp_path_factory.mktemp("fork-codex"), cli_bins, netns) as sb:
        tmux = _codex(sb)
        sb.ask(tmux, FIRST)
        _replace_rule(sb)
        if told:
            sb.ask(tmux, EDITED)
        _codex_new(tmux, "/fork")
        sb.ask(tmux, SECOND)
        sb.ask(tmux, AGAIN)
        screen = tmux.screen()
        tmux.type("/quit")
        tmux.wait_exit()
        second, again = sb.turn(SECOND), sb.turn(AGAIN)
        assert second.count(FIRST) == 1  # the fork holds the first turn
        assert _heads(second) == 1 and _heads(again) == 1
        assert second.text.count(TOLD) == 1, "the fork holds the old rule, untold"
        assert again.text.count(TOLD) == 1  # told once
        _daily_once(sb, FIRST, SECOND, AGAIN, *([EDITED] if told else []))
        assert not codex_errors(screen), screen
        assert not sb.leftovers()


def test_codex_fork_records_the_conversation_it_forked_from(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """A prompt, `/fork`, two prompts: the conversation forked from, left, is in the
    log before the TUI quits (Codex sends no event for the fork, and the SessionEnd of
    the one left only at `/quit`: until 2026-12-07 nothing of it was recorded before);
    its record is not shown to the fork, which holds its turns; each prompt in one
    record."""
    with sandbox(tmp_path_factory.mktemp("fork-left-codex"), cli_bins, netns) as sb:
        tmux = _codex(sb)
        sb.ask(tmux, FIRST)
        _codex_new(tmux, "/fork")
        sb.ask(tmux, SECOND)
        sb.ask(tmux, AGAIN)
        left = [e for e in sb.entries("session end") if f"- {FIRST}\n" in e]
        screen = tmux.screen()
        tmux.type("/quit")
        tmux.wait_exit()
        assert len(left) == 1, sb.daily()
        second, again = sb.turn(SECOND), sb.turn(AGAIN)
        assert second.count(FIRST) == 1  # the fork holds the first turn
        for request in (second, again):
            assert f"- {FIRST}\n" not in request.text, "the record of its own turns"
        _daily_once(sb, FIRST, SECOND, AGAIN)
        (fork,) = [e for e in sb.entries("session end") if f"- {SECOND}\n" in e]
        assert f"- {AGAIN}\n" in fork and f"- {FIRST}\n" not in fork, fork
        assert not codex_errors(screen), screen
        assert not sb.leftovers()


def test_codex_resumed_in_the_tui_is_told_a_change_told_elsewhere(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """A prompt, `/new`, a prompt, a MEMORY.md rule replaced, a prompt (told there),
    `/resume` of the first conversation, two prompts: the change is told to it once;
    no prompt is recorded twice; nothing left. Codex ends the first conversation as it
    resumes it: until 2026-12-06 auto-search showed it the record that end wrote (its
    own prompts) as related memory."""
    with sandbox(tmp_path_factory.mktemp("resume-codex"), cli_bins, netns) as sb:
        tmux = _codex(sb)
        sb.ask(tmux, FIRST)
        _codex_new(tmux, "/new")
        sb.ask(tmux, SECOND)
        _replace_rule(sb)
        sb.ask(tmux, EDITED)
        tmux.type("/resume")
        tmux.wait_text("Resume a previous session")
        time.sleep(1)
        tmux.keys("Down")  # the newest first: the conversation open now
        time.sleep(0.5)
        tmux.keys("Enter")
        tmux.wait_text(FIRST)
        sb.ask(tmux, RESUMED)
        sb.ask(tmux, AGAIN)
        screen = tmux.screen()
        tmux.type("/quit")
        tmux.wait_exit()
        resumed = _resumed_told_once(sb)
        # The record its end wrote at the resume: its own prompts, not news to it.
        assert f"- {FIRST}\n" not in resumed.text, "its own record shown back"
        assert not codex_errors(screen), screen
        assert not sb.leftovers()


def test_codex_resume_in_the_tui_records_the_conversation_left(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """A prompt, `/new`, a prompt, `/resume` of the first conversation, a prompt: the
    second conversation, left, is in the log before the TUI quits, and its record
    reaches the resumed one's first prompt (auto-search); its own record, written as
    Codex ended it for the resume, does not. Until 2026-12-07 Codex sent no SessionEnd
    for the one left until `/quit`, and nothing of it was recorded before."""
    with sandbox(tmp_path_factory.mktemp("resume-left-codex"), cli_bins, netns) as sb:
        tmux = _codex(sb)
        sb.ask(tmux, FIRST)
        _codex_new(tmux, "/new")
        sb.ask(tmux, SECOND)
        tmux.type("/resume")
        tmux.wait_text("Resume a previous session")
        time.sleep(1)
        tmux.keys("Down")  # the newest first: the conversation open now
        time.sleep(0.5)
        tmux.keys("Enter")
        tmux.wait_text(FIRST)
        sb.ask(tmux, RESUMED)
        left = [e for e in sb.entries("session end") if f"- {SECOND}\n" in e]
        screen = tmux.screen()
        tmux.type("/quit")
        tmux.wait_exit()
        _daily_once(sb, FIRST, SECOND, RESUMED)
        assert len(left) == 1, sb.daily()
        resumed = sb.turn(RESUMED)
        assert resumed.count(SECOND) == 0  # the first conversation
        assert f"- {SECOND}\n" in resumed.text  # the record of the one left
        assert f"- {FIRST}\n" not in resumed.text, "its own record shown back"
        assert len(sb.entries("session end")) == 3, sb.daily()
        assert not codex_errors(screen), screen
        assert not sb.leftovers()


# --- Gemini CLI ---------------------------------------------------------------------


def _gemini_resume(tmux: Tmux, first: str) -> None:
    """`/resume`, and in its browser the chat whose first prompt is `first` picked."""
    tmux.type("/resume")
    tmux.wait_text("Chat Sessions")
    for _ in range(6):
        if any("❯" in ln and first in ln for ln in tmux.screen().splitlines()):
            break
        tmux.keys("Down")
        time.sleep(0.5)
    tmux.keys("Enter")
    tmux.wait_for(lambda: "Chat Sessions" not in tmux.screen(), what="resumed")


def test_gemini_resumed_in_the_tui_gets_one_block_as_the_files_are(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """A prompt, `/clear`, a prompt, a MEMORY.md rule replaced, `/resume` and the first
    chat picked in its browser (no hook event), two prompts, `/quit`: the first chat's
    history holds no start block (Gemini drops it on resume), so the block comes with
    its first prompt, as the files are; one block in each request, no notice on top;
    each prompt in one record, the second chat's too (it got no SessionEnd)."""
    with sandbox(tmp_path_factory.mktemp("resume-gemini"), cli_bins, netns) as sb:
        seed(sb)
        tmux = sb.tmux(["gemini"], env=setup_gemini(sb))
        tmux.wait_text("Type your message", timeout=60)
        sb.ask(tmux, FIRST)
        tmux.type("/clear")
        tmux.wait_for(lambda: FIRST not in tmux.screen(), what="the screen cleared")
        sb.ask(tmux, SECOND)
        _replace_rule(sb)
        _gemini_resume(tmux, FIRST)
        sb.ask(tmux, RESUMED)
        sb.ask(tmux, AGAIN)
        screen = tmux.screen()
        tmux.type("/quit")
        tmux.wait_exit()
        resumed, again = sb.turn(RESUMED), sb.turn(AGAIN)
        assert resumed.count(SECOND) == 0  # the first chat
        assert [_heads(r) for r in (sb.turn(SECOND), resumed, again)] == [1, 1, 1]
        assert f"## MEMORY.md\n{NEW_RULE}" in resumed.text
        assert BUILT not in resumed.text + again.text
        assert len(sb.entries("session end", at_least=3)) == 3, sb.daily()
        _daily_once(sb, FIRST, SECOND, RESUMED, AGAIN)
        assert not gemini_errors(screen), screen
        assert not sb.leftovers()


def test_gemini_opened_then_resumed_leaves_no_state_of_the_chat_it_started(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """`gemini -p`, then the TUI opened and `/resume` of that chat (no hook event), a
    prompt, `/quit`: no event ever ends the chat the TUI started, which got no prompt,
    and its session process served none. Until 2026-12-06 its state and the text kept
    beside it were left after the TUI quit (for the sweep of a week later); now its
    session process removes them as its harness goes, past the time a wrapper of the
    start's hook would have gone with it (`runner.WRAPPER_WITHIN`)."""
    with sandbox(tmp_path_factory.mktemp("open-resume-gemini"), cli_bins, netns) as sb:
        seed(sb)
        env = setup_gemini(sb)
        assert sb.run(["gemini", "-p", FIRST], env=env).returncode == 0
        tmux = sb.tmux(["gemini"], env=env)
        tmux.wait_text("Type your message", timeout=60)
        opened = time.monotonic()  # its session start's hook has returned
        _gemini_resume(tmux, FIRST)
        sb.ask(tmux, RESUMED)
        screen = tmux.screen()
        time.sleep(max(0.0, opened + WRAPPER_WITHIN + 2 - time.monotonic()))
        tmux.type("/quit")
        tmux.wait_exit()
        assert _heads(sb.turn(RESUMED)) == 1
        _daily_once(sb, FIRST, RESUMED)
        assert not gemini_errors(screen), screen
        assert not sb.leftovers()

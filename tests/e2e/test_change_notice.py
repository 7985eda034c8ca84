"""A person replaces a MEMORY.md rule by hand while a TUI session runs (Claude Code, Codex
CLI, Gemini CLI): the next prompt's change notice tells the model the rule removed and the one added,
the model holding the block with the old rule; the prompt after says nothing more. Then
`/exit` (`/quit`): no state file nor the text kept beside it is left. And while no session
runs: a conversation resumed after (`claude -p --continue`, `codex exec resume`, `gemini
--resume latest -p`) is told."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import codex_exec, setup_claude, setup_codex, setup_gemini
from tests.e2e.memory_fixture import RULE, blocks_in, seed
from tests.e2e.test_claude_code import hook_errors, wait_ready
from tests.e2e.test_codex import _READY as CODEX_READY

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from tests.e2e.modellog import Request
    from tests.e2e.sandbox import Leftovers, Sandbox

pytestmark = pytest.mark.timeout(240)

#: The rule a person writes in place of `RULE`.
NEW_RULE = "- Name every migration after a fish, never a bird (rule MARLIN-8)."
BUILT = "Memory changed on disk since this session's block was built: MEMORY.md."
BUILT_ANY = "Memory changed on disk since this session's block was built: "
#: Prompts that search finds nothing for: the notice comes alone. No "?": Gemini's TUI
#: takes it as the shortcut-help key.
FIRST = "Say hello first."
AFTER = "Say hello after the edit."
AGAIN = "Say hello once more."


@dataclass
class Run:
    sb: Sandbox
    leftovers: Leftovers
    errors: list[str]

    def after(self, prompt: str) -> str:
        """What the model got with `prompt`, the prompt on (the hook's context follows
        it; what came with earlier prompts is before it)."""
        return self.sb.turn(prompt).text.split(prompt)[-1]


@pytest.fixture(scope="module", params=["claude", "codex", "gemini"])
def run(
    request: pytest.FixtureRequest,
    tmp_path_factory,
    cli_bins: Path,
    netns: bool,
    tmux_present: None,
) -> Iterator[Run]:
    cli = request.param
    with sandbox(tmp_path_factory.mktemp(f"notice-{cli}"), cli_bins, netns) as sb:
        seed(sb)
        log = sb.base / "debug.txt"
        if cli == "claude":
            tmux = sb.tmux(["claude", "--debug-file", str(log)], env=setup_claude(sb))
            wait_ready(tmux)
        elif cli == "codex":
            argv = ["codex", "--dangerously-bypass-hook-trust"]
            tmux = sb.tmux(argv, env=setup_codex(sb))
            tmux.wait_for(
                lambda: any(m in tmux.screen() for m in CODEX_READY),
                timeout=60,
                what="the input box",
            )
        else:
            tmux = sb.tmux(["gemini"], env=setup_gemini(sb))
            tmux.wait_text("Type your message", timeout=60)
        sb.ask(tmux, FIRST)
        memory = sb.root / "MEMORY.md"
        memory.write_text(memory.read_text().replace(RULE, NEW_RULE))
        sb.ask(tmux, AFTER)
        sb.ask(tmux, AGAIN)
        tmux.type("/exit" if cli == "claude" else "/quit")
        tmux.wait_exit()
        errors = hook_errors(log.read_text()) if log.exists() else []
        yield Run(sb, sb.leftovers(), errors)


def test_the_rule_replaced_is_told_removed_and_added(run: Run) -> None:
    first = run.sb.turn(FIRST).text
    assert RULE in first and NEW_RULE not in first  # the block the model holds
    after = run.after(AFTER)
    assert BUILT in after
    assert f"-{RULE}\n+{NEW_RULE}\n" in after, after


def test_the_change_is_told_once(run: Run) -> None:
    assert "Memory changed on disk" not in run.after(AGAIN)


def test_nothing_is_left_and_no_hook_failed(run: Run) -> None:
    assert not run.leftovers, run.leftovers
    assert not run.errors, run.errors


#: What the harness runs to start, and to resume, a conversation: the prompt follows.
_RESUMED = {
    "claude": (["claude", "-p"], ["claude", "-p", "--continue"]),
    "codex": (codex_exec("")[:-1], codex_exec("", "resume", "--last")[:-1]),
    "gemini": (["gemini", "-p"], ["gemini", "--resume", "latest", "-p"]),
}
#: A prompt of a resumed Gemini conversation brings the block (Gemini replays no
#: SessionStart context); resumed again, the replayed one is older than the file.
BETWEEN = "Say hello in between."


def _resumed(sb: Sandbox, cli: str, change: Callable[[], object]) -> None:
    """A conversation started and resumed (twice for Gemini: the second brings the block),
    `change` made, resumed with `AFTER`, then again with `AGAIN`."""
    setup = setup_claude if cli == "claude" else setup_codex
    env = setup_gemini(sb) if cli == "gemini" else setup(sb)
    start, resume = _RESUMED[cli]
    before = [FIRST, BETWEEN] if cli == "gemini" else [FIRST]
    for i, prompt in enumerate([*before, AFTER, AGAIN]):
        if prompt == AFTER:
            change()
        done = sb.run([*(resume if i else start), prompt], env=env)
        assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("cli", ["claude", "codex", "gemini"])
def test_a_rule_replaced_while_no_session_ran_is_told_on_resume(
    cli: str, tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """The conversation holds the block with the old rule and gets no block again on
    resume: until 2026-12-05 the rule a person replaced between two runs was not told,
    and the model followed the old one. It is told once: resumed again, the conversation
    holds the notice."""
    with sandbox(tmp_path_factory.mktemp(f"resume-{cli}"), cli_bins, netns) as sb:
        seed(sb)
        memory = sb.root / "MEMORY.md"
        _resumed(
            sb,
            cli,
            lambda: memory.write_text(memory.read_text().replace(RULE, NEW_RULE)),
        )
        after, again = sb.turn(AFTER), sb.turn(AGAIN)
        assert blocks_in(after) == 1, "a second block in the resumed conversation"
        assert f"-{RULE}\n+{NEW_RULE}\n" in after.text, after.text
        assert after.text.count(BUILT) == 1
        assert again.text.count(BUILT) == 1, "told again on the next resume"


@pytest.mark.parametrize("cli", ["claude", "codex", "gemini"])
def test_a_note_removed_while_no_session_ran_is_told_on_resume(
    cli: str, tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """The conversation's block names the note in its index: until 2026-12-05 its
    removal was not told, and the model was left to read a file that is gone."""
    with sandbox(tmp_path_factory.mktemp(f"resume-note-{cli}"), cli_bins, netns) as sb:
        seed(sb)
        (note,) = sb.root.glob("projects/*/notes/staging-db.md")
        _resumed(sb, cli, note.unlink)
        gone = "notes/staging-db.md (removed)."
        assert gone in sb.turn(AFTER).text.split(AFTER)[-1]
        assert sb.turn(AGAIN).text.count(gone) == 1, "told again"


@pytest.mark.parametrize("cli", ["claude", "codex", "gemini"])
def test_a_note_written_while_no_session_ran_is_named_on_resume(
    cli: str, tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """The conversation's block lists the notes there were: until 2026-12-06 one written
    while it was left was named to none of its prompts (mid-session, the notice names
    it), so the model did not know to read it."""
    with sandbox(tmp_path_factory.mktemp(f"resume-new-{cli}"), cli_bins, netns) as sb:
        seed(sb)
        _resumed(
            sb,
            cli,
            lambda: sb.memhooks(
                "write", "--to", "note", "--name", "petrel", "--text", "Petrel notes."
            ),
        )
        named = re.compile(
            f"^{re.escape(BUILT_ANY)}.*notes/petrel\\.md[,.]", re.MULTILINE
        )
        assert named.search(sb.turn(AFTER).text), sb.turn(AFTER).text
        assert len(named.findall(sb.turn(AGAIN).text)) == 1, "named again"


def test_a_change_told_in_the_tui_is_not_told_again_on_resume(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """Claude Code's TUI: a prompt, a MEMORY.md rule replaced, a prompt (told), `/exit`;
    then `claude -p --continue`: the conversation holds the notice. Claude Code 2.1.332
    keeps a hook's context in its transcript twice in one entry (the second as the model
    got it): until 2026-12-06 the notice counted twice, and the resume told it again."""
    with sandbox(tmp_path_factory.mktemp("told-tui"), cli_bins, netns) as sb:
        seed(sb)
        env = setup_claude(sb)
        tmux = sb.tmux(["claude"], env=env)
        wait_ready(tmux)
        sb.ask(tmux, FIRST)
        memory = sb.root / "MEMORY.md"
        memory.write_text(memory.read_text().replace(RULE, NEW_RULE))
        sb.ask(tmux, AFTER)
        tmux.type("/exit")
        tmux.wait_exit()
        done = sb.run(["claude", "-p", "--continue", AGAIN], env=env)
        assert done.returncode == 0, done.stderr
        again = sb.turn(AGAIN)
        assert blocks_in(again) == 1
        assert again.text.count(f"-{RULE}\n+{NEW_RULE}\n") == 1, "told again"
        assert "Memory changed on disk" not in run_after(again, AGAIN)
        assert not sb.leftovers()


def run_after(request: Request, prompt: str) -> str:
    """What `request` holds after `prompt`: the hook's context for it."""
    return request.text.split(prompt)[-1]

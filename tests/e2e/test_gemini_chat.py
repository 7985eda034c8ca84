"""Gemini CLI 0.61.0's checkpoints in its TUI: `/chat save <tag>`, then `/chat resume <tag>`.

`/chat resume` sends no hook event: Gemini CLI sets the checkpoint's history (its first
user message holds the workspace's context, the SessionStart block and the first prompt
in one) as the model's, and writes it into the session's chat file as a `$set` of
`messages`. What the model got is asserted at the prompt after it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import capture_dir, sandbox
from tests.e2e.harnesses import setup_gemini
from tests.e2e.memory_fixture import RULE, blocks_in, seed
from tests.e2e.test_change_notice import BUILT, NEW_RULE
from tests.e2e.test_gemini import BIG_HISTORY, hook_errors

if TYPE_CHECKING:
    from pathlib import Path

    from tests.e2e.modellog import Request
    from tests.e2e.sandbox import Sandbox
    from tests.e2e.tmux import Tmux

pytestmark = pytest.mark.timeout(300)

#: Prompts that search finds nothing for (no "?": Gemini's TUI takes it for help).
FIRST = "Say hello before the checkpoint."
BETWEEN = "Say hello after the checkpoint."
EDITED = "Say hello after the edit."
RESUMED = "Say hello in the checkpoint resumed."
AGAIN = "Say hello once more in it."
LAST = "Say hello for the last time."


def _command(tmux: Tmux, command: str, done: str, *, gone: str = "") -> None:
    """Type a slash command; wait until the screen shows `done` (and no more `gone`).

    An Enter that comes while Gemini's list of completions opens picks the one shown (the
    tag typed, under load) and leaves the command in the input box: press it again."""
    tmux.type(command)
    deadline = time.monotonic() + 30
    while True:
        try:
            tmux.wait_for(
                lambda: done in tmux.screen() and not (gone and gone in tmux.screen()),
                timeout=5,
                what=f"{command!r} to finish",
            )
            return
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            if f"> {command}" in tmux.screen():
                tmux.keys("Enter")


def _after(sb: Sandbox, prompt: str) -> str:
    """What the model got with `prompt`, from the prompt on (the hook's context)."""
    return sb.turn(prompt).text.split(prompt)[-1]


def _resumed(
    sb: Sandbox, tmux: Tmux, tag: str, back: Request, left: Request, *prompts: str
) -> str:
    """`/chat resume tag` (done when reply `back` shows again and `left` no more), then
    `prompts` asked and `/quit`; the screen before it."""
    _command(
        tmux,
        f"/chat resume {tag}",
        f"Mock reply {back.n}.",
        gone=f"Mock reply {left.n}.",
    )
    for prompt in prompts:
        sb.ask(tmux, prompt)
    screen = tmux.screen()
    tmux.type("/quit")
    tmux.wait_exit()
    return screen


def _tui(sb: Sandbox) -> Tmux:
    tmux = sb.tmux(["gemini"], env=setup_gemini(sb, capture=capture_dir("gemini")))
    tmux.wait_text("Type your message", timeout=60)
    return tmux


def _saved(sb: Sandbox, tag: str) -> tuple[Tmux, Request]:
    """The memory seeded, a TUI: `FIRST`, `/chat save tag`, `BETWEEN`; the TUI, and the
    request of `FIRST`."""
    seed(sb)
    tmux = _tui(sb)
    first = sb.ask(tmux, FIRST)
    _command(tmux, f"/chat save {tag}", f"checkpoint saved with tag: {tag}")
    sb.ask(tmux, BETWEEN)
    return tmux, first


def _replace_rule(sb: Sandbox) -> None:
    memory = sb.root / "MEMORY.md"
    memory.write_text(memory.read_text().replace(RULE, NEW_RULE))


def test_a_checkpoint_resumed_after_clear_brings_its_block_alone(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """A prompt, `/chat save t`, `/clear`, `/chat resume t`, a prompt: after `/clear` the
    block waits for the next prompt, but the checkpoint's history holds one already (in
    its first message, which `gemini --resume` would leave out): one block, not two."""
    with sandbox(tmp_path_factory.mktemp("gemini-chat-clear"), cli_bins, netns) as sb:
        seed(sb)
        tmux = _tui(sb)
        first = sb.ask(tmux, FIRST)
        _command(tmux, "/chat save t", "checkpoint saved with tag: t")
        _command(tmux, "/clear", "Type your message", gone=f"Mock reply {first.n}.")
        _command(tmux, "/chat resume t", f"Mock reply {first.n}.")
        sb.ask(tmux, RESUMED)
        sb.ask(tmux, AGAIN)
        screen = tmux.screen()
        tmux.type("/quit")
        tmux.wait_exit()
        assert blocks_in(sb.turn(FIRST)) == 1
        assert blocks_in(sb.turn(RESUMED)) == 1, "a second block came with the prompt"
        assert blocks_in(sb.turn(AGAIN)) == 1
        assert not hook_errors(screen), screen
        assert not sb.leftovers()


def test_a_checkpoint_resumed_is_told_the_change_its_turns_missed(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """A prompt, `/chat save tag1`, a prompt, a MEMORY.md rule replaced by hand, a prompt
    (told the change), `/chat resume tag1`, a prompt: the checkpoint holds the block with
    the old rule and not the turn that told the change, so that prompt is told it again;
    the next one is not."""
    with sandbox(tmp_path_factory.mktemp("gemini-chat-told"), cli_bins, netns) as sb:
        tmux, first = _saved(sb, "tag1")
        _replace_rule(sb)
        edited = sb.ask(tmux, EDITED)
        screen = _resumed(sb, tmux, "tag1", first, edited, RESUMED, AGAIN)
        told = f"-{RULE}\n+{NEW_RULE}\n"
        assert BUILT in _after(sb, EDITED) and told in _after(sb, EDITED)
        resumed = sb.turn(RESUMED)
        assert EDITED not in resumed.text  # the checkpoint's history, without it
        assert (
            blocks_in(resumed) == 1 and f"## MEMORY.md\n{NEW_RULE}" not in resumed.text
        )
        assert told in _after(sb, RESUMED), "the checkpoint's model kept the old rule"
        assert "Memory changed on disk" not in _after(sb, AGAIN)
        assert not hook_errors(screen), screen
        assert not sb.leftovers()


def test_a_checkpoint_saved_after_a_compression_brings_its_block_alone(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """Two prompts, `/compress`, a prompt (the block back with it), `/chat save t`, a
    prompt, `/chat resume t`, two prompts: the checkpoint's history is a compression's
    (its summary first), which until 2026-12-06 was taken for a new compression, and the
    block came again beside the one the checkpoint holds, in every request after."""
    with sandbox(tmp_path_factory.mktemp("gemini-chat-comp"), cli_bins, netns) as sb:
        seed(sb)
        sb.script(usage=BIG_HISTORY)
        tmux = _tui(sb)
        sb.ask(tmux, FIRST)
        sb.ask(tmux, BETWEEN)
        tmux.type("/compress")
        tmux.wait_text("compressed from", timeout=60)
        saved = sb.ask(tmux, EDITED)
        _command(tmux, "/chat save t", "checkpoint saved with tag: t")
        left = sb.ask(tmux, AGAIN)
        screen = _resumed(sb, tmux, "t", saved, left, RESUMED, LAST)
        for prompt in (FIRST, BETWEEN, EDITED, AGAIN, RESUMED, LAST):
            assert blocks_in(sb.turn(prompt)) == 1, prompt
            assert sb.daily().count(f"- {prompt}") == 1, prompt
        assert not hook_errors(screen), screen
        assert not sb.leftovers()


def test_a_checkpoint_resumed_first_in_a_new_tui_is_told_the_change(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """A prompt, `/chat save t`, a prompt, `/quit`; a MEMORY.md rule replaced by hand;
    a new TUI: `/chat resume t` before any prompt, two prompts, `/chat delete t`. The
    checkpoint holds the block with the old rule, and the new TUI's own block went with
    the history Gemini set: until 2026-12-06 no history set was looked for before the
    first prompt, and the model kept the old rule. The first prompt is told it."""
    with sandbox(tmp_path_factory.mktemp("gemini-chat-first"), cli_bins, netns) as sb:
        tmux, first = _saved(sb, "t")
        tmux.type("/quit")
        tmux.wait_exit()
        _replace_rule(sb)
        tmux = _tui(sb)
        _command(tmux, "/chat resume t", f"Mock reply {first.n}.")
        sb.ask(tmux, RESUMED)
        sb.ask(tmux, AGAIN)
        _command(tmux, "/chat delete t", "has been deleted")
        screen = tmux.screen()
        tmux.type("/quit")
        tmux.wait_exit()
        resumed = sb.turn(RESUMED)
        assert resumed.count(BETWEEN) == 0  # the checkpoint's history
        assert blocks_in(resumed) == 1 and blocks_in(sb.turn(AGAIN)) == 1
        told = f"-{RULE}\n+{NEW_RULE}\n"
        assert told in _after(sb, RESUMED), "the checkpoint's model kept the old rule"
        assert "Memory changed on disk" not in _after(sb, AGAIN)
        for prompt in (FIRST, BETWEEN, RESUMED, AGAIN):
            assert sb.daily().count(f"- {prompt}\n") == 1, prompt
        assert not hook_errors(screen), screen
        assert not sb.leftovers()

"""Change notices that would tell the model nothing new (Claude Code, Codex CLI, Gemini
CLI). A person saves MEMORY.md and the scratchpad without changing them while a TUI
session runs (an editor's `:w`, `touch`, a sync tool writing the same bytes over): the
next prompt names no file. Asserted on what the model received."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import setup_claude, setup_codex, setup_gemini
from tests.e2e.memory_fixture import RULE, seed
from tests.e2e.test_claude_code import hook_errors, wait_ready
from tests.e2e.test_codex import _READY as CODEX_READY

if TYPE_CHECKING:
    from pathlib import Path

    from tests.e2e.sandbox import Sandbox

pytestmark = pytest.mark.timeout(300)

CHANGED = "Memory changed on disk since this session's block was built: "
FIRST = "Say hello first."
SAVED = "Say hello after the saves."
LATER = "Say hello after the real edit."
ITEM = "- [ ] Rotate the osprey keys (item OSPREY-3)"
PERSON_RULE = "- Tag each release after a river (rule OTTER-7)."


def _same_bytes(path: Path) -> None:
    """Write `path` again with the bytes it holds, as an editor's save does: a new file
    renamed over it (vim's `writebackup`, most sync tools)."""
    data = path.read_bytes()
    new = path.with_name(path.name + ".swp~")
    new.write_bytes(data)
    os.replace(new, path)


def _tui(sb: Sandbox, cli: str, log: Path):
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
    return tmux


@pytest.mark.parametrize("cli", ["claude", "codex", "gemini"])
def test_a_save_of_the_same_text_is_not_told(
    cli: str, tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """Until 2026-12-07 the prompt after a save that changed no byte named MEMORY.md and
    the scratchpad as changed, with no line: the model was told "changed" and nothing
    else. The notice now compares the text the model was shown with the file's; a real
    edit after is told as before."""
    with sandbox(tmp_path_factory.mktemp(f"same-{cli}"), cli_bins, netns) as sb:
        seed(sb)
        sb.memhooks("write", "--to", "scratchpad", "--text", ITEM)
        log = sb.base / "debug.txt"
        tmux = _tui(sb, cli, log)
        sb.ask(tmux, FIRST)
        memory = sb.root / "MEMORY.md"
        (pad,) = sb.root.glob("projects/*/SCRATCHPAD.md")
        _same_bytes(memory)
        _same_bytes(pad)
        os.utime(memory)  # and `touch`
        sb.ask(tmux, SAVED)
        memory.write_text(memory.read_text() + PERSON_RULE + "\n")
        _same_bytes(pad)
        sb.ask(tmux, LATER)
        tmux.type("/exit" if cli == "claude" else "/quit")
        tmux.wait_exit()
        first = sb.turn(FIRST).text
        assert RULE in first and ITEM in first  # the block held both whole
        saved = sb.turn(SAVED).text.split(SAVED)[-1]
        assert CHANGED not in saved, saved
        later = sb.turn(LATER).text.split(LATER)[-1]
        assert f"{CHANGED}MEMORY.md.\n" in later, later
        assert f"\n+{PERSON_RULE}" in later and "scratchpad" not in later, later
        assert not (hook_errors(log.read_text()) if log.exists() else [])
        assert not sb.leftovers()

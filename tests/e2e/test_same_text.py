"""Change notices that would tell the model nothing new (Claude Code, Codex CLI, Gemini
CLI). A person saves MEMORY.md and the scratchpad without changing them while a TUI
session runs (an editor's `:w`, `touch`, a sync tool writing the same bytes over): the
next prompt names no file. And the model's own `memhooks write` in a headless run is not
told back to it when the same conversation is resumed after that run ended; a person's
line added after is told, alone. Asserted on what the model received."""

from __future__ import annotations

import os
import re
import shutil
from collections import Counter
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import codex_exec, setup_claude, setup_codex, setup_gemini
from tests.e2e.memory_fixture import RULE, seed
from tests.e2e.sandbox import MEMHOOKS
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
MODEL_RULE = "- Deploys need the office VPN (rule HERON-5)."


def _same_bytes(path: Path) -> None:
    """Write `path` again with the bytes it holds, as an editor's save does: a new file
    renamed over it (vim's `writebackup`, most sync tools)."""
    data = path.read_bytes()
    new = path.with_name(path.name + ".swp~")
    new.write_bytes(data)
    os.replace(new, path)


def _vim_saves(sb: Sandbox, env: dict[str, str], path: Path) -> None:
    """`path` opened in vim and saved with `:wq`, nothing changed: vim writes it all the
    same, as in a home folder (`backupskip` emptied: the file renamed to `~`, a new one
    written, the backup removed; test_person_tools.py)."""
    data, inode = path.read_bytes(), path.stat().st_ino
    vim = sb.tmux(["vim", "-c", "set backupskip=", str(path)], env=env)
    vim.wait_for(lambda: (path.parent / f".{path.name}.swp").exists(), what="vim")
    vim.keys("Escape")
    vim.type(":wq")
    vim.wait_for(
        lambda: path.exists() and path.stat().st_ino != inode, what="vim's save"
    )
    vim.wait_exit()
    assert path.read_bytes() == data


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
        if shutil.which("vim"):
            _vim_saves(sb, sb.env(), memory)
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


#: How each harness runs a shell command for the model: the tool and its argument.
SHELL = {
    "claude": ("Bash", "command"),
    "codex": ("exec_command", "cmd"),
    "gemini": ("run_shell_command", "command"),
}
REMEMBER = "Remember that deploys need the office VPN."
NEXT = "Which branch should I deploy from today."
LAST = "Anything else for today."


def _runs(cli: str, sb: Sandbox) -> tuple[dict[str, str], list[list[str]]]:
    """The harness set up; a run, and the same conversation resumed twice."""
    if cli == "claude":
        allow = ["--allowedTools", "Bash"]
        return setup_claude(sb), [
            ["claude", "-p", REMEMBER, *allow],
            ["claude", "-p", "--continue", NEXT, *allow],
            ["claude", "-p", "--continue", LAST, *allow],
        ]
    if cli == "codex":
        free = ("--sandbox", "danger-full-access")
        return setup_codex(sb), [
            codex_exec(REMEMBER, *free),
            codex_exec(NEXT, *free, "resume", "--last"),
            codex_exec(LAST, *free, "resume", "--last"),
        ]
    yolo = ["--approval-mode", "yolo"]
    return setup_gemini(sb), [
        ["gemini", "-p", REMEMBER, *yolo],
        ["gemini", "--resume", "latest", "-p", NEXT, *yolo],
        ["gemini", "--resume", "latest", "-p", LAST, *yolo],
    ]


def _came(sb: Sandbox, prompt: str, before: str) -> str:
    """Our contexts the model got first with `prompt` (not with `before`): where a
    harness puts a hook's context, before the prompt or after it, differs."""
    ours = re.compile(r"<memory note=.*?</memory>", re.DOTALL)
    new = Counter(ours.findall(sb.turn(prompt).text))
    new.subtract(ours.findall(sb.turn(before).text))
    return "\n".join(text for text, n in new.items() if n > 0)


@pytest.mark.parametrize("cli", ["claude", "codex", "gemini"])
def test_the_models_own_write_is_not_told_back_on_resume(
    cli: str, tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """Until 2026-12-07 the rule the model saved with `memhooks write` in a run was told
    back to it as added when the conversation was resumed after the run ended: the
    record of the session's own writes went with its state at the end. A person's line
    added after is told, the model's not with it."""
    with sandbox(tmp_path_factory.mktemp(f"own-{cli}"), cli_bins, netns) as sb:
        seed(sb)
        env, runs = _runs(cli, sb)
        tool, key = SHELL[cli]
        save = f"{MEMHOOKS} write --to memory --text '{MODEL_RULE}'"
        sb.script([{"when": REMEMBER, "tool": tool, "args": {key: save}}])
        memory = sb.root / "MEMORY.md"
        for i, argv in enumerate(runs):
            if i == 2:
                memory.write_text(memory.read_text() + PERSON_RULE + "\n")
            done = sb.run(argv, env=env)
            assert done.returncode == 0, done.stderr
            if i == 0:
                assert MODEL_RULE in memory.read_text(), "the model's save did not run"
        told = _came(sb, NEXT, REMEMBER)
        assert CHANGED not in told, told
        last = _came(sb, LAST, NEXT)
        assert f"{CHANGED}MEMORY.md." in last and f"\n+{PERSON_RULE}" in last, last
        assert f"+{MODEL_RULE}" not in last, last
        assert not sb.leftovers()

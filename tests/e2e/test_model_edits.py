"""The model keeps the memory up to date with the harness's own file tools: Claude Code's
Read and Edit of MEMORY.md, its Write of a new note, in a TUI session, edits accepted
(`--permission-mode acceptEdits`, the memory root added with `--add-dir` and trusted as
its dialog's "Yes" records it), then a person's edit of MEMORY.md."""

from __future__ import annotations

import json
import re
import time
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import setup_claude
from tests.e2e.memory_fixture import RULE, blocks_in, seed
from tests.e2e.test_claude_code import hook_errors, wait_ready

if TYPE_CHECKING:
    from pathlib import Path

    from tests.e2e.sandbox import Sandbox
    from tests.e2e.tmux import Tmux

pytestmark = pytest.mark.timeout(240)

CHANGED = "Memory changed on disk since this session's block was built: "
MODEL_RULE = "- Run the heron linter before each push (rule HERON-9)."
PERSON_RULE = "- Tag each release after a river (rule OTTER-7)."
SECRET = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
NOTE = (
    "# Lantern cache\nThe lantern cache listens on port 9911 with the quokka relay.\n"
    f"api_key = {SECRET}\n"
)
REMEMBER = "Remember the heron linter rule in memory."
WRITE = "Write the lantern note now."
ASK = "Which port does the lantern cache use with the quokka relay."
LAST = "Anything else for today."


def _ask(sb: Sandbox, tmux: Tmux, prompt: str, calls: int = 0) -> None:
    """Type `prompt`; wait for the model's last answer of the turn on the screen."""
    tmux.type(prompt)
    tmux.wait_for(lambda: sb.sends(prompt), timeout=60, what=f"{prompt!r} sent")
    answered(sb, tmux, prompt, calls)


def answered(sb: Sandbox, tmux: Tmux, prompt: str, calls: int) -> None:
    """Wait for the model's last answer to `prompt` (sent), after `calls` tool calls of
    its turn, on the screen."""
    last = sb.sends(prompt)[0].n + calls
    tmux.wait_for(
        lambda: any(
            int(n) >= last for n in re.findall(r"Mock reply (\d+)\.", tmux.screen())
        ),
        timeout=60,
        what=f"the answer to {prompt!r}",
    )


def test_the_models_own_edits_are_not_told_back_a_persons_are(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """Found with the real Claude Code 2.1.332 (2026-12-06): the prompt after the
    model's Edit of MEMORY.md told the model the line it had just added, and the one
    after its Write of a note named that note as changed on disk: the model's own
    writes, told back as news in every such turn. What a person saves after is told."""
    with sandbox(tmp_path_factory.mktemp("model-edits"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        seed(sb)
        state = json.loads((sb.home / ".claude.json").read_text())
        state["projects"][str(sb.root)] = {"hasTrustDialogAccepted": True}
        (sb.home / ".claude.json").write_text(json.dumps(state))
        memory = sb.root / "MEMORY.md"
        (project,) = (sb.root / "projects").iterdir()
        note = project / "notes" / "lantern-port.md"
        _script_edits(
            sb, memory, note, f"Saved, with the key {SECRET}. Mock reply {{n}}."
        )
        log = sb.base / "debug.log"
        argv = ["claude", "--debug-file", str(log), "--permission-mode", "acceptEdits"]
        tmux = sb.tmux([*argv, "--add-dir", str(sb.root)], env=env)
        wait_ready(tmux)
        _ask(sb, tmux, REMEMBER, calls=2)
        _ask(sb, tmux, WRITE, calls=1)
        _ask(sb, tmux, ASK)
        time.sleep(0.1)  # the person's save: a later modification time
        memory.write_text(memory.read_text() + PERSON_RULE + "\n")
        _ask(sb, tmux, LAST)
        tmux.type("/exit")
        tmux.wait_exit()

        def after(prompt: str) -> str:
            # Our context with the prompt (Claude Code's own reminders aside: it shows
            # the model a file it read that changed since, MEMORY.md whole).
            text = sb.turn(prompt).text.split(prompt)[-1]
            return "".join(re.findall(r"<memory note=.*?</memory>", text, re.DOTALL))

        # Every byte of both writers: the model's and the person's files, the log.
        assert memory.read_text() == f"{RULE}\n{MODEL_RULE}\n{PERSON_RULE}\n"
        assert note.read_text() == NOTE
        assert CHANGED not in after(WRITE), "the model's own Edit was told back"
        assert CHANGED not in after(ASK), "the model's own note was told back"
        assert "port 9911 with the quokka relay" in after(ASK)  # auto-search found it
        told = after(LAST)
        assert f"{CHANGED}MEMORY.md." in told and f"+{PERSON_RULE}" in told
        assert MODEL_RULE not in told
        assert all(blocks_in(r) == 1 for r in sb.requests() if "messages" in r.body)
        (ended,) = sb.entries("session end", at_least=1)
        assert all(ended.count(p) == 1 for p in (REMEMBER, WRITE, ASK, LAST))
        assert note.name in ended and SECRET not in sb.daily()
        assert not hook_errors(log.read_text())
        assert not sb.leftovers()


def test_a_resume_does_not_tell_the_models_own_edits_back(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """Found with the real Claude Code 2.1.332 (2026-12-06): `claude -p --continue`
    after a run whose model added a MEMORY.md rule with Edit got the rule back as a
    change at its SessionStart, and after a run whose model wrote a note, the note named
    as new. A person's edit after them is told on the next resume (the model's line
    with it, as the lines added since the first run's block)."""
    with sandbox(tmp_path_factory.mktemp("model-resume"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        seed(sb)
        memory = sb.root / "MEMORY.md"
        (project,) = (sb.root / "projects").iterdir()
        note = project / "notes" / "lantern-port.md"
        _script_edits(sb, memory, note)
        allowed = ["--permission-mode", "acceptEdits", "--add-dir", str(sb.root)]
        allowed += ["--allowedTools", "Read,Edit,Write"]
        for i, prompt in enumerate((REMEMBER, WRITE, ASK, LAST)):
            if prompt == LAST:
                memory.write_text(memory.read_text() + PERSON_RULE + "\n")
            resume = ["--continue"] if i else []
            done = sb.run(["claude", "-p", *resume, prompt, *allowed], env=env)
            assert done.returncode == 0, done.stderr

        def told(before: str, prompt: str) -> str:
            # Our contexts the run of `prompt` added (its SessionStart's, its prompt's).
            text = sb.turn(prompt).text.split(before)[-1]
            return "".join(re.findall(r"<memory note=.*?</memory>", text, re.DOTALL))

        assert memory.read_text() == f"{RULE}\n{MODEL_RULE}\n{PERSON_RULE}\n"
        assert note.read_text() == NOTE
        assert CHANGED not in told(REMEMBER, WRITE), "its own Edit was told back"
        assert CHANGED not in told(WRITE, ASK), "its own note was named as new"
        # The person's rule is told. Told from the block of the first run, the model's
        # own line comes with it: what the model's Edit made of the file is not kept
        # across runs (left as it is: the model reads its own line once more).
        assert f"+{PERSON_RULE}" in told(ASK, LAST)
        assert all(blocks_in(r) == 1 for r in sb.requests() if "messages" in r.body)


def _script_edits(
    sb: Sandbox, memory: Path, note: Path, reply: str | None = None
) -> None:
    """The model's turns: Read and Edit of MEMORY.md (a line added under `RULE`), then
    a Write of `note` (and `reply` after it)."""
    edit = {"old_string": RULE, "new_string": f"{RULE}\n{MODEL_RULE}"}
    write = {"file_path": str(note), "content": NOTE}
    sb.script(
        [
            {
                "when": REMEMBER,
                "tool": "Read",
                "args": {"file_path": str(memory)},
                "then": [{"tool": "Edit", "args": {"file_path": str(memory), **edit}}],
            },
            {"when": WRITE, "tool": "Write", "args": write}
            | ({"reply": reply} if reply else {}),
        ]
    )

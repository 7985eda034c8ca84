"""The model keeps the memory up to date with Gemini CLI's and Codex CLI's own file
tools: Gemini's `replace` and `write_file`, Codex's `apply_patch` (offered to a model its
catalog gives the tool: `gpt-5.5` here, on the mock provider), then a person's edit. What
the model's own edits changed is no news to it; what a person changed is told.

Found with Gemini CLI 0.61.0 and Codex CLI 0.171.0 (2026-12-06): the prompt after the
model's edit of MEMORY.md told the model its own new line back (`+`), the one after its
new note named the note as changed on disk, and a resume told the same."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import codex_exec, setup_codex, setup_gemini
from tests.e2e.memory_fixture import RULE, blocks_in, seed
from tests.e2e.mockwire import FREEFORM
from tests.e2e.test_codex import hook_errors as codex_errors
from tests.e2e.test_gemini import hook_errors as gemini_errors
from tests.e2e.test_model_edits import CHANGED, MODEL_RULE, PERSON_RULE, answered

if TYPE_CHECKING:
    from pathlib import Path

    from tests.e2e.sandbox import Sandbox
    from tests.e2e.tmux import Tmux

pytestmark = pytest.mark.timeout(300)

HITS = "Related memory (auto-search"
MODEL_RULE2 = "- Lint the heron configs too (rule HERON-10)."
PERSON_RULE2 = "- Freeze merges on Fridays (rule OTTER-8)."
NOTE = (
    "# Lantern cache\nThe lantern cache listens on port 9911 with the quokka relay.\n"
)
REMEMBER = "Remember the heron linter rule in memory."
WRITE = "Write the lantern note now."
ASK = "Which port does the lantern cache use with the quokka relay."
FAIL = "Try the release rule edit."
LAST = "Anything else for today."
#: Codex's TUI ready for a prompt (its status line names the model).
CODEX_READY = ("? for shortcuts", "gpt-5.5 ")


def _memory(sb: Sandbox) -> tuple[Path, Path]:
    (project,) = (sb.root / "projects").iterdir()
    return sb.root / "MEMORY.md", project / "notes" / "lantern-port.md"


def _ours(text: str) -> str:
    """Our change notice in `text` ("" when none); auto-search's hits aside (MEMORY.md
    may be one, whole)."""
    found = re.findall(r"<memory note=[^>]*>\n(.*?)</memory>", text, re.DOTALL)
    return "".join(n.split(HITS)[0] for n in found if n.startswith(CHANGED))


def _told(sb: Sandbox, prompt: str) -> str:
    """Our change notice in the request that first carried `prompt`: in what follows
    the last turn's reply (Codex puts a resume's context before the prompt, and the
    prompt's after it)."""
    return _ours(sb.turn(prompt).text.split("Mock reply")[-1])


def gemini_tui(sb: Sandbox, env: dict[str, str]) -> Tmux:
    """Gemini's TUI with edits approved and the memory root added to its workspace; its
    dialog asking whether to trust that folder, shown at start in some runs, answered
    "Yes" (either way Gemini then writes its message of the folders added)."""
    argv = ["gemini", "--yolo", "--include-directories", str(sb.root)]
    tmux = sb.tmux(argv, env=env)
    ready, asked = "Type your message", "Do you trust the following folders"
    tmux.wait_for(
        lambda: ready in (screen := tmux.screen()) or asked in screen,
        timeout=60,
        what="the input box or the trust dialog",
    )
    if asked in tmux.screen():
        tmux.keys("Enter")
        tmux.wait_text(ready, timeout=60)
    return tmux


def tui_ask(sb: Sandbox, tmux: Tmux, prompt: str, calls: int) -> None:
    """Send `prompt`; wait for the model's last answer of the turn (after `calls` tool
    calls) on the screen."""
    _send(sb, tmux, prompt)
    answered(sb, tmux, prompt, calls)


def _codex_with_apply_patch(sb: Sandbox) -> dict[str, str]:
    """Codex set up on a model its catalog knows, which it offers apply_patch
    (`mock-model` is not); its environment."""
    env = setup_codex(sb)
    config = sb.home / ".codex" / "config.toml"
    config.write_text(
        config.read_text().replace('model = "mock-model"', 'model = "gpt-5.5"')
    )
    return env


def _codex_runs(
    sb: Sandbox,
    env: dict[str, str],
    memory: Path,
    prompts: tuple[str, ...],
    person: str,
) -> None:
    """`codex exec` with the first of `prompts`, `codex exec resume --last` with each
    other (approvals and sandbox off), a person's rule added before `person`'s run;
    each run exits 0 with no hook error."""
    bypass = "--dangerously-bypass-approvals-and-sandbox"
    for i, prompt in enumerate(prompts):
        if prompt == person:
            memory.write_text(memory.read_text() + PERSON_RULE + "\n")
        argv = codex_exec(prompt, bypass)
        if i:
            argv[2:2] = ["resume", "--last"]
        done = sb.run(argv, env=env)
        assert done.returncode == 0, done.stderr
        assert not codex_errors(done.stderr)


def _own_rule_then_persons(sb: Sandbox, tmux: Tmux, memory: Path) -> str:
    """The TUI stories' second half: the model rewrites its own rule (ASK), a person adds
    one, the model's edit fails (FAIL), a person adds another, LAST, then `/quit`; the
    screen before it. Every line of both writers is in MEMORY.md."""
    tui_ask(sb, tmux, ASK, calls=1)
    memory.write_text(memory.read_text() + PERSON_RULE + "\n")
    tui_ask(sb, tmux, FAIL, calls=1)
    memory.write_text(memory.read_text() + PERSON_RULE2 + "\n")
    tui_ask(sb, tmux, LAST, calls=0)
    screen = tmux.screen()
    tmux.type("/quit")
    tmux.wait_exit()
    assert memory.read_text() == (
        f"{RULE}\n{MODEL_RULE2}\n{PERSON_RULE}\n{PERSON_RULE2}\n"
    )
    return screen


def _send(sb: Sandbox, tmux: Tmux, prompt: str) -> None:
    tmux.type(prompt)
    for _ in range(12):  # a TUI still starting may swallow the text or the Enter
        try:
            tmux.wait_for(lambda: sb.sends(prompt), timeout=5, what=f"{prompt!r} sent")
            break
        except AssertionError:
            if prompt[:30] in tmux.screen():
                tmux.keys("Enter")
            else:
                tmux.type(prompt)


def test_gemini_tui_tells_a_persons_edits_not_the_models(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """Gemini CLI's TUI, edits approved (`--yolo`, the memory root included): the
    model's `replace` of MEMORY.md and its `write_file` of a note are not told back; a
    person's line saved after the model's next edit is told, alone; a `replace` that
    failed (its old text not in the file) hides nothing."""
    with sandbox(tmp_path_factory.mktemp("gemini-edits"), cli_bins, netns) as sb:
        env = setup_gemini(sb)
        seed(sb)
        memory, note = _memory(sb)
        add = {"file_path": str(memory), "instruction": "add the rule"}
        sb.script(
            [  # the later prompts first: an earlier prompt may be in a later one's hits
                {"when": LAST, "reply": "Mock reply {n}."},
                {
                    "when": FAIL,
                    "tool": "replace",
                    "args": add | {"old_string": "- no such rule", "new_string": "x"},
                },
                {
                    "when": ASK,
                    "tool": "replace",
                    "args": add | {"old_string": MODEL_RULE, "new_string": MODEL_RULE2},
                },
                {
                    "when": WRITE,
                    "tool": "write_file",
                    "args": {"file_path": str(note), "content": NOTE},
                },
                {
                    "when": REMEMBER,
                    "tool": "replace",
                    "args": add
                    | {"old_string": RULE, "new_string": f"{RULE}\n{MODEL_RULE}"},
                },
            ]
        )
        tmux = gemini_tui(sb, env)
        tui_ask(sb, tmux, REMEMBER, calls=1)
        tui_ask(sb, tmux, WRITE, calls=1)
        screen = _own_rule_then_persons(sb, tmux, memory)

        after = {
            p: _ours(sb.turn(p).text.split(p)[-1]) for p in (WRITE, ASK, FAIL, LAST)
        }
        assert note.read_text() == NOTE
        assert CHANGED not in after[WRITE], "the model's own replace was told back"
        assert CHANGED not in after[ASK], "the model's own note was named as changed"
        found = sb.turn(ASK).text.split(ASK)[-1]
        assert "port 9911 with the quokka relay" in found  # auto-search found it
        assert f"{CHANGED}MEMORY.md." in after[FAIL]
        assert f"\n+{PERSON_RULE}\n" in after[FAIL]
        assert MODEL_RULE2 not in after[FAIL] and f"-{MODEL_RULE}" not in after[FAIL]
        assert f"\n+{PERSON_RULE2}\n" in after[LAST] and "+x" not in after[LAST]
        prompts = (REMEMBER, WRITE, ASK, FAIL, LAST)
        assert [blocks_in(sb.turn(p)) for p in prompts] == [1] * 5
        # The record holds the person's prompts, not Gemini's message of the folders
        # `--include-directories` added to the workspace.
        (ended,) = sb.entries("session end", at_least=1)
        assert [ended.count(f"- {p}\n") for p in prompts] == [1] * 5
        assert "Workspace Directories" not in ended
        assert not gemini_errors(screen)
        assert not sb.leftovers()


def test_gemini_resumed_runs_tell_a_persons_edits_not_the_models(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """`gemini -p`, then `gemini --resume latest -p`: a resumed run is not told the
    edits the runs before made with `replace` and `write_file`, only a person's."""
    with sandbox(tmp_path_factory.mktemp("gemini-resume"), cli_bins, netns) as sb:
        env = setup_gemini(sb)
        seed(sb)
        memory, note = _memory(sb)
        edit = {"old_string": RULE, "new_string": f"{RULE}\n{MODEL_RULE}"}
        sb.script(
            [
                {"when": LAST, "reply": "Mock reply {n}."},
                {"when": ASK, "reply": "Mock reply {n}."},
                {
                    "when": WRITE,
                    "tool": "write_file",
                    "args": {"file_path": str(note), "content": NOTE},
                },
                {
                    "when": REMEMBER,
                    "tool": "replace",
                    "args": {"file_path": str(memory), "instruction": "add"} | edit,
                },
            ]
        )
        extra = ["--yolo", "--include-directories", str(sb.root)]
        for i, prompt in enumerate((REMEMBER, WRITE, ASK, LAST)):
            if prompt == LAST:
                memory.write_text(memory.read_text() + PERSON_RULE + "\n")
            resume = ["--resume", "latest"] if i else []
            done = sb.run(["gemini", *resume, "-p", prompt, *extra], env=env)
            assert done.returncode == 0, done.stderr
            assert not gemini_errors(done.stderr)

        after = {p: _ours(sb.turn(p).text.split(p)[-1]) for p in (WRITE, ASK, LAST)}
        assert memory.read_text() == f"{RULE}\n{MODEL_RULE}\n{PERSON_RULE}\n"
        assert note.read_text() == NOTE
        assert CHANGED not in after[WRITE], "its own replace was told back"
        assert CHANGED not in after[ASK], "its own note was named as changed"
        assert "port 9911 with the quokka relay" in sb.turn(ASK).text.split(ASK)[-1]
        assert f"\n+{PERSON_RULE}\n" in after[LAST] and MODEL_RULE not in after[LAST]
        assert not sb.leftovers()


def test_codex_apply_patch_is_not_told_back_a_persons_edit_and_the_shell_are(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """`codex exec`, then `codex exec resume --last`: the model's `apply_patch` (a line
    added to MEMORY.md, a new note) is not told back at the resume; a person's line
    saved after it is, alone. A line the model appends with the shell (`printf >>`) is
    told: no rule says what a command changed."""
    with sandbox(tmp_path_factory.mktemp("codex-edits"), cli_bins, netns) as sb:
        env = _codex_with_apply_patch(sb)
        seed(sb)
        memory, note = _memory(sb)
        patch = (
            f"*** Begin Patch\n*** Update File: {memory}\n@@\n {RULE}\n+{MODEL_RULE}\n"
            f"*** Add File: {note}\n"
            + "".join(f"+{line}\n" for line in NOTE.splitlines())
            + "*** End Patch\n"
        )
        shell = f"printf '%s\\n' '{MODEL_RULE2}' >> {memory}"
        sb.script(
            [
                {"when": LAST, "reply": "Mock reply {n}."},
                {
                    "when": FAIL,
                    "tool": "exec_command",
                    "args": {"cmd": shell},
                },
                {"when": ASK, "reply": "Mock reply {n}."},
                {
                    "when": REMEMBER,
                    "tool": f"{FREEFORM}apply_patch",
                    "args": {"input": patch},
                },
            ]
        )
        _codex_runs(sb, env, memory, (REMEMBER, ASK, FAIL, LAST), person=FAIL)

        assert (
            memory.read_text()
            == f"{RULE}\n{MODEL_RULE}\n{PERSON_RULE}\n{MODEL_RULE2}\n"
        )
        assert note.read_text() == NOTE
        asked, failed, last = (_told(sb, p) for p in (ASK, FAIL, LAST))
        assert CHANGED not in asked, "its own patch was told back"
        hits = sb.turn(ASK).text.split("Mock reply")[-1]
        assert f"{note.name}  [matched" in hits  # auto-search found the note
        assert f"\n+{PERSON_RULE}\n" in failed and MODEL_RULE not in failed
        assert f"\n+{MODEL_RULE2}\n" in last  # the shell's append: told
        prompts = (REMEMBER, ASK, FAIL, LAST)
        assert [blocks_in(sb.turn(p)) for p in prompts] == [1] * 4
        assert not sb.leftovers()


def _patch(*files: str) -> str:
    return "*** Begin Patch\n" + "".join(files) + "*** End Patch\n"


def test_codex_tui_tells_a_persons_edits_not_the_models(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """Codex CLI's TUI (approvals and sandbox off: the memory root is outside the
    workspace): the model's `apply_patch` adds a MEMORY.md rule and a note, not told
    back; its next patch rewrites its own rule and a person then adds one: the person's
    alone is told; a patch that failed (its lines not in the file) hides nothing."""
    with sandbox(tmp_path_factory.mktemp("codex-tui-edits"), cli_bins, netns) as sb:
        env = _codex_with_apply_patch(sb)
        seed(sb)
        memory, note = _memory(sb)
        update = f"*** Update File: {memory}\n@@\n"
        added = "".join(f"+{line}\n" for line in NOTE.splitlines())
        patches = {
            REMEMBER: _patch(
                f"{update} {RULE}\n+{MODEL_RULE}\n", f"*** Add File: {note}\n{added}"
            ),
            ASK: _patch(f"{update}-{MODEL_RULE}\n+{MODEL_RULE2}\n"),
            FAIL: _patch(f"{update}-- no such rule\n+x\n"),
        }
        sb.script(
            [{"when": LAST, "reply": "Mock reply {n}."}]
            + [
                {"when": p, "tool": f"{FREEFORM}apply_patch", "args": {"input": t}}
                for p, t in reversed(patches.items())
            ]
        )
        bypass = "--dangerously-bypass-approvals-and-sandbox"
        tmux = sb.tmux(["codex", "--dangerously-bypass-hook-trust", bypass], env=env)
        tmux.wait_for(
            lambda: any(m in tmux.screen() for m in CODEX_READY),
            timeout=60,
            what="the input box",
        )
        tui_ask(sb, tmux, REMEMBER, calls=1)
        screen = _own_rule_then_persons(sb, tmux, memory)

        assert note.read_text() == NOTE
        asked, failed, last = (_told(sb, p) for p in (ASK, FAIL, LAST))
        assert CHANGED not in asked, "its own patch was told back"
        assert f"{note.name}  [matched" in sb.turn(ASK).text.split("Mock reply")[-1]
        assert f"{CHANGED}MEMORY.md." in failed and f"\n+{PERSON_RULE}\n" in failed
        assert MODEL_RULE2 not in failed and f"-{MODEL_RULE}" not in failed
        assert f"\n+{PERSON_RULE2}\n" in last and "+x" not in last
        prompts = (REMEMBER, ASK, FAIL, LAST)
        assert [blocks_in(sb.turn(p)) for p in prompts] == [1] * 4
        assert not codex_errors(screen)
        assert not sb.leftovers()


def test_gemini_a_persons_edit_before_the_models_in_one_turn_is_told(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """Gemini CLI's TUI: a person saves a MEMORY.md rule while the model's turn runs
    (its shell command), then the model's `replace` adds its own rule: the next prompt
    is told the person's rule alone, though the file changed once after the other."""
    with sandbox(tmp_path_factory.mktemp("gemini-between"), cli_bins, netns) as sb:
        env = setup_gemini(sb)
        seed(sb)
        memory, _ = _memory(sb)
        edit = {"old_string": RULE, "new_string": f"{RULE}\n{MODEL_RULE}"}
        flag = sb.base / "saved"
        wait = f"while [ ! -e {flag} ]; do sleep 0.1; done"
        sb.script(
            [
                {"when": LAST, "reply": "Mock reply {n}."},
                {
                    "when": REMEMBER,
                    "tool": "run_shell_command",
                    "args": {"command": wait, "description": "wait"},
                    "then": [
                        {
                            "tool": "replace",
                            "args": {"file_path": str(memory), "instruction": "add"}
                            | edit,
                        }
                    ],
                },
            ]
        )
        tmux = gemini_tui(sb, env)
        _send(sb, tmux, REMEMBER)
        memory.write_text(memory.read_text() + PERSON_RULE + "\n")  # mid-turn
        flag.write_text("")
        tmux.wait_text(f"Mock reply {sb.sends(REMEMBER)[0].n + 2}.", timeout=60)
        tui_ask(sb, tmux, LAST, calls=0)
        screen = tmux.screen()
        tmux.type("/quit")
        tmux.wait_exit()

        assert memory.read_text() == f"{RULE}\n{MODEL_RULE}\n{PERSON_RULE}\n"
        told = _ours(sb.turn(LAST).text.split(LAST)[-1])
        assert f"{CHANGED}MEMORY.md." in told and f"\n+{PERSON_RULE}\n" in told
        assert MODEL_RULE not in told
        assert not gemini_errors(screen)
        assert not sb.leftovers()


def test_codex_apply_patch_run_as_a_command_is_not_told_back(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """A model Codex's catalog does not know (a custom provider's: `mock-model`) gets no
    apply_patch tool; it runs `apply_patch <<'EOF'` with the shell, which Codex applies
    itself. The resume is not told that patch's line, only a person's."""
    with sandbox(tmp_path_factory.mktemp("codex-heredoc"), cli_bins, netns) as sb:
        env = setup_codex(sb)
        seed(sb)
        memory, _ = _memory(sb)
        patch = _patch(f"*** Update File: {memory}\n@@\n {RULE}\n+{MODEL_RULE}\n")
        sb.script(
            [
                {"when": LAST, "reply": "Mock reply {n}."},
                {"when": ASK, "reply": "Mock reply {n}."},
                {
                    "when": REMEMBER,
                    "tool": "exec_command",
                    "args": {"cmd": f"apply_patch <<'EOF'\n{patch}EOF\n"},
                },
            ]
        )
        _codex_runs(sb, env, memory, (REMEMBER, ASK, LAST), person=LAST)

        assert memory.read_text() == f"{RULE}\n{MODEL_RULE}\n{PERSON_RULE}\n"
        assert CHANGED not in _told(sb, ASK), "its own patch was told back"
        last = _told(sb, LAST)
        assert f"\n+{PERSON_RULE}\n" in last and MODEL_RULE not in last
        assert not sb.leftovers()

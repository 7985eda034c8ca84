"""Day one: a project with no memory saved yet. The model is told how to save one, once
per conversation, and what it saves reaches the next conversation's block."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from memhooks.memory import slug_for
from memhooks.memory.inject import NOTES_SHELL, NOTHING_YET
from memhooks.memory.toolsline import USAGE
from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import codex_exec, setup_claude, setup_codex, setup_gemini
from tests.e2e.sandbox import MEMHOOKS
from tests.e2e.test_claude_code import wait_ready
from tests.e2e.test_harness_edits import gemini_tui, tui_ask

if TYPE_CHECKING:
    from pathlib import Path

    from tests.e2e.modellog import Request
    from tests.e2e.sandbox import Sandbox

pytestmark = pytest.mark.timeout(300)

CHANGED = "Memory changed on disk since this session's block was built: "
MODEL_RULE = "- Deploys need the office VPN (rule HERON-5)."
PERSON_RULE = "- Tag each release after a river (rule OTTER-7)."
PERSON_ITEM = "- [ ] Rotate the otter keys (item OTTER-8)"
#: The model's save, the command by its path: Codex CLI's shell sets its own PATH.
SAVE = f"{MEMHOOKS} write --to memory --text '{MODEL_RULE}'"
REMEMBER = "Remember that deploys need the office VPN."
NEXT = "Which branch should I deploy from today."
LAST = "Anything else for today."
HELLO = "Hello, let us start the day."
ASK = "What do deploys need."
#: The shell tools line of a block (`USAGE_SHELL`), the `memhooks` it names as `prog`.
TOOLS_LINE = re.compile(
    re.escape(USAGE)
    .replace("memhooks", "(?P<prog>[^ `]+)", 1)
    .replace("memhooks", "(?P=prog)")
)
#: The title of the block's index of notes (`NOTES_SHELL`), the `memhooks` it names as
#: `prog`.
NOTES_LINE = re.compile(
    re.escape(f"## {NOTES_SHELL}").replace(re.escape("{prog}"), "(?P<prog>[^`\n]+)")
)
#: A note the person wrote, and what only its body says (the index shows its title).
NOTE = "# VPN gateway\nIt answers at heron-gw-9, port 4443.\n"
NOTE_SAYS = "heron-gw-9"
#: How each harness runs a shell command for the model: the tool and its argument.
SHELL = {
    "claude": ("Bash", "command"),
    "codex": ("exec_command", "cmd"),
    "gemini": ("run_shell_command", "command"),
}


def _usages(request: Request) -> int:
    """How many tools lines `request` holds, `memhooks` named plain or by its path."""
    return len(TOOLS_LINE.findall(request.text))


def _runs(harness: str, sb: Sandbox) -> tuple[dict[str, str], list[list[str]]]:
    """The harness set up; a first run, the same conversation resumed, a new one."""
    if harness == "claude":
        env = setup_claude(sb)
        allow = ["--allowedTools", "Bash"]
        return env, [
            ["claude", "-p", REMEMBER, *allow],
            ["claude", "-p", "--continue", NEXT, *allow],
            ["claude", "-p", ASK, *allow],
        ]
    if harness == "codex":
        env = setup_codex(sb)
        # Codex's sandbox writes only the workspace (`sandboxcheck`): not this test's.
        free = ("--sandbox", "danger-full-access")
        return env, [
            codex_exec(REMEMBER, *free),
            codex_exec(NEXT, *free, "resume", "--last"),
            codex_exec(ASK, *free),
        ]
    env = setup_gemini(sb)
    yolo = ["--approval-mode", "yolo"]
    return env, [
        ["gemini", "-p", REMEMBER, *yolo],
        ["gemini", "--resume", "latest", "-p", NEXT, *yolo],
        ["gemini", "-p", ASK, *yolo],
    ]


@pytest.mark.parametrize("harness", ["claude", "codex", "gemini"])
def test_the_first_conversation_is_told_how_to_save_a_memory(
    tmp_path_factory, cli_bins: Path, netns: bool, harness: str
) -> None:
    """Found 2026-12-06 by following the README as a new user: with no memory saved,
    `claude -p "remember that deploys need a VPN"` sent the model no block, and so no
    word of `memhooks write`. Now each request of the first conversation (its run, the
    run resumed) holds the tools line once, the model saves the rule with it, and the
    next conversation's block holds the rule."""
    with sandbox(tmp_path_factory.mktemp(f"day-one-{harness}"), cli_bins, netns) as sb:
        env, runs = _runs(harness, sb)
        tool, key = SHELL[harness]
        sb.script(
            [
                {"when": REMEMBER, "tool": tool, "args": {key: SAVE}},
                {"when": ASK, "reply": "Mock reply {n}."},
            ]
        )
        first = sb.run(runs[0], env=env)
        assert first.returncode == 0, first.stderr
        memory = sb.root / "MEMORY.md"
        assert memory.read_text() == MODEL_RULE + "\n", "the model's save did not run"
        assert all(_usages(r) == 1 for r in _talk(sb)), [_usages(r) for r in _talk(sb)]
        assert NOTHING_YET in sb.turn(REMEMBER).text
        memory.write_text(memory.read_text() + PERSON_RULE + "\n")  # the person's
        again = sb.run(runs[1], env=env)
        assert again.returncode == 0, again.stderr
        assert all(_usages(r) == 1 for r in _talk(sb)), [_usages(r) for r in _talk(sb)]
        # Told as on any resume: the lines added since the block, the person's alone
        # (until 2026-12-07 the model's own rule too: `resumed_writes`).
        told = _ours(sb.turn(NEXT).text.split(REMEMBER)[-1])
        assert f"{CHANGED}MEMORY.md." in told and f"\n+{PERSON_RULE}\n" in told
        assert f"+{MODEL_RULE}" not in told, told
        new = sb.run(runs[2], env=env)
        assert new.returncode == 0, new.stderr
        got = sb.turn(ASK)
        assert f"## MEMORY.md\n{MODEL_RULE}\n{PERSON_RULE}" in got.text
        assert _usages(got) == 1 and NOTHING_YET not in got.text
        assert not sb.leftovers()


@pytest.mark.parametrize("harness", ["claude", "codex", "gemini", "codex-profile"])
def test_the_model_runs_the_tools_line_as_it_reads_it(
    tmp_path_factory, cli_bins: Path, netns: bool, harness: str
) -> None:
    """Found 2026-12-06 (h63a's walk-through, item 6; measured by h64d): memhooks in a
    venv that is on the PATH the CLI was started with, as an activated venv leaves it, and
    in no profile file. Codex CLI 0.171.0 runs the model's commands with the PATH of a
    login shell, which /etc/profile sets afresh: the tools line's `memhooks write` said
    "memhooks: command not found" (exit 127) and nothing was saved. Claude Code and Gemini
    CLI run them with their own PATH and found it. Now the line names the command so that
    the model's shell runs this install: the model copies it from the block of a first
    conversation, and the rule is saved. With the venv's bin put on PATH in ~/.profile
    ("codex-profile"), Codex's line says plain `memhooks`, and that works too.

    Found 2026-12-06 (h65b): the block's index of notes still said `memhooks read
    notes/NAME` in Codex, beside a tools line by path; now its title names the same
    command, and the model that copies it in the conversation resumed reads the note."""
    cli = harness.split("-")[0]
    with sandbox(tmp_path_factory.mktemp(f"shell-{harness}"), cli_bins, netns) as sb:
        env, runs = _runs(cli, sb)
        if harness == "codex-profile":
            (sb.home / ".profile").write_text(f'PATH="{MEMHOOKS.parent}:$PATH"\n')
        notes = sb.root / "projects" / slug_for(str(sb.project)) / "notes"
        notes.mkdir(parents=True)
        (notes / "vpn-gateway.md").write_text(NOTE)
        sb.script([{"when": ASK, "reply": "Mock reply {n}."}])
        assert sb.run(runs[2], env=env).returncode == 0
        line = TOOLS_LINE.search(sb.turn(ASK).text)
        assert line, "no tools line"
        title = NOTES_LINE.search(sb.turn(ASK).text)
        assert title, "no index of notes"
        tool, key = SHELL[cli]
        save = f"{line['prog']} write --to memory --text '{MODEL_RULE}'"
        read = f"{title['prog']} read notes/vpn-gateway"
        sb.script(
            [
                {"when": REMEMBER, "tool": tool, "args": {key: save}},
                {"when": NEXT, "tool": tool, "args": {key: read}},
            ]
        )
        done = sb.run(runs[0], env=env)
        assert done.returncode == 0, done.stderr
        result = sb.requests()[-1].text  # the tool's result, sent back to the model
        assert "command not found" not in result, result[-600:]
        assert "wrote MEMORY.md" in result, result[-600:]
        assert (sb.root / "MEMORY.md").read_text() == MODEL_RULE + "\n"
        # The conversation resumed: the model reads the note as the index's title says.
        done = sb.run(runs[1], env=env)
        assert done.returncode == 0, done.stderr
        result = sb.requests()[-1].text.split(NEXT)[-1]
        assert "command not found" not in result, result[-600:]
        assert NOTE_SAYS in result, result[-600:]
        # Plain where that runs this install; else its path (some 40 bytes more, four times).
        plain = cli != "codex" or harness == "codex-profile"
        assert line["prog"] == ("memhooks" if plain else str(MEMHOOKS))
        assert title["prog"] == line["prog"], (title[0], line[0])
        assert not sb.leftovers()


#: A rule that holds a token: `memhooks write` stores it, and says how to remove it.
TOKEN = "ghp_0123456789abcdefghijABCDEFGHIJ"
SECRET_RULE = f"- CI pushes with the token {TOKEN} (rule HERON-6)."
#: The hint of that warning (`cautions.secret_warnings`), the `memhooks` it names.
EDIT_HINT = re.compile(r"remove it with `(?P<prog>[^`\n]+) edit`")


def test_codex_model_runs_the_edit_its_write_said_to_run(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """Found 2026-12-06 (h65b): what a command tells the model to run next named plain
    `memhooks` whatever command ran it. Codex CLI 0.171.0's model saved a rule with a
    token by the tools line's path, was told "remove it with `memhooks edit`", and
    running that got "memhooks: command not found". Now a command's hints name
    `memhooks` as the shell that ran it finds this install: by its path there."""
    with sandbox(tmp_path_factory.mktemp("hint-codex"), cli_bins, netns) as sb:
        env, runs = _runs("codex", sb)
        tool, key = SHELL["codex"]
        save = f"{MEMHOOKS} write --to memory --text '{SECRET_RULE}'"
        sb.script([{"when": REMEMBER, "tool": tool, "args": {key: save}}])
        assert sb.run(runs[0], env=env).returncode == 0
        said = sb.requests()[-1].text
        hint = EDIT_HINT.search(said)
        assert hint, said[-600:]
        edit = f"{hint['prog']} edit MEMORY.md --old '{TOKEN}' --new 'ghp_REDACTED'"
        sb.script([{"when": NEXT, "tool": tool, "args": {key: edit}}])
        assert sb.run(runs[1], env=env).returncode == 0
        result = sb.requests()[-1].text.split(NEXT)[-1]
        assert "command not found" not in result, result[-600:]
        assert TOKEN not in (sb.root / "MEMORY.md").read_text()
        assert hint["prog"] == str(MEMHOOKS)
        assert not sb.leftovers()


def test_gemini_tui_first_conversation_gets_one_block(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """The same in Gemini CLI 0.61.0's TUI, where the block may come with the first
    prompt, and after `/clear`: one tools line in every request, of the conversation
    cleared too; the model's save, then a person's edit, told by the change notice;
    no second block."""
    with sandbox(tmp_path_factory.mktemp("day-one-tui"), cli_bins, netns) as sb:
        env = setup_gemini(sb)
        sb.script(
            [
                {
                    "when": REMEMBER,
                    "tool": "run_shell_command",
                    "args": {"command": SAVE, "description": "save"},
                },
                {"when": HELLO, "reply": "Mock reply {n}."},
                {"when": NEXT, "reply": "Mock reply {n}."},
                {"when": LAST, "reply": "Mock reply {n}."},
            ]
        )
        tmux = gemini_tui(sb, env)
        tui_ask(sb, tmux, HELLO, calls=0)
        tmux.type("/clear")
        tui_ask(sb, tmux, REMEMBER, calls=1)
        tui_ask(sb, tmux, NEXT, calls=0)
        memory = sb.root / "MEMORY.md"
        memory.write_text(memory.read_text() + PERSON_RULE + "\n")
        tui_ask(sb, tmux, LAST, calls=0)
        tmux.type("/quit")
        tmux.wait_exit()

        assert memory.read_text() == f"{MODEL_RULE}\n{PERSON_RULE}\n"
        assert NOTHING_YET in sb.turn(HELLO).text
        # The conversation cleared has its record in today's log: a block of it.
        assert "## Daily log" in sb.turn(REMEMBER).text
        assert all(_usages(r) == 1 for r in _talk(sb)), [_usages(r) for r in _talk(sb)]
        # Gemini puts a prompt's context after the prompt.
        told = _ours(sb.turn(LAST).text.split(LAST)[-1])
        assert f"{CHANGED}MEMORY.md." in told
        # The file the model saved after a block that had none: the person's line alone.
        assert f"\n+{PERSON_RULE}\n" in told and MODEL_RULE not in told
        assert not sb.leftovers()


def test_claude_first_rule_and_item_written_by_hand_are_told_with_their_lines(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """Found 2026-12-06 (h63d): in Claude Code 2.1.332's TUI with no memory saved, the
    MEMORY.md a person then wrote was only named by the next prompt's notice ("Memory
    changed on disk since this session's block was built: MEMORY.md."): the model,
    holding no copy, went on without the rule. Now the notice holds the rule as added,
    and so the first open item of a scratchpad created by hand."""
    with sandbox(tmp_path_factory.mktemp("day-one-hand"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        sb.script(
            [{"when": p, "reply": "Mock reply {n}."} for p in (HELLO, NEXT, LAST)]
        )
        tmux = sb.tmux(["claude"], env=env)
        wait_ready(tmux)
        sb.ask(tmux, HELLO)
        (sb.root / "MEMORY.md").write_text(PERSON_RULE + "\n")
        sb.ask(tmux, NEXT)
        pad = sb.root / "projects" / slug_for(str(sb.project)) / "SCRATCHPAD.md"
        pad.parent.mkdir(parents=True, exist_ok=True)
        pad.write_text(PERSON_ITEM + "\n")
        sb.ask(tmux, LAST)
        tmux.type("/exit")
        tmux.wait_exit()

        assert NOTHING_YET in sb.turn(HELLO).text
        told = _ours(sb.turn(NEXT).text.split(NEXT)[-1])
        assert f"{CHANGED}MEMORY.md.\n" in told
        assert f"lines removed (-) and added (+):\n+{PERSON_RULE}\n</memory>" in told
        told = _ours(sb.turn(LAST).text.split(LAST)[-1])
        assert f"\n+{PERSON_ITEM}\n</memory>" in told and PERSON_RULE not in told
        assert not sb.leftovers()


def test_claude_first_rule_written_between_runs_is_told_on_continue(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """`claude -p` with no memory saved, a person's first MEMORY.md rule, then `claude
    -p --continue`: the resumed conversation is told the rule as added."""
    with sandbox(tmp_path_factory.mktemp("day-one-continue"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        sb.script([{"when": p, "reply": "Mock reply {n}."} for p in (HELLO, NEXT)])
        first = sb.run(["claude", "-p", HELLO], env=env)
        assert first.returncode == 0, first.stderr
        assert NOTHING_YET in sb.turn(HELLO).text
        (sb.root / "MEMORY.md").write_text(PERSON_RULE + "\n")
        again = sb.run(["claude", "-p", "--continue", NEXT], env=env)
        assert again.returncode == 0, again.stderr
        told = _ours(sb.turn(NEXT).text.split(HELLO)[-1])
        assert f"{CHANGED}MEMORY.md." in told and f"\n+{PERSON_RULE}\n" in told
        assert not sb.leftovers()


def _talk(sb: Sandbox) -> list[Request]:
    """The requests of the conversation: those holding a prompt of this test (not a
    harness's side requests: titles, next-speaker checks)."""
    prompts = (HELLO, REMEMBER, NEXT, LAST, ASK)
    return [r for r in sb.requests() if any(p in r.text for p in prompts)]


def _ours(text: str) -> str:
    """Our contexts in `text`."""
    return "".join(re.findall(r"<memory note=.*?</memory>", text, re.DOTALL))

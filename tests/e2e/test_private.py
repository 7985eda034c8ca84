"""A person's `<private>` text in their memory files never reaches the model through
memhooks: not in the block, not in what auto-search shows, with each harness.

MEMORY.md and a note hold a private block and a line with a private part; the person
asks about the subjects of both in `claude -p`, `codex exec` and `gemini -p`. Asserted
on every request the mock received: the private text is in none, while the rules and the
public part of each line are where they were (the block, auto-search's hit).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import codex_exec, setup_claude, setup_codex, setup_gemini
from tests.e2e.memory_fixture import RULE, blocks_in

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.e2e.sandbox import Sandbox

#: MEMORY.md: the fixture's rule, a private block, and a rule with a private part.
MEMORY = (
    f"{RULE}\n<private>\nThe vault door code is 4417-PLOVER.\n</private>\n"
    "- The grebe lockers are by the east door <private>(mine is 31, combo 9962)</private>.\n"
)
#: A note whose subject line is public and whose detail is private, the last of it
#: after a block nested in the private one (before 2026-12-06 the nested block's
#: `</private>` ended the outer one: "Its backup code is 7781-TERN." was shown).
NOTE = (
    "# Heron server\nThe heron server runs in rack C4.\n"
    "<private>Its root password is Egret-5521-Swamp.\n"
    "<private>(rotated monthly)</private>\nIts backup code is 7781-TERN.</private>\n"
)
SECRETS = (
    "4417-PLOVER",
    "9962",
    "mine is 31",
    "Egret-5521-Swamp",
    "7781-TERN",
    "rotated monthly",
    "<private>",
)
ASK = (
    "Where are the grebe lockers and the heron server, and what is the vault door code."
)
#: How each harness is run headless with the question.
ARGV = {
    "claude": ["claude", "-p", ASK],
    "codex": codex_exec(ASK),
    "gemini": ["gemini", "-p", ASK],
}


@pytest.mark.parametrize("cli", sorted(ARGV))
def test_private_text_never_reaches_the_model(
    tmp_path_factory, cli_bins: Path, netns: bool, cli: str
) -> None:
    with sandbox(tmp_path_factory.mktemp(f"private-{cli}"), cli_bins, netns) as sb:
        setups: dict[str, Callable[[Sandbox], dict[str, str]]] = {
            "claude": setup_claude,
            "codex": setup_codex,
            "gemini": setup_gemini,
        }
        env = setups[cli](sb)
        sb.memhooks("write", "--to", "memory", "--text", MEMORY)
        sb.memhooks("write", "--to", "note", "--name", "heron-server", "--text", NOTE)
        done = sb.run(ARGV[cli], env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        got = sb.turn(ASK)
        assert blocks_in(got) == 1
        assert "The grebe lockers are by the east door ." in got.text
        assert "runs in rack C4" in got.text  # auto-search found the note
        leaked = [s for r in sb.requests() for s in SECRETS if s in r.text]
        assert not leaked, leaked
        # The files keep every byte the person wrote.
        assert (sb.root / "MEMORY.md").read_text().count("4417-PLOVER") == 1
        assert not sb.leftovers(), sb.leftovers()


def test_memory_forget_tells_the_model_no_private_text(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """The model forgets lines of MEMORY.md by number through `memhooks mcp` in `claude
    -p`: the private block's `<private>` line, then the rule with a private part. Before
    2026-12-06 the tool's replies said each line as written ("forgot a line of
    MEMORY.md: - The grebe lockers are by the east door <private>(mine is 31, combo
    9962)</private>."), and with its opening line forgotten the block's lines were in
    the next run's block."""
    tool = "mcp__memhooks__memory_forget"
    forget = "Forget lines 2 and 5 of MEMORY.md."
    with sandbox(tmp_path_factory.mktemp("private-forget"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        sb.memhooks("write", "--to", "memory", "--text", MEMORY)
        lines = (sb.root / "MEMORY.md").read_text().split("\n")
        assert lines[1] == "<private>" and lines[4].startswith("- The grebe lockers")
        add = ["claude", "mcp", "add", "memhooks", "--", "memhooks", "mcp"]
        assert sb.run(add, env=env).returncode == 0
        then = [{"tool": tool, "args": {"target": "MEMORY.md:5"}}]
        args = {"target": "MEMORY.md:2"}
        sb.script([{"when": forget, "tool": tool, "args": args, "then": then}])
        done = sb.run(["claude", "-p", forget, "--allowedTools", tool], env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        told = [r.text for r in sb.requests() if "forgot a line of MEMORY.md" in r.text]
        assert "MEMORY.md (line 2, private: not shown)" in told[-1], told[-1][-600:]
        grebe = "MEMORY.md: - The grebe lockers are by the east door . (its private"
        assert grebe in told[-1]
        assert (sb.root / "MEMORY.md").read_text().count("~~<private>~~") == 1
        done = sb.run(["claude", "-p", ASK], env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert blocks_in(sb.turn(ASK)) == 1
        leaked = [s for r in sb.requests() for s in SECRETS if s in r.text]
        assert not leaked, leaked
        assert not sb.leftovers(), sb.leftovers()

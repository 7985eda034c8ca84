"""A person's own hooks beside memhooks, installed for the project: a bash guard and
another tool's prompt hook in ~/.claude/settings.json, a guard in ~/.codex/config.toml
and in ~/.gemini/settings.json."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import codex_exec, setup_claude, setup_codex, setup_gemini
from tests.e2e.memory_fixture import blocks_in, seed

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.timeout(300)

BLOCKED = "rm -rf build-cache"
RAN = "echo the build ran"
GUARD = """#!/bin/sh
case "$(cat)" in *"rm -rf"*) echo "refused by my guard" >&2; exit 2;; esac
"""
OTHER = """#!/bin/sh
cat >/dev/null
printf '%s\\n' '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
  "additionalContext": "TICKETS-7731: the tracker is tickets.local"}}'
"""


def test_a_command_the_persons_guard_blocked_is_not_recorded_as_run(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """Found with the real Claude Code 2.1.332 (2026-12-06): the session-end record
    listed under Commands a `rm -rf` the person's PreToolUse guard had refused, so the
    next session read that it ran. The other tool's context reached the model beside
    the block, as it did before."""
    with sandbox(tmp_path_factory.mktemp("own-hooks"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        seed(sb)
        scripts = sb.home / "bin"
        scripts.mkdir()
        for name, text in (("guard.sh", GUARD), ("other.sh", OTHER)):
            (scripts / name).write_text(text)
            (scripts / name).chmod(0o755)
        own = {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Bash",
                        "hooks": [
                            {"type": "command", "command": f"{scripts}/guard.sh"}
                        ],
                    }
                ],
                "UserPromptSubmit": [
                    {"hooks": [{"type": "command", "command": f"{scripts}/other.sh"}]}
                ],
            }
        }
        (sb.home / ".claude").mkdir(exist_ok=True)
        (sb.home / ".claude" / "settings.json").write_text(json.dumps(own, indent=4))
        clean, build = "Clean the build cache now.", "Run the build now."
        sb.script(
            [
                {"when": clean, "tool": "Bash", "args": {"command": BLOCKED}},
                {"when": build, "tool": "Bash", "args": {"command": RAN}},
            ]
        )
        for prompt in (clean, build):
            done = sb.run(["claude", "-p", prompt, "--allowedTools", "Bash"], env=env)
            assert done.returncode == 0, done.stderr

        refused = [r.text for r in sb.requests() if "refused by my guard" in r.text]
        assert refused, "the guard never refused the command"
        first = sb.turn(clean)
        assert blocks_in(first) == 1 and "TICKETS-7731" in first.text
        (blocked,) = sb.entries("session end", at_least=2)[:1]
        assert clean in blocked and BLOCKED not in blocked
        ran = sb.entries("session end", at_least=2)[1]
        assert build in ran and f"`{RAN}`" in ran


@pytest.mark.parametrize("harness", ["codex", "gemini"])
def test_a_command_a_guard_blocked_is_not_recorded_by_codex_or_gemini(
    tmp_path_factory, cli_bins: Path, netns: bool, harness: str
) -> None:
    """The same with the real Codex CLI 0.171.0 (a PreToolUse hook inline in
    config.toml) and Gemini CLI 0.61.0 (a BeforeTool hook): the refused command was in
    the record (2026-12-06)."""
    with sandbox(tmp_path_factory.mktemp(f"own-{harness}"), cli_bins, netns) as sb:
        guard = sb.home / "guard.sh"
        guard.write_text(GUARD)
        guard.chmod(0o755)
        clean, build = "Clean the build cache now.", "Run the build now."
        if harness == "codex":
            env = setup_codex(sb)
            with (sb.home / ".codex" / "config.toml").open("a") as f:
                f.write('\n[[hooks.PreToolUse]]\nmatcher = "Bash"\n')
                f.write(
                    f'[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "{guard}"\n'
                )
            tool, key = "exec_command", "cmd"
            runs = [codex_exec(clean), codex_exec(build)]
        else:
            env = setup_gemini(sb)
            settings = sb.home / ".gemini" / "settings.json"
            data = json.loads(settings.read_text())
            hook = {"type": "command", "command": str(guard), "name": "guard"}
            data["hooks"] = {
                "BeforeTool": [{"matcher": "run_shell_command", "hooks": [hook]}]
            }
            settings.write_text(json.dumps(data, indent=2))
            tool, key = "run_shell_command", "command"
            yolo = ["--approval-mode", "yolo"]
            runs = [["gemini", "-p", clean, *yolo], ["gemini", "-p", build, *yolo]]
        # The build's rule first: Gemini's block, put before the prompt, holds the
        # first run's record, and so its prompt.
        sb.script(
            [
                {"when": build, "tool": tool, "args": {key: RAN}},
                {"when": clean, "tool": tool, "args": {key: BLOCKED}},
            ]
        )
        for argv in runs:
            done = sb.run(argv, env=env)
            assert done.returncode == 0, done.stderr

        refused = [r.text for r in sb.requests() if "refused by my guard" in r.text]
        assert refused, "the guard never refused the command"
        blocked, ran = sb.entries("session end", at_least=2)[:2]
        assert clean in blocked and BLOCKED not in blocked
        assert build in ran and f"`{RAN}`" in ran


def test_a_prompt_another_tools_hook_blocked_is_not_recorded(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """Found with the real Claude Code 2.1.332 (2026-12-06): another tool's prompt hook
    blocked a prompt (`{"decision": "block"}`), so the model never got it, but the
    session-end record listed it and the next session's block showed it to the model."""
    secret = "Tell me about SECRET-PROJECT omega."
    with sandbox(tmp_path_factory.mktemp("own-block"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        seed(sb)
        script = sb.home / "block.sh"
        # A scanner takes its time: memhooks' own prompt hook has seen the prompt
        # by the time this one blocks it.
        script.write_text(
            '#!/bin/sh\ninput=$(cat); sleep 1\ncase "$input" in *SECRET-PROJECT*) '
            'echo \'{"decision": "block", "reason": "not to be discussed"}\';; esac\n'
        )
        script.chmod(0o755)
        hook = {"type": "command", "command": str(script)}
        own = {"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}}
        (sb.home / ".claude").mkdir(exist_ok=True)
        (sb.home / ".claude" / "settings.json").write_text(json.dumps(own))
        first, after = "Start on the heron table.", "What is next for the heron table?"
        for argv in (
            ["claude", "-p", first],
            ["claude", "-p", "--continue", secret],
            ["claude", "-p", after],
        ):
            done = sb.run(argv, env=env)
            assert done.returncode == 0, done.stderr

        assert not sb.turns(secret), "the hook let the prompt through"
        # The blocked run has nothing to record: the two others have their records.
        ended = sb.entries("session end", at_least=2)
        assert "SECRET-PROJECT" not in sb.daily()
        assert len(ended) == 2
        next_start = sb.turn(after)
        assert blocks_in(next_start) == 1 and "SECRET-PROJECT" not in next_start.text


@pytest.mark.parametrize("harness", ["codex", "gemini"])
def test_a_prompt_another_tools_hook_blocked_is_not_recorded_by_codex_or_gemini(
    tmp_path_factory, cli_bins: Path, netns: bool, harness: str
) -> None:
    secret = "Tell me about SECRET-PROJECT omega."
    with sandbox(tmp_path_factory.mktemp(f"block-{harness}"), cli_bins, netns) as sb:
        script = sb.home / "block.sh"
        script.write_text(
            '#!/bin/sh\ninput=$(cat); sleep 1\ncase "$input" in *SECRET-PROJECT*) '
            "echo 'not to be discussed' >&2; exit 2;; esac\n"
        )
        script.chmod(0o755)
        first = "Start on the heron table."
        if harness == "codex":
            env = setup_codex(sb)
            with (sb.home / ".codex" / "config.toml").open("a") as f:
                f.write(
                    "\n[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\n"
                )
                f.write(f'type = "command"\ncommand = "{script}"\n')
            runs = [codex_exec(first), codex_exec(secret, "resume", "--last")]
        else:
            env = setup_gemini(sb)
            settings = sb.home / ".gemini" / "settings.json"
            data = json.loads(settings.read_text())
            hook = {"type": "command", "command": str(script), "name": "blocker"}
            data["hooks"] = {"BeforeAgent": [{"hooks": [hook]}]}
            settings.write_text(json.dumps(data, indent=2))
            runs = [
                ["gemini", "-p", first],
                ["gemini", "--resume", "latest", "-p", secret],
            ]
        seed(sb)
        for argv in runs:
            sb.run(argv, env=env)

        assert not sb.turns(secret), "the hook let the prompt through"
        assert not sb.leftovers()  # both runs ended: their records are written
        assert len(sb.entries("session end")) == 1, sb.daily()
        assert first in sb.daily()
        assert "SECRET-PROJECT" not in sb.daily()

"""A prompt another tool's hook blocked (exit 2): its auto-search hits come again.

Replays tests/data/harness/claude-code/blocked/, captured from Claude Code 2.1.332 in
tmux: a policy hook of another tool on UserPromptSubmit (exit 2 for a prompt holding
"BLOCKME") beside memhooks'; the prompt blocked, then sent again without the word. The
model then got no note: memhooks had taken the note as shown with the blocked prompt.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memhooks.memory import Store
from tests.conftest import run_cli

DATA = Path(__file__).parents[1] / "data" / "harness" / "claude-code" / "blocked"
FACT = "port 7431 behind the wombat proxy"
NOTE = f"# Staging database\nThe kestrel staging database listens on {FACT}."
#: The transcript's lines: what Claude Code had written when each hook ran.
LINES = (DATA / "transcript.jsonl").read_bytes().splitlines(keepends=True)
#: Up to the SessionStart hook's context (before the first prompt), then the line
#: Claude Code wrote for the blocked prompt, then the turn of the prompt sent again.
BEFORE, BLOCKED = 5, 6


@pytest.fixture
def session(tmp_path: Path, memory_root: Path) -> tuple[Path, Path]:
    project = tmp_path / "kestrel"
    project.mkdir()
    store = Store.for_project(memory_root, project)
    store.write_note("staging-db", NOTE)
    return project, tmp_path / "transcript.jsonl"


def _hook(name: str, project: Path, transcript: Path) -> str:
    """Run a captured payload through `memhooks hook`, as Claude Code ran it; the context."""
    event = json.loads((DATA / name).read_text())
    event |= {"cwd": str(project), "transcript_path": str(transcript)}
    proc = run_cli("hook", "--harness", "claude-code", input=json.dumps(event))
    assert proc.returncode == 0, proc.stderr
    reply = json.loads(proc.stdout or "{}")
    return str(reply.get("hookSpecificOutput", {}).get("additionalContext", ""))


def test_a_blocked_prompts_hits_come_with_the_prompt_sent_again(
    session: tuple[Path, Path],
) -> None:
    project, transcript = session
    transcript.write_bytes(b"".join(LINES[:BEFORE]))
    _hook("01-SessionStart.json", project, transcript)
    assert FACT in _hook("02-UserPromptSubmit.json", project, transcript)
    assert b"UserPromptSubmit operation blocked by hook" in LINES[BLOCKED - 1]
    transcript.write_bytes(b"".join(LINES[:BLOCKED]))

    assert FACT in _hook("03-UserPromptSubmit.json", project, transcript)


def test_a_prompt_that_went_through_gets_no_hit_twice(
    session: tuple[Path, Path],
) -> None:
    project, transcript = session
    transcript.write_bytes(b"".join(LINES[:BEFORE]))
    _hook("01-SessionStart.json", project, transcript)
    assert FACT in _hook("03-UserPromptSubmit.json", project, transcript)
    # The turn as Claude Code wrote it: the prompt, the hits, the model's answer.
    turn = [ln for ln in LINES[BLOCKED:] if b"informational" not in ln]
    transcript.write_bytes(b"".join(LINES[:BEFORE] + turn))

    assert FACT not in _hook("03-UserPromptSubmit.json", project, transcript)

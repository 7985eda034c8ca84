"""A prompt another tool's hook blocked (exit 2): its auto-search hits come again.

Replays tests/data/harness/{claude-code,gemini}/blocked/, captured from Claude Code
2.1.332 and Gemini CLI 0.61.0 in tmux: a policy hook of another tool beside memhooks'
(UserPromptSubmit, BeforeAgent; exit 2 for a prompt holding "BLOCKME"); the prompt
blocked, then sent again without the word. The model then got no note: memhooks had taken
it as shown with the blocked prompt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pytest

from memhooks.memory import Store
from tests.conftest import run_cli

DATA = Path(__file__).parents[1] / "data" / "harness"
FACT = "port 7431 behind the wombat proxy"
NOTE = f"# Staging database\nThe kestrel staging database listens on {FACT}."


class Run(NamedTuple):
    """One capture: the harness, its files, and its transcript's lines: up to before the
    first prompt, then up to the line the harness wrote for the blocked prompt."""

    harness: str
    folder: Path
    transcript: str
    before: int
    blocked: int
    start: str
    blocked_prompt: str
    prompt: str

    def lines(self) -> list[bytes]:
        return (self.folder / self.transcript).read_bytes().splitlines(keepends=True)


RUNS = [
    Run(
        "claude-code",
        DATA / "claude-code" / "blocked",
        "transcript.jsonl",
        5,
        6,
        "01-SessionStart.json",
        "02-UserPromptSubmit.json",
        "03-UserPromptSubmit.json",
    ),
    Run(
        "gemini",
        DATA / "gemini" / "blocked",
        "chat.jsonl",
        4,
        7,
        "01-SessionStart.json",
        "02-BeforeAgent.json",
        "03-BeforeAgent.json",
    ),
]
IDS = [r.harness for r in RUNS]


@pytest.fixture
def project(tmp_path: Path, memory_root: Path) -> Path:
    project = tmp_path / "kestrel"
    project.mkdir()
    Store.for_project(memory_root, project).write_note("staging-db", NOTE)
    return project


def _hook(run: Run, name: str, project: Path, transcript: Path) -> str:
    """Run a captured payload through `memhooks hook` as the harness ran it; the context."""
    event = json.loads((run.folder / name).read_text())
    event |= {"cwd": str(project), "transcript_path": str(transcript)}
    proc = run_cli("hook", "--harness", run.harness, input=json.dumps(event))
    assert proc.returncode == 0, proc.stderr
    reply = json.loads(proc.stdout or "{}")
    return str(reply.get("hookSpecificOutput", {}).get("additionalContext", ""))


@pytest.mark.parametrize("run", RUNS, ids=IDS)
def test_a_blocked_prompts_hits_come_with_the_prompt_sent_again(
    run: Run, project: Path, tmp_path: Path
) -> None:
    transcript, lines = tmp_path / run.transcript, run.lines()
    transcript.write_bytes(b"".join(lines[: run.before]))
    _hook(run, run.start, project, transcript)
    assert FACT in _hook(run, run.blocked_prompt, project, transcript)
    assert b"blocked" in lines[run.blocked - 1]
    transcript.write_bytes(b"".join(lines[: run.blocked]))

    assert FACT in _hook(run, run.prompt, project, transcript)


@pytest.mark.parametrize("run", RUNS, ids=IDS)
def test_a_prompt_that_went_through_gets_no_hit_twice(
    run: Run, project: Path, tmp_path: Path
) -> None:
    transcript, lines = tmp_path / run.transcript, run.lines()
    transcript.write_bytes(b"".join(lines[: run.before]))
    _hook(run, run.start, project, transcript)
    assert FACT in _hook(run, run.prompt, project, transcript)
    # The turn as the harness wrote it: the prompt, the hits, the model's answer.
    turn = lines[run.blocked :]
    transcript.write_bytes(b"".join(lines[: run.before] + turn))

    assert FACT not in _hook(run, run.prompt, project, transcript)

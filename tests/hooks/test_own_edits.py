"""Which memory files the model wrote itself with Claude Code's file tools in the turn
before a prompt (`hooks/own_edits.py`), on lines shaped as Claude Code 2.1.332 writes them
(tests/e2e/test_model_edits.py drives the real one)."""

from __future__ import annotations

import json
import os
from datetime import datetime
from typing import TYPE_CHECKING

from memhooks.hooks.own_edits import model_wrote

if TYPE_CHECKING:
    from pathlib import Path

AT = "2026-12-06T08:03:10.725Z"
AT_NS = int(datetime.fromisoformat(AT).timestamp() * 1000 + 0.5) * 1_000_000


def _prompt(text: str) -> dict[str, object]:
    return {"type": "user", "message": {"role": "user", "content": text}}


def _call(use: str, name: str, path: Path) -> dict[str, object]:
    block = {
        "type": "tool_use",
        "id": use,
        "name": name,
        "input": {"file_path": str(path)},
    }
    return {"type": "assistant", "message": {"role": "assistant", "content": [block]}}


def _result(use: str, *, error: bool = False) -> dict[str, object]:
    block: dict[str, object] = {"tool_use_id": use, "type": "tool_result"}
    if error:
        block["is_error"] = True
    content = {"role": "user", "content": [block]}
    return {"type": "user", "message": content, "timestamp": AT, "toolUseResult": {}}


def _transcript(tmp_path: Path, *entries: dict[str, object]) -> Path:
    path = tmp_path / "t.jsonl"
    # Without spaces, as Claude Code writes them.
    lines = (json.dumps(e, separators=(",", ":")) + "\n" for e in entries)
    path.write_text("".join(lines))
    return path


def test_the_last_turns_edits_that_ran_are_the_models(tmp_path: Path) -> None:
    memory, note, other = (tmp_path / n for n in ("MEMORY.md", "n.md", "o.md"))
    path = _transcript(
        tmp_path,
        _prompt("first"),
        _call("a", "Write", other),  # a turn before the last prompt: told already
        _result("a"),
        _prompt("second"),
        _call("b", "Edit", memory),
        _result("b"),
        _call("c", "Write", note),
        _result("c", error=True),  # refused or failed: nothing written
    )
    assert model_wrote(path) == {memory.resolve(): AT_NS}


def test_a_transcript_without_edits_or_none_at_all(tmp_path: Path) -> None:
    assert model_wrote(_transcript(tmp_path, _prompt("hello"))) == {}
    assert model_wrote(tmp_path / "missing.jsonl") == {}
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert model_wrote(fifo) == {}  # never waits on a FIFO


def test_a_subagents_edit_is_not_the_models(tmp_path: Path) -> None:
    """A subagent's calls, which releases before 2.1.332 wrote into the session's
    transcript (`isSidechain`): the main model never saw that edit, so it is news."""
    memory = tmp_path / "MEMORY.md"
    side = {"isSidechain": True}
    path = _transcript(
        tmp_path,
        _prompt("first"),
        {**_call("a", "Edit", memory), **side},
        {**_result("a"), **side},
    )
    assert model_wrote(path) == {}

"""A Claude Code transcript after `/rewind`: the turns rewound away stay in the file, and
the branch's first prompt names an earlier entry as its parent (the shape Claude Code
2.1.332's TUI wrote)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from memhooks.hooks.rewinds import branch_contexts
from memhooks.memory.constants import WRAPPER_OPEN

if TYPE_CHECKING:
    from pathlib import Path

BLOCK = f"{WRAPPER_OPEN}\n## MEMORY.md\n- old rule\n"
NOTICE = f"{WRAPPER_OPEN}\nMemory changed on disk since this session's block was built"


def _entry(
    uuid: str, parent: str | None, kind: str, **more: object
) -> dict[str, object]:
    return {"parentUuid": parent, "type": kind, "uuid": uuid, **more}


def _context(uuid: str, parent: str, text: str) -> dict[str, object]:
    attachment = {"type": "hook_additional_context", "content": [text]}
    return _entry(uuid, parent, "attachment", attachment=attachment)


def _prompt(uuid: str, parent: str, text: str) -> dict[str, object]:
    return _entry(uuid, parent, "user", message={"role": "user", "content": text})


def _reply(uuid: str, parent: str) -> dict[str, object]:
    return _entry(uuid, parent, "assistant", message={"content": [{"type": "text"}]})


def _write(path: Path, *entries: dict[str, object]) -> Path:
    lines = [json.dumps(e) for e in entries]
    path.write_text("\n".join([json.dumps({"type": "mode"}), *lines]) + "\n")
    return path


#: The block, a prompt and its reply, a prompt told a notice and its reply.
TURNS = (
    _context("b", "", BLOCK),
    _prompt("p1", "b", "Say hello first."),
    _reply("r1", "p1"),
    _prompt("p2", "r1", "Say hello after the edit."),
    _context("n2", "p2", NOTICE),
    _reply("r2", "n2"),
)


def test_a_conversation_not_rewound_has_no_branch(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.jsonl", *TURNS, _prompt("p3", "r2", "More."))
    assert branch_contexts(path) is None


def test_a_prompt_after_a_rewind_starts_a_branch_without_the_turns_left(
    tmp_path: Path,
) -> None:
    # Rewound to before p2: the branch's prompt is p1's reply's child.
    path = _write(
        tmp_path / "t.jsonl",
        *TURNS,
        _prompt("p3", "r1", "In the branch."),
        _reply("r3", "p3"),
    )
    assert branch_contexts(path) == [BLOCK]


def test_a_rewind_to_the_start_keeps_the_sessions_block(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.jsonl", *TURNS, _prompt("p3", "b", "From the start."))
    assert branch_contexts(path) == [BLOCK]


def test_a_context_kept_twice_is_taken_once(tmp_path: Path) -> None:
    # Claude Code 2.1.332 keeps a hook's context in its attachment, and again in the
    # same entry as the model got it (`rendered`): a notice counted twice would have
    # its change told again.
    notice = _context("n2", "p2", NOTICE)
    notice["rendered"] = [{"content": f"<system-reminder>\nUserPromptSubmit: {NOTICE}"}]
    path = _write(
        tmp_path / "t.jsonl",
        *TURNS[:4],
        notice,
        _reply("r2", "n2"),
        _prompt("p3", "r2", "Say hello a third time."),
        _reply("r3", "p3"),
        _prompt("p4", "r2", "In the branch."),
    )
    assert branch_contexts(path) == [BLOCK, NOTICE]


def test_a_branch_of_contexts_alone_is_read_to_its_root(tmp_path: Path) -> None:
    # Most entries hold a context of ours: each is read, the block at the root too.
    hits = [
        _context(f"h{i}", f"h{i - 1}" if i else "b", f"{NOTICE} {i}") for i in range(4)
    ]
    path = _write(
        tmp_path / "t.jsonl",
        TURNS[0],
        *hits,
        _prompt("p1", "h3", "Say hello."),
        _reply("r1", "p1"),
        _prompt("p2", "h3", "In the branch."),
    )
    assert branch_contexts(path) == [BLOCK, *(f"{NOTICE} {i}" for i in range(4))]


def test_a_tools_result_is_no_prompt(tmp_path: Path) -> None:
    # A tool's result answers the reply before it; the prompt before it is the last.
    result = {"role": "user", "content": [{"type": "tool_result", "content": "ok"}]}
    path = _write(
        tmp_path / "t.jsonl",
        *TURNS,
        _prompt("p3", "r2", "Run it."),
        _reply("r3", "p3"),
        _entry("t3", "r3", "user", message=result),
    )
    assert branch_contexts(path) is None


def test_no_transcript_has_no_branch(tmp_path: Path) -> None:
    assert branch_contexts(tmp_path / "gone.jsonl") is None
    assert branch_contexts(tmp_path) is None

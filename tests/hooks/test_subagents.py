"""The files and commands of Claude Code's subagents in the session's record
(`hooks/subagents.py`), on lines shaped as Claude Code 2.1.332 writes them: the
session's transcript and each subagent's own (tests/e2e/test_subagent.py drives the
real one)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from memhooks.hooks.subagents import with_subagents
from memhooks.hooks.transcript import read_transcript

if TYPE_CHECKING:
    from pathlib import Path


def _lines(path: Path, *entries: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))


def _user(content: object, **extra: object) -> dict[str, object]:
    return {"type": "user", "message": {"role": "user", "content": content}, **extra}


def _call(use: str, name: str, args: dict[str, str]) -> dict[str, object]:
    block = {"type": "tool_use", "id": use, "name": name, "input": args}
    return {"type": "assistant", "message": {"role": "assistant", "content": [block]}}


def _result(use: str, *, error: bool = False) -> dict[str, object]:
    block = {"tool_use_id": use, "type": "tool_result", "content": "ok"}
    return _user([{**block, **({"is_error": True} if error else {})}], toolUseResult={})


def _subagent(
    session: Path, agent: str, task: str, *entries: dict[str, object]
) -> None:
    own = session.with_suffix("") / "subagents" / f"agent-{agent}.jsonl"
    _lines(own, _user(task, isSidechain=True), *entries)


def test_a_finished_subagents_edits_and_commands_are_the_sessions(
    tmp_path: Path,
) -> None:
    session = tmp_path / "s1.jsonl"
    done = {"status": "completed", "agentId": "a1"}
    notice = (
        "<task-notification>\n<task-id>b2</task-id>\n<tool-use-id>t</tool-use-id>\n"
        "<status>completed</status>\n</task-notification>"
    )
    _lines(
        session,
        _user("Survey the repository."),
        _call("m1", "Agent", {"prompt": "Count the files."}),
        _user([{"tool_use_id": "m1", "type": "tool_result"}], toolUseResult=done),
        _call("m2", "Agent", {"prompt": "List the files."}),
        _user(
            [{"tool_use_id": "m2", "type": "tool_result"}],
            toolUseResult={"status": "async_launched", "agentId": "b2"},
        ),
        _user(notice, origin={"kind": "task-notification"}),
        _call("m3", "Agent", {"prompt": "Still running."}),
        _user(
            [{"tool_use_id": "m3", "type": "tool_result"}],
            toolUseResult={"status": "async_launched", "agentId": "c3"},
        ),
    )
    _subagent(
        session,
        "a1",
        "Count the files.",
        _call("s1", "Bash", {"command": "ls *.md"}),
        _result("s1"),
        _call("s2", "Write", {"file_path": "/w/counted.txt", "content": "1"}),
        _result("s2"),
        _call("s3", "Write", {"file_path": "/w/refused.txt", "content": "1"}),
        _result("s3", error=True),  # refused: wrote nothing
    )
    _subagent(
        session,
        "b2",
        "List the files.",
        _call("s1", "Edit", {"file_path": "/w/listed.txt"}),
        _result("s1"),
    )
    _subagent(  # not finished when the record is written: its own record later
        session, "c3", "Still running.", _call("s1", "Bash", {"command": "make"})
    )
    digest, _ = read_transcript(session)
    assert digest.agents == ("a1", "b2")
    merged = with_subagents(digest, session)
    assert merged.files == ("/w/counted.txt", "/w/listed.txt")
    assert merged.commands == ("ls *.md",)
    assert merged.prompts == ("Survey the repository.",)  # no subagent's task


def test_a_subagent_whose_transcript_is_gone_adds_nothing(tmp_path: Path) -> None:
    session = tmp_path / "s1.jsonl"
    done = {"status": "completed", "agentId": "a1"}
    _lines(
        session,
        _user("Survey the repository."),
        _user([{"tool_use_id": "m1", "type": "tool_result"}], toolUseResult=done),
    )
    digest, _ = read_transcript(session)
    assert with_subagents(digest, session) == digest

"""The files and commands of Claude Code's subagents in the session's record
(`hooks/subagents.py`), on lines shaped as Claude Code 2.1.332 writes them: the
session's transcript and each subagent's own (tests/e2e/test_subagent.py drives the
real one)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

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


def _finished(session: Path, *agents: str) -> None:
    # The session's transcript: a prompt, a command, and each subagent finished.
    entries = [
        _user("Fix the heron build."),
        _call("b0", "Bash", {"command": "make heron"}),
        _result("b0"),
    ]
    for i, agent in enumerate(agents):
        done = {"status": "completed", "agentId": agent}
        entries += [
            _call(f"m{i}", "Agent", {"prompt": "Look."}),
            _user(
                [{"tool_use_id": f"m{i}", "type": "tool_result"}], toolUseResult=done
            ),
        ]
    _lines(session, *entries)


@pytest.mark.parametrize("agent", ["x/../../../outside", "a\x00b", "x" * 5000])
def test_an_agent_id_that_is_no_name_reads_nothing(tmp_path: Path, agent: str) -> None:
    # Before 2026-12-06 an id with a "/" named a file outside the subagents' folder,
    # whose commands went into the record, and one with a NUL raised: the session's
    # whole transcript was then taken as unreadable.
    session = tmp_path / "s1.jsonl"
    (tmp_path / "s1" / "subagents" / "agent-x").mkdir(parents=True)
    _lines(tmp_path / "outside.jsonl", _call("o1", "Bash", {"command": "rm -rf /"}))
    _finished(session, agent)
    digest, _ = read_transcript(session)
    assert with_subagents(digest, session).commands == ("make heron",)


def test_subagents_transcripts_are_read_to_one_budget(tmp_path: Path) -> None:
    # 32 subagents of 16 MB each took 30 s to read, each file up to 16 MB (and a list
    # searched per command): a session end has 1.5 s. Their transcripts share one
    # budget: those past it are left out.
    session = tmp_path / "s1.jsonl"
    agents = [f"ag{k:02d}" for k in range(32)]
    _finished(session, *agents)
    for agent in agents:
        calls = []
        for i in range(200):
            call = _call(f"{agent}-{i}", "Bash", {"command": f"echo {agent} {i}"})
            calls += [call, _result(f"{agent}-{i}")]
        _subagent(session, agent, "Look.", *calls)
    size = (session.with_suffix("") / "subagents" / "agent-ag00.jsonl").stat().st_size
    digest, _ = read_transcript(session)
    merged = with_subagents(digest, session, budget=3 * size)
    assert merged.commands[:2] == ("make heron", "echo ag00 0")
    assert {c.split()[1] for c in merged.commands[1:]} == {"ag00", "ag01", "ag02"}
    assert len(merged.commands) == 1 + 3 * 200


# --- Codex CLI 0.171.0 ------------------------------------------------------------------


def _codex(kind: str, payload: dict[str, object]) -> dict[str, object]:
    return {"timestamp": "2026-12-06T14:31:30.957Z", "type": kind, "payload": payload}


def _meta(thread: str, parent: str | None) -> dict[str, object]:
    meta: dict[str, object] = {"id": thread, "cwd": "/w", "cli_version": "0.171.0"}
    if parent:
        source = {"subagent": {"thread_spawn": {"parent_thread_id": parent}}}
        meta |= {"parent_thread_id": parent, "source": source}
    return _codex("session_meta", meta)


def _said(kind: str, text: str) -> dict[str, object]:
    item = {"type": kind, "id": "i", "content": [{"type": "text", "text": text}]}
    return _codex("event_msg", {"type": "item_completed", "item": item})


def _spawned(*threads: str, tool: str = "spawn_agent") -> dict[str, object]:
    # As Codex writes a `spawn_agent` call that started `threads` (or another `tool`
    # of its agents, naming them: `wait`, …).
    item: dict[str, object] = {"type": "CollabAgentToolCall", "tool": tool}
    item |= {"status": "completed", "receiver_thread_ids": list(threads)}
    return _codex("event_msg", {"type": "item_completed", "item": item})


def _shell(call: str, command: str) -> dict[str, object]:
    args = json.dumps({"cmd": command})
    payload = {"type": "function_call", "name": "exec_command", "arguments": args}
    return _codex("response_item", {**payload, "call_id": call})


def _rollout(day: Path, thread: str, *entries: dict[str, object]) -> Path:
    path = day / f"rollout-2026-12-06T14-31-30-{thread}.jsonl"
    _lines(path, *entries)
    return path


def test_a_codex_subagents_edits_and_commands_are_the_sessions(
    tmp_path: Path,
) -> None:
    day = tmp_path / "sessions" / "2026" / "12" / "06"
    patch = "*** Begin Patch\n*** Add File: /w/counted.txt\n+1\n*** End Patch\n"
    session = _rollout(
        day,
        "01a2-parent",
        _meta("01a2-parent", None),
        _said("UserMessage", "Survey the repository."),
        _shell("p1", "git status"),
        _spawned("01a2-child"),
        _said("AgentMessage", "Surveyed."),
    )
    _rollout(
        day,
        "01a2-child",
        _meta("01a2-child", "01a2-parent"),
        _said("UserMessage", "Count the files."),
        _shell("s1", "ls *.md"),
        _shell("s2", "git status"),  # the parent's too: listed once
        _codex(
            "response_item",
            {"type": "custom_tool_call", "name": "apply_patch", "input": patch},
        ),
        _spawned("01a2-grandchild", "01a2-gone"),
        _said("AgentMessage", "Counted one."),
    )
    # Begun after midnight: another day's folder.
    _rollout(
        tmp_path / "sessions" / "2026" / "12" / "07",
        "01a2-grandchild",
        _meta("01a2-grandchild", "01a2-child"),
        _said("UserMessage", "List the files."),
        _shell("g1", "ls -a"),
        _said("AgentMessage", "Listed."),
    )
    digest, _ = read_transcript(session)
    assert digest.agents == ("01a2-child",)
    merged = with_subagents(digest, session)
    assert merged.files == ("/w/counted.txt",)
    assert merged.commands == ("git status", "ls *.md", "ls -a")
    assert merged.prompts == ("Survey the repository.",)  # no subagent's task
    assert merged.last_assistant == "Surveyed."


def test_a_codex_subagent_spawning_itself_is_read_once(tmp_path: Path) -> None:
    day = tmp_path / "2026" / "12" / "06"
    session = _rollout(day, "01a2-parent", _spawned("01a2-child"))
    _rollout(day, "01a2-child", _shell("s1", "make"), _spawned("01a2-child"))
    digest, _ = read_transcript(session)
    assert with_subagents(digest, session).commands == ("make",)


def _notified(thread: str) -> dict[str, object]:
    # The user message Codex adds to the parent's rollout once `thread` finished.
    told = json.dumps({"agent_path": thread, "status": {"completed": "Listed."}})
    text = f"<subagent_notification>\n{told.replace(' ', '')}\n</subagent_notification>"
    content = [{"type": "input_text", "text": text}]
    return _codex(
        "response_item", {"type": "message", "role": "user", "content": content}
    )


def test_a_codex_subagent_named_again_after_a_record_is_read_again(
    tmp_path: Path,
) -> None:
    # Spawned before a record (a compaction's), it works on: the next record, read from
    # after its spawn, takes it from the `wait` for it or the notice that it finished.
    day = tmp_path / "2026" / "12" / "06"
    spawn = [_said("UserMessage", "Survey it."), _spawned("01a2-child")]
    _rollout(day, "01a2-child", _shell("s1", "sleep 4"), _shell("s2", "ls -a"))
    for later in (_notified("01a2-child"), _spawned("01a2-child", tool="wait")):
        session = _rollout(day, "01a2-parent", *spawn, _shell("p1", "make"), later)
        start = len("".join(json.dumps(e) + "\n" for e in spawn))
        digest, _ = read_transcript(session, start)
        assert digest.agents == ("01a2-child",) and not digest.prompts
        merged = with_subagents(digest, session)
        assert merged.commands == ("make", "sleep 4", "ls -a")


def test_a_codex_subagent_whose_rollout_is_gone_adds_nothing(tmp_path: Path) -> None:
    day = tmp_path / "2026" / "12" / "06"
    session = _rollout(day, "01a2-parent", _spawned("01a2-child", "../../etc"))
    digest, _ = read_transcript(session)
    assert with_subagents(digest, session) == digest


# --- Gemini CLI 0.61.0 ------------------------------------------------------------------


def _gemini_calls(key: str, *calls: dict[str, object]) -> dict[str, object]:
    return {"id": key, "type": "gemini", "content": "", "toolCalls": list(calls)}


def test_a_gemini_subagents_edits_and_commands_are_the_sessions(
    tmp_path: Path,
) -> None:
    chats = tmp_path / "tmp" / "kestrel" / "chats"
    session = chats / "session-2026-12-06T14-33-1742cf6c.jsonl"
    agent = "cde8475b-6688-4a56-a3f6-983aa5a2edf1"
    invoke: dict[str, object] = {"id": "invoke_agent__1", "name": "invoke_agent"}
    invoke["args"] = {"agent_name": "generalist", "prompt": "Count the files."}
    _lines(
        session,
        {"sessionId": "1742cf6c-full", "projectHash": "h", "kind": "main"},
        {"id": "u1", "type": "user", "content": [{"text": "Survey the repository."}]},
        _gemini_calls("g1", invoke),  # running: no agentId yet
        _gemini_calls("g1", {**invoke, "status": "success", "agentId": agent}),
        {"id": "g2", "type": "gemini", "content": "Surveyed."},
    )
    shell = {"name": "run_shell_command", "args": {"command": "ls *.md"}}
    write = {"name": "write_file", "args": {"file_path": "/w/counted.txt"}}
    refused = {"name": "write_file", "args": {"file_path": "/w/refused.txt"}}
    _lines(
        chats / "1742cf6c-full" / f"{agent}.jsonl",
        {"sessionId": agent, "projectHash": "h", "kind": "subagent"},
        {"id": "s1", "type": "user", "content": [{"text": "Count the files."}]},
        _gemini_calls("s2", {"id": f"{agent}#0-0", "status": "success", **shell}),
        _gemini_calls("s3", {"id": f"{agent}#1-0", "status": "success", **write}),
        _gemini_calls("s4", {"id": f"{agent}#2-0", "status": "error", **refused}),
        {"id": "s5", "type": "gemini", "content": "Counted one."},
    )
    digest, _ = read_transcript(session)
    assert digest.agents == (agent,)
    merged = with_subagents(digest, session)
    assert merged.files == ("/w/counted.txt",)
    assert merged.commands == ("ls *.md",)
    assert merged.prompts == ("Survey the repository.",)  # no subagent's task
    assert merged.last_assistant == "Surveyed."

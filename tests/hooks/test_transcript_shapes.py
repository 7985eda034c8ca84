"""Codex rollouts and Gemini chat files, as the real CLIs wrote them (tests/data/harness/)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from memhooks.hooks.adapters import strip_hook_context, to_event
from memhooks.hooks.events import parse_payload
from memhooks.hooks.transcript import parse_lines, read_transcript
from tests.conftest import run_cli

DATA = Path(__file__).resolve().parents[1] / "data" / "harness"
ASK = "Tell me which port the kestrel staging database uses behind the wombat proxy."
EDIT = "Remind me when our deploys go out."
AFTER = "Pick the next task after the compaction."


def digest(rel: str):
    return read_transcript(DATA / rel)[0]


def test_codex_exec_rollout_prompts_and_reply() -> None:
    d = digest("codex/exec/rollout.jsonl")
    # `codex exec resume` appends to the same rollout.
    assert d.prompts == (ASK, "Please continue where we left off.")
    assert d.last_assistant == "Mock reply 2."
    assert d.compact_summary is None


def test_codex_rollout_leaves_out_what_the_harness_injected() -> None:
    d = digest("codex/interactive/rollout.jsonl")
    assert d.prompts == (ASK, ASK, EDIT, AFTER)
    text = "\n".join(d.prompts)
    assert "<environment_context>" not in text and "<memory" not in text


def test_codex_rollout_compaction_summary() -> None:
    d = digest("codex/interactive/rollout.jsonl")
    assert d.compact_summary is not None
    assert "Mock compaction summary" in d.compact_summary
    # The model's summary reply itself is not "the last thing the assistant said".
    assert d.last_assistant == "Mock reply 6."


def test_codex_rollout_commands() -> None:
    d = digest("codex/tools/rollout.jsonl")
    assert d.prompts == ("Run the tests please.", "Write the notes file.")
    assert d.commands == ("echo tests-ran > out.txt", "printf 'x' > notes.txt")


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        pytest.param(
            {"type": "event_msg", "payload": {"type": "user_message", "message": "hi"}},
            [("prompt", "hi")],
            id="older-user-message",
        ),
        pytest.param(
            {
                "type": "event_msg",
                "payload": {"type": "agent_message", "message": "ok"},
            },
            [("assistant", "ok")],
            id="older-agent-message",
        ),
        pytest.param(
            {
                "type": "response_item",
                "payload": {
                    "type": "local_shell_call",
                    "action": {"command": ["ls", "-l"]},
                },
            },
            [("command", "ls -l")],
            id="local-shell-call",
        ),
        pytest.param(
            {
                "type": "response_item",
                "payload": {
                    "type": "custom_tool_call",
                    "name": "apply_patch",
                    "input": "*** Begin Patch\n*** Update File: a.py\n@@\n*** Add File: b.py\n",
                },
            },
            [("file", "a.py"), ("file", "b.py")],
            id="apply-patch",
        ),
        pytest.param(
            # Codex CLI 0.171.0 applies a patch the model sent through exec_command
            # (its rollout then says FileChange): a file edited, not a command whose
            # text is the whole patch.
            {
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": json.dumps(
                        {
                            "cmd": "apply_patch <<'EOF'\n*** Begin Patch\n"
                            "*** Add File: services/orders/db.py\n+DSN='postgres://o'\n"
                            "*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\nEOF\n"
                        }
                    ),
                },
            },
            [("file", "services/orders/db.py"), ("file", "a.py")],
            id="apply-patch-through-exec-command",
        ),
        pytest.param(
            {
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": json.dumps(
                        {
                            "command": [
                                "apply_patch",
                                "*** Begin Patch\n*** Update File: c.py\n@@\n*** End Patch\n",
                            ]
                        }
                    ),
                },
            },
            [("file", "c.py")],
            id="apply-patch-through-shell-argv",
        ),
        pytest.param(
            {
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": json.dumps({"cmd": "grep -rn apply_patch src"}),
                },
            },
            [("command", "grep -rn apply_patch src")],
            id="a-command-that-mentions-apply-patch",
        ),
        pytest.param(
            {
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": "{bad",
                },
            },
            [],
            id="arguments-not-json",
        ),
        pytest.param(
            {
                "type": "response_item",
                "payload": {"type": "message", "role": "user", "content": "typed"},
            },
            [],
            id="response-item-message-repeats-event",
        ),
    ],
)
def test_codex_line_shapes(
    record: dict[str, object], expected: list[tuple[str, str]]
) -> None:
    d = parse_lines([json.dumps(record)])
    got = (
        [("prompt", p) for p in d.prompts]
        + [("assistant", d.last_assistant)] * bool(d.last_assistant)
        + [("command", c) for c in d.commands]
        + [("file", f) for f in d.files]
    )
    assert got == expected


def test_gemini_headless_prompt_loses_the_hook_context() -> None:
    d = digest("gemini/print/chat.jsonl")
    assert d.prompts == (ASK,)
    assert d.last_assistant == "Mock reply 2."


def test_gemini_chat_history_rewrites_are_not_read_twice() -> None:
    # The file holds `$set` lines repeating the history (after /compress), an `info`
    # record with a hook's stderr, and context parts after each prompt.
    d = digest("gemini/interactive/chat.jsonl")
    assert d.prompts == (ASK, ASK, EDIT, AFTER)
    assert d.last_assistant == "Mock reply 10."


def test_gemini_tool_calls_written_twice_count_once() -> None:
    d = digest("gemini/tools/chat.jsonl")
    assert d.prompts == ("Run the tests please.", "Write the notes file.")
    assert d.commands == ("echo tests-ran > out.txt",)
    assert d.files == ("/tmp/e2e/tools-gemini/work/kestrel/notes.txt",)


def test_memory_reads_and_searches_through_tools() -> None:
    codex = {
        "type": "response_item",
        "payload": {
            "type": "function_call",
            "name": "mcp__memhooks__memory_search",
            "arguments": json.dumps({"query": "wombat proxy"}),
        },
    }
    gemini = {
        "id": "g1",
        "type": "gemini",
        "content": "",
        "toolCalls": [
            {"id": "c1", "name": "read_file", "args": {"file_path": "/m/notes/a.md"}},
            {
                "id": "c2",
                "name": "mcp_memhooks_memory_read",
                "args": {"target": "notes/b"},
            },
        ],
    }
    d = parse_lines([json.dumps(codex), json.dumps(gemini)])
    assert d.searches == ("wombat proxy",)
    assert d.reads == ("/m/notes/a.md", "notes/b")


@pytest.mark.parametrize(
    "rel", ["gemini/interactive/chat.jsonl", "codex/interactive/rollout.jsonl"]
)
def test_reading_in_two_steps_sees_each_prompt_once(rel: str, tmp_path: Path) -> None:
    lines = (DATA / rel).read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(lines[:half]))
    first, offset = read_transcript(path)
    path.write_bytes(b"".join(lines))
    second, _ = read_transcript(path, offset)
    assert first.prompts + second.prompts == digest(rel).prompts


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("<hook_context>a\nb</hook_context>\n\nask", "ask", id="prefix"),
        pytest.param(
            "<hook_context>a</hook_context> <hook_context>b</hook_context>ask",
            "ask",
            id="two",
        ),
        pytest.param(
            "ask <hook_context>a</hook_context>",
            "ask <hook_context>a</hook_context>",
            id="not-leading",
        ),
        pytest.param("plain prompt", "plain prompt", id="none"),
        pytest.param(
            "<hook_context>never closed", "<hook_context>never closed", id="unclosed"
        ),
        pytest.param("<hook_context>only</hook_context>", "", id="only-context"),
    ],
)
def test_strip_hook_context(text: str, expected: str) -> None:
    assert strip_hook_context(text) == expected


def test_gemini_before_agent_prompt_is_what_the_user_typed() -> None:
    raw = (DATA / "gemini/print/02-BeforeAgent.json").read_text()
    assert json.loads(raw)["prompt"].startswith("<hook_context>")
    event = to_event(parse_payload(json.loads(raw)))
    assert event is not None and event.prompt == ASK


def test_codex_pre_compact_flushes_the_rollout(project: Path, tmp_path: Path) -> None:
    """The captured PreCompact and PostCompact payloads, the rollout beside them: the flush
    holds the prompts."""
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_bytes((DATA / "codex/interactive/rollout.jsonl").read_bytes())
    for name in ("05-PreCompact.json", "06-PostCompact.json"):
        payload = json.loads((DATA / "codex/interactive" / name).read_text())
        payload |= {"cwd": str(project), "transcript_path": str(rollout)}
        done = run_cli(
            "hook", "--harness", "codex", input=json.dumps(payload), cwd=project
        )
        assert done.returncode == 0 and not done.stderr, done.stderr
    (log,) = (tmp_path / "root" / "projects").glob(f"*/daily/{date.today()}.md")
    text = log.read_text()
    assert "compaction summary" in text and ASK in text and EDIT in text


def test_gemini_directory_context_is_no_prompt(tmp_path: Path) -> None:
    """Gemini CLI 0.61.0's TUI started with `--include-directories` (or after
    `/directory add`) puts a user message of its own in the chat file, the workspace's
    folders and their tree (`addDirectoryContext`): no prompt of the person's."""
    tree = (
        "- **Workspace Directories:**\n  - /w/kestrel\n  - /w/memroot\n"
        "- **Directory Structure:**\n\nShowing up to 200 items (files + folders).\n\n"
        "/w/kestrel/\n├───README.md\n└───.git/..."
    )
    records = [
        {"sessionId": "s", "projectHash": "h", "startTime": "t", "kind": "main"},
        {"id": "a", "timestamp": "t", "type": "user", "content": [{"text": tree}]},
        {"id": "b", "timestamp": "t", "type": "user", "content": [{"text": ASK}]},
    ]
    chat = tmp_path / "session-2026-12-06T11-53-abcd.jsonl"
    chat.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert read_transcript(chat)[0].prompts == (ASK,)

"""Gemini CLI chat files' histories, as the real CLI wrote them (tests/data/harness/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memhooks.hooks.gemini_history import gemini_history_set, gemini_replay

DATA = Path(__file__).resolve().parents[1] / "data" / "harness"
#: How a block ends in a chat file (Gemini escapes the context).
BLOCK_END = "&lt;/memory&gt;\nMemory tools"


def test_gemini_replay_leaves_out_the_first_headless_prompt() -> None:
    # `gemini -p ASK`, then `--resume latest -p` twice: the first prompt, its SessionStart
    # context before it, is not sent again; each resumed prompt is, with its context. The
    # workspace's context opens the history each resume set.
    got = gemini_replay(DATA / "gemini" / "resumed" / "chat.jsonl")
    assert got[0].startswith("<session_context>") and BLOCK_END not in got[0]
    assert [t.split("<hook_context>")[0] for t in got[1:]] == ["Say one.", "Say two."]
    assert all(BLOCK_END in t for t in got[1:])


def test_gemini_replay_of_a_compressed_tui_chat_holds_no_block() -> None:
    # The SessionStart block came in a message of its own, compressed away since.
    got = gemini_replay(DATA / "gemini" / "interactive" / "chat.jsonl")
    assert got[0].startswith("<session_context>")
    assert not any(t.startswith("<hook_context>") or BLOCK_END in t for t in got)


CHAT_RESUME = DATA / "gemini" / "chat-resume" / "chat.jsonl"


def test_gemini_replay_after_chat_resume_is_the_checkpoints_history() -> None:
    # `/chat resume tag1`: the checkpoint's first message holds the workspace's context,
    # the SessionStart block and the first prompt in one, and the model gets it; the
    # prompts after the checkpoint, before the resume, are gone (the file holds a prompt
    # asked after it too).
    first, *later = gemini_replay(CHAT_RESUME)
    assert first.startswith("<session_context>") and BLOCK_END in first
    assert first.endswith("P1 alpha hello.") and later == ["P4 delta hello."]


#: Gemini CLI 0.61.0's TUI: two prompts, a third, `/rewind` to before it and two prompts,
#: `/rewind` to before the last and a prompt, `/rewind` to before the first and a prompt.
REWIND = DATA / "gemini" / "rewind" / "chat.jsonl"


def test_gemini_replay_after_a_rewind_to_the_start_is_the_prompt_after() -> None:
    # The history Gemini set at the earlier rewinds is gone too: the model has nothing
    # of the conversation, not the workspace's context, not the block.
    assert gemini_replay(REWIND) == ["Say hello from the start again."]


def _offset_of(path: Path, needle: bytes) -> int:
    data = path.read_bytes()
    return data.rindex(b"\n", 0, data.index(needle)) + 1


@pytest.mark.parametrize(
    ("chat", "since", "expected"),
    [
        pytest.param(CHAT_RESUME, b"P3 charlie", True, id="chat-resume"),
        pytest.param(CHAT_RESUME, b"P4 delta", False, id="after-it"),
        pytest.param(
            DATA / "gemini" / "interactive" / "chat.jsonl",
            b"Remind me",
            False,
            id="compressed",
        ),
        pytest.param(
            DATA / "gemini" / "resumed" / "chat.jsonl",
            b"Mock reply 2.",
            False,
            id="another-process-started",
        ),
        # `/rewind` to before the first prompt (the real TUI): a `$rewindTo` of the
        # first prompt's record, and no `$set` after it, as the history left is empty.
        pytest.param(REWIND, b"Mock reply 12.", True, id="rewound-to-the-start"),
        pytest.param(REWIND, b"Mock reply 2.", True, id="rewound-with-a-set"),
        pytest.param(REWIND, b"from the start again", False, id="after-the-rewind"),
    ],
)
def test_gemini_history_set(chat: Path, since: bytes, expected: bool) -> None:
    assert gemini_history_set(chat, _offset_of(chat, since)) is expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # `/chat resume` before a new TUI's first prompt: after its block's record.
        ("chat-resume-first", True),
        # A fresh start, and `gemini --resume -p` runs: the histories each start set
        # before it wrote a record are its own.
        ("print", False),
        ("resumed", False),
        ("tools", False),
        ("interactive", False),  # compressed
    ],
)
def test_gemini_history_set_since_the_start(name: str, expected: bool) -> None:
    assert gemini_history_set(DATA / "gemini" / name / "chat.jsonl", -1) is expected


def test_gemini_history_set_of_no_file(tmp_path: Path) -> None:
    assert gemini_history_set(tmp_path / "gone.jsonl", 0) is False
    assert gemini_history_set(tmp_path, 0) is False


def _record(rid: str, kind: str, text: str) -> dict[str, object]:
    return {"id": rid, "type": kind, "content": [{"text": text}]}


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        pytest.param(
            [_record("a", "user", "one"), _record("b", "user", "two")],
            ["one", "two"],
            id="in-order",
        ),
        pytest.param(
            [_record("a", "user", "one"), _record("a", "user", "one again")],
            ["one again"],
            id="written-twice",
        ),
        pytest.param(
            [
                _record("a", "user", "one"),
                _record("b", "gemini", "reply"),
                _record("c", "user", "two"),
                {"$rewindTo": "b"},
            ],
            ["one"],
            id="rewound",
        ),
        pytest.param(
            [_record("a", "user", "one"), {"$rewindTo": "nowhere"}],
            [],
            id="rewound-to-an-unknown-id",
        ),
        pytest.param(
            [
                _record("a", "user", "one"),
                {"$set": {"messages": [_record("s", "user", "summary")]}},
                _record("c", "user", "two"),
            ],
            ["summary", "two"],
            id="history-set",
        ),
        pytest.param(
            [
                _record("a", "user", " /compress"),
                _record("b", "user", "?"),
                _record("c", "user", "<hook_context>block</hook_context>\n\nask"),
                {"id": "d", "type": "user", "content": "plain"},
                {"id": "e", "type": "user", "content": [{"functionResponse": {}}]},
            ],
            ["plain", "[part]"],
            id="not-replayed",
        ),
    ],
)
def test_gemini_replay_shapes(
    lines: list[object], expected: list[str], tmp_path: Path
) -> None:
    chat = tmp_path / "chat.jsonl"
    text = "\n".join(json.dumps(x) for x in lines)
    chat.write_text('{"sessionId": "s", "projectHash": "h"}\nnot json\n' + text + "\n")
    assert gemini_replay(chat) == expected


def test_gemini_replay_of_no_file_or_too_big_a_file(tmp_path: Path) -> None:
    chat = tmp_path / "chat.jsonl"
    assert gemini_replay(chat) == []
    chat.write_text(json.dumps(_record("a", "user", "one")) + "\n")
    assert gemini_replay(chat, max_bytes=10) == []
    assert gemini_replay(tmp_path) == []

"""A compaction goes on record once the harness has compacted (hooks/compaction.py)."""

from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING

from memhooks.hooks.recorder import SESSION_END_TAIL
from memhooks.memory import Store, slug_for
from tests.hooks.test_hook import _bash, _transcript, _user, claude, compact, hook

if TYPE_CHECKING:
    from pathlib import Path

FLUSH = "— compaction summary"


def _log(memory_root: Path, project: Path) -> Path:
    slug = slug_for(str(project))
    return memory_root / f"projects/{slug}/daily/{dt.date.today():%Y-%m-%d}.md"


def test_a_compaction_the_harness_refuses_writes_nothing_until_one_is_made(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    _transcript(transcript, [_user("fix the CSV export")])
    pre = claude(
        "PreCompact", project, trigger="manual", transcript_path=str(transcript)
    )
    # Claude Code fires PreCompact, then may answer "Not enough messages to compact".
    assert hook(pre)[:2] == (0, "")
    log = _log(memory_root, project)
    assert not log.exists() or FLUSH not in log.read_text()
    _transcript(transcript, [_user("then the PDF export")])
    compact(project, transcript)
    text = log.read_text()
    assert text.count(FLUSH) == 1
    assert "fix the CSV export" in text and "then the PDF export" in text


def test_the_flush_holds_what_came_before_the_compaction(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    _transcript(transcript, [_user("rename the billing module")])
    fields = {"trigger": "auto", "transcript_path": str(transcript)}
    assert hook(claude("PreCompact", project, **fields))[:2] == (0, "")
    _transcript(transcript, [_user("what the compacted conversation said next")])
    assert hook(claude("PostCompact", project, **fields))[:2] == (0, "")
    text = _log(memory_root, project).read_text()
    assert "rename the billing module" in text
    assert "compacted conversation said next" not in text


def _gemini(event: str, project: Path, chat: Path, **fields: object) -> str:
    payload = {
        "session_id": "g-1",
        "transcript_path": str(chat),
        "cwd": str(project),
        "hook_event_name": event,
        "timestamp": "2026-12-01T15:39:25.897Z",
        **fields,
    }
    return json.dumps(payload)


def _chat(chat: Path, *records: dict[str, object]) -> None:
    with chat.open("a", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)


def _said(i: int, kind: str, text: str) -> dict[str, object]:
    content: object = [{"text": text}] if kind == "user" else text
    return {"id": f"m{i}", "type": kind, "content": content}


def test_gemini_flushes_and_reinjects_only_after_a_real_compression(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    Store(memory_root, slug_for(str(project))).write_memory(
        "- Deploys go out on Fridays."
    )
    chat = tmp_path / "chat.jsonl"
    _chat(chat, {"sessionId": "g-1", "projectHash": "x", "messages": []})
    assert hook(_gemini("SessionStart", project, chat, source="startup"))[0] == 0

    def turn(i: int, prompt: str) -> str:
        code, out, err = hook(_gemini("BeforeAgent", project, chat, prompt=prompt))
        assert code == 0, err
        _chat(chat, _said(i, "user", prompt), _said(i + 1, "gemini", "ok"))
        # Gemini fires PreCompress before every compression check.
        done = hook(_gemini("PreCompress", project, chat, trigger="auto"))
        assert done[:2] == (0, ""), done[2]
        return out

    turn(1, "rename the billing module")
    assert "Fridays" not in turn(3, "and the invoices table")
    log = _log(memory_root, project)
    assert not log.exists() or FLUSH not in log.read_text()  # nothing was compressed
    snapshot = "<state_snapshot>\nThe user renamed billing.\n</state_snapshot>"
    _chat(chat, {"$set": {"messages": [_said(9, "user", snapshot)]}})
    code, out, err = hook(_gemini("BeforeAgent", project, chat, prompt="next task"))
    assert code == 0, err
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "Deploys go out on Fridays." in context  # the block is back
    text = log.read_text()
    assert text.count(FLUSH + "\n") == 1
    assert "rename the billing module" in text and "invoices table" in text
    assert "The user renamed billing." in text  # Gemini's own summary


def _output(size: int) -> dict[str, object]:
    content = [{"type": "tool_result", "tool_use_id": "t", "content": "x" * size}]
    return {"type": "user", "message": {"role": "user", "content": content}}


def test_a_session_end_after_megabytes_of_tool_output_keeps_its_prompt(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # SessionEnd reads the transcript's end only. Before: when tool output filled it,
    # the session's prompt fell outside it and the session left no record at all.
    transcript = tmp_path / "t.jsonl"
    prompt = "migrate the ledger tables to the new schema"
    _transcript(transcript, [_user(prompt), _bash("alembic upgrade head")])
    _transcript(transcript, [_output(1 << 20)] * (SESSION_END_TAIL // (1 << 20) + 1))
    said = {"role": "assistant", "content": "The ledger is migrated."}
    _transcript(transcript, [{"type": "assistant", "message": said}])
    path = str(transcript)
    hook(claude("SessionStart", project, source="startup", transcript_path=path))
    hook(claude("UserPromptSubmit", project, prompt=prompt, transcript_path=path))
    assert (
        hook(claude("SessionEnd", project, reason="exit", transcript_path=path))[0] == 0
    )
    text = _log(memory_root, project).read_text()
    assert "— session end" in text
    assert prompt in text and "The ledger is migrated." in text


def test_reading_for_the_summary_leaves_the_rest_for_the_next_record(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # Before: the confirmation read on past the compaction for the harness's summary and
    # moved the transcript's offset there, so what it passed was never recorded.
    transcript, path = tmp_path / "t.jsonl", str(tmp_path / "t.jsonl")
    _transcript(transcript, [_user("rotate the staging keys")])
    hook(claude("SessionStart", project, source="startup", transcript_path=path))
    assert (
        hook(claude("PreCompact", project, trigger="auto", transcript_path=path))[0]
        == 0
    )
    summary = {
        "type": "user",
        "isCompactSummary": True,
        "message": {"role": "user", "content": "<summary>Keys rotated.</summary>"},
    }
    _transcript(
        transcript, [_bash("vault write -f transit/keys/staging/rotate"), summary]
    )
    start = claude("SessionStart", project, source="compact", transcript_path=path)
    assert hook(start)[0] == 0
    text = _log(memory_root, project).read_text()
    assert "rotate the staging keys" in text and "Keys rotated." in text
    assert "transit/keys" not in text  # after the compaction: the next record's
    assert (
        hook(claude("SessionEnd", project, reason="exit", transcript_path=path))[0] == 0
    )
    text = _log(memory_root, project).read_text()
    assert text.count("vault write -f transit/keys/staging/rotate") == 1


def test_gemini_flush_reads_a_chat_file_rewritten_before_the_compression(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    """With a `gemini -p` beside the TUI, the TUI's chat file went missing (seen in
    tests/e2e/test_together.py); Gemini CLI appended the next turn to a new file, then
    rewrote it whole (the stub kept as `.unreadable-…`) when it compressed. The offset
    PreCompress noted was the stub's: the flush read the rewritten file only up to it
    and lost the last answer before the compression."""
    chat = tmp_path / "chat.jsonl"
    head: dict[str, object] = {"sessionId": "g-1", "projectHash": "x", "kind": "main"}
    _chat(chat, head)
    assert hook(_gemini("SessionStart", project, chat, source="startup"))[0] == 0
    turns = [
        _said(1, "user", "rename the billing module"),
        _said(2, "gemini", "Renamed it to ledger."),
        _said(3, "user", "and the invoices table"),
        _said(4, "gemini", "The invoices table is now ledger_lines."),
    ]
    for prompt in ("rename the billing module", "and the invoices table"):
        assert hook(_gemini("BeforeAgent", project, chat, prompt=prompt))[0] == 0
    chat.unlink()  # the other gemini's doing
    _chat(chat, turns[2], turns[3])  # the stub
    assert hook(_gemini("PreCompress", project, chat, trigger="manual"))[0] == 0
    chat.unlink()
    snapshot = "<state_snapshot>\nThe user renamed billing.\n</state_snapshot>"
    _chat(chat, head, *turns, {"$set": {"messages": [_said(9, "user", snapshot)]}})
    code, _, err = hook(_gemini("BeforeAgent", project, chat, prompt="next task"))
    assert code == 0, err
    text = _log(memory_root, project).read_text()
    assert text.count(FLUSH + "\n") == 1
    assert "The invoices table is now ledger_lines." in text, text

"""The model's own `memhooks write` in a run is not told back to it when the conversation
is resumed after the run ended; a person's line added after is told alone
(`hooks/resumed_writes.py`). Real hook commands and `memhooks write` commands, run by
this test process, which is so the harness they descend from (tests/e2e/test_same_text.py
drives the three real CLIs)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from memhooks.hooks import activity, resumed_writes
from tests.hooks.test_hook import claude, hook, store_for
from tests.hooks.test_resumes import _resume, _started
from tests.hooks.test_session_writes import MODEL, PERSON, _append, _model_saves

if TYPE_CHECKING:
    from pathlib import Path

BUILT = "Memory changed on disk since this session's block was built: "


def _run_with_a_save(memory_root: Path, project: Path, transcript: Path) -> Path:
    """A run with its block, the model's save, its end; MEMORY.md's path."""
    path = _started(memory_root, project, transcript)
    _model_saves(project)
    ended = claude("SessionEnd", project, reason="other", transcript_path=path)
    assert hook(ended)[0] == 0
    return memory_root / "MEMORY.md"


def _resumed(project: Path, transcript: Path) -> str:
    path = str(transcript)
    resumed = claude("SessionStart", project, source="resume", transcript_path=path)
    code, out, err = hook(resumed)
    assert code == 0, err
    return out


def test_the_models_save_is_not_told_back_on_resume(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    _run_with_a_save(memory_root, project, transcript)
    _resume(project, transcript)  # until 2026-12-07: "+" and the model's rule


def test_a_persons_line_after_it_is_told_alone_on_resume(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    memory = _run_with_a_save(memory_root, project, transcript)
    _append(memory, PERSON)
    told = _resumed(project, transcript)
    assert f"{BUILT}MEMORY.md." in told and f"+{PERSON}" in told, told
    assert MODEL not in told, told


def test_a_person_who_takes_the_models_line_out_is_told(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    memory = _run_with_a_save(memory_root, project, transcript)
    memory.write_text(memory.read_text().replace(MODEL + "\n", ""))
    told = _resumed(project, transcript)
    assert f"-{MODEL}" in told, told


def test_another_conversation_is_not_given_the_sessions_writes(
    memory_root: Path, project: Path
) -> None:
    store = store_for(memory_root, project)
    store.write_memory("- rule")
    rel = "MEMORY.md"
    mtime = (memory_root / rel).stat().st_mtime_ns
    resumed_writes.note(store, "a" * 24, rel, mtime, "- rule", f"- rule\n{MODEL}")
    assert resumed_writes.on_resume(store, "another") == (set(), {})


def test_writes_before_the_last_block_and_of_no_lines(
    memory_root: Path, project: Path
) -> None:
    store = store_for(memory_root, project)
    store.write_memory("- rule")
    memory = memory_root / "MEMORY.md"
    key = activity.session_key("s1")
    digest = key + "0" * 12
    resumed_writes.note(store, digest, "MEMORY.md", 1, "- rule", f"- rule\n{MODEL}")
    activity.note(store, "s1", "block", bytes=10)  # a compaction's: it showed the line
    assert resumed_writes.on_resume(store, "s1") == (set(), {})
    resumed_writes.note(store, digest, "MEMORY.md", 2, "- rule", f"- rule\n{PERSON}")
    assert resumed_writes.on_resume(store, "s1") == (
        set(),
        {"MEMORY.md": ([PERSON], [])},
    )
    now = memory.stat().st_mtime_ns
    big = "\n".join(f"- line {i} " + "x" * 60 for i in range(100))
    resumed_writes.note(store, digest, "MEMORY.md", now, "- rule", big)
    # Its lines too many to keep: held as it is while unchanged, else told as before.
    assert resumed_writes.on_resume(store, "s1") == ({"MEMORY.md"}, {})
    os.utime(memory, ns=(now + 1, now + 1))
    assert resumed_writes.on_resume(store, "s1") == (set(), {})


def test_apply_takes_out_the_removed_and_adds_the_added() -> None:
    text = "- a\n- b\n- a"
    assert resumed_writes.apply(text, ["- c"], ["- a"]) == "- b\n- a\n- c"
    assert resumed_writes.apply(text, [], ["- z"]) == text

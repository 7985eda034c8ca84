"""The per-session activity record: what the model went looking for, bounded on disk."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from memhooks.hooks import activity
from memhooks.memory import Store

if TYPE_CHECKING:
    from pathlib import Path

SLUG = "shop-0123abcd"


@pytest.fixture
def store(memory_root: Path) -> Store:
    s = Store(memory_root, SLUG)
    s.write_note("redis", "port 6380")
    s.write_memory("- rule")
    return s


def test_reads_and_commands_name_memory_files(store: Store, memory_root: Path) -> None:
    notes = f"projects/{SLUG}/notes"
    files, searches = activity.looked_for(
        store,
        [str(memory_root / notes / "redis.md"), "/etc/passwd", "notes/redis"],
        [
            "memhooks read --root /x notes/redis && memhooks read MEMORY.md",
            f"cat {memory_root / 'MEMORY.md'} | head",
            "cat README.md",
            "memhooks search redis port --json",
            "git status; echo 'unclosed",
        ],
    )
    assert files == [f"{notes}/redis.md", "MEMORY.md"]
    assert searches == ["redis port"]


def test_the_file_stays_bounded(
    store: Store, memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(activity, "MAX_BYTES", 4096)
    for i in range(400):
        activity.note(store, f"session-{i}", "surfaced", rels=[f"notes/n{i}.md"])
    path = activity.activity_path(memory_root, SLUG)
    assert path.stat().st_size <= 4096 + 200
    facts = activity.read(memory_root, SLUG)
    assert facts[-1]["rels"] == ["notes/n399.md"]
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_damaged_lines_are_skipped(store: Store, memory_root: Path) -> None:
    activity.note(store, "a", "end", log="x", log_bytes=3)
    with activity.activity_path(memory_root, SLUG).open("a") as f:
        f.write('{"half": \n[1, 2]\n')
    activity.note(store, "b", "end", log="x", log_bytes=5)
    assert [f["log_bytes"] for f in activity.read(memory_root, SLUG)] == [3, 5]


def test_a_line_a_full_disk_cut_short_takes_no_later_line_with_it(
    store: Store, memory_root: Path
) -> None:
    # Before: a full disk took the first 4096 bytes of an append (tmpfs, the real Claude
    # Code and Gemini CLI hooks, tests/e2e/test_full_disk.py), and the next fact, once
    # the disk had room, was appended to that cut line and skipped with it.
    activity.note(store, "a", "end", log="x", log_bytes=3)
    with activity.activity_path(memory_root, SLUG).open("a") as f:
        f.write('{"t": 1.0, "s": "cut", "ev": "block", "sha')
    activity.note(store, "b", "end", log="x", log_bytes=5)
    assert [f["log_bytes"] for f in activity.read(memory_root, SLUG)] == [3, 5]


def test_activity_files_of_projects_gone_for_a_month_are_removed(
    memory_root: Path, project: Path
) -> None:
    # Each project renamed or deleted by hand left its .activity file (up to 1 MB) for
    # good. A session start now removes those of projects gone a month; a newer one,
    # and that of a project whose folder is there, stay.
    import json
    import os
    import time

    from tests.conftest import run_cli

    folder = memory_root / ".activity"
    folder.mkdir(parents=True)
    (memory_root / "projects" / "here-4567cdef").mkdir(parents=True)
    month = time.time() - 31 * 24 * 3600
    for name in ("gone-0123abcd.jsonl", "here-4567cdef.jsonl", "recent-89abcdef.jsonl"):
        (folder / name).write_text('{"old": true}\n')
        if not name.startswith("recent"):
            os.utime(folder / name, (month, month))
    event = {"session_id": "s", "cwd": str(project), "hook_event_name": "SessionStart"}

    done = run_cli("hook", "--harness", "claude-code", input=json.dumps(event))

    assert done.returncode == 0 and not done.stderr, done.stderr
    # This session's project, with no memory yet, got a block: its file is new.
    assert sorted(p.name for p in folder.glob("*.jsonl")) == [
        "here-4567cdef.jsonl",
        "recent-89abcdef.jsonl",
        f"{Store.for_project(memory_root, project).slug}.jsonl",
    ]
    end = {**event, "hook_event_name": "SessionEnd", "reason": "other"}
    run_cli("hook", "--harness", "claude-code", input=json.dumps(end))

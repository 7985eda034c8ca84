"""A Codex thread forked by a backtrack: its history is read in the thread's rollout, up
to the byte its `session_meta` names (the shape Codex CLI 0.171.0's TUI wrote)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from memhooks.hooks.codex_forks import bases, threads

if TYPE_CHECKING:
    from pathlib import Path

THREAD = "01a249b5-75ec-76b1-839e-e9e6dc4917ee"


def _line(kind: str, payload: dict[str, object]) -> bytes:
    return json.dumps({"type": kind, "payload": payload}).encode() + b"\n"


def _rollouts(tmp_path: Path, *, day: str = "2026/12/06") -> tuple[Path, bytes]:
    """The thread's rollout (its block, a prompt, then a turn told a notice) and a fork
    of it made in `day`'s folder, whose history ends before that turn."""
    folder = tmp_path / "sessions" / "2026" / "12" / "05"
    folder.mkdir(parents=True)
    kept = _line("session_meta", {"id": THREAD}) + _line(
        "response_item", {"type": "message", "text": "BLOCK one"}
    )
    base = folder / f"rollout-2026-12-05T10-00-00-{THREAD}.jsonl"
    base.write_bytes(kept + _line("response_item", {"text": "NOTICE told"}))
    other = tmp_path / "sessions" / day
    other.mkdir(parents=True, exist_ok=True)
    fork = other / f"rollout-2026-12-06T10-01-00-{THREAD}_01a249b6-d4e8.jsonl"
    base_of: dict[str, object] = {"thread_id": THREAD, "end_byte_offset": len(kept)}
    meta: dict[str, object] = {"id": THREAD, "history_base": base_of}
    fork.write_bytes(_line("session_meta", meta) + _line("event_msg", {"x": 1}))
    return fork, kept


def test_a_fork_reads_its_base_up_to_the_fork(tmp_path: Path) -> None:
    # The base begun the day before, in another folder; the turn after the fork point
    # (the one reverted) is not in the history.
    fork, kept = _rollouts(tmp_path)
    assert bases(fork) == [kept]


def test_a_fork_of_a_fork_reads_both(tmp_path: Path) -> None:
    # Reverted twice: the second fork's base is the first fork, named by its own id
    # (after the "_"), whose base is the thread's rollout.
    fork, kept = _rollouts(tmp_path)
    branch = fork.read_bytes() + _line("response_item", {"text": "BLOCK two"})
    fork.write_bytes(branch + _line("response_item", {"text": "NOTICE again"}))
    base_of: dict[str, object] = {
        "thread_id": "01a249b6-d4e8",
        "end_byte_offset": len(branch),
    }
    meta: dict[str, object] = {"id": THREAD, "history_base": base_of}
    second = fork.with_name(f"rollout-2026-12-06T10-02-00-{THREAD}_01a249b7-aaaa.jsonl")
    second.write_bytes(_line("session_meta", meta))
    assert bases(second) == [kept, branch]


def test_a_fork_whose_base_is_gone_has_none(tmp_path: Path) -> None:
    fork, _ = _rollouts(tmp_path)
    for base in (tmp_path / "sessions").rglob(f"*-{THREAD}.jsonl"):
        base.unlink()
    assert bases(fork) == []


def test_a_rollout_that_is_no_fork_has_no_base(tmp_path: Path) -> None:
    plain = tmp_path / "rollout.jsonl"
    plain.write_bytes(_line("session_meta", {"id": THREAD}))
    assert bases(plain) == []
    assert bases(tmp_path / "gone.jsonl") == []
    assert bases(tmp_path) == []


def test_the_threads_a_fork_forked_from_nearest_first(tmp_path: Path) -> None:
    # Codex's `/fork` names the thread it forked from as a backtrack does: its records
    # are the fork's own turns (`resumes.keep_own`).
    fork, kept = _rollouts(tmp_path)
    assert threads(fork) == [THREAD]
    base_of = {"thread_id": "01a249b6-d4e8", "end_byte_offset": len(kept)}
    meta: dict[str, object] = {"id": "01a249b7-bbbb", "history_base": base_of}
    second = fork.with_name("rollout-2026-12-06T10-02-00-01a249b7-bbbb.jsonl")
    second.write_bytes(_line("session_meta", meta))
    assert threads(second) == ["01a249b6-d4e8", THREAD]
    plain = tmp_path / "rollout.jsonl"
    plain.write_bytes(_line("session_meta", {"id": THREAD}))
    assert threads(plain) == threads(tmp_path / "gone.jsonl") == []

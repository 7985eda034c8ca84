"""Where the history of a Codex CLI thread forked by a backtrack is.

Codex CLI 0.171.0 reverts a conversation to an earlier prompt (Esc Esc in its TUI) by
forking the thread: it ends the session and resumes it, under the same id, on a new
rollout file (`rollout-…-<thread>_<fork>.jsonl`). That file holds none of the turns
kept: its first line, the `session_meta`, names in `history_base` the thread whose
rollout holds them and the byte where they end there. What the conversation holds of
ours (its block, the notices and hits told in the turns kept) is read there. A
thread's rollout is found by its id (`rollout_of`), a subagent's too (`subagents`).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from memhooks.memory.files import read_regular

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

#: How a `session_meta` line that names the history's base shows it.
_BASE = b'"history_base"'
#: A thread id as Codex names its rollout files with it.
_THREAD = re.compile(r"[0-9A-Za-z-]{8,64}")
#: A fork of a fork of …: how many bases are followed.
_DEPTH = 8
#: The most of a base read, as for any transcript.
_MAX_BYTES = 64 * 1024 * 1024


def bases(path: Path) -> list[bytes]:
    """The history `path` forked from, oldest first: each base rollout's bytes up to
    where the fork's history ends in it, whole lines. [] for any other transcript (not
    a fork, or a base that is gone or not a regular file)."""
    out: list[bytes] = []
    seen = {path}
    while len(out) < _DEPTH and (base := _base(path)) is not None:
        path, end = base
        if path in seen:
            break
        seen.add(path)
        data = _head(path, end)
        if data is None:
            break
        out.append(data[: data.rfind(b"\n") + 1])
    return out[::-1]


def threads(path: Path) -> list[str]:
    """The ids of the threads rollout `path` forked from, the nearest first (a fork of a
    fork names each, as far as their rollouts are found); [] for any other transcript."""
    out: list[str] = []
    while len(out) < _DEPTH and (named := _named(path)) is not None:
        thread = named[0]
        found = rollout_of(path, thread)
        if thread in out:
            break
        out.append(thread)
        if found is None or found == path:
            break
        path = found
    return out


def _base(path: Path) -> tuple[Path, int] | None:
    # The rollout file and byte `path`'s `session_meta` names as its history's base.
    named = _named(path)
    if named is None:
        return None
    found = rollout_of(path, named[0])
    return (found, named[1]) if found else None


def _named(path: Path) -> tuple[str, int] | None:
    # The thread and byte `path`'s `session_meta` names as its history's base.
    first = _head(path, 1024 * 1024)
    if first is None or _BASE not in first.split(b"\n", 1)[0]:
        return None
    try:
        meta = json.loads(first.split(b"\n", 1)[0])
    except ValueError:
        return None
    payload = meta.get("payload") if isinstance(meta, dict) else None
    base = payload.get("history_base") if isinstance(payload, dict) else None
    if not isinstance(base, dict):
        return None
    thread, end = base.get("thread_id"), base.get("end_byte_offset")
    if not isinstance(thread, str):
        return None
    if not isinstance(end, int) or isinstance(end, bool) or end <= 0:
        return None
    return thread, end


def rollout_of(near: Path, thread: str) -> Path | None:
    """The rollout of the Codex thread `thread` (its `session_meta` id), found beside
    the rollout `near` or in another day's folder of the same sessions tree; None when
    there is none or `thread` is no thread id."""
    if not _THREAD.fullmatch(thread):
        return None

    # sessions/YYYY/MM/DD/rollout-…: a thread begun on another day is in another folder.
    # A fork's own id follows its thread's after a "_": a fork of a fork names it.
    def named(paths: Iterable[Path]) -> list[Path]:
        ends = (f"-{thread}.jsonl", f"_{thread}.jsonl")
        return sorted(p for p in paths if p.name.endswith(ends))

    found = named(near.parent.glob(f"rollout-*{thread}.jsonl"))
    if not found and len(near.parents) > 4:
        found = named(near.parents[3].glob(f"*/*/*/rollout-*{thread}.jsonl"))
    return found[-1] if found else None


def _head(path: Path, size: int) -> bytes | None:
    # The first `size` bytes of a regular file (`read_regular` waits for no FIFO).
    size = min(size, _MAX_BYTES)
    try:
        return read_regular(path, size).data[:size]
    except OSError:
        return None

"""Per-session record of what memory reached the model, and what it went looking for itself.

A miss nobody sees is the worst failure (docs/design.md): when the model reads a memory file
that the prompt's auto-search did not surface, auto-search missed it, live. The
handlers append one JSON line per fact to `<root>/.activity/<slug>.jsonl` (private,
append-only, bounded); `memhooks report` reads it back.

Lines: ``{"t": unix time, "s": session key, "ev": kind, ...}`` where kind is
``block`` (bytes, shares, whole), ``surfaced`` (rels), ``looked`` (reads, searches),
``wrote`` (rel, title, bytes), ``own`` (a memory write of the model's own command: rel,
mtime, the lines it added and removed; `session_writes`) or ``end`` (log, log_bytes).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import time
from pathlib import Path
from typing import TYPE_CHECKING

from memhooks.memory.digests import sha256
from memhooks.memory.files import (
    APPEND,
    open_regular,
    private_folder,
    read_bytes,
    write_atomic,
)
from memhooks.memory.lazylog import getLogger
from memhooks.memory.paths import kind_of

if TYPE_CHECKING:
    from collections.abc import Iterable

    from memhooks.memory import Store

logger = getLogger(__name__)

ACTIVITY_DIR = ".activity"
#: Past this size the file keeps its newest half: a few thousand sessions.
MAX_BYTES = 1024 * 1024
_CAT = frozenset({"cat", "head", "tail", "less", "more", "bat", "sed", "grep", "rg"})


def activity_path(root: Path, slug: str) -> Path:
    """The project's activity file."""
    return root / ACTIVITY_DIR / f"{slug}.jsonl"


def session_key(session_id: str) -> str:
    """A short, stable name for a session (the id itself stays out of the file)."""
    return sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def note(store: Store, session_id: str, ev: str, **fields: object) -> None:
    """Append one fact about a session; never raises (a record must not fail a hook)."""
    note_as(store, session_key(session_id), ev, **fields)


def note_as(store: Store, key: str, ev: str, **fields: object) -> None:
    """`note`, the session named by its key (`session_key`): a command the model ran
    knows its session by its state file's name alone (`session_writes`)."""
    line = json.dumps(
        {"t": round(time.time(), 3), "s": key, "ev": ev, **fields},
        ensure_ascii=False,
    )
    path = activity_path(store.root, store.slug)
    try:
        private_folder(path.parent, gitignore=True)
        fd = open_regular(path, (APPEND & ~os.O_WRONLY) | os.O_RDWR)
        with os.fdopen(fd, "ab") as f:
            # A line a full disk cut short ends with no newline: this one starts a line
            # of its own, not glued to that one and skipped with it.
            end = os.fstat(fd).st_size
            cut_short = end > 0 and os.pread(fd, 1, end - 1) != b"\n"
            f.write(b"\n" * cut_short + line.encode("utf-8", "replace") + b"\n")
            size = f.tell()
        if size > MAX_BYTES:
            _halve(store, path)
    except OSError as e:
        logger.warning("activity record not written: %s", e.strerror or e)


def _halve(store: Store, path: Path) -> None:
    with store.lock():
        data = read_bytes(path) or b""
        if len(data) <= MAX_BYTES:
            return  # another process halved it first
        tail = data[len(data) // 2 :]
        write_atomic(path, tail[tail.find(b"\n") + 1 :], durable=False)


def read(root: Path, slug: str) -> list[dict[str, object]]:
    """Every fact recorded for a project, oldest first; damaged lines are skipped."""
    out: list[dict[str, object]] = []
    for raw in (read_bytes(activity_path(root, slug)) or b"").splitlines():
        with contextlib.suppress(ValueError):
            obj = json.loads(raw)
            if isinstance(obj, dict) and isinstance(obj.get("s"), str):
                out.append(obj)
    return out


def memory_rel(store: Store, target: str) -> str | None:
    """The root-relative memory file a path or a `memhooks read` target names, if any."""
    target = target.strip().strip("'\"")
    if not target:
        return None
    path = Path(target)
    if path.is_absolute():
        try:
            rel = path.resolve().relative_to(store.root.resolve()).as_posix()
        except (ValueError, OSError):
            return None
        return rel if kind_of(rel) else None
    with contextlib.suppress(Exception):  # not a memory target: someone else's file
        return store.locate(target).rel
    return None


def looked_for(
    store: Store, reads: Iterable[str], commands: Iterable[str]
) -> tuple[list[str], list[str]]:
    """Memory files the model opened and the searches it ran, from its tool calls.

    Args:
        store: the project's store (to tell memory files from others).
        reads: paths of `Read` calls and targets of MCP `memory_read` calls.
        commands: shell commands; `memhooks read X`, `memhooks search ...` and `cat`
            (and the like) of a file under the root count.
    """
    files: list[str] = []
    searches: list[str] = []
    for target in reads:
        if (rel := memory_rel(store, target)) and rel not in files:
            files.append(rel)
    for command in commands:
        for part in re.split(r"&&|\|\||[;|\n]", command):
            try:
                words = shlex.split(part)
            except ValueError:
                continue
            if not words:
                continue
            prog = words[0].rsplit("/", 1)[-1]
            if prog == "memhooks" and words[1:2] == ["search"]:
                searches.append(" ".join(w for w in words[2:] if not w.startswith("-")))
                continue
            if prog == "memhooks" and words[1:2] == ["read"]:
                args = _positional(words[2:])
            elif prog in _CAT:  # only a path under the root names a memory file
                args = [w for w in words[1:] if w.startswith("/")]
            else:
                continue
            for word in args:
                if (rel := memory_rel(store, word)) and rel not in files:
                    files.append(rel)
    return files, searches


def _positional(words: list[str]) -> list[str]:
    """The arguments of `memhooks read` that are not options or their values."""
    out: list[str] = []
    skip = False
    for w in words:
        if skip:
            skip = False
        elif w.startswith("-"):
            skip = "=" not in w and w not in ("--json",)
        else:
            out.append(w)
    return out

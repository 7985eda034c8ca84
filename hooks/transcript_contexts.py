"""memhooks' contexts a transcript holds (the block, the notices, the hits), as the
model got them; of a Codex thread forked by a backtrack, in the rollout it forked from
too (`codex_forks`).

A transcript is searched as bytes, as written (`holds`, `found`), without decoding its
lines as JSON."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from memhooks.hooks import codex_forks
from memhooks.memory.constants import WRAPPER_CLOSE, WRAPPER_OPEN
from memhooks.memory.files import open_regular

if TYPE_CHECKING:
    import re
    from collections.abc import Iterable, Iterator

    from memhooks.hooks.events import Event

#: A phrase of the block's wrapper without quotes or "<", so that it reads the same in a
#: JSON transcript and in one that escaped the context (Gemini's "&lt;").
BLOCK_MARK = WRAPPER_OPEN.split('"')[1].encode()


def block_in_transcript(event: Event) -> bool:
    """Whether the transcript holds memhooks' context (the block comes first), or the
    history a Codex thread forked from (`codex_forks`)."""
    path = event.transcript_path
    if not path:
        return False
    forked = any(BLOCK_MARK in b for b in codex_forks.bases(Path(path)))
    return forked or holds(Path(path), BLOCK_MARK)


def contexts_of(path: str) -> list[str]:
    """The texts of our wrapper in the transcript at `path` (`contexts_in`)."""
    forked = codex_forks.bases(Path(path)) if path else []
    lines = [ln for b in forked for ln in b.splitlines() if BLOCK_MARK in ln]
    return contexts_in([*lines, *(_lines_with(Path(path), BLOCK_MARK) if path else ())])


def contexts_in(lines: Iterable[bytes]) -> list[str]:
    """The texts of our wrapper in transcript `lines`, as the model got them: a string
    of a JSON line, or of the JSON a hook printed, kept in a string of one (Claude Code
    keeps the hook's stdout)."""
    out: list[str] = []

    def walk(value: object, depth: int = 0) -> None:
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            for v in value:
                walk(v, depth)
        elif isinstance(value, str) and BLOCK_MARK.decode() in value:
            inner = (
                _json(value) if value.lstrip().startswith("{") and depth < 2 else None
            )
            if inner is None:
                out.append(value)
            else:
                walk(inner, depth + 1)

    for line in lines:
        before, obj = len(out), _json(line)
        if isinstance(obj, dict) and obj.get("type") == _REQUEST_COPY:
            continue
        walk(obj)
        out[before:] = _once(out[before:])
    return out


#: A Claude Code 2.1.332 transcript line holding a copy of a request's message, each
#: context of which an entry of the conversation holds too: counted twice, a notice
#: would have its change told again on resume.
_REQUEST_COPY = "api-request-blob"


def _once(contexts: list[str]) -> list[str]:
    # The contexts of one line, each once: Claude Code 2.1.332 keeps a hook's context in
    # its attachment twice, the second time wrapped as the model got it (a
    # `<system-reminder>`); a notice counted twice would have its change told again.
    seen: set[str] = set()
    out = []
    for text in contexts:
        start = max(text.find(WRAPPER_OPEN), 0)
        end = text.find(WRAPPER_CLOSE, start)
        key = text[start : end if end >= 0 else None]
        if key not in seen:
            seen.add(key)
            out.append(text)
    return out


def _json(raw: str | bytes) -> object:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def _lines_with(path: Path, needle: bytes) -> list[bytes]:
    # Only a regular file (`open_regular` waits for no FIFO), and not one past 64 MB.
    try:
        with os.fdopen(open_regular(path), "rb") as f:
            if os.fstat(f.fileno()).st_size > 64 * 1024 * 1024:
                return []
            return [ln for ln in f if needle in ln]
    except OSError:
        return []


def holds(path: Path, needle: bytes, *, max_bytes: int = 64 * 1024 * 1024) -> bool:
    """Whether a transcript holds `needle` (bytes as written: no JSON decoding); a file
    that is not regular, or is larger than `max_bytes`, is not read (False)."""
    return any(needle in c for _, c in _chunks(path, max_bytes, len(needle)))


def found(
    path: Path, pattern: re.Pattern[bytes], *, max_bytes: int = 64 * 1024 * 1024
) -> list[tuple[bytes | None, ...]]:
    """The groups of each match of `pattern` (at most 4 KiB long) in a transcript, in order."""
    at: dict[int, tuple[bytes | None, ...]] = {}
    for offset, chunk in _chunks(path, max_bytes, 4096):
        at |= {offset + m.start(): m.groups() for m in pattern.finditer(chunk)}
    return [at[k] for k in sorted(at)]


def _chunks(path: Path, max_bytes: int, overlap: int) -> Iterator[tuple[int, bytes]]:
    # Read in chunks, each with the last `overlap` bytes of the one before (and where
    # in the file it starts).
    try:
        with path.open("rb", buffering=0) as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
                return
            tail, read = b"", 0
            while chunk := f.read(1024 * 1024):
                yield read - len(tail), tail + chunk
                read += len(chunk)
                tail = chunk[-overlap:]
    except OSError:
        return

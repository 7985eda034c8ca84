"""Per-session state: what the block held, what auto-search surfaced, where the last flush stopped.

One small JSON file per session id under the memory root (docs/design.md). The one-shot hook loads
and saves it around every event; a session process keeps it in memory and writes it
through, so a hook that falls back to one-shot mode sees the same state.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memhooks.memory.constants import STATE_DIR
from memhooks.memory.errors import MemoryStoreError, StoreWriteError
from memhooks.memory.files import private_folder, read_regular, remove, write_atomic

if TYPE_CHECKING:
    from pathlib import Path

    from memhooks.memory import Doc, Store

logger = logging.getLogger(__name__)

#: Prompts remembered for the digest when no transcript is available (generic harnesses).
MAX_PROMPTS = 50
#: Each kept redacted and cut to this many bytes: a digest shows far less of a prompt, and
#: a session of pasted logs must not grow the state file (read and written per event).
MAX_PROMPT_BYTES = 4096


class SessionState(BaseModel):
    """Everything a session remembers between events; strict, since we write it."""

    model_config = ConfigDict(extra="forbid")

    version: int = 2
    slug: str = ""
    injected: dict[str, str] = Field(
        default_factory=dict
    )  #: path → fingerprint, whole in the block
    #: Edits of files with a later mtime are news (0: no block built yet). A time, not a
    #: map of every file: a session over ten thousand notes writes this file per event.
    noticed_at: int = 0
    own: dict[str, int] = Field(
        default_factory=dict
    )  #: path → mtime of our own writes since, which are no news
    surfaced: dict[str, str] = Field(
        default_factory=dict
    )  #: path → fingerprint, shown by auto-search
    #: daily log → ids of its entries the model has seen (in the block, surfaced, or
    #: written by this session): a later append to the log does not make them news.
    seen_entries: dict[str, list[str]] = Field(default_factory=dict)
    transcript_path: str | None = None
    transcript_offset: int = 0
    prompts: list[str] = Field(default_factory=list)  #: since the last flush
    flushed_summaries: list[str] = Field(
        default_factory=list
    )  #: `records.key` of the summaries recorded


def fingerprint(doc: Doc) -> str:
    """A short content hash: a file 'changed' when this changes."""
    return hashlib.blake2b(
        doc.text.encode("utf-8", "surrogatepass"), digest_size=8
    ).hexdigest()


def state_rel(session_id: str) -> str:
    """Where a session's state file lives, relative to the root (hidden: never searched)."""
    # Hashed so that any session id a harness sends makes a safe file name.
    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{STATE_DIR}/{digest[:24]}.json"


def load(store: Store, session_id: str) -> SessionState | None:
    """The saved state of a session, or None (also when the file is damaged or is not a
    file: start afresh).
    """
    try:
        raw = read_regular(store.path(state_rel(session_id))).data
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        logger.warning("ignoring unreadable session state: %s", e)
        return None
    try:
        return SessionState.model_validate_json(raw)
    except ValidationError as e:
        logger.warning("ignoring damaged session state (%d problems)", e.error_count())
        return None


def save(store: Store, session_id: str, state: SessionState) -> None:
    """Write a session's state through to disk (atomically, owner-only).

    Raises:
        StoreWriteError: the disk refused (a read-only or full root).
    """
    rel = state_rel(session_id)
    path = _path(store, rel)
    try:
        private_folder(path.parent)
        write_atomic(path, state.model_dump_json().encode("utf-8"), durable=True)
    except OSError as e:
        raise StoreWriteError(rel, e) from e


def delete(store: Store, session_id: str) -> None:
    """Remove a session's state file (at session end)."""
    with contextlib.suppress(MemoryStoreError):
        remove(store.path(state_rel(session_id)))


def _path(store: Store, rel: str) -> Path:
    path = store.path(rel)
    if path.is_symlink():
        raise StoreWriteError(rel, OSError(0, "a symlink; refusing to replace it"))
    return path

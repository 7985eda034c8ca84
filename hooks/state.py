"""Per-session state: what the block held, what auto-search surfaced, where the last flush stopped.

One small JSON file per session id under the memory root (spec §6). The one-shot hook loads
and saves it around every event; a session process keeps it in memory and writes it
through, so a hook that falls back to one-shot mode sees the same state.
"""

from __future__ import annotations

import hashlib
import logging
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError

if TYPE_CHECKING:
    from memhooks.memory import Doc, Store

logger = logging.getLogger(__name__)

#: Prompts remembered for the digest when no transcript is available (generic harnesses).
MAX_PROMPTS = 50


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


def load(store: Store, session_id: str) -> SessionState | None:
    """The saved state of a session, or None (also when the file is damaged: start afresh)."""
    text = store.read_state(session_id)
    if text is None:
        return None
    try:
        return SessionState.model_validate_json(text)
    except ValidationError as e:
        logger.warning("ignoring damaged session state (%d problems)", e.error_count())
        return None


def save(store: Store, session_id: str, state: SessionState) -> None:
    """Write a session's state through to disk."""
    store.write_state(session_id, state.model_dump_json())

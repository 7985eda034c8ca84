"""What crosses the process boundary: harness payloads in, canonical events inside, replies out.

Payload models accept unknown keys (a newer harness must not break the hook) and coerce
nothing: a field of the wrong type is dropped to its default rather than failing the event.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from memhooks.memory.text import scrub_surrogates

if TYPE_CHECKING:
    from memhooks.hooks.wire import Kind

logger = logging.getLogger(__name__)

Harness = Literal["claude-code", "codex", "gemini", "generic"]


class Payload(BaseModel):
    """Union of the fields any supported harness sends (Claude Code, Codex, Gemini, generic)."""

    model_config = ConfigDict(extra="allow", strict=True)

    # Claude Code / Codex / Gemini
    hook_event_name: str | None = None
    session_id: str | None = None
    transcript_path: str | None = None
    cwd: str | None = None
    source: str | None = None
    prompt: str | None = None
    trigger: str | None = None
    compact_summary: str | None = None
    reason: str | None = None
    timestamp: str | None = None
    # generic JSON lines
    event: str | None = None
    summary: str | None = None
    id: str | int | None = None

    @field_validator("*")
    @classmethod
    def _encodable(cls, value: object) -> object:
        # "\ud800" is valid JSON; left in, it makes the state file and the log unwritable.
        return scrub_surrogates(value) if isinstance(value, str) else value


def parse_payload(data: object) -> Payload:
    """Validate a decoded JSON payload; fields of the wrong type are dropped, not fatal."""
    if not isinstance(data, dict):
        raise TypeError(f"payload is a JSON {type(data).__name__}, not an object")
    try:
        return Payload.model_validate(data)
    except ValidationError as e:
        bad = {str(err["loc"][0]) for err in e.errors() if err["loc"]}
        logger.debug("ignoring fields of the wrong type: %s", ", ".join(sorted(bad)))
        return Payload.model_validate({k: v for k, v in data.items() if k not in bad})


@dataclass(frozen=True)
class Event:
    """A lifecycle event in canonical form, whatever harness sent it."""

    kind: Kind
    harness: Harness
    name: str  #: the harness's own event name, for the reply
    session_id: str
    cwd: str | None = None
    prompt: str | None = None
    summary: str | None = None
    transcript_path: str | None = None
    source: str | None = None  #: session-start: startup, resume, clear, compact, fork
    reinject: bool = False  #: post-compaction that can carry context (SessionStart(compact), generic)
    request_id: str | int | None = None


@dataclass(frozen=True)
class Reply:
    """What a handler produced: context for the model (or None) and notes for logs."""

    context: str | None = None
    notes: tuple[str, ...] = ()
    wrote: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

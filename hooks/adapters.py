"""Map each harness's payloads to canonical events and render replies back (docs/design.md).

| harness            | session-start | pre-prompt       | pre-compaction | post-compaction                       | session-end |
|--------------------|---------------|------------------|----------------|---------------------------------------|-------------|
| Claude Code, Codex | SessionStart  | UserPromptSubmit | PreCompact     | PostCompact, SessionStart(compact)    | SessionEnd  |
| Gemini CLI         | SessionStart  | BeforeAgent      | PreCompress    | —                                     | SessionEnd  |
| generic            | session-start | pre-prompt       | pre-compaction | post-compaction (`summary`)           | session-end |
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from memhooks.hooks.events import BadEventError, Event, Harness, Payload
from memhooks.hooks.wire import CLAUDE_EVENTS, GEMINI_EVENTS, KINDS

if TYPE_CHECKING:
    from memhooks.hooks.events import Reply, RequestId
    from memhooks.hooks.wire import Kind

_CLAUDE = CLAUDE_EVENTS
_GEMINI = GEMINI_EVENTS
_OPEN, _CLOSE = "<hook_context>", "</hook_context>"
#: Events whose reply may carry context for the model.
_CONTEXT_EVENTS = {"SessionStart", "UserPromptSubmit", "BeforeAgent"}


def detect(p: Payload) -> Harness:
    """Which dialect a payload speaks, from its fields alone."""
    if p.event is not None and p.hook_event_name is None:
        return "generic"
    name = p.hook_event_name or ""
    if name in (
        "BeforeAgent",
        "PreCompress",
        "AfterAgent",
        "BeforeModel",
        "AfterModel",
    ):
        return "gemini"
    # Gemini's common fields include a timestamp; Claude Code's and Codex's do not.
    if name in ("SessionStart", "SessionEnd") and (
        p.timestamp is not None or os.environ.get("GEMINI_SESSION_ID")
    ):
        return "gemini"
    return "claude-code"


def strip_hook_context(text: str) -> str:
    """`text` without the `<hook_context>…</hook_context>` blocks Gemini put before it.

    In `gemini -p` the SessionStart context arrives as such a block at the head of the
    prompt (seen with Gemini CLI 0.61, tests/data/harness/gemini): searched as the prompt, the block's own words would
    choose what auto-search finds. Text without one comes back unchanged.
    """
    rest = text.lstrip()
    if not rest.startswith(_OPEN):
        return text
    while rest.startswith(_OPEN) and (end := rest.find(_CLOSE)) >= 0:
        rest = rest[end + len(_CLOSE) :].lstrip()
    return rest


def to_event(p: Payload, harness: Harness | None = None) -> Event | None:
    """The canonical event for a payload; None for events memhooks does not handle.

    Raises:
        BadEventError: the payload names no event at all.
    """
    harness = harness or detect(p)
    session = p.session_id or "default"
    if harness == "generic":
        if p.event not in KINDS:
            raise BadEventError(
                f"unknown event {p.event!r}; expected one of {', '.join(KINDS)}"
            )
        kind: Kind = p.event
        return Event(
            kind,
            harness,
            kind,
            session,
            p.cwd,
            p.prompt,
            p.summary,
            p.transcript_path,
            p.source,
            reinject=kind == "post-compaction",
            request_id=p.id,
        )
    name = p.hook_event_name
    if not name:
        raise BadEventError("payload has no hook_event_name")
    table = _GEMINI if harness == "gemini" else _CLAUDE
    if name not in table:
        return None
    kind = table[name]
    if kind == "session-start" and p.source == "compact":
        # Claude Code's documented way to re-inject context after compaction.
        return Event(
            "post-compaction",
            harness,
            name,
            session,
            p.cwd,
            transcript_path=p.transcript_path,
            source="compact",
            reinject=True,
        )
    prompt = p.prompt
    if harness == "gemini" and prompt is not None:
        prompt = strip_hook_context(prompt)
    return Event(
        kind,
        harness,
        name,
        session,
        p.cwd,
        prompt,
        p.compact_summary,
        p.transcript_path,
        p.source,
        agent=(p.agent_id or "") if harness == "codex" else "",
    )


def render(event: Event, reply: Reply) -> str | None:
    """The stdout text for a reply (None: print nothing)."""
    if event.harness == "generic":
        out: dict[str, object] = {
            "event": event.kind,
            "ok": True,
            "context": reply.context or "",
        }
        if event.request_id is not None:
            out["id"] = event.request_id
        if reply.notes:
            out["notes"] = list(reply.notes)
        out.update(reply.extra)
        return json.dumps(out, ensure_ascii=False)
    if not reply.context or event.name not in _CONTEXT_EVENTS:
        return None
    # Codex validates this object strictly: hookEventName is required, no other keys.
    return json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": event.name,
                "additionalContext": reply.context,
            }
        },
        ensure_ascii=False,
    )


def render_error(request_id: RequestId | None, message: str) -> str:
    """A generic-dialect reply for an event that failed (the session process keeps going)."""
    out: dict[str, object] = {"ok": False, "context": "", "error": message}
    if request_id is not None:
        out["id"] = request_id
    return json.dumps(out, ensure_ascii=False)

"""What crosses the process boundary: harness payloads in, canonical events inside, replies out.

A payload is validated by hand, not by a pydantic model: these fields are few and flat, and
importing pydantic costs a hook process ~150 ms — more than the rest of a SessionStart hook
(docs/speed.md). Unknown keys are ignored (a newer harness must not break the hook) and
nothing is coerced: a field of the wrong type is dropped to its default rather than failing
the event.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from memhooks.hooks.constants import ERROR_MAX_BYTES
from memhooks.memory.errors import MemoryStoreError
from memhooks.memory.lazylog import getLogger
from memhooks.memory.text import one_line, scrub_surrogates

if TYPE_CHECKING:
    from collections.abc import Mapping

    from memhooks.hooks.wire import Kind

logger = getLogger(__name__)

Harness = Literal["claude-code", "codex", "gemini", "generic"]
#: A generic request's `id`, echoed as sent: any JSON scalar but null (JSON-RPC allows
#: strings and numbers; a client that sends `true` gets `true` back, not `1`).
RequestId = str | int | float | bool


class BadEventError(ValueError):
    """Input that is no event: not JSON, too large, naming no event or an unknown one."""


def why(e: Exception, max_bytes: int = ERROR_MAX_BYTES) -> str:
    """An event's failure in one line: what was wrong with a `BadEventError`; for anything
    else, which exception too (a bug: its name helps the report). At most `max_bytes`,
    its head and its tail (`one_line`): it may quote the event (an event name of 1 MB)."""
    # Ours say what went wrong; an OSError names the file and the reason.
    plain = isinstance(e, (BadEventError, MemoryStoreError, OSError))
    said = str(e) if plain else f"{type(e).__name__}: {e}"
    return one_line(said, max_bytes)


# Named tuples rather than dataclasses here and in hooks/state.py: every hook process
# loads these, and importing `dataclasses` (with `inspect`) costs it ~20 ms.


class Payload(NamedTuple):
    """Union of the fields any supported harness sends (Claude Code, Codex, Gemini, generic)."""

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
    agent_id: str | None = None  #: Codex CLI: the subagent whose hook this is
    # generic JSON lines
    event: str | None = None
    summary: str | None = None
    id: RequestId | None = None


def parse_payload(data: object) -> Payload:
    """Validate a decoded JSON payload; fields of the wrong type are dropped, not fatal.

    Raises:
        BadEventError: the JSON is not an object.
    """
    if not isinstance(data, dict):
        raise BadEventError(f"payload is {_json_kind(data)}, not a JSON object")
    kept: dict[str, Any] = {}
    bad = []
    for name in Payload._fields:
        value = data.get(name)
        if value is None:
            continue
        if isinstance(value, str):
            # "\ud800" is valid JSON; left in, it makes the state file and the log unwritable.
            kept[name] = scrub_surrogates(value)
        elif name == "id" and request_id(value) is not None:
            kept[name] = value
        else:
            bad.append(name)
    if "hook_event_name" in bad:
        raise BadEventError("payload's hook_event_name is not a string")
    if bad:
        logger.debug("ignoring fields of the wrong type: %s", ", ".join(bad))
    return Payload(**kept)


def _json_kind(data: object) -> str:
    # What a decoded JSON value is called in JSON's words, not Python's.
    if data is None or isinstance(data, bool):
        return "null" if data is None else str(data).lower()
    kinds = ((str, "a string"), (list, "an array"), ((int, float), "a number"))
    return next((said for t, said in kinds if isinstance(data, t)), "no object")


def request_id(value: object) -> RequestId | None:
    """`value` as a request id to echo, or None (null, an object, an array, NaN or
    infinity, which no JSON reply could carry)."""
    if isinstance(value, str):
        return scrub_surrogates(value)
    if isinstance(value, float):
        return value if value - value == 0 else None  # finite
    return value if isinstance(value, int) else None  # bool is an int


def id_in_head(head: bytes) -> RequestId | None:
    """The `id` of a JSON object of which only `head`, its first bytes, was kept (a line
    too long to read): found when it comes before the value that was cut."""
    from memhooks.hooks.json_text import members

    text = head.decode("utf-8", "replace")
    ids = (request_id(m.value) for m in members(text) if m.key == "id")
    return next(ids, None)


class Event(NamedTuple):
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
    request_id: RequestId | None = None
    #: When the hook began (ns since the epoch; 0: not known), before any lock was waited
    #: for: two starts of one session at once inject the block once (`handlers`).
    began: int = 0
    #: The harness process that ran the hook (0: not known): two may run one session at
    #: once (`shared_session`).
    caller: int = 0
    #: A session end the harness never sent (it was killed): its transcript may lack the
    #: turn it was in.
    killed: bool = False
    #: A Codex CLI subagent's event (its `agent_id`), sent under its parent's session.
    agent: str = ""


class Reply(NamedTuple):
    """What a handler produced: context for the model (or None) and notes for logs."""

    context: str | None = None
    notes: tuple[str, ...] = ()
    wrote: tuple[str, ...] = ()
    extra: Mapping[str, Any] = MappingProxyType({})
    #: A session end of one of two harness processes on the session: the other goes on
    #: with it, and its session process stays (`shared_session`).
    goes_on: bool = False

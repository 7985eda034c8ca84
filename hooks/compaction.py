"""A compaction goes on record once the harness has compacted, not when it says it will.

A pre-compaction event only announces one: Claude Code sends PreCompact and may then refuse
("Not enough messages to compact"); Gemini CLI sends PreCompress before every compression
check, whether or not it compresses. So the flush waits for the proof — a post-compaction
event (Claude Code and Codex: PostCompact, SessionStart(compact)), or for Gemini, which has
none, a compressed history in its chat file at the next prompt — and then records what the
transcript held when the compaction was announced, as a flush made at that moment would
have. The generic dialect's pre-compaction is the compaction itself: it flushes at once.
A compaction announced and never made leaves its part to the next flush or the session-end
record; one made and never announced (some Claude Code builds skip PreCompact) is flushed
in full at its proof, the harness's summary kept apart as its own record.
"""

from __future__ import annotations

import functools
import os
import stat
from typing import TYPE_CHECKING, Any, TypeVar, cast

from memhooks.hooks import records, stale
from memhooks.hooks.events import Reply
from memhooks.hooks.gemini_history import gemini_compresses
from memhooks.memory.log_entries import quote
from memhooks.memory.text import cut

if TYPE_CHECKING:
    from collections.abc import Callable

    from memhooks.hooks.events import Event
    from memhooks.hooks.state import SessionState
    from memhooks.hooks.transcript import TranscriptDigest
    from memhooks.hooks.view import View

F = TypeVar("F", bound="Callable[..., Any]")


def _adopted(step: F) -> F:
    """`step` run on a copy of the state, adopted only once its writes are done: a write
    the disk refuses moves no transcript offset, clears no prompts and marks no summary
    recorded, so the next flush retries all of it (the session process keeps the state in
    memory, where a lost part would stay lost).
    """

    @functools.wraps(step)
    def run(event: Event, state: SessionState, view: View) -> Any:
        after = state.copy()
        out = step(event, after, view)
        state.adopt(after)
        return out

    return cast("F", run)


@_adopted
def announced(event: Event, state: SessionState, view: View) -> Reply:
    """Pre-compaction: note where the transcript stands (generic dialect: flush now)."""
    if event.harness == "generic":
        wrote = _flush(event, state, view, None)
        return Reply(wrote=wrote) if wrote else Reply(notes=("nothing new to flush",))
    state.compaction_at = _size(event.transcript_path)
    state.compaction_by = event.caller
    return Reply(notes=("the flush waits until the harness has compacted",))


@_adopted
def confirmed(event: Event, state: SessionState, view: View) -> tuple[str, ...]:
    """Post-compaction: flush what came before it, then record the harness's summary.

    Only the `<summary>` is kept: Claude Code's `compact_summary` starts with several KB
    of `<analysis>` working notes. The same summary reaches us twice (the transcript's
    copy at SessionStart(compact), then PostCompact's): it is recorded once.
    """
    from memhooks.hooks import recorder  # secret redaction: not for SessionStart

    wrote: list[str] = []
    summary = event.summary
    if state.compaction_at >= 0:
        wrote += _flush(event, state, view, state.compaction_at)
        state.compaction_at = -1
    elif event.transcript_path:
        # No pre-compaction came (some Claude Code builds skip it): what the transcript
        # holds before the compaction is still unrecorded, and its summary is the
        # harness's, recorded below as such.
        digest = recorder.digest_since_flush(event, state, view)
        summary = summary or digest.compact_summary
        wrote += _record(event, state, view, digest._replace(compact_summary=None))
    if not summary and event.transcript_path:
        # Read for the summary alone: what else it holds is for the next flush.
        at = state.transcript_path, state.transcript_offset
        summary = recorder.digest_since_flush(event, state, view).compact_summary
        state.transcript_path, state.transcript_offset = at
    # Redacted before the cut, as every record is, but only what the cut can keep: the
    # summary of a 5 MB reply is not worth seconds of redaction past its cap.
    part = records.summary_part(summary or "")
    part = recorder.safe(part[: 2 * records.SUMMARY_MAX]).strip()
    if part and not stale.flush_waits(state, view):
        k = records.key(part)
        if k not in state.flushed_summaries and k not in records.on_record(
            recorder.today_log(view)
        ):
            body = quote(cut(part, records.SUMMARY_MAX, "…[summary truncated]"))
            wrote.append(
                recorder.write(event, state, view, records.HARNESS_SUMMARY, body)
            )
        state.flushed_summaries = [*state.flushed_summaries, k][-20:]
    if summary and summary.strip():
        state.prompts = []  # the harness's summary covers them
    return tuple(wrote)


def compressed(event: Event, state: SessionState) -> bool:
    """True when Gemini compressed the history since its last PreCompress; the state's
    `compaction_at` then marks where the compression starts.

    A PreCompress it did not follow with a compression is forgotten here.
    """
    if state.compaction_at < 0 or event.harness != "gemini":
        return False
    # The flush reads up to the compression's own line: the offset PreCompress noted
    # may be another file's, Gemini having rewritten its chat file whole since (after
    # another `gemini` in the project deleted it).
    at = _compressed_after(event.transcript_path, state.compaction_at)
    state.compaction_at = -1 if at is None else at
    return at is not None


def _flush(
    event: Event, state: SessionState, view: View, upto: int | None
) -> tuple[str, ...]:
    from memhooks.hooks import recorder

    digest = recorder.digest_since_flush(event, state, view, upto=upto)
    return _record(event, state, view, digest)


def _record(
    event: Event, state: SessionState, view: View, digest: TranscriptDigest
) -> tuple[str, ...]:
    # What `digest` holds that is not on record yet, as one flush record.
    from memhooks.hooks import recorder

    digest = recorder.news(digest, state, view)
    state.prompts = []
    if digest.compact_summary:
        state.flushed_summaries.append(records.key(digest.compact_summary))
    if digest.is_empty() or stale.flush_waits(state, view, digest.prompts):
        return ()
    body = records.render(digest, records.FLUSH_MAX)
    return (recorder.write(event, state, view, records.FLUSH, body),)


def _size(path: str | None) -> int:
    try:
        return os.stat(path).st_size if path else 0
    except (OSError, ValueError):
        return 0


def _compressed_after(path: str | None, offset: int) -> int | None:
    # Where the first compression after `offset` starts, if there is one.
    if not path:
        return None
    try:
        with open(path, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            f.seek(offset)
            for line in f:
                if gemini_compresses(line):
                    return offset
                offset += len(line)
    except (OSError, ValueError):
        pass
    return None

"""How the handlers write today's log on their own: read what is new, redact it, append it.

Every automatic record goes through `write` (redacted, condensed past a size, marked as
seen by the session that wrote it), and what a record may hold is decided in
`hooks.records`; `hooks.handlers` only says when.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memhooks.hooks import activity, records
from memhooks.hooks.claude_forks import copy_end
from memhooks.hooks.records import entry_ids
from memhooks.hooks.state import MAX_PROMPT_BYTES
from memhooks.hooks.subagents import with_subagents
from memhooks.hooks.transcript import TranscriptDigest, read_transcript
from memhooks.hooks.transcript_contexts import block_in_transcript
from memhooks.memory import TargetNotFoundError, today
from memhooks.memory.lazylog import getLogger
from memhooks.memory.paths import daily
from memhooks.memory.private import has_private, strip_private
from memhooks.memory.redact import redact, secret_values
from memhooks.memory.text import cut, nbytes, scrub_surrogates

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from memhooks.hooks.events import Event
    from memhooks.hooks.state import SessionState
    from memhooks.hooks.view import View

logger = getLogger(__name__)

#: SessionEnd reads at most this much of the transcript's end (1.5 s budget, §5): a
#: transcript is digested at ~100 MB/s, and most of it is tool output.
SESSION_END_TAIL = 16 * 1024 * 1024


def safe(text: str, known: Collection[str] = ()) -> str:
    """Redacted text that encodes as UTF-8: what an automatic write may store."""
    return redact(scrub_surrogates(text), known)


#: Of a prompt too long to keep whole, the bytes of its end kept after its head: a
#: question typed after a paste.
KEPT_END = 1024


def kept_prompt(prompt: str) -> str:
    """A prompt as a session's state keeps it until the next flush: redacted, and before
    it is cut (a secret cut in half is no longer recognisable), but only as much of it as
    can be kept, with room to spare: a pasted 6 MB prompt is not scanned whole. One too
    long keeps its head, a marker, and its end."""
    if has_private(prompt):
        # A private block is the whole prompt's: cut first, the end kept could begin
        # inside one whose opening tag the cut left behind (6 MB scan in 5 ms).
        prompt = strip_private(prompt)
    whole = safe(prompt[: 2 * MAX_PROMPT_BYTES])
    if len(prompt) <= 2 * MAX_PROMPT_BYTES and nbytes(whole) <= MAX_PROMPT_BYTES:
        return whole
    head = cut(whole, MAX_PROMPT_BYTES - KEPT_END - 1, "…[prompt truncated]")
    # Redacted from far enough back that a secret ending there (a private key block,
    # a kubeconfig's base64 key) is seen whole.
    end = safe(prompt[-16 * KEPT_END :]).encode("utf-8", "surrogatepass")[-KEPT_END:]
    return f"{head}\n{end.decode('utf-8', 'ignore')}"


def safe_digest(d: TranscriptDigest) -> TranscriptDigest:
    """Redact every item before the digest cuts it to one line: a secret cut in half
    (``ghp_0123…``) is no longer recognisable, and a private key cut before its END line
    would take the rest of the entry with it. A secret found in one item is redacted in
    all (a password pasted in a URL, then grepped for bare: `secret_values`).
    """
    known = _known(d)

    def clean(text: str) -> str:
        return safe(text, known)

    return TranscriptDigest(
        tuple(map(clean, d.prompts)),
        tuple(map(clean, d.files)),
        tuple(map(clean, d.commands)),
        clean(d.last_assistant) if d.last_assistant else None,
        clean(d.compact_summary) if d.compact_summary else None,
        d.reads,
        tuple(map(clean, d.searches)),
    )


def _known(d: TranscriptDigest) -> set[str]:
    texts = [*d.prompts, *d.files, *d.commands, *d.searches]
    return secret_values([*texts, d.last_assistant or "", d.compact_summary or ""])


def today_log(view: View) -> str:
    """Today's log of the view's project ("" when there is none yet)."""
    # Read on its own: a one-shot session end must not pay for the whole corpus.
    try:
        return view.store.read_text(daily(view.store.slug, today()).rel)
    except TargetNotFoundError:
        return ""


def news(digest: TranscriptDigest, state: SessionState, view: View) -> TranscriptDigest:
    """What the digest holds that neither today's log nor this session recorded yet."""
    recorded = records.on_record(today_log(view)) | set(state.flushed_summaries)
    return records.news(safe_digest(digest), recorded)


def write(event: Event, state: SessionState, view: View, title: str, body: str) -> str:
    """Append an automatic entry to today's log; redacted, since nobody reviewed it.

    Once the log passes `records.CONDENSE_AT`, its automatic records are condensed into
    one (a person's entries are left as they are).
    """
    before = entry_ids(today_log(view))
    result = view.store.append_daily(title, safe(body))
    text = view.store.read_text(result.rel)
    if len(text) > records.CONDENSE_AT and records.condense(text) != text:
        view.store.rewrite(result.rel, records.condense)
        text = view.store.read_text(result.rel)
    view.refresh([result.rel])
    # What this session wrote (the harness's own summary, its prompts) is no answer to
    # find for it later: the model holds it already.
    mine = entry_ids(text) - before
    activity.note(
        view.store,
        event.session_id,
        "wrote",
        rel=result.rel,
        title=title,
        bytes=nbytes(body),
        ids=sorted(mine),
    )
    state.see_entries(result.rel, sorted(mine))
    doc = view.corpus().get(result.rel)
    if doc is not None and state.noticed_at:
        state.own[result.rel] = doc.mtime_ns  # our own write is no news to the session
    return result.rel


def looked(event: Event, view: View, digest: TranscriptDigest) -> None:
    """Record which memory files the model opened or searched for on its own."""
    files, searches = activity.looked_for(view.store, digest.reads, digest.commands)
    searches = [*searches, *digest.searches]
    if not (files or searches):
        return  # the digest's secrets looked for only where a query is to be written
    # A query is the model's text: the activity file is written on our own, so redacted.
    known = _known(digest)
    searches = [safe(query, known) for query in searches]
    activity.note(
        view.store, event.session_id, "looked", reads=files, searches=searches
    )


def digest_since_flush(
    event: Event,
    state: SessionState,
    view: View,
    *,
    tail: int | None = None,
    upto: int | None = None,
) -> TranscriptDigest:
    """What happened since the last flush: from the transcript, else from prompts seen.

    `tail`: only the transcript's last bytes, with the prompts this session saw before
    them when that skips some; `upto`: only what came before this offset.
    """
    # At a session end Codex or Gemini CLI sent, their transcript holds every prompt
    # they sent: one seen and not there was blocked by another tool's hook, and is not
    # recorded (neither writes a line that says so, as Claude Code does: `blocked`).
    whole = (
        event.kind == "session-end"
        and not event.killed
        and event.harness in _WHOLE_AT_END
    )
    path = event.transcript_path
    if path:
        offset = state.transcript_offset if state.transcript_path == path else 0
        # A fork's copy of the turns it forked went into a log with their run.
        forked = state.forked_at and state.transcript_path != path
        if forked and block_in_transcript(event):
            offset = copy_end(path, state.forked_at)
        try:
            skipped = False
            if tail is not None:
                size = Path(path).stat().st_size
                start = _line_start_after(Path(path), size - tail)
                skipped = start > offset
                offset = max(offset, start)
            digest, state.transcript_offset = read_transcript(
                Path(path), offset, upto=upto
            )
            digest = with_subagents(digest, Path(path))
            state.transcript_path = path
            looked(event, view, digest)
            # Seen when sent, but a hook blocked them: the model never got them.
            seen = _unblocked(state.prompts, digest.blocked)
            if whole and not skipped:
                return digest
            if skipped or not digest.prompts:
                # A long run of tool output since the last prompt; or none of the
                # prompts seen since the last flush written yet (Claude Code writes a
                # turn to its transcript after the fact, and a harness killed in the
                # turn never does): they were seen when they were sent.
                digest = digest._replace(prompts=(*seen, *digest.prompts))
            else:
                unwritten = _after_last_of(seen, digest.prompts)
                digest = digest._replace(prompts=(*digest.prompts, *unwritten))
            return digest
        except (OSError, ValueError) as e:  # ValueError: a NUL in the path
            logger.warning(
                "transcript unreadable (%s); using the prompts this session saw",
                getattr(e, "strerror", None) or e,
            )
    return TranscriptDigest(prompts=tuple(state.prompts))


#: The harnesses whose transcript holds every prompt sent by the time they end a session.
_WHOLE_AT_END = frozenset({"codex", "gemini"})


def _unblocked(seen: Sequence[str], blocked: Sequence[str]) -> list[str]:
    left = [kept_prompt(p) for p in blocked]  # one each: it may be asked again
    kept: list[str] = []
    for prompt in seen:
        if prompt in left:
            left.remove(prompt)
        else:
            kept.append(prompt)
    return kept


def _after_last_of(seen: Sequence[str], written: Sequence[str]) -> Sequence[str]:
    # The prompts seen after the last one the transcript holds: killed in a turn, a harness
    # never writes it. Nothing if it holds none of them as seen (a harness's own form).
    held = set(map(kept_prompt, written))
    last = next((i for i in reversed(range(len(seen))) if seen[i] in held), None)
    return () if last is None else seen[last + 1 :]


def _line_start_after(path: Path, pos: int) -> int:
    if pos <= 0:
        return 0
    with path.open("rb") as f:
        f.seek(pos)
        f.readline()
        return f.tell()


def log_size(view: View, rel: str) -> int:
    """A log's size in bytes (0 when it is not there)."""
    try:
        return view.store.path(rel).stat().st_size
    except OSError:
        return 0

"""The five lifecycle handlers: (event, session state, memory view) → reply + writes.

The one-shot hook, the session process and `simulate` all call these, so the only thing
that differs between them is who holds the state and the corpus (docs/design.md).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol

from memhooks.hooks import (
    activity,
    blocked,
    claude_forks,
    compaction,
    records,
    replayed_edits,
    resumed_writes,
    resumes,
    rewinds,
    session_block,
    session_writes,
)
from memhooks.hooks.events import Event, Reply
from memhooks.hooks.mcp_config import usage_line
from memhooks.hooks.modelshell import model_prog
from memhooks.hooks.notice import changed_line
from memhooks.hooks.own_edits import known_on_resume
from memhooks.hooks.own_edits import mark as mark_model_writes
from memhooks.hooks.shared_session import compressed_elsewhere, lacks_block
from memhooks.hooks.spawn import headless_gemini
from memhooks.hooks.stale import deferred, end_record, with_kept
from memhooks.hooks.state import MAX_PROMPTS, SessionState, fingerprint
from memhooks.hooks.transcript_contexts import block_in_transcript
from memhooks.memory import today
from memhooks.memory.lazylog import getLogger
from memhooks.memory.paths import daily
from memhooks.memory.text import nbytes, neutralise, wrap

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping

    from memhooks.hooks.autosearch import LogHit
    from memhooks.hooks.view import View
    from memhooks.hooks.wire import Kind

logger = getLogger(__name__)


class Handler(Protocol):
    """What every lifecycle handler looks like."""

    def __call__(self, event: Event, state: SessionState, view: View) -> Reply: ...


#: Harnesses that send a resumed conversation's earlier turns without the SessionStart
#: context they had, and take none on resume (Gemini CLI 0.61.0: its chat file keeps the
#: block, the model does not get it): the block comes with the first prompt.
_RESUME_DROPS_BLOCK = frozenset({"gemini"})
#: The sources of the SessionStart whose context such a harness drops: Gemini CLI 0.61.0
#: shows only a `systemMessage` after `/clear` (its clearCommand); headless (no terminal on
#: its stdin), it takes a start's context for the prompt when none is piped (exit 42 else).
_DROPPED_STARTS = frozenset({"resume", "fork", "clear"})


def session_start(event: Event, state: SessionState, view: View) -> Reply:
    """Inject the memory block, once per conversation."""
    if _same_start(event, state):
        return Reply(notes=("block injected by a session start run at the same time",))
    resumes.skip_recorded(event, state, view)
    if event.harness in _RESUME_DROPS_BLOCK and (
        event.source in _DROPPED_STARTS or headless_gemini(event.caller)
    ):
        why = event.source if event.source in _DROPPED_STARTS else "headless"
        return Reply(notes=(f"block comes with the first prompt ({why})",))
    if event.harness in _RESUME_DROPS_BLOCK and state.block_source == "prompt":
        # Gemini CLI 0.61.0's TUI takes a prompt before its SessionStart hook returns.
        return Reply(notes=("block came with a prompt sent before this start",))
    if event.source in ("resume", "fork") and (
        state.noticed_at or block_in_transcript(event) or claude_forks.unwritten(event)
    ):
        # The resumed or forked conversation already holds a block: a session-end may
        # have removed this session's state since (`claude -p --continue`, `codex exec
        # resume`), but the transcript remembers. What changes from here is news, and
        # so is a rule edited while it was left.
        told = None if state.noticed_at else _held(event, state, view)
        return Reply(
            context=told, notes=("block already injected in this conversation",)
        )
    block = session_block.build(event, state, view)
    if block:
        state.block_at = event.began or time.time_ns()
        state.block_source = event.source or ""
    return Reply(context=block or None)


def _held(event: Event, state: SessionState, view: View) -> str | None:
    """For a conversation that holds a block already, met with no state of its session:
    a block built now (not sent) and kept as seen as far as the transcript holds it; the
    change notice of what changed since the block it holds."""
    _rebuilt(event, state, view)
    whole = dict(state.injected)
    contexts = resumes.keep_held(event, state, view)
    resumes.keep_own(event, state, view)
    state.surfaced = resumes.surfaced_in_transcript(event, view)
    known = known_on_resume(event, view.store.root)  # its model's writes
    written, edited = replayed_edits.since_block(event, view.store.root)
    ran, lines = resumed_writes.on_resume(view.store, event.session_id)  # its commands'
    edited = resumed_writes.with_own(edited, lines)
    return _told_since(
        contexts, whole, event, state, view, known | written | ran, edited
    )


def _rebuilt(event: Event, state: SessionState, view: View) -> str:
    """The block built again to compare with one the conversation holds: not sent."""
    return session_block.build(event, state, view, sent=False)


def _told_since(
    contexts: list[str],
    whole: Mapping[str, str],
    event: Event,
    state: SessionState,
    view: View,
    known: Collection[str] = (),
    edited: Callable[[str, str], str | None] = lambda rel, text: None,
) -> str | None:
    """The change notice of a conversation resumed with its block (`contexts`: what it
    holds of ours), wrapped, in the auto-search budget (`resumes.told_since`)."""
    told = resumes.told_since(
        contexts,
        whole,
        state,
        view,
        session_block.budget(event, view.config.auto_search.budget)
        - nbytes(wrap(""))
        - 1,
        lambda: usage_line(event.cwd, event.harness),
        known,
        edited,
    )
    return wrap(neutralise(told)) if told else None


#: Starts of one session begun this close (ns) are one start run twice.
SAME_START = 2_000_000_000


def _same_start(event: Event, state: SessionState) -> bool:
    # Another start of this session, begun within `SAME_START` of this one, injected the
    # block: a hook configured at two scopes, a harness running matching hooks at once,
    # a resume racing a start. Both open the conversation or both clear it: a clear
    # right after a start needs the block again. An event forwarded to the session
    # process carries no start time: it is taken as begun now.
    if not state.block_at:
        return False
    near = abs((event.began or time.time_ns()) - state.block_at) < SAME_START
    return near and (event.source == "clear") == (state.block_source == "clear")


def pre_prompt(event: Event, state: SessionState, view: View) -> Reply:
    """Search memory for the prompt's terms; inject a few fresh hits and a change notice."""
    from memhooks.hooks import recorder  # secret redaction: not for SessionStart
    from memhooks.hooks.transcript import harness_wrote

    prompt = event.prompt or ""
    blocked.undo_if_blocked(event, state)
    # Gemini has no post-compression event, nor one for `/chat resume`: the prompt after
    # one is where it is recorded and where the block comes back (read before
    # `compressed` forgets where the last prompt left the chat file).
    reloaded = resumes.gemini_reloaded(event, state)
    if compaction.compressed(event, state):
        # The block back for the model that lost it (`shared_session`), unless the
        # history set holds one: a checkpoint saved after a compression, resumed.
        again = not compressed_elsewhere(state, event.caller)
        if again and resumes.holds_block(resumes.gemini_replayed(event, view)[0]):
            again = False
        after = post_compaction(event._replace(reinject=again), state, view)
    elif event.harness in _RESUME_DROPS_BLOCK and (reloaded or not state.noticed_at):
        # Resumed, cleared, or a checkpoint loaded: the block comes unless the history
        # brought it. A block there may be older than the files: what changed since, or
        # was told in turns the checkpoint lacks, is told; one written, searched for.
        replay, replayed = resumes.gemini_replayed(event, view)
        held = resumes.holds_block(replay)
        block = session_block.build(event, state, view, sent=not held)
        state.surfaced = replayed
        if not reloaded:  # the first prompt of the conversation
            resumes.skip_replayed(event, state, view)
        if held:
            whole = dict(state.injected)
            resumes.keep_held(event, state, view, replay)
            if not reloaded:  # its records (its model holds them), as `_held` does
                resumes.keep_own(event, state, view)
            known, edited = replayed_edits.since_block(event, view.store.root)
            if not reloaded:  # a checkpoint may lack the turn of a write
                ran, lines = resumed_writes.on_resume(view.store, event.session_id)
                known, edited = known | ran, resumed_writes.with_own(edited, lines)
            told = _told_since(replay, whole, event, state, view, known, edited)
            after = Reply(context=told)
        else:
            after = Reply(context=block or None)
            if block:
                state.block_source = "prompt"
    elif event.harness in _RESUME_DROPS_BLOCK and lacks_block(state, event.caller):
        # Resumed beside the harness process that runs the session (`gemini --resume
        # latest -p` beside its TUI): a block for its model; what the session noted of
        # the block stays the other's.
        held = resumes.holds_block(resumes.gemini_replayed(event, view)[0])
        block = session_block.build(
            event, state.copy(), view, keep=False, sent=not held
        )
        state.beside[str(event.caller)] = 1
        after = Reply(context=None if held else block or None)
    elif not (state.noticed_at or state.prompts) and block_in_transcript(event):
        # Met first at a prompt, holding a block: Codex CLI 0.171.0's `/fork` in its
        # TUI sends no SessionStart, and the fork's history (the block, a change told or
        # not) is in the rollout of the thread it forked from (`codex_forks`).
        after = Reply(context=_held(event, state, view))
    else:  # a Claude Code branch begun at the last prompt (`/rewind`)
        after = Reply(context=rewinds.told(event, state, view, _rebuilt, _told_since))
    if records.is_slash_command(prompt) or harness_wrote(prompt):
        # `/compact`, `/exit`: a command to the harness, not a question; a turn the
        # harness started itself (Claude Code's `<task-notification>`): nobody asked.
        return after
    if prompt.strip():
        # Kept in the session's state file until the next flush.
        state.prompts = [*state.prompts, recorder.kept_prompt(prompt)][-MAX_PROMPTS:]
    auto = view.config.auto_search
    if not auto.enabled:
        return after
    docs = view.prompt_docs(state.noticed_at)
    # Until the corpus is read, `docs` holds just the files changed since the block.
    newest = (
        view.newest
        if view.loaded()
        else max((d.mtime_ns for d in docs.values()), default=0)
    )
    mark_model_writes(event, state, view.store.root, docs, newest)  # no news
    replayed_edits.mark(event, state, view.store, docs, newest)  # and theirs
    session_writes.take(event, state, view.store, docs, newest)  # its commands'
    # The notice takes at most half the budget: the hits are what the prompt asked for.
    notice = changed_line(
        state,
        view,
        docs,
        session_block.budget(event, auto.budget) // 2,
        newest,
        event.session_id,
        lambda: usage_line(event.cwd, event.harness),
    )
    from memhooks.hooks import autosearch  # with the stemmer: not for SessionStart

    query = autosearch.asked(prompt)
    logs: dict[str, LogHit] = {}
    hits = (
        autosearch.fresh_hits(
            view.search(
                " ".join(query.terms),
                limit=autosearch.CONSIDERED,
                counted=False,
                frame=query.frame,
            ),
            docs,
            state,
            query,
            prompt,
            logs,
        )
        if query.terms
        else iter(())
    )
    budget = session_block.budget(event, auto.budget)
    prog = model_prog(event.harness)
    context, shown = autosearch.render_hits(hits, budget, notice, prog)
    marked = {h.rel: logs[h.rel].shown(h) if h.rel in logs else [] for h in shown}
    for hit in shown:
        state.surfaced[hit.rel] = fingerprint(docs[hit.rel])
        if marked[hit.rel]:
            state.see_entries(hit.rel, marked[hit.rel])
    blocked.remember(event, state, {r: len(ids) for r, ids in marked.items()})
    if shown:
        activity.note(
            view.store, event.session_id, "surfaced", rels=[h.rel for h in shown]
        )
    return Reply(
        context="\n\n".join(c for c in (after.context, context) if c) or None,
        wrote=after.wrote,
        extra={"surfaced": [h.rel for h in shown]}
        if event.harness == "generic"
        else {},
    )


def post_compaction(event: Event, state: SessionState, view: View) -> Reply:
    """Record what came before the compaction, and the harness's summary; re-inject a
    fresh block where the harness allows.
    """
    try:
        wrote = compaction.confirmed(event, state, view)
    except OSError as e:
        # A full or read-only disk: the record waits for the next flush (`confirmed`
        # adopts nothing it could not write). Where the block comes back, the model,
        # which has just lost it with the rest of its history, still gets it; where it
        # does not, the failure is the reply (a session process tells its hook only an
        # event's failure, not a warning).
        if not event.reinject:
            raise
        logger.warning("compaction not recorded: %s", e)
        wrote = ()
    context = session_block.build(event, state, view) if event.reinject else ""
    return Reply(context=context or None, wrote=wrote)


def session_end(event: Event, state: SessionState, view: View) -> Reply:
    """A last short record of what is new since the last flush; nothing when nothing is."""
    from memhooks.hooks import recorder  # secret redaction: not for SessionStart

    resumes.skip_recorded(event, state, view)
    digest = recorder.digest_since_flush(
        event, state, view, tail=recorder.SESSION_END_TAIL
    )
    digest = recorder.news(with_kept(state, digest), state, view)
    wrote: tuple[str, ...] = ()
    log = daily(view.store.slug, today()).rel
    if not digest.is_empty() and not deferred(state, digest, view, log):
        body = records.render(digest, records.SESSION_END_MAX)
        wrote = end_record(event, state, view, digest, body)
    activity.note(
        view.store,
        event.session_id,
        "end",
        log=log,
        log_bytes=recorder.log_size(view, log),
    )
    return Reply(wrote=wrote)


HANDLERS: dict[Kind, Handler] = {
    "session-start": session_start,
    "pre-prompt": pre_prompt,
    "pre-compaction": compaction.announced,
    "post-compaction": post_compaction,
    "session-end": session_end,
}

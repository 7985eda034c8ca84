"""What a resumed conversation holds already: the block, and the notes auto-search showed.

A harness that resumes a conversation sends the model its earlier turns again. Read from
the transcript, they tell the session's first hook what not to inject a second time.
"""

from __future__ import annotations

import html
import itertools
import os
import re
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from memhooks.hooks import activity, claude_forks, codex_forks
from memhooks.hooks.gemini_history import gemini_history_set, gemini_replay
from memhooks.hooks.held import INDEX_NAME, shown, visible, whole_in
from memhooks.hooks.notice import names_line, told, told_head
from memhooks.hooks.records import entries, entry_id
from memhooks.hooks.state import fingerprint
from memhooks.hooks.transcript_contexts import (
    block_in_transcript,
    contexts_of,
    found,
)
from memhooks.memory.constants import WRAPPER_CLOSE
from memhooks.memory.files import open_regular
from memhooks.memory.inject import CUT, MEMORY_TITLE, NOTES_SHELL, SCRATCHPAD_TITLE
from memhooks.memory.merging import conflict_body
from memhooks.memory.text import nbytes, neutralise

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

    from memhooks.hooks.events import Event
    from memhooks.hooks.state import SessionState
    from memhooks.hooks.view import View

#: How a block ends (its usage line follows the wrapper), whatever its sections; an
#: auto-search context ends with the wrapper alone.
_BLOCK_END = WRAPPER_CLOSE + "\nMemory tools"


def skip_recorded(event: Event, state: SessionState, view: View) -> None:
    """Start the records of a conversation resumed (or forked) with no state of its
    session left, its earlier run ended, where its transcript ends now: what it holds
    went into a log with that run, a flush or a session end, perhaps days ago, and
    today's log alone is no guard against recording it twice. Only a transcript that
    holds our context, of a session whose end was recorded: a run without memhooks,
    or one that never ended (the machine went off, its state swept since), left its
    last part unrecorded, and that part is recorded now.
    """
    fresh = not (state.noticed_at or state.transcript_path)
    if fresh and claude_forks.unwritten(event):
        state.forked_at = event.began or time.time_ns()
    # A session end too: Gemini CLI runs its SessionEnd hook more than once on `/quit`,
    # and those after the first, the session ended, find its state gone.
    if (
        (event.source in ("resume", "fork") or event.kind == "session-end")
        and fresh
        and _recorded_before(event, view)
    ):
        state.transcript_path = event.transcript_path
        state.transcript_offset = _recorded_up_to(event)


def skip_replayed(event: Event, state: SessionState, view: View) -> None:
    """At the first prompt of a Gemini CLI conversation resumed after its end, skip to
    the end of the chat file its prompts name: what it holds was recorded, and what
    Gemini wrote since the start is the history it replays. Gemini CLI 0.61.0 resumed
    in another minute than its chat began names, in the start's event, a new chat file
    named for that minute (written after the hook, or not yet), which it leaves, and
    goes on writing the old one. Not once a prompt of the session waits for its record.
    """
    if state.prompts or not event.transcript_path:
        return
    skipped = bool(state.transcript_path)  # by `skip_recorded`, at the start
    if not skipped and not _recorded_before(event, view):
        return
    same = state.transcript_path == event.transcript_path
    now = _recorded_up_to(event)
    state.transcript_path = event.transcript_path
    state.transcript_offset = max(state.transcript_offset, now) if same else now


def _recorded_before(event: Event, view: View) -> bool:
    # The transcript holds our context, and the project's activity record an end of this
    # session (a fork has its own id, never ended: what it copied is checked against
    # today's log only, as before).
    if not block_in_transcript(event):
        return False
    key = activity.session_key(event.session_id)
    facts = activity.read(view.store.root, view.store.slug)
    return any(f.get("ev") == "end" and f.get("s") == key for f in facts)


def _recorded_up_to(event: Event) -> int:
    # Where the transcript ends now: the end of its last whole line (0: none).
    path = event.transcript_path
    if not path:
        return 0
    try:
        # Only a regular file (`open_regular` waits for no FIFO).
        with os.fdopen(open_regular(path), "rb") as f:
            size = os.fstat(f.fileno()).st_size
            start = max(size - _TAIL, 0)
            f.seek(start)
            end = f.read(size - start).rfind(b"\n")
    except OSError:
        return 0
    return start + end + 1 if end >= 0 else 0


#: How far back from a transcript's end its last line's end is looked for.
_TAIL = 1024 * 1024


def keep_held(
    event: Event, state: SessionState, view: View, held_in: list[str] | None = None
) -> list[str]:
    """Of what a block built now holds, keep as seen only what the resumed conversation
    holds, in its own block or the hits shown with its prompts: a file or an entry
    written since, while it was left for a day or a week, is news to its model, for
    auto-search to find (MEMORY.md and the scratchpad: `told_since`). Nothing changes
    when the transcript shows no context of ours. Returns the contexts it holds, oldest
    first (`held_in`: those, read elsewhere: a branch of a conversation rewound).
    """
    path = event.transcript_path or ""
    contexts = contexts_of(path) if held_in is None else held_in
    held = "\n".join(contexts)
    if not held:
        return contexts

    def whole(rel: str) -> bool:
        doc = view.store.read_listed(rel)
        return doc is not None and whole_in(doc, held)

    state.injected = {rel: fp for rel, fp in state.injected.items() if whole(rel)}
    for rel, ids in state.seen_entries.items():
        doc = view.store.read_listed(rel)
        texts = {entry_id(e.text): e.text for e in entries(doc.text)} if doc else {}
        state.seen_entries[rel] = [
            i for i in ids if i in texts and neutralise(texts[i].strip()) in held
        ]
    return contexts


def keep_own(event: Event, state: SessionState, view: View) -> None:
    """The log entries the resumed session wrote in its earlier runs (its records, the
    harness's summaries: `activity`'s `wrote` facts) are seen: what its model holds
    already is no answer for auto-search to find for it. So are those of the Codex
    threads it forked from (`/fork`), whose turns it holds: that thread ended as the
    fork began (`left`)."""
    path = event.transcript_path
    forked = (
        codex_forks.threads(Path(path)) if path and event.harness == "codex" else []
    )
    keys = {activity.session_key(s) for s in (event.session_id, *forked)}
    for f in activity.read(view.store.root, view.store.slug):
        ids, rel = f.get("ids"), str(f.get("rel"))
        if f.get("ev") != "wrote" or f.get("s") not in keys:
            continue
        if ids is None:  # a memhooks before 2026-12-06 noted none
            ids = _written(view, rel, f.get("title"), f.get("bytes"), f.get("t"))
        if isinstance(ids, list):
            state.see_entries(rel, map(str, ids))


def _written(
    view: View, rel: str, title: object, size: object, at: object
) -> list[str]:
    """The ids of the entries of log `rel` a `wrote` fact with no ids names: those titled
    `title`, of a body of `size` bytes, headed with the minute of its time `at` or the
    one before (the fact is noted just after the entry is written)."""
    doc = view.store.read_listed(rel)
    if doc is None or not isinstance(at, (int, float)) or isinstance(at, bool):
        return []
    minutes = {time.strftime("%H:%M", time.localtime(at - s)) for s in (0, 60)}
    return [
        entry_id(e.text)
        for e in entries(doc.text)
        if e.title == title
        and e.time in minutes
        and nbytes(e.text.partition("\n")[2].strip()) == size
    ]


#: The sections of a block a person's edit made while a conversation was left must be
#: told in, when it resumes: the standing rules and the open items, by their titles'
#: patterns. A daily log is appended to by the hooks themselves; what a person adds to
#: it, auto-search finds.
_TOLD = {"memory": re.escape(MEMORY_TITLE), "scratchpad": re.escape(SCRATCHPAD_TITLE)}
#: The title of the index of notes, whatever command it names: `memhooks` (every block
#: before 2026-12-07 said that), or this install's path (`modelshell.model_prog`).
_NOTES = re.escape(NOTES_SHELL).replace(re.escape("{prog}"), "[^`\n]+")
#: Where a section of the block ends: the next one's title (a daily log's has its date,
#: `inject._log_title`), or the wrapper's end.
_SECTION_END = re.compile(
    r"\n\n## (?:{}|Daily log \d{{4}}-\d{{2}}-\d{{2}}[^\n]*)\n|\n{}".format(
        "|".join((*_TOLD.values(), _NOTES)), re.escape(WRAPPER_CLOSE)
    )
)


def told_since(
    contexts: Sequence[str],
    whole: Mapping[str, str],
    state: SessionState,
    view: View,
    room: int,
    usage: Callable[[], str],
    known: Collection[str] = (),
    edited: Callable[[str, str], str | None] = lambda rel, text: None,
) -> str:
    """The change notice for a resumed conversation (`keep_held`'s `contexts`): for
    MEMORY.md and the scratchpad, held whole by a block built now (`whole`: path →
    fingerprint) but not as the conversation holds them (its last block's section, and
    the changes told after it), the lines removed and added since that block showed them
    (`notice.told`), in `room` bytes: a rule replaced by hand while the conversation was
    left is not followed from its old block. Those told, or held as they are, count as
    held from here on, as after a notice mid-session; one whose section was cut to fit
    is left as `keep_held` found it, as is all when the conversation holds no block. The
    notes its block's index named are listed, so that the next prompt's notice tells one
    gone since as removed; those it did not name, written since, are named here. Those
    `known` (its model wrote them itself, `own_edits`) are held as they are; so is one
    the model's own edits since that block leave as it is (`edited`: what they make of
    the block's text of a file, `replayed_edits`), and one they leave otherwise is
    told from that text.
    """
    at = next(
        (i for i in reversed(range(len(contexts))) if _BLOCK_END in contexts[i]), -1
    )
    if at < 0:
        return ""
    # Each once: a harness may keep a hook's context in two lines (its output too).
    block, later = contexts[at], list(dict.fromkeys(contexts[at + 1 :]))
    held: dict[str, tuple[str, str]] = {}  # path → the text the block showed, and now
    for rel in sorted(whole):
        doc = view.store.read_listed(rel)
        title = _TOLD.get(doc.kind, "") if doc is not None else ""
        found = _holds(block, later, title, rel) if doc is not None and title else None
        if doc is None or found is None:
            continue
        (before, lines), now = found, shown(doc)
        if (after := edited(rel, before)) is not None:  # with its model's own edits
            lines, before = +(lines + _lines(after) - _lines(before)), after
        if lines == _lines(now) or rel in known:  # as it is, or told already
            state.injected[rel] = whole[rel]
        else:  # a scratchpad whose items were all closed is "whole" in any text
            held[rel] = before, now
            state.injected.pop(rel, None)
    # The notes its index named: one gone since is told as removed (`notice`), unless a
    # notice after that block told it. Those the block built now lists (`state.listed`)
    # and it did not, written or renamed since, are named, unless a later context did:
    # from its list alone, the model would not know to read them.
    notes = f"projects/{view.store.slug}/notes/"
    index = _whole(block, _NOTES)
    named = {notes + name for name in INDEX_NAME.findall(index or "")}
    told_later = "\n".join(later)
    added = [] if index is None else [r for r in state.listed if r not in named]
    added = sorted(r for r in added if r not in told_later and r not in known)
    state.listed = sorted(
        {*state.listed, *(r for r in named if f"{r} (removed)" not in told_later)}
    )
    limit = room
    room -= nbytes(names_line([*held, *added], limit)) + 1
    parts: dict[str, str] = {}
    for rel, (before, now) in held.items():
        if part := told(rel, before, now, room, usage):
            parts[rel] = part
            room -= nbytes(part) + 1
            state.injected[rel] = whole[rel]
    if not parts and not added:
        return ""
    docs = (view.store.read_listed(r) for r in [*parts, *added])
    merging = conflict_body(d for d in docs if d is not None)  # no new rules: `notice`
    head = [names_line([*parts, *added], limit), *([merging] if merging else [])]
    return "\n".join([*head, *parts.values()])


def _holds(
    block: str, later: Sequence[str], title: str, rel: str
) -> tuple[str, Counter[str]] | None:
    # The section of `block` titled as the pattern `title` (as `held.visible`; "" when
    # the block had none: no open item, an empty MEMORY.md), and the lines the
    # conversation holds of it: those, with the lines the notices `later` told removed
    # and added (`notice.told`). None: the section was cut to fit.
    section = _whole(block, title)
    if section is None:
        return None
    before = visible(section)
    lines = _lines(before)
    for text in later:
        for part in text.split(f"\n{told_head(rel)}\n")[1:]:
            for line in itertools.takewhile(
                lambda ln: ln[:1] in ("-", "+"), part.split("\n")
            ):
                lines[line[1:]] += 1 if line[0] == "+" else -1
    return before, +lines


def _whole(block: str, title: str) -> str | None:
    # The section of `block` titled as the pattern `title` ("" when it had none), None
    # when it was cut to fit.
    if re.search(rf"…\[section omitted: {title}\]", block):
        return None
    section = _section(block, title)
    return None if "…[section truncated" in section or CUT in section else section


def _section(block: str, title: str) -> str:
    # The text of the section of `block` titled as the pattern `title`, "" for none.
    head = re.search(rf"^## {title}\n", block, re.MULTILINE)
    if head is None:
        return ""
    end = _SECTION_END.search(block, head.end())
    return block[head.end() : end.start() if end else None]


def _lines(text: str) -> Counter[str]:
    # The lines of a file's text a notice compares, blank ones out (`line_diff`).
    return Counter(ln for ln in text.split("\n") if ln.strip())


def surfaced_in_transcript(event: Event, view: View) -> dict[str, str]:
    """What auto-search showed earlier in a resumed conversation, as the files are now:
    the same question asked again does not show it twice (like the block, a file edited
    in between is not news)."""
    from memhooks.hooks.autosearch import SHOWN

    shown: set[str] = set()
    path = event.transcript_path
    forked = codex_forks.bases(Path(path)) if path else []
    kept = [m.groups() for b in forked for m in SHOWN.finditer(b)]
    for raw, compacted in [*kept, *(found(Path(path), SHOWN) if path else ())]:
        if compacted or raw is None:
            shown.clear()  # compacted: what came before is a summary now
        else:
            shown.add(raw.decode("utf-8", "replace"))
    return _as_now(shown, view)


def gemini_replayed(event: Event, view: View) -> tuple[list[str], dict[str, str]]:
    """The turns Gemini CLI replays to the model on resume, as it gets them, and the
    notes auto-search showed in them, as the files are now. Its SessionStart context is
    not replayed but in a history it set whole (a `/chat resume` checkpoint's first
    message: `gemini_replay`); a hook's context that came with a later prompt is
    (`holds_block`)."""
    path = event.transcript_path
    replay = [html.unescape(t) for t in gemini_replay(Path(path))] if path else []
    return replay, surfaced_in(replay, view)


def surfaced_in(texts: Iterable[str], view: View) -> dict[str, str]:
    """The notes auto-search showed in `texts` (turns, contexts), as they are now."""
    from memhooks.hooks.autosearch import SHOWN

    found_in = (SHOWN.findall(t.encode("utf-8", "replace")) for t in texts)
    shown = (m[0] for ms in found_in for m in ms if m[0])
    return _as_now((raw.decode("utf-8", "replace") for raw in shown), view)


def gemini_reloaded(event: Event, state: SessionState) -> bool:
    """Whether the Gemini process running the session loaded another history since its
    last prompt's PreCompress (`/chat resume`, with no hook event): a block built then,
    and what it was told after, may not be in it. Only read from that PreCompress on,
    the part `compaction.compressed` reads too, or at the first prompt, none having come
    yet, since the process began; not beside another harness process."""
    path, at = event.transcript_path, state.compaction_at
    if event.harness != "gemini" or not (path and state.noticed_at) or state.beside:
        return False
    if at < 0:  # no PreCompress yet: the first prompt, read since the process began
        return gemini_history_set(Path(path), -1)
    return state.compaction_by == event.caller and gemini_history_set(Path(path), at)


def holds_block(texts: Iterable[str]) -> bool:
    """Whether `texts` (turns, contexts) hold a block."""
    return any(_BLOCK_END in t for t in texts)


def _as_now(shown: Iterable[str], view: View) -> dict[str, str]:
    # Each memory file named in `shown` that is this project's, by its fingerprint now.
    ours = f"projects/{view.store.slug}/"
    out: dict[str, str] = {}
    for rel in shown:
        ok = (rel == "MEMORY.md" or rel.startswith(ours)) and ".." not in rel
        if ok and (doc := view.store.read_listed(rel)) is not None:
            out[rel] = fingerprint(doc)
    return out

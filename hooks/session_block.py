"""The block a session gets, and what its state notes of it: the files it holds whole
(for the change notice), the notes its index lists, the log entries it shows whole (for
auto-search), and the activity record of what reached the model (`memhooks report`).

Every handler that sends the block builds it here: the session start, the first prompt
where a harness drops the start's context, the block back after a compaction, and the
block built again, not sent, to compare with the one a resumed conversation holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhooks.hooks import activity
from memhooks.hooks.constants import HARNESS_CONTEXT_LIMIT
from memhooks.hooks.held import INDEX_NAME, none_shown, whole_in
from memhooks.hooks.held import keep as keep_shown
from memhooks.hooks.held import shown as shown_text
from memhooks.hooks.mcp_config import usage_line
from memhooks.hooks.modelshell import model_prog
from memhooks.hooks.records import entries, entry_id
from memhooks.hooks.state import fingerprint
from memhooks.memory import today
from memhooks.memory.corpus import newest_dailies
from memhooks.memory.inject import render_shares, sections
from memhooks.memory.text import nbytes, neutralise

if TYPE_CHECKING:
    from memhooks.hooks.events import Event
    from memhooks.hooks.state import SessionState
    from memhooks.hooks.view import View


def budget(event: Event, configured: int) -> int:
    return (
        configured
        if event.harness == "generic"
        else min(configured, HARNESS_CONTEXT_LIMIT)
    )


def build(
    event: Event,
    state: SessionState,
    view: View,
    *,
    keep: bool = True,
    sent: bool = True,
) -> str:
    """The block for `event`'s session, noted in `state`; with `keep`, what it shows of
    each file it holds whole is kept for the change notice (`held`); with `sent`, in the
    activity record as what reached the model (`memhooks report`)."""
    size = budget(event, view.config.inject.budget)
    day = today()
    names_at = max(view.store.stamps())  # before the listing: a rename after is news
    docs, newest = view.block_corpus(size, day)
    # The index of notes names the `memhooks` the tools line would (`model_prog`).
    parts = sections(docs, day, model_prog(event.harness))
    block, shares = render_shares(parts, size, usage_line(event.cwd, event.harness))
    state.noticed_at, state.names_at = newest, names_at
    state.own = {}
    state.injected = {
        rel: fingerprint(d)
        for rel, d in docs.items()
        if d.kind in ("memory", "daily", "scratchpad")
        and d.text.strip()
        and whole_in(d, block)
    }
    if keep:
        shown = none_shown(view.store, docs, state.injected)
        shown |= {rel: shown_text(docs[rel]) for rel in state.injected}
        keep_shown(view.store, event.session_id, shown)
    state.surfaced = {}
    listed = set(INDEX_NAME.findall(block))  # the note index's lines
    state.listed = [
        r for r, d in docs.items() if d.kind == "note" and d.filename in listed
    ]
    state.gone = []
    # The block holds the two newest logs, often cut: the entries it holds whole are seen.
    state.seen_entries = {
        d.rel: [
            entry_id(e.text)
            for e in entries(d.text)
            if len(e.text) < len(block) and neutralise(e.text.strip()) in block
        ]
        for d in newest_dailies(docs, 2, day)
    }
    if block and sent:
        activity.note(
            view.store,
            event.session_id,
            "block",
            bytes=nbytes(block),
            shares=[list(x) for x in shares],
            whole=sorted(state.injected),
        )
    return block

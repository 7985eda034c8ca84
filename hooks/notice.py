"""The change notice before a prompt: the memory files edited, added or gone since the
session's block was built, which the model holds an older copy of (or none)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhooks.hooks.ondisk import moved_in, mtimes_of
from memhooks.memory.text import cut, nbytes

if TYPE_CHECKING:
    from collections.abc import Mapping

    from memhooks.hooks.state import SessionState
    from memhooks.hooks.view import View
    from memhooks.memory import Doc


def changed_line(
    state: SessionState,
    view: View,
    docs: Mapping[str, Doc],
    limit: int,
    newest_doc: int,
) -> str | None:
    """The notice line for this prompt, or None when nothing changed; each change is
    told once (`state` keeps what was told)."""
    gone = _removed(state, view)
    renamed: Mapping[str, int] = {}
    if state.noticed_at:
        looked = state.names_at
        renamed, state.names_at = moved_in(view.store, state.noticed_at, looked)
    return _changes(state, docs, limit, newest_doc, gone, renamed)


def _removed(state: SessionState, view: View) -> list[str]:
    """The files the session was shown (in the block, or by auto-search) or whose name the
    block's index of notes holds, gone since: the model holds their text or name, and is
    told once (a stat of each, per prompt)."""
    gone = sorted(
        rel
        for rel in {*state.injected, *state.surfaced, *state.listed}
        if not (view.store.root / rel).exists()
    )
    for rel in gone:
        state.injected.pop(rel, None)
        state.surfaced.pop(rel, None)
    state.listed = [r for r in state.listed if r not in gone]
    return gone


def _changes(
    state: SessionState,
    docs: Mapping[str, Doc],
    limit: int,
    newest_doc: int,
    gone: list[str],
    renamed: Mapping[str, int],
) -> str | None:
    """One line naming memory files edited or added since the block was built (each change
    is told once; our own writes are not news), and those `renamed` since with an older
    mtime, then those `gone`, in at most `limit` bytes: the names that fit, then how many
    more. `newest_doc`: no document changed after it (`View.newest`).
    """
    if not state.noticed_at:
        return None
    seen, own = state.noticed_at, state.own
    newest = seen
    changed = []
    # A pass over the corpus only when a file changed since: in a session of 10,000
    # notes this runs before each prompt.
    for rel, t in mtimes_of(docs).items() if newest_doc > seen else ():
        if t > seen:
            newest = max(newest, t)
            if own.get(rel) != t:
                changed.append(rel)
    for rel, t in renamed.items():
        newest = max(newest, t)
        changed.append(rel)
    changed = sorted(set(changed)) + [f"{rel} (removed)" for rel in gone]
    state.noticed_at = newest
    state.own = {r: t for r, t in state.own.items() if t > state.noticed_at}
    if not changed:
        return None
    line = "Memory changed on disk since this session's block was built: "
    named: list[str] = []
    room = limit - nbytes(line) - len(" and 100000 more.")
    for rel in changed:
        room -= nbytes(rel) + 2
        if room < 0:
            break
        named.append(rel)
    more = len(changed) - len(named)
    tail = f" and {more} more." if more else "."
    return cut(line + ", ".join(named), limit - nbytes(tail), "…") + tail

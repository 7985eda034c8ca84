"""The change notice before a prompt: the memory files edited, added or gone since the
session's block was built, which the model holds an older copy of (or none); for a file
the block held whole, the lines removed and added since the model was shown it (`held`),
and for MEMORY.md or the scratchpad the block showed no line of, the lines added."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memhooks.hooks import held
from memhooks.hooks.ondisk import moved_in, mtimes_of
from memhooks.hooks.state import fingerprint
from memhooks.memory.merging import conflict_body
from memhooks.memory.text import cut, nbytes

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from memhooks.hooks.state import SessionState
    from memhooks.hooks.view import View
    from memhooks.memory import Doc


#: How the notice's first line begins; the names of the files follow.
CHANGED = "Memory changed on disk since this session's block was built: "


def changed_line(
    state: SessionState,
    view: View,
    docs: Mapping[str, Doc],
    limit: int,
    newest_doc: int,
    session_id: str = "",
    usage: Callable[[], str] = lambda: "",
) -> str | None:
    """The notice for this prompt, or None when nothing changed; each change is told
    once (`state` keeps what was told, and `held` the text of files held whole).

    Args:
        state: the session's state.
        view: the project's memory.
        docs: the documents (those changed since the block at least).
        limit: bytes the notice may take.
        newest_doc: no document changed after it (`View.newest`).
        session_id: whose side file holds the texts the block showed (`held`).
        usage: the block's tools line, asked for when a change is too long to tell
            (the notice then names the tool that reads the file).
    """
    gone, back = _removed(state, view)
    renamed: Mapping[str, int] = dict.fromkeys(back, 0)
    if state.noticed_at and not state.names_at:
        # A state a memhooks before 2026-12-05 wrote: its folders' times at the block
        # are unknown, and each file an atomic save named after its modification time
        # would look moved in. From now on.
        state.names_at = max(view.store.stamps())
    elif state.noticed_at:
        looked = state.names_at
        moved, state.names_at = moved_in(view.store, state.noticed_at, looked)
        renamed = {**renamed, **moved}
    edited: dict[str, bool] = {}
    changed = _changes(state, docs, newest_doc, gone, renamed, edited)
    # What the model holds of the files it was shown, read only when one was written.
    wrote = session_id and (changed or edited)
    shown = held.load(view.store, session_id) if wrote else {}
    changed = [rel for rel in changed if not _same(rel, state, docs, shown)]
    line = names_line(changed, limit) if changed else None
    if line and (merging := conflict_body(_named(line, docs))):
        line += "\n" + merging  # a pull that conflicted: its sides are no new rules
    if not edited or not session_id:
        return line
    room = limit - nbytes(line or "")
    told = _told(view, docs, shown, session_id, edited, room, usage)
    return "\n".join(x for x in (line, told) if x) or None


def _same(
    rel: str, state: SessionState, docs: Mapping[str, Doc], shown: Mapping[str, str]
) -> bool:
    """Whether `rel`, written since the model looked, holds the text it was shown: saved
    with no change (an editor's save, `touch`, a checkout or a sync tool writing the
    same bytes), or changed and changed back. A file held whole is compared as the
    model holds it (`held`: the block's text and the changes told since, private
    blocks out); a note auto-search showed, whole, by its fingerprint then. Nothing
    to tell. Any other file (a note the index lists, not shown) is named as before."""
    doc = docs.get(rel)
    if doc is None:
        return False  # gone, or a name with "(removed)"
    if rel in shown:
        return held.shown(doc) == shown[rel]
    return rel in state.surfaced and state.surfaced[rel] == fingerprint(doc)


def _named(line: str, docs: Mapping[str, Doc]) -> list[Doc]:
    """The documents the notice's first line (`names_line`) names."""
    names = line.removeprefix(CHANGED).removesuffix(".").split(", ")
    return [docs[n] for n in names if n in docs]


def _removed(state: SessionState, view: View) -> tuple[list[str], list[str]]:
    """The files the session was shown (in the block, or by auto-search) or whose name the
    block's index of notes holds, gone since: the model holds their text or name, and is
    told once (a stat of each, per prompt). And those told gone that are back: a folder
    moved away and back leaves its files' times and their folder's names as they were."""
    root = view.store.root
    back = [rel for rel in state.gone if (root / rel).exists()]
    gone = sorted(
        rel
        for rel in {*state.injected, *state.surfaced, *state.listed}
        if not (root / rel).exists()
    )
    for rel in gone:
        state.injected.pop(rel, None)
        state.surfaced.pop(rel, None)
    state.listed = [r for r in state.listed if r not in gone] + back
    state.gone = [r for r in state.gone if r not in back] + gone
    return gone, back


#: The kinds of file whose lines a notice tells when the block showed none of them (no
#: such file, or a blank one: `held.none_shown`).
_TOLD_FROM_NONE = frozenset({"memory", "scratchpad"})


def _changes(
    state: SessionState,
    docs: Mapping[str, Doc],
    newest_doc: int,
    gone: list[str],
    renamed: Mapping[str, int],
    edited: dict[str, bool],
) -> list[str]:
    """The memory files edited or added since the block was built (each change is told
    once; our own writes are not news), and those `renamed` since with an older mtime,
    sorted, then those `gone`, each named "PATH (removed)". `newest_doc`: no document
    changed after it (`View.newest`). `edited` receives the files held whole written
    since, and MEMORY.md and the scratchpad (the block may have shown none of them),
    each with whether it is news (not only ours).
    """
    if not state.noticed_at:
        return []
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
            if rel in state.injected or docs[rel].kind in _TOLD_FROM_NONE:
                edited[rel] = own.get(rel) != t
    for rel, t in renamed.items():
        newest = max(newest, t)
        changed.append(rel)
    changed = sorted(set(changed)) + [f"{rel} (removed)" for rel in gone]
    state.noticed_at = newest
    state.own = {r: t for r, t in state.own.items() if t > state.noticed_at}
    return changed


def names_line(changed: Sequence[str], limit: int) -> str:
    """The notice's first line: `CHANGED`, then the names of `changed` that fit in
    `limit` bytes, then how many more."""
    named: list[str] = []
    room = limit - nbytes(CHANGED) - len(" and 100000 more.")
    for rel in changed:
        room -= nbytes(rel) + 2
        if room < 0:
            break
        named.append(rel)
    more = len(changed) - len(named)
    tail = f" and {more} more." if more else "."
    return cut(CHANGED + ", ".join(named), limit - nbytes(tail), "…") + tail


def _told(
    view: View,
    docs: Mapping[str, Doc],
    shown: dict[str, str],
    session_id: str,
    edited: Mapping[str, bool],
    room: int,
    usage: Callable[[], str],
) -> str:
    """What changed in each file `edited` since the model was shown it, the lines removed
    and added, in `room` bytes; a change too long for them is counted, with the tool
    that reads the file. Then what the model was told is what it was shown; our own
    writes (not news) too. Without the text shown (no side file, or a damaged one, or a
    file the block showed cut) the file is only named, as `_changes` does; one the block
    showed none of is told from "", all its lines added. `shown`: what `held` keeps,
    updated here."""
    parts: list[str] = []
    for rel, news in sorted(edited.items()):
        if rel not in shown or (doc := docs.get(rel)) is None:
            continue
        before, shown[rel] = shown[rel], held.shown(doc)
        if news and (part := told(rel, before, shown[rel], room, usage)):
            parts.append(part)
            room -= nbytes(part) + 1
    if shown:
        held.keep(view.store, session_id, shown)
    return "\n".join(parts)


def told(rel: str, before: str, now: str, room: int, usage: Callable[[], str]) -> str:
    """What changed in `rel` from `before` to `now` (`held.shown` texts) in `room` bytes:
    the lines removed and added, or, too long for them, their counts and the tool that
    reads the file (`usage`: the block's tools line); "" when nothing changed or not
    even that fits."""
    from memhooks.memory.linediff import line_diff

    diff = line_diff(before, now)
    if not diff.text:
        return ""
    part = f"{told_head(rel)}\n{diff.text}"
    if nbytes(part) + 1 > room:
        part = (
            f"{rel} changed since the block showed it (lines removed: "
            f"{diff.removed}, added: {diff.added}); read it with {_reader(usage(), rel)}."
        )
    return part if nbytes(part) + 1 <= room else ""


def told_head(rel: str) -> str:
    """The line before the lines `told` says were removed from and added to `rel`."""
    return f"In {rel} since the block showed it, lines removed (-) and added (+):"


#: The tool the block's last line names for reading a file (`toolsline.USAGE`, `usage_mcp`).
_READS = re.compile(r"`([^`]+)` reads one")


def _reader(usage: str, rel: str) -> str:
    m = _READS.search(usage)
    tool = m[1] if m else "memhooks read PATH"
    if tool.endswith(" PATH"):
        return f"`{tool.removesuffix('PATH')}{rel}`"
    return f"`{tool}` ({rel})"

"""The memory writes of the model's own commands (`session_writes`), kept with the
conversation, so that a resume of it after its run ended does not tell them back.

The record `session_writes` keeps beside the session's state goes with that state at
the session's end: `claude -p` then `claude -p --continue` (`codex exec` then `exec
resume --last`, `gemini -p` then `gemini --resume latest -p`) told the model's own
`memhooks write` back to it as a `+` line. So each such write is also noted in the
project's activity record (`activity`, an ``own`` fact under the session's key: bounded,
its oldest half dropped past 1 MB): the file, its modification time after the write,
and for a file a block holds whole the lines the write added and removed (as a block
shows them; none past `MAX_LINES_BYTES`).

On a resume of the same conversation (its session id), the facts after the last block
memhooks sent it count: a file whose modification time is still the last write's is
held as it is (nobody wrote it since, and the model knew the file when it wrote: a
write after a person's untold edit is never recorded); one written since is told from
the conversation's text with the model's lines applied, so that a person's lines are
told alone. A fork has its own id, and a write before the conversation's last block is
in that block: neither counts.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from memhooks.memory.errors import MemoryStoreError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from memhooks.memory import Store

#: The most bytes of lines a fact keeps; a larger write keeps none (its file is then
#: held as it is only while unchanged since).
MAX_LINES_BYTES = 4096

#: The lines a write added and those it removed.
Lines = tuple[list[str], list[str]]


def note(
    store: Store, digest: str, rel: str, mtime: int, was: str | None, now: str | None
) -> None:
    """Note the model's write of `rel` (`mtime` after it; `was` and `now`: its text as a
    block shows it before and after, None for a kind no block holds whole) for the
    session whose state file is named `digest` (its key is the same hash, cut)."""
    from memhooks.hooks import activity

    fields: dict[str, object] = {"rel": rel, "mtime": mtime}
    if was is not None and now is not None:
        added, removed = _delta(was, now)
        if sum(len(x.encode()) + 1 for x in added + removed) <= MAX_LINES_BYTES:
            fields |= {"add": added, "del": removed}
    activity.note_as(store, digest[:12], "own", **fields)


def on_resume(store: Store, session_id: str) -> tuple[set[str], dict[str, Lines]]:
    """The files the resumed conversation's model wrote with its commands since the last
    block it was sent, unchanged since (held as they are), and the lines those writes
    added and removed, per file (to apply to the text the conversation holds: `apply`);
    a file a write of which kept no lines is in neither."""
    from memhooks.hooks import activity

    key = activity.session_key(session_id)
    facts = [f for f in activity.read(store.root, store.slug) if f.get("s") == key]
    last = max((i for i, f in enumerate(facts) if f.get("ev") == "block"), default=-1)
    at: dict[str, object] = {}
    lines: dict[str, Lines] = {}
    unlined: set[str] = set()  # a write of which kept no lines: the others' are not all
    for f in facts[last + 1 :]:
        rel, add, gone = f.get("rel"), f.get("add"), f.get("del")
        if f.get("ev") != "own" or not isinstance(rel, str):
            continue
        at[rel] = f.get("mtime")
        if rel in unlined or not (isinstance(add, list) and isinstance(gone, list)):
            unlined.add(rel)
            continue
        was = lines.get(rel, ([], []))
        lines[rel] = (was[0] + _strings(add), was[1] + _strings(gone))
    known = {rel for rel, t in at.items() if _mtime(store, rel) == t}
    skip = unlined | known
    return known, {rel: x for rel, x in lines.items() if rel not in skip}


def with_own(
    edited: Callable[[str, str], str | None], lines: Mapping[str, Lines]
) -> Callable[[str, str], str | None]:
    """`edited` (what the model's file-tool edits make of a file's text: `resumes`), the
    lines of its commands' writes then applied (`apply`)."""
    if not lines:
        return edited

    def both(rel: str, text: str) -> str | None:
        after = edited(rel, text)
        if rel not in lines:
            return after
        return apply(text if after is None else after, *lines[rel])

    return both


def apply(text: str, added: list[str], removed: list[str]) -> str:
    """`text` with each line of `removed` taken out once and those `added` at its end:
    what the model knows of a file after its writes, as the notice compares it (line
    by line, blank ones out: `resumes._lines`)."""
    out = text.split("\n")
    for line in removed:
        if line in out:
            out.remove(line)
    return "\n".join(out + added)


def _delta(was: str, now: str) -> Lines:
    # The lines of `now` not in `was`, and of `was` not in `now`, blank ones out, in
    # their order.
    before = Counter(x for x in was.split("\n") if x.strip())
    after = Counter(x for x in now.split("\n") if x.strip())
    return _in_order(now, after - before), _in_order(was, before - after)


def _in_order(text: str, counts: Counter[str]) -> list[str]:
    out = []
    for line in text.split("\n"):
        if counts[line] > 0:
            counts[line] -= 1
            out.append(line)
    return out


def _strings(values: list[object]) -> list[str]:
    return [x for x in values if isinstance(x, str)]


def _mtime(store: Store, rel: str) -> int:
    try:
        return store.path(rel).stat().st_mtime_ns
    except (OSError, ValueError, MemoryStoreError):
        return 0

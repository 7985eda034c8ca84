"""Memory files a git merge left in conflict, as the block tells the model of them.

A root kept in git and pulled on two machines can hold both sides of a conflict between
``<<<<<<<`` and ``>>>>>>>`` lines until the person resolves it. The block shows such a
file as it stands, but first says that neither side is settled: two contradicting rules
are not both rules. A note is looked at in its head only (`note_top`), as the block's
index of notes reads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhooks.memory.note_format import conflict_line, note_top
from memhooks.memory.paths import git_checkout

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from memhooks.memory.corpus import Doc

#: What begins a conflict: a text without it holds none.
MARK = "<<<<<<<"
#: The title of the block's section that names them.
CONFLICT_TITLE = "Unresolved git merge conflict"
#: The lines git writes around and between a conflict's sides (`first_line` skips them).
MARKERS = ("<<<<<<<", "=======", ">>>>>>>", "|||||||")


def conflict_at(doc: Doc) -> int | None:
    """The line where `doc`'s first unresolved merge conflict starts, or None."""
    if MARK not in doc.text:  # each note the block lists: no copy of its head
        return None
    return conflict_line(note_top(doc.text) if doc.kind == "note" else doc.text)


def shown_name(rel: str) -> str:
    """A memory file's path `rel` as the project's commands take it: ``notes/pool.md``,
    ``daily/2026-12-06.md``, ``MEMORY.md``."""
    parts = rel.split("/")
    return "/".join(parts[2:]) if parts[0] == "projects" and len(parts) > 2 else rel


def conflict_body(docs: Iterable[Doc]) -> str:
    """The section's text for the files of `docs` left in conflict ("" for none)."""
    found = [
        (shown_name(d.rel), at) for d in docs if (at := conflict_at(d)) is not None
    ]
    if not found:
        return ""
    named = [f"{name} (from line {at})" for name, at in found]
    files = ", ".join(named[:-1]) + " and " + named[-1] if len(named) > 1 else named[0]
    verb = "hold" if len(named) > 1 else "holds"
    return (
        f"{files} {verb} both sides of a git merge between <<<<<<< and >>>>>>> lines:"
        " the person has chosen neither yet, so neither side is settled. Do not follow"
        " either as a rule; ask which is right, or to resolve the file."
    )


#: What git keeps in its folder while an operation waits for the person, and its name.
_WAITING = (
    ("MERGE_HEAD", "a merge"),
    ("rebase-merge", "a rebase"),
    ("rebase-apply", "a rebase"),
    ("CHERRY_PICK_HEAD", "a cherry-pick"),
    ("REVERT_HEAD", "a revert"),
)


def git_waits(root: Path) -> str:
    """The operation ("a merge", "a rebase", ...) that the git repository holding `root`
    stands in, waiting for the person to finish or abort it; "" when none (or outside
    git). Its folder is read, git never run. A file appended to meanwhile makes `git
    merge --abort` refuse, and `git rebase --abort` drops what was appended."""
    try:
        found = git_checkout(root)
        gitdir = found[1] if found else None
        if gitdir is None:
            return ""
        return next((what for name, what in _WAITING if (gitdir / name).exists()), "")
    except OSError:  # a folder on the way it may not read: as if outside git
        return ""


def conflict_warning(rel: str, text: str) -> str:
    """What a reader of `text`, the memory file `rel` as read, is told when it holds an
    unresolved merge conflict (`memhooks read`, MCP `memory_read`); "" when none: the
    sides read as the file's text otherwise."""
    if (at := conflict_line(text)) is None:
        return ""
    return (
        f"warning: {shown_name(rel)}:{at}: an unresolved git merge conflict: both sides"
        " of a merge stand between <<<<<<< and >>>>>>>, neither settled"
    )


def is_marker(line: str) -> bool:
    """Whether `line` is one git writes around or between a conflict's sides."""
    return line.startswith(MARKERS)


__all__ = [
    "CONFLICT_TITLE",
    "MARK",
    "MARKERS",
    "conflict_at",
    "conflict_body",
    "conflict_warning",
    "git_waits",
    "is_marker",
    "shown_name",
]

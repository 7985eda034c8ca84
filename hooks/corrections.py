"""Correcting memory legibly: forget, supersede, restore, and listing duplicates (docs/design.md).

The file format is `memory.forget`'s; this module resolves what a person or the model
typed (``MEMORY.md --line TEXT``, ``PATH:N`` as printed by ``status --duplicates``,
``notes/OLD --by NEW``) and writes through `Store.rewrite`. `memhooks forget` and the MCP
tool ``memory_forget`` both call `forget`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from memhooks.hooks.commands import Where, open_store, utf8
from memhooks.hooks.constants import EXIT_OK
from memhooks.hooks.errors import UsageError
from memhooks.hooks.modelshell import shell_prog
from memhooks.hooks.targets import NUMBERED, is_file
from memhooks.memory import MemoryStoreError, TargetNotFoundError, today
from memhooks.memory.duplicates import find_duplicates
from memhooks.memory.errors import ForgetError, NotAFileError
from memhooks.memory.forget import (
    forget_line,
    forget_note,
    restore_line,
    restore_note,
    supersede_note,
)
from memhooks.memory.lazylog import getLogger
from memhooks.memory.note_format import (
    is_forgotten_line,
    note_forgotten,
    superseded_by,
)
from memhooks.memory.private import has_private, strip_private

if TYPE_CHECKING:
    from memhooks.memory import Located, Store

logger = getLogger(__name__)

#: What `status --duplicates` says to do; `{prog}` as `shell_prog` names memhooks.
_DUPLICATES_HINT = (
    "keep one: `{prog} forget PATH:LINE --reason ...` the others, or merge them with "
    "`{prog} edit`"
)


#: How much of a line forget and restore say: a pasted blob on one line was said whole
#: (17 MB on the terminal, or in the reply of MCP memory_forget to the model).
_ECHO_CHARS = 200


def _echo(line: str) -> str:
    line = line.strip()
    return line if len(line) <= _ECHO_CHARS else line[: _ECHO_CHARS - 1] + "…"


def _named(live: str, marked: str, was: str) -> str:
    """How forget and restore name the line they changed, after "a line of REL": as
    search sees it, a person's ``<private>`` text left out, for what they say is also
    the reply of MCP memory_forget, to the model.

    Args:
        live: the file's text with the line as written.
        marked: the file's text with the line forgotten.
        was: the line as written.
    """
    if not has_private(live):
        return f": {_echo(was)}"
    at = next(
        i
        for i, (a, b) in enumerate(
            zip(live.split("\n"), marked.split("\n"), strict=True)
        )
        if a != b
    )
    seen = strip_private(live, lines=True).split("\n")[at].lstrip("\ufeff")
    if seen.removesuffix("\r") == was:
        return f": {_echo(was)}"
    if not seen.strip():
        return f" (line {at + 1}, private: not shown)"
    return f": {_echo(seen)} (its private part not shown)"


def _resolve(
    store: Store, target: str, line: str | None
) -> tuple[Located, int | str | None]:
    """The file and the line chosen: ``PATH:N`` wins over --line when PATH is a file,
    unless the whole target names a file (a note written as ``port:8080``)."""
    m = NUMBERED.fullmatch(target.strip())
    if m and not is_file(store, target):
        try:
            loc = store.locate(m[1])
        except MemoryStoreError:
            pass  # e.g. a note whose name ends in ":2"
        else:
            if line is not None:
                raise UsageError(f"{target}: give a line number or --line, not both")
            return loc, int(m[2])
    return store.locate(target), line


def _note_name(name: str) -> str:
    return name.strip().removeprefix("notes/").removesuffix(".md")


def forget(
    store: Store,
    target: str,
    *,
    line: str | None = None,
    reason: str = "",
    by: str | None = None,
    date: str | None = None,
) -> str:
    """Forget a line or a whole note, or mark a note superseded by another.

    Args:
        store: the project's store.
        target: a file (``MEMORY.md``, ``notes/NAME``, …) or ``PATH:N`` for one line.
        line: text that occurs in exactly one line of the file (instead of ``:N``).
        reason: why, written beside the mark.
        by: a note name: mark the note `target` superseded by it instead of forgetting.
        date: the date written (default: today).

    Returns:
        One line saying what was done.

    Raises:
        UsageError: the arguments do not fit together.
        MemoryStoreError: no such file or line (ForgetError, TargetNotFoundError, …).
    """
    from memhooks.hooks.session_writes import recording

    utf8("forget --reason", reason)
    loc, select = _resolve(store, target, line)
    with recording(store, lambda: loc.rel):
        return _forget(store, target, loc, select, reason, by, date)


def _forget(
    store: Store,
    target: str,
    loc: Located,
    select: int | str | None,
    reason: str,
    by: str | None,
    date: str | None,
) -> str:
    day = date or today()
    if by is not None:
        if loc.kind != "note" or select is not None:
            raise UsageError(
                "--by marks a whole note superseded: forget notes/OLD --by NEW"
            )
        new = store.locate(f"notes/{_note_name(by)}")
        if new.rel == loc.rel:
            raise UsageError(f"{loc.rel} cannot supersede itself")
        lines = store.read_text(new.rel).split("\n")  # the successor must exist
        if (later := superseded_by(lines)) or note_forgotten(lines):
            # Each marked superseded by the other (a --by given the wrong way round,
            # then again), neither would be the one to trust.
            now = f"superseded by notes/{later.by}.md" if later else "forgotten"
            raise UsageError(
                f"{new.rel} is itself {now}: name the note that holds, or "
                f"`{shell_prog()} restore {new.rel}` first; nothing was written"
            )
        store.rewrite(
            loc.rel,
            lambda t: supersede_note(t, new.key, date=day, reason=reason, rel=loc.rel),
        )
        return f"superseded {loc.rel} by {new.rel}"
    if select is None:
        if loc.kind != "note":
            raise UsageError(
                f"forget {loc.rel}: name the line with --line TEXT or {target}:N "
                "(only notes are forgotten whole)"
            )
        store.rewrite(
            loc.rel, lambda t: forget_note(t, date=day, reason=reason, rel=loc.rel)
        )
        return f"forgot {loc.rel}"
    original: list[str] = []

    def change(text: str) -> str:
        new_text, was = forget_line(text, select, date=day, reason=reason, rel=loc.rel)
        original.append(_named(text, new_text, was))
        return new_text

    store.rewrite(loc.rel, change)
    return f"forgot a line of {loc.rel}{original[0]}"


def restore(store: Store, target: str, *, line: str | None = None) -> str:
    """Undo `forget` (or a supersede mark), giving back the file's exact earlier bytes.

    Args:
        store: the project's store.
        target: as for `forget`; a note without a line has its header mark removed,
            any other file its one forgotten line.
        line: text in exactly one forgotten line of the file.

    Returns:
        One line saying what was restored.

    Raises:
        MemoryStoreError: nothing to restore there, or the choice is ambiguous.
    """
    from memhooks.hooks.session_writes import recording

    loc, select = _resolve(store, target, line)
    done: list[str] = []

    def change(text: str) -> str:
        if loc.kind == "note" and select is None:
            try:
                new_text, what = restore_note(text, rel=loc.rel)
            except ForgetError:
                pass  # no header mark: maybe a forgotten line
            else:
                done.append(f"{loc.rel} (no longer {what})")
                return new_text
        new_text, was = restore_line(text, select, rel=loc.rel)
        done.append(f"a line of {loc.rel}{_named(new_text, text, was)}")
        return new_text

    with recording(store, lambda: loc.rel):
        store.rewrite(loc.rel, change)
    return f"restored {done[0]}"


def duplicates_report(store: Store) -> list[str]:
    """Lines of ``memhooks status --duplicates``: near-duplicate lines across MEMORY.md and
    the project's notes, each group with ``path:line`` places (what `forget` accepts).
    """
    files: dict[str, str] = {}
    for loc in store.files():
        if loc.kind not in ("memory", "note"):
            continue
        try:
            text = store.read_text(loc.rel)
        except TargetNotFoundError:
            continue
        except NotAFileError as e:
            # As search and status leave it out (`memory.scope`): not the whole report.
            logger.warning("%s cannot be read (%s): left out", e.rel, e.reason)
            continue
        if loc.kind == "note" and note_forgotten(text.split("\n")):
            continue
        if has_private(text):
            # Listed as search sees it: a line of a private block is blank, and a line
            # with a private part keeps the rest (forgotten lines are left out anyway).
            cut = strip_private(text, lines=True).split("\n")
            text = "\n".join(
                was if is_forgotten_line(was) else now
                for was, now in zip(text.split("\n"), cut, strict=True)
            )
        files[loc.rel] = text
    groups = find_duplicates(files)
    notes = sum(1 for rel in files if rel != "MEMORY.md")
    scope = f"MEMORY.md and {notes} note{'s' if notes != 1 else ''}"
    if not groups:
        return [f"no near-duplicate lines in {scope}"]
    head = (
        f"{len(groups)} group{'s' if len(groups) != 1 else ''} of near-duplicate lines "
        f"in {scope} (whitespace, case and punctuation ignored):"
    )
    out = [head]
    for group in groups:
        out.append("")
        out += [f"{o.rel}:{o.line}: {o.text}" for o in group]
    out += ["", _DUPLICATES_HINT.format(prog=shell_prog())]
    return out


def cmd_forget(
    where: Where,
    target: str,
    out: TextIO,
    *,
    line: str | None = None,
    reason: str | None = None,
    by: str | None = None,
) -> int:
    store, _ = open_store(where, must_exist=True)
    out.write(forget(store, target, line=line, reason=reason or "", by=by) + "\n")
    return EXIT_OK


def cmd_restore(where: Where, target: str, out: TextIO, *, line: str | None) -> int:
    store, _ = open_store(where, must_exist=True)
    out.write(restore(store, target, line=line) + "\n")
    return EXIT_OK


def cmd_duplicates(where: Where, out: TextIO) -> int:
    """`memhooks status --duplicates`."""
    store, _ = open_store(where, must_exist=True)
    out.write("\n".join(duplicates_report(store)) + "\n")
    return EXIT_OK


__all__ = [
    "cmd_duplicates",
    "cmd_forget",
    "cmd_restore",
    "duplicates_report",
    "forget",
    "restore",
]

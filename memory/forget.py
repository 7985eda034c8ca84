"""Forget, supersede and restore, written into the files themselves (docs/design.md). Pure: text in,
text out.

Nothing is erased: a person reading the Markdown, or its ``git diff``, sees what was
forgotten, when and why, and `restore_line` / `restore_note` give back the exact bytes.

A forgotten line keeps its text, struck through behind a comment that dates it::

    <!-- forgotten 2026-11-30 — moved to ansible -->~~- Deploy with fabric.~~

A forgotten note, or one superseded by a newer note, gets a header line; it goes above
everything for a forgotten note, and below an ``aliases:`` first line for a superseded one
(so the aliases still count in search); in a note that starts with YAML front matter, right
below that, which must stay first for Obsidian and every YAML reader::

    forgotten: 2026-11-30 — wrong, the pool is per service
    superseded-by: notes/deploy-v2.md (2026-11-30) — ansible replaced fabric

Search and injection never see forgotten lines or forgotten notes (`visible`); a
superseded note stays searchable and is marked with its successor (`superseded_by`).
"""

from __future__ import annotations

from memhooks.memory.errors import ForgetError
from memhooks.memory.note_format import (
    FORGOTTEN_NOTE,
    MARK,
    SEP,
    SUPERSEDED_NOTE,
    clean_reason,
    core,
    front_matter,
    header_lines,
    is_aliases_line,
    note_forgotten,
    note_head,
    parse_forgotten,
    split_bom,
    superseded_by,
)


def _cr(lines: list[str]) -> str:
    """The end a header line added to a note needs before its "\\n": a CRLF note's "\\r"."""
    return "\r" if len(lines) > 1 and lines[0].endswith("\r") else ""


def _below_front_matter(lines: list[str]) -> int:
    """Where a note's header mark goes: right below its YAML front matter, which must stay
    first for Obsidian and every YAML reader; 0 (the first line) without one."""
    n = header_lines(lines)
    fm = front_matter(lines[n:])[0]
    return n + fm if fm else 0


def _select(parts: list[str], select: int | str, *, forgotten: bool, rel: str) -> int:
    """Index of the one line that `select` names: a 1-based number or a unique substring."""
    if isinstance(select, int):
        i = select - 1
        last = len(parts) - (1 if parts and parts[-1] == "" else 0)
        if not 0 <= i < last:
            size = f"{last} line{'' if last == 1 else 's'}"
            raise ForgetError(rel, f"line {select} is not in the file ({size})")
        if (parse_forgotten(parts[i]) is not None) != forgotten:
            state = "is not forgotten" if forgotten else "is already forgotten"
            raise ForgetError(rel, f"line {select} {state}")
        if not forgotten and not parts[i].strip():
            raise ForgetError(rel, f"line {select} is blank")
        return i
    hits = []
    for i, part in enumerate(parts):
        parsed = parse_forgotten(part)
        live = parsed is None and part.strip() != ""
        if (parsed and forgotten and select in parsed[2]) or (
            live and not forgotten and select in part
        ):
            hits.append(i)
    what = "forgotten line" if forgotten else "line"
    if not hits:
        raise ForgetError(rel, f"no {what} holds {select!r}")
    if len(hits) > 1:
        raise ForgetError(rel, f"{len(hits)} {what}s hold {select!r} (must be unique)")
    return hits[0]


def forget_line(
    text: str, select: int | str, *, date: str, reason: str = "", rel: str = ""
) -> tuple[str, str]:
    """Mark one line forgotten.

    Args:
        text: the file's exact text.
        select: a 1-based line number, or text that occurs in exactly one live line.
        date: today, YYYY-MM-DD.
        reason: why (one line; optional).
        rel: the file, for error messages.

    Returns:
        (new text, the line's original text).

    Raises:
        ForgetError: no such line, several match, blank, or already forgotten.
    """
    bom, body = split_bom(text)
    parts = body.split("\n")
    i = _select(parts, select, forgotten=False, rel=rel)
    line, cr = core(parts[i])
    why = clean_reason(reason)
    mark = f"{MARK}{date}{SEP + why if why else ''} -->~~{line}~~{cr}"
    parts[i] = mark
    return bom + "\n".join(parts), line


def restore_line(
    text: str, select: int | str | None, *, rel: str = ""
) -> tuple[str, str]:
    """Undo `forget_line` on one line, giving back its exact original bytes.

    Args:
        text: the file's exact text.
        select: a 1-based line number, text in exactly one forgotten line, or None when
            the file holds exactly one forgotten line.
        rel: the file, for error messages.

    Returns:
        (new text, the restored line).

    Raises:
        ForgetError: nothing forgotten there, or the choice is ambiguous.
    """
    bom, body = split_bom(text)
    parts = body.split("\n")
    if select is None:
        marked = [i for i, p in enumerate(parts) if parse_forgotten(p) is not None]
        if len(marked) != 1:
            detail = (
                "nothing is forgotten in it"
                if not marked
                else f"{len(marked)} lines are forgotten; name one with --line"
            )
            raise ForgetError(rel, detail)
        i = marked[0]
    else:
        i = _select(parts, select, forgotten=True, rel=rel)
    parsed = parse_forgotten(parts[i])
    assert parsed is not None  # _select only returns forgotten lines here
    parts[i] = parsed[2] + core(parts[i])[1]
    return bom + "\n".join(parts), parsed[2]


def forget_note(text: str, *, date: str, reason: str = "", rel: str = "") -> str:
    """Mark a whole note forgotten with a first header line.

    Raises:
        ForgetError: the note is already forgotten.
    """
    bom, body = split_bom(text)
    lines = body.split("\n")
    if note_forgotten(lines) is not None:
        raise ForgetError(rel, "the note is already forgotten")
    why = clean_reason(reason)
    line = f"forgotten: {date}{SEP + why if why else ''}{_cr(lines)}"
    lines.insert(_below_front_matter(lines), line)
    return bom + "\n".join(lines)


def supersede_note(
    text: str, by: str, *, date: str, reason: str = "", rel: str = ""
) -> str:
    """Mark a note superseded by note `by`, below its ``aliases:`` line if it has one.

    Raises:
        ForgetError: the note is already superseded.
    """
    bom, body = split_bom(text)
    lines = body.split("\n")
    old = superseded_by(lines)
    if old is not None:
        raise ForgetError(
            rel, f"already superseded by notes/{old.by}.md; restore it first"
        )
    why = clean_reason(reason)
    line = f"superseded-by: notes/{by}.md ({date}){SEP + why if why else ''}"
    # Below the aliases line only when that line ends in a newline: restoring must
    # remove exactly the bytes added.
    at = _below_front_matter(lines) or int(len(lines) > 1 and is_aliases_line(lines[0]))
    lines.insert(at, line + _cr(lines))
    return bom + "\n".join(lines)


def restore_note(text: str, *, rel: str = "") -> tuple[str, str]:
    """Remove a note's ``forgotten:`` header line, else its ``superseded-by:`` one.

    Returns:
        (new text, what was undone: ``"forgotten"`` or ``"superseded"``).

    Raises:
        ForgetError: the note is neither forgotten nor superseded.
    """
    bom, body = split_bom(text)
    lines = body.split("\n")
    rows = note_head(lines).rows
    for pattern, what in (
        (FORGOTTEN_NOTE, "forgotten"),
        (SUPERSEDED_NOTE, "superseded"),
    ):
        for i in rows:
            if pattern.fullmatch(core(lines[i])[0]):
                del lines[i]
                return bom + "\n".join(lines), what
    raise ForgetError(rel, "the note is neither forgotten nor superseded")


__all__ = [
    "forget_line",
    "forget_note",
    "restore_line",
    "restore_note",
    "supersede_note",
]

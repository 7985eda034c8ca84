"""Forget, supersede and restore, written into the files themselves (spec §7). Pure: text in,
text out.

Nothing is erased: a person reading the Markdown, or its ``git diff``, sees what was
forgotten, when and why, and `restore_line` / `restore_note` give back the exact bytes.

A forgotten line keeps its text, struck through behind a comment that dates it::

    <!-- forgotten 2026-11-30 — moved to ansible -->~~- Deploy with fabric.~~

A forgotten note, or one superseded by a newer note, gets a header line; it goes above
everything for a forgotten note, and below an ``aliases:`` first line for a superseded one
(so the aliases still count in search)::

    forgotten: 2026-11-30 — wrong, the pool is per service
    superseded-by: notes/deploy-v2.md (2026-11-30) — ansible replaced fabric

Search and injection never see forgotten lines or forgotten notes (`visible`); a
superseded note stays searchable and is marked with its successor (`superseded_by`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from memhooks.memory.errors import ForgetError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from memhooks.memory.corpus import Doc
    from memhooks.memory.layout import Kind
    from memhooks.memory.search import Hit, SearchResult

_DATE = r"\d{4}-\d{2}-\d{2}"
_SEP = " — "
#: ``<!-- forgotten DATE[ — REASON] -->~~ORIGINAL~~`` (matched on a line without its "\r").
FORGOTTEN_LINE = re.compile(rf"<!-- forgotten ({_DATE})(?:{_SEP}(.*?))? -->~~(.*)~~")
FORGOTTEN_NOTE = re.compile(rf"forgotten: ({_DATE})(?:{_SEP}(.*))?")
SUPERSEDED_NOTE = re.compile(
    rf"superseded-by: notes/(.+?)\.md \(({_DATE})\)(?:{_SEP}(.*))?"
)
_HEADER = re.compile(r"(?:aliases:|forgotten:|superseded-by:)", re.IGNORECASE)
_MARK = "<!-- forgotten "


class Forgotten(NamedTuple):
    """One forgotten line: where it is (1-based), when, why, and its original text."""

    line: int
    date: str
    reason: str
    original: str


class Superseded(NamedTuple):
    """A superseded note's successor (a note name), when and why."""

    by: str
    date: str
    reason: str


def clean_reason(reason: str | None) -> str:
    """A reason on one line that cannot end the HTML comment it is written in."""
    text = " ".join((reason or "").split())
    return text.replace("-->", "->").replace("--", "–")


def _core(part: str) -> tuple[str, str]:
    # A CRLF file keeps its "\r" outside the marks, so restore gives the same bytes back.
    return (part[:-1], "\r") if part.endswith("\r") else (part, "")


def _parse_line(part: str) -> tuple[str, str, str] | None:
    core, _ = _core(part)
    if not core.startswith(_MARK):
        return None
    m = FORGOTTEN_LINE.fullmatch(core)
    return (m[1], m[2] or "", m[3]) if m else None


def is_forgotten_line(line: str) -> bool:
    """Whether `line` (one line, with or without a final "\\r") is a forgotten line."""
    return _parse_line(line) is not None


def forgotten_lines(text: str) -> list[Forgotten]:
    """Every forgotten line in `text`, in file order."""
    out = []
    for i, part in enumerate(text.split("\n"), 1):
        parsed = _parse_line(part)
        if parsed:
            out.append(Forgotten(i, *parsed))
    return out


def header_lines(lines: Sequence[str]) -> int:
    """How many leading lines are header lines (``aliases:``, ``forgotten:``, ``superseded-by:``)."""
    n = 0
    while n < len(lines) and _HEADER.match(lines[n]):
        n += 1
    return n


def note_forgotten(lines: Sequence[str]) -> tuple[str, str] | None:
    """(date, reason) if a note's header says it was forgotten, else None."""
    for ln in lines[: header_lines(lines)]:
        m = FORGOTTEN_NOTE.fullmatch(_core(ln)[0])
        if m:
            return m[1], m[2] or ""
    return None


def superseded_by(lines: Sequence[str]) -> Superseded | None:
    """The successor named in a note's header, or None.

    Args:
        lines: the note's lines (`Doc.lines`, or the raw text split on newlines).
    """
    for ln in lines[: header_lines(lines)]:
        m = SUPERSEDED_NOTE.fullmatch(_core(ln)[0])
        if m:
            return Superseded(m[1], m[2], m[3] or "")
    return None


def visible(kind: Kind, text: str) -> str | None:
    """What search and injection may see of a file: forgotten lines left out, and None
    for a forgotten note.

    Args:
        kind: the file's kind (only notes can be forgotten whole).
        text: the file's text as read.

    Returns:
        `text` itself when nothing in it is forgotten (the common case costs one scan).
    """
    head = text[:4096]
    if (
        kind == "note"
        and "forgotten:" in head.lower()
        and note_forgotten(head.split("\n")) is not None
    ):
        return None
    if _MARK not in text:
        return text
    return "\n".join(p for p in text.split("\n") if _parse_line(p) is None)


def _select(parts: list[str], select: int | str, *, forgotten: bool, rel: str) -> int:
    """Index of the one line that `select` names: a 1-based number or a unique substring."""
    if isinstance(select, int):
        i = select - 1
        last = len(parts) - (1 if parts and parts[-1] == "" else 0)
        if not 0 <= i < last:
            raise ForgetError(rel, f"line {select} is not in the file ({last} lines)")
        if (_parse_line(parts[i]) is not None) != forgotten:
            state = "is not forgotten" if forgotten else "is already forgotten"
            raise ForgetError(rel, f"line {select} {state}")
        if not forgotten and not parts[i].strip():
            raise ForgetError(rel, f"line {select} is blank")
        return i
    hits = []
    for i, part in enumerate(parts):
        parsed = _parse_line(part)
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
    parts = text.split("\n")
    i = _select(parts, select, forgotten=False, rel=rel)
    core, cr = _core(parts[i])
    why = clean_reason(reason)
    mark = f"{_MARK}{date}{_SEP + why if why else ''} -->~~{core}~~{cr}"
    parts[i] = mark
    return "\n".join(parts), core


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
    parts = text.split("\n")
    if select is None:
        marked = [i for i, p in enumerate(parts) if _parse_line(p) is not None]
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
    parsed = _parse_line(parts[i])
    assert parsed is not None  # _select only returns forgotten lines here
    parts[i] = parsed[2] + _core(parts[i])[1]
    return "\n".join(parts), parsed[2]


def forget_note(text: str, *, date: str, reason: str = "", rel: str = "") -> str:
    """Mark a whole note forgotten with a first header line.

    Raises:
        ForgetError: the note is already forgotten.
    """
    if note_forgotten(text.split("\n")) is not None:
        raise ForgetError(rel, "the note is already forgotten")
    why = clean_reason(reason)
    return f"forgotten: {date}{_SEP + why if why else ''}\n{text}"


def supersede_note(
    text: str, by: str, *, date: str, reason: str = "", rel: str = ""
) -> str:
    """Mark a note superseded by note `by`, below its ``aliases:`` line if it has one.

    Raises:
        ForgetError: the note is already superseded.
    """
    lines = text.split("\n")
    old = superseded_by(lines)
    if old is not None:
        raise ForgetError(
            rel, f"already superseded by notes/{old.by}.md; restore it first"
        )
    why = clean_reason(reason)
    line = f"superseded-by: notes/{by}.md ({date}){_SEP + why if why else ''}"
    # Below the aliases line only when that line ends in a newline: restoring must
    # remove exactly the bytes added.
    at = 1 if len(lines) > 1 and lines[0].lower().startswith("aliases:") else 0
    lines.insert(at, line)
    return "\n".join(lines)


def restore_note(text: str, *, rel: str = "") -> tuple[str, str]:
    """Remove a note's ``forgotten:`` header line, else its ``superseded-by:`` one.

    Returns:
        (new text, what was undone: ``"forgotten"`` or ``"superseded"``).

    Raises:
        ForgetError: the note is neither forgotten nor superseded.
    """
    lines = text.split("\n")
    n = header_lines(lines)
    for pattern, what in (
        (FORGOTTEN_NOTE, "forgotten"),
        (SUPERSEDED_NOTE, "superseded"),
    ):
        for i in range(n):
            if pattern.fullmatch(lines[i]):
                del lines[i]
                return "\n".join(lines), what
    raise ForgetError(rel, "the note is neither forgotten nor superseded")


def _marked(hit: Hit, mark: str) -> Callable[[], str]:
    return lambda: f"{mark}\n{hit.snippet}"


def may_be_superseded(doc: Doc) -> bool:
    """Whether `doc` may be a superseded note (a substring test; `superseded_by` decides)."""
    return doc.kind == "note" and "superseded-by: " in doc.text


def mark_superseded(result: SearchResult, docs: Mapping[str, Doc]) -> SearchResult:
    """Mark superseded notes in a search result and rank each below its successor.

    A superseded note stays findable (it may hold the only trace of a word), but its
    snippet starts with ``(superseded by notes/NEW.md …)``, and when the successor
    matched too, the older note moves to just below it.

    Args:
        result: a ranked search result.
        docs: the corpus it was ranked from, to read the notes' header lines.
    """
    hits = list(result.hits)
    marked = False
    for hit in result.hits:
        doc = docs.get(hit.rel)
        # The substring test first: a search over thousands of notes splits none of them.
        marked_here = doc is not None and may_be_superseded(doc)
        newer = superseded_by(doc.lines) if doc is not None and marked_here else None
        if newer is None:
            continue
        marked = True
        why = f"{_SEP}{newer.reason}" if newer.reason else ""
        mark = f"(superseded by notes/{newer.by}.md on {newer.date}{why})"
        # The snippet is made lazily (only for the files shown), and so is the mark.
        new = hit.with_source(_marked(hit, mark))
        at = hits.index(hit)
        hits[at] = new
        successor = f"{hit.rel.rsplit('/', 1)[0]}/{newer.by}.md"
        later = [i for i, h in enumerate(hits) if h.rel == successor and i > at]
        if later:
            hits.insert(later[0], hits.pop(at))
    return result._replace(hits=tuple(hits)) if marked else result


__all__ = [
    "FORGOTTEN_LINE",
    "FORGOTTEN_NOTE",
    "SUPERSEDED_NOTE",
    "Forgotten",
    "Superseded",
    "clean_reason",
    "forget_line",
    "forget_note",
    "forgotten_lines",
    "header_lines",
    "is_forgotten_line",
    "mark_superseded",
    "note_forgotten",
    "restore_line",
    "restore_note",
    "supersede_note",
    "superseded_by",
    "visible",
]

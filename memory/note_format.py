"""Every piece of syntax memhooks reads inside a memory file, in one place.

- a note's header lines: ``aliases: a, b``, ``forgotten: DATE — why``,
  ``superseded-by: notes/NAME.md (DATE) — why``;
- a forgotten line: ``<!-- forgotten DATE — why -->~~original~~``;
- a checklist item: ``- [ ] open`` / ``* [x] done``;
- YAML front matter (``---`` … ``---``) heading a note brought from another tool;
- git's merge conflict markers (``<<<<<<<``, ``=======``, ``>>>>>>>``), left by a merge.

Pure: text in, values out. `memory.forget` writes the forget and supersede marks;
search, injection and the store read them through this module.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from memhooks.memory.private import has_private, private_lines_out

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from memhooks.memory.corpus import Doc
    from memhooks.memory.paths import Kind

#: A note's first line ``aliases: a, b, c``: words a search should also find it by.
ALIASES = "aliases:"
#: An open checklist item, the only scratchpad lines injected.
OPEN_ITEM = re.compile(r"^\s*[-*] \[ \]")
#: Any checklist item, open or done.
ITEM = re.compile(r"\s*[-*] \[[ xX]\]")
_DATE = r"\d{4}-\d{2}-\d{2}"
SEP = " — "
#: ``<!-- forgotten DATE[ — REASON] -->~~ORIGINAL~~`` (matched on a line without its "\r").
FORGOTTEN_LINE = re.compile(rf"<!-- forgotten ({_DATE})(?:{SEP}(.*?))? -->~~(.*)~~")
FORGOTTEN_NOTE = re.compile(rf"forgotten: ({_DATE})(?:{SEP}(.*))?")
SUPERSEDED_NOTE = re.compile(
    rf"superseded-by: notes/(.+?)\.md \(({_DATE})\)(?:{SEP}(.*))?"
)
_HEADER = re.compile(r"(?:aliases:|forgotten:|superseded-by:)", re.IGNORECASE)
MARK = "<!-- forgotten "
#: A byte-order mark: it stays a file's first character, before any mark (memory.forget).
BOM = "\ufeff"


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


def core(part: str) -> tuple[str, str]:
    """A line without, and with only, its final "\\r" (a CRLF file keeps it outside the marks)."""
    # A CRLF file keeps its "\r" outside the marks, so restore gives the same bytes back.
    return (part[:-1], "\r") if part.endswith("\r") else (part, "")


def split_bom(text: str) -> tuple[str, str]:
    """(the byte-order mark or "", the rest): what is added goes after it, so it stays first."""
    bom = BOM if text.startswith(BOM) else ""
    return bom, text[len(bom) :]


def _bare(line: str) -> str:
    # A file's first line keeps its byte-order mark before a mark written on it.
    return core(line)[0].removeprefix(BOM)


def parse_forgotten(part: str) -> tuple[str, str, str] | None:
    """(date, reason, original) of a forgotten line (with or without its "\\r"), else None."""
    text = _bare(part)
    if not text.startswith(MARK):
        return None
    m = FORGOTTEN_LINE.fullmatch(text)
    return (m[1], m[2] or "", m[3]) if m else None


def is_forgotten_line(line: str) -> bool:
    """Whether `line` (one line, with or without a final "\\r") is a forgotten line."""
    return parse_forgotten(line) is not None


def forgotten_lines(text: str) -> list[Forgotten]:
    """Every forgotten line in `text`, in file order."""
    out = []
    for i, part in enumerate(text.split("\n"), 1):
        parsed = parse_forgotten(part)
        if parsed:
            out.append(Forgotten(i, *parsed))
    return out


def header_lines(lines: Sequence[str]) -> int:
    """How many leading lines are header lines (``aliases:``, ``forgotten:``, ``superseded-by:``)."""
    n = 0
    while n < len(lines) and _HEADER.match(_bare(lines[n])):
        n += 1
    return n


class Head(NamedTuple):
    """A note's head: its header lines (indices), where its body starts, and the
    ``title:`` of its YAML front matter ("" without one)."""

    rows: tuple[int, ...]
    body: int
    title: str


def note_head(lines: Sequence[str]) -> Head:
    """The head of a note: header lines first, then YAML front matter if any, then the
    header lines below it (where `memory.forget` writes its marks in such a note, so
    that the front matter stays first for Obsidian and every YAML reader)."""
    n = header_lines(lines)
    fm, title = front_matter(lines[n:])
    m = header_lines(lines[n + fm :]) if fm else 0
    return Head((*range(n), *range(n + fm, n + fm + m)), n + fm + m, title)


_FM_END = re.compile(r"^(?:---|\.\.\.)[ \t\r]*$", re.MULTILINE)


def note_top(text: str, size: int = 4096) -> str:
    """The start of `text` that holds its head (`note_head`): `size` characters past the
    end of a leading front matter block, however long that is."""
    end = 0
    if split_bom(text)[1].startswith("---"):
        m = _FM_END.search(text, text.find("\n") + 1)
        end = m.end() if m else 0
    return text[: end + size]


def note_forgotten(lines: Sequence[str]) -> tuple[str, str] | None:
    """(date, reason) if a note's header says it was forgotten, else None."""
    for i in note_head(lines).rows:
        m = FORGOTTEN_NOTE.fullmatch(_bare(lines[i]))
        if m:
            return m[1], m[2] or ""
    return None


def superseded_by(lines: Sequence[str]) -> Superseded | None:
    """The successor named in a note's header, or None.

    Args:
        lines: the note's lines (`Doc.lines`, or the raw text split on newlines).
    """
    for i in note_head(lines).rows:
        m = SUPERSEDED_NOTE.fullmatch(_bare(lines[i]))
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
    if (
        kind == "note"
        and "forgotten:" in (head := note_top(text)).lower()
        and note_forgotten(head.split("\n")) is not None
    ):
        return None
    if MARK not in text:
        return text
    return "\n".join(p for p in text.split("\n") if parse_forgotten(p) is None)


def searchable(kind: Kind, text: str) -> tuple[str, tuple[int, ...]] | None:
    """What search and the block see of a file (`visible`, and a person's ``<private>``
    text left out: `memory.private`), with the 0-based positions of the file's lines
    left out, so that line numbers name the file's own; None for a forgotten note."""
    shown = visible(kind, text)
    if shown is None:
        return None
    skipped = () if shown is text else tuple(f.line - 1 for f in forgotten_lines(text))
    # Private blocks are the file's as written: a forgotten line may open one.
    return private_lines_out(text, skipped) if has_private(text) else (shown, skipped)


_TITLE = re.compile(r"title:\s*(.*?)\s*", re.IGNORECASE)


def front_matter(lines: Sequence[str]) -> tuple[int, str]:
    """How many of `lines` a leading YAML front matter block takes (``---`` … ``---``
    or ``...``, as Obsidian, Jekyll and Hugo write it; 0 without one), and its
    ``title:`` ("" without one)."""
    if not lines or _bare(lines[0]).rstrip() != "---":
        return 0, ""
    title = ""
    for i, line in enumerate(lines[1:], 1):
        bare = line.rstrip()
        if bare in ("---", "..."):
            return i + 1, title
        if not title and (m := _TITLE.fullmatch(bare)):
            title = m[1].strip("\"'")
    return 0, ""


#: A line opening or closing a fenced code block.
FENCE = re.compile(r"^\s*(```|~~~)")


def outside_fences(lines: Iterable[str]) -> Iterable[tuple[int, str]]:
    """(1-based number, line) of lines outside fenced code blocks (fences excluded)."""
    fenced = False
    for i, line in enumerate(lines, 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield i, line


_OURS = re.compile(r"<{7}(?: .*)?")
_THEIRS = re.compile(r">{7}(?: .*)?")


def conflict_line(text: str) -> int | None:
    """The line (1-based) where an unresolved git merge conflict starts: ``<<<<<<<``,
    then ``=======``, then ``>>>>>>>``, each a line of its own outside fenced code (a
    note may show one); None when there is none."""
    if "<<<<<<<" not in text:
        return None
    start, middle = 0, False
    for i, line in outside_fences(text.split("\n")):
        line = line.removesuffix("\r")
        if _OURS.fullmatch(line):
            start, middle = i, False
        elif start and line == "=======":
            middle = True
        elif start and middle and _THEIRS.fullmatch(line):
            return start
    return None


def is_aliases_line(line: str) -> bool:
    """Whether `line` is a note's ``aliases:`` line."""
    return line.lower().startswith(ALIASES)


def alias_line(aliases: str) -> str:
    """The ``aliases:`` line for `aliases` separated by commas or line breaks (a line
    break kept would end the line: the aliases after it would be body text), each once;
    "" when none is left."""
    names: dict[str, str] = {}
    for a in re.split(r"[,\r\n]", aliases):
        if a.strip():
            names.setdefault(a.strip().casefold(), a.strip())
    return f"{ALIASES} {', '.join(names.values())}" if names else ""


def aliases_of(line: str) -> list[str]:
    """The aliases an ``aliases:`` line lists, in its order."""
    return [a.strip() for a in line[len(ALIASES) :].split(",") if a.strip()]


_BULLET = re.compile(r"\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[([ xX])\]\s*)?")
_BOX = re.compile(r"\s*\[([ xX])\]\s+")


def checklist_item(line: str) -> str:
    """`line` as one item, ``- [ ] text`` (``- [x] text`` if it came checked), whatever
    bullet it came with (``- ``, ``* ``, ``+ ``, ``1. ``, ``- [ ] ``); "" for a blank line.
    """
    box, rest = " ", line.strip()
    if m := _BULLET.match(line) or _BOX.match(line):
        box, rest = (m.group(1) or " ").lower(), line[m.end() :].strip()
    return f"- [{box}] {rest}" if rest else ""


def checklist(text: str) -> str:
    """Each non-blank line of `text` as one item (headings stay), so that every line
    written to the scratchpad is one the block can show.
    """
    items = (
        ln.strip() if ln.lstrip().startswith("#") else checklist_item(ln)
        for ln in text.splitlines()
    )
    return "\n".join(item for item in items if item)


def may_be_superseded(doc: Doc) -> bool:
    """Whether `doc` may be a superseded note (a substring test; `superseded_by` decides)."""
    return doc.kind == "note" and "superseded-by: " in doc.text


__all__ = [
    "ALIASES",
    "BOM",
    "FENCE",
    "FORGOTTEN_LINE",
    "FORGOTTEN_NOTE",
    "ITEM",
    "OPEN_ITEM",
    "SEP",
    "SUPERSEDED_NOTE",
    "Forgotten",
    "Head",
    "Superseded",
    "alias_line",
    "aliases_of",
    "checklist",
    "checklist_item",
    "clean_reason",
    "conflict_line",
    "core",
    "forgotten_lines",
    "front_matter",
    "header_lines",
    "is_aliases_line",
    "is_forgotten_line",
    "may_be_superseded",
    "note_forgotten",
    "note_head",
    "note_top",
    "outside_fences",
    "parse_forgotten",
    "searchable",
    "split_bom",
    "superseded_by",
    "visible",
]

"""A memory file's bytes as the store changes them: decoded so that every byte comes back,
its line-end convention kept for the lines added, and the one change a write makes to a
person's lines (a note's ``aliases:`` line). Pure: bytes and text in, bytes out.
"""

from __future__ import annotations

import re

from memhooks.memory.errors import FrontMatterError
from memhooks.memory.note_format import (
    aliases_of,
    front_matter,
    header_lines,
    is_aliases_line,
    split_bom,
)


def with_aliases(raw: bytes, header: str, rel: str) -> bytes:
    """`raw` (the note `rel`) with the aliases of `header` (an ``aliases:`` line) that its
    own ``aliases:`` line lacks added at that line's end, or with `header` inserted first
    if it has none. What a person wrote keeps its bytes; a byte-order mark stays first.

    Raises:
        FrontMatterError: the note has no ``aliases:`` line and begins with YAML front
            matter, which must stay first.
    """
    bom, text = split_bom(decode(raw))
    lines = text.split("\n")
    # The aliases line may sit below a forgotten: header (memory.forget).
    at = [i for i in range(header_lines(lines)) if is_aliases_line(lines[i])]
    cr = "\r" if uses_crlf(raw) else ""
    if at:
        line = lines[at[0]].removesuffix("\r")
        have = {a.casefold() for a in aliases_of(line)}
        new = [a for a in aliases_of(header) if a.casefold() not in have]
        if not new:
            return raw
        sep = ", " if have else " "
        lines[at[0]] = line.rstrip() + sep + ", ".join(new) + cr
    elif front_matter(lines)[0]:
        raise FrontMatterError(rel)
    else:
        lines.insert(0, header + cr)
    return encode(bom + "\n".join(lines))


def kept_aliases(old: bytes | None, new: bytes, rel: str) -> bytes:
    """`new` (an overwrite of the note `rel`, written without aliases) with the aliases of
    `old`'s ``aliases:`` line (the note it replaces): rewriting the body keeps them. None
    are kept when `new` begins with YAML front matter (which takes none)."""
    lines = split_bom(decode(old or b""))[1].split("\n")
    at = [i for i in range(header_lines(lines)) if is_aliases_line(lines[i])]
    if not at:
        return new
    try:
        return with_aliases(new, lines[at[0]].removesuffix("\r"), rel)
    except FrontMatterError:
        return new


#: A line of a Markdown list: a bullet or a number, then a space.
_LIST_ITEM = re.compile(rb"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]")


def appended(raw: bytes, text: str, *, separate: bool = True) -> tuple[bytes, bytes]:
    """`raw` with `text` added as lines at its end, in the file's line ends, and the
    bytes added of `text`. With `separate`, a blank line goes between the file's last
    line and `text`, unless both are items of a list: a rule added to a list of rules
    goes on the list (a blank line between two items makes it a loose one)."""
    nl = b"\r\n" if uses_crlf(raw) else b"\n"
    added = encode(text.strip("\r\n")).replace(b"\r\n", b"\n").replace(b"\n", nl)
    out = raw
    if out and not out.endswith(b"\n"):
        out += nl
    last = out.rstrip(b"\r\n").rpartition(b"\n")[2]
    listed = _LIST_ITEM.match(last) and _LIST_ITEM.match(added)
    if separate and out.strip() and not out.endswith(nl + nl) and not listed:
        out += nl
    return out + added + nl, added


def places(text: str, part: str) -> int:
    """How many places `part` starts at in `text`, overlapping ones too: "8080" is not
    unique in "808080"."""
    n, at = 0, text.find(part)
    while at != -1:
        n, at = n + 1, text.find(part, at + 1)
    return n


def uses_crlf(raw: bytes) -> bool:
    """Whether a file's first line ends in CRLF (its convention, for lines we add)."""
    i = raw.find(b"\n")
    return i > 0 and raw[i - 1 : i] == b"\r"


def crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def decode(raw: bytes) -> str:
    # surrogateescape: bytes that are not UTF-8 come back unchanged from encode.
    return raw.decode("utf-8", "surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def ensure_nl(text: str) -> str:
    return text if text.endswith("\n") or not text else text + "\n"


__all__ = [
    "appended",
    "crlf",
    "decode",
    "encode",
    "ensure_nl",
    "kept_aliases",
    "places",
    "uses_crlf",
    "with_aliases",
]

"""A person's ``<private>…</private>`` text: theirs, never the model's.

What the hooks write on their own drops it (`strip_private`, through `memory.redact`),
and search and the block read each memory file without it (`private_lines_out`, through
`note_format.searchable`), the file keeping every byte. No secret rules here: a file that
holds no tag costs one scan.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["has_private", "private_lines_out", "strip_private"]

# Only the exact tags, ASCII case-insensitively; `<private id=1>` is not a tag.
_OPEN_TAG: Final = "<private>"
_OPEN_RE: Final = re.compile(re.escape(_OPEN_TAG), re.IGNORECASE | re.ASCII)
#: Either tag: a block nested in another ends where the outer one does.
_TAG_RE: Final = re.compile(r"</?private>", re.IGNORECASE | re.ASCII)


def has_private(text: str) -> bool:
    """Whether `text` holds a ``<private>`` tag (a scan as fast as ``in``)."""
    return _OPEN_RE.search(text) is not None


def private_lines_out(
    text: str, skipped: tuple[int, ...] = ()
) -> tuple[str, tuple[int, ...]]:
    """`text` without its ``<private>`` blocks, as search and the block see a file a
    person wrote: a line a block takes whole is left out, a line it takes part of keeps
    the rest.

    Blocks are found in the whole file, lines at `skipped` included: a forgotten line
    that opens a block (``<private>`` alone on it, or a rule ending in one) still hides
    the lines up to its ``</private>``.

    Args:
        text: the file's whole text.
        skipped: 0-based positions of lines left out besides (forgotten), ascending.

    Returns:
        The text, and the positions in the file of every line left out, ascending, so
        that line numbers still name the file's own lines.
    """
    gone = set(skipped)
    cut = strip_private(text, lines=True).split("\n")  # as many lines as `text`
    kept = []
    for i, (was, now) in enumerate(zip(text.split("\n"), cut, strict=True)):
        if i in gone:
            continue
        if now != was and not now.strip():
            gone.add(i)
        else:
            kept.append(now)
    return "\n".join(kept), tuple(sorted(gone))


def strip_private(text: str, *, lines: bool = False) -> str:
    """Drop every ``<private>…</private>`` block, tags included.

    Tags match case-insensitively and blocks may span lines. A block nested in
    another ends with the outer one (``<private>a <private>b</private> c</private>``
    drops ``c`` too). An unclosed ``<private>`` drops everything after it; a stray
    ``</private>`` is kept.
    Dropping a block can splice a new tag (``<pri<private>x</private>vate>``); that
    one is dropped too, so the result never holds an opening tag and the function is
    idempotent. Runs in linear time even on nested splices.

    Args:
        text: Any text.
        lines: keep the line breaks of each block dropped, so that the result has as
            many lines as `text`.

    Returns:
        The text without its private blocks.
    """
    kept: list[list[int]] = []  # non-empty [start, end) spans of `text` to keep
    pos = 0
    while True:
        cut = _spliced_tag_end(text, kept, pos)
        if cut is None:
            match = _OPEN_RE.search(text, pos)
            if match is None:
                break
            if match.start() > pos:
                kept.append([pos, match.start()])
            cut = match.end()
        pos = _block_end(text, cut)
    if pos < len(text):
        kept.append([pos, len(text)])
    if not lines:
        return "".join(text[start:end] for start, end in kept)
    out, end = [], 0
    for start, stop in [*kept, [len(text), len(text)]]:
        out += ["\n" * text.count("\n", end, start), text[start:stop]]
        end = stop
    return "".join(out)


def _block_end(text: str, at: int) -> int:
    """Where the block opened just before `at` ends: after the ``</private>`` that
    closes it, nested blocks counted (the end of `text` if none does)."""
    depth = 1
    while depth:
        tag = _TAG_RE.search(text, at)
        if tag is None:
            return len(text)
        depth += -1 if tag[0][1] == "/" else 1
        at = tag.end()
    return at


def _spliced_tag_end(text: str, kept: list[list[int]], pos: int) -> int | None:
    """Find an opening tag split across the kept tail and ``text[pos:]``.

    If there is one, trim its first part off ``kept`` and return where it ends in
    ``text``. Spans are indices rather than strings, so trimming copies nothing.
    """
    size = len(_OPEN_TAG) - 1
    parts: list[str] = []
    for start, end in reversed(kept):  # at most `size` spans, since none is empty
        parts.append(text[max(start, end - size) : end])
        size -= len(parts[-1])
        if not size:
            break
    tail = "".join(reversed(parts))
    match = _OPEN_RE.search(tail + text[pos : pos + len(_OPEN_TAG) - 1])
    if not tail or match is None or match.start() >= len(tail):
        return None
    count = len(tail) - match.start()
    while count:
        span = kept[-1]
        taken = min(count, span[1] - span[0])
        span[1] -= taken
        count -= taken
        if span[0] == span[1]:
            kept.pop()
    return pos + match.end() - len(tail)

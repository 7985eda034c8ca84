"""Passages of a memory file for the semantic index (docs/design.md, ``[semantic]``). Pure: a
document in, chunks out.

A sentence encoder averages over its input, so one vector for a whole daily log would
blur its five entries into none of them. Chunks follow the structure the files already
have: a daily log's ``### HH:MM — title`` entries, a note's ``##`` sections, and any
section too long for one vector is packed line by line into pieces of about `MAX_CHARS`
(a single line longer than `MAX_EMBED` is embedded by its beginning).

What is embedded is not quite the Markdown. Each chunk of a note, MEMORY.md or the
scratchpad starts with the file's title (its ``# `` heading), and a note's chunks also
with its name and its ``aliases:`` line: words its writer chose to describe it, which the
lexical ranking weighs up for the same reason (`memory.rank`). Identifiers are split into
words (``default_pool_size`` → ``default pool size``, ``strictPort`` → ``strict Port``) and
Markdown punctuation is dropped, because the encoder's vocabulary knows words, not
snake case. Measured with ``memhooks eval`` on the dev set (README): paraphrase R@5 of
the encoder alone 0.63 → 0.73 with the name, aliases and word splitting.

A file with a title and a body also gets its title alone as one more chunk (the first).
Notes are dense with identifiers, commands and tables, and a passage's vector drifts
toward them; the title is the writer's own one-line summary of the file, the one vector
that says only what it is about ("Error handling (front end)" for a question about a
crash blanking the app). Section headings alone were tried as chunks too and hurt: they
are short and generic ("Rotation", "Steps") and so come close to many queries by chance.
A daily log gets none: its title is a date.

A chunk's `digest` hashes exactly the text that is embedded, so the cache (see
`memory.semantic`) re-embeds a chunk only when that text changes.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from memhooks.memory.digests import sha256
from memhooks.memory.note_format import ALIASES, FENCE

if TYPE_CHECKING:
    from memhooks.memory.corpus import Doc

#: A section longer than this (in characters) is packed into several chunks.
MAX_CHARS = 700
#: At most this much of a chunk goes to the encoder. Chunks are packed by lines, so one
#: line is one chunk however long: a note of one 1 MB line (a pasted log, minified JSON)
#: took the encoder 20 s and 3.2 GB of RSS, 128 KB 0.5 GB; no chunk of the eval sets
#: comes near this (their longest line is 369 characters), so none is cut.
MAX_EMBED = 4 * MAX_CHARS

_HEADING = re.compile(r"^(#{1,6})\s+\S")
_CODE = re.compile(r"`([^`\n]*)`")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_MARKUP = re.compile(r"[_*#>|=`]+")
_JOINER = re.compile(r"(?<=\w)[./:](?=\w)")
_SPACES = re.compile(r"[ \t]+")


class Chunk(NamedTuple):
    """One passage of a document: the lines it covers and the text that is embedded."""

    id: str  #: ``<rel>#<n>``, n counting from 0 in file order
    start: int  #: first line (index into `Doc.lines`)
    end: int  #: one past the last line
    text: str  #: what the encoder sees (`embed_text` of label, title and passage)
    digest: str  #: sha256 of `text`, 32 hex digits


def chunks(doc: Doc) -> list[Chunk]:
    """Split a document into passages by its Markdown structure.

    Args:
        doc: a memory file.

    Returns:
        The chunks in file order; none for a file with no text. Heading-only sections
        join the section that follows them.

    Example:
        A daily log with two ``###`` entries gives two chunks, one per entry.
    """
    at, title = _title(doc) if doc.kind != "daily" else (0, "")
    label = _label(doc)
    spans: list[tuple[int, int, str]] = []
    for start, end in _pieces(doc.lines):
        body = "\n".join(doc.lines[start:end]).strip()
        if not body:
            continue
        own = title and title in (ln.strip() for ln in doc.lines[start:end])
        head = [label] if label else []
        if title and not own:
            head.append(title)
        spans.append((start, end, embed_text("\n".join([*head, body]))[:MAX_EMBED]))
    # The title alone, as its writer's one-line summary of the file: beside passages
    # thick with identifiers it is the one vector that says what the file is about.
    heading = embed_text(title) if title else ""
    if heading and _has_body(doc.lines) and all(heading != t for _, _, t in spans):
        spans.insert(0, (at, at + 1, heading))
    out: list[Chunk] = []
    for start, end, text in spans:
        digest = sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        out.append(Chunk(f"{doc.rel}#{len(out)}", start, end, text, digest[:32]))
    return out


def embed_text(text: str) -> str:
    """Text as the encoder should see it: identifiers split into words, no Markdown marks.

    Args:
        text: Markdown.

    Returns:
        e.g. ``embed_text("set `default_pool_size`")`` → ``"set default pool size"``.
    """
    text = _CODE.sub(lambda m: _CAMEL.sub(" ", m.group(1)), text)
    text = _JOINER.sub(" ", _MARKUP.sub(" ", text))
    return "\n".join(_SPACES.sub(" ", ln).strip() for ln in text.split("\n")).strip()


def _title(doc: Doc) -> tuple[int, str]:
    # The ``# `` heading near the top and its line, or (0, "").
    for i, line in enumerate(doc.lines[:5]):
        if line.startswith("# "):
            return i, line.strip()
    return 0, ""


def _label(doc: Doc) -> str:
    # A note's name and aliases: "rate limiting — throttling, quotas".
    if doc.kind != "note":
        return ""
    parts = [doc.key.replace("-", " ").replace("_", " ").strip()]
    if doc.lines and doc.lower[0].startswith(ALIASES):
        parts.append(doc.lines[0][len(ALIASES) :].strip())
    return " — ".join(p for p in parts if p)


def _sections(lines: tuple[str, ...]) -> list[tuple[int, int]]:
    # Heading lines inside fenced code (a shell comment, a Python comment) are not headings.
    bounds = [0]
    fenced = False
    for i, line in enumerate(lines):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and i and _HEADING.match(line):
            bounds.append(i)
    bounds.append(len(lines))
    spans: list[tuple[int, int]] = []
    lo = 0
    for hi in bounds[1:]:
        if _has_body(lines[lo:hi]):
            spans.append((lo, hi))
            lo = hi
    if lo < len(lines) and spans:
        spans[-1] = (spans[-1][0], len(lines))
    elif lo < len(lines):
        spans.append((lo, len(lines)))
    return spans


def _has_body(lines: tuple[str, ...]) -> bool:
    # A heading, the aliases line and blank lines alone are not a passage.
    return any(
        ln.strip() and not _HEADING.match(ln) and not ln.casefold().startswith(ALIASES)
        for ln in lines
    )


def _pieces(lines: tuple[str, ...]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in _sections(lines):
        start, size = lo, 0
        for i in range(lo, hi):
            n = len(lines[i]) + 1
            if size and size + n > MAX_CHARS:
                out.append((start, i))
                start, size = i, 0
            size += n
        out.append((start, hi))
    return out


__all__ = ["MAX_CHARS", "MAX_EMBED", "Chunk", "chunks", "embed_text"]

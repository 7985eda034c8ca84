"""The injected memory block (spec §3). Pure: documents in, text out.

Sections survive the budget in priority order: scratchpad open items, the newest daily
log, MEMORY.md, the second-newest daily log, then an index of notes. zerostack put
MEMORY.md first and watched it starve today's log once it grew; this order keeps the
freshest, most actionable text.
"""

from __future__ import annotations

from typing import NamedTuple

from memhooks.memory.constants import DEFAULT_INJECT_BUDGET, WRAPPER_CLOSE, WRAPPER_OPEN
from memhooks.memory.corpus import Doc, newest_dailies
from memhooks.memory.note_format import OPEN_ITEM, header_lines, superseded_by
from memhooks.memory.text import cut, nbytes, neutralise, wrap

#: The line the block ends with when the model reaches memory through the shell.
USAGE = (
    "Memory tools: `memhooks search TERM...` finds files, `memhooks read PATH` reads one, "
    "`memhooks write --to daily|note|memory|scratchpad --text ...` saves."
)
#: The line when the project has the `memhooks mcp` server configured (hooks/ detects it).
USAGE_MCP = (
    "Memory tools (MCP server memhooks): `memory_search` finds files, `memory_read` reads "
    "one, `memory_write` saves, `memory_edit` and `memory_forget` correct."
)


class Section(NamedTuple):
    """One titled part of the block."""

    title: str
    body: str


def sections(docs: dict[str, Doc], today: str) -> list[Section]:
    """The block's sections in priority order; empty ones are left out.

    Args:
        docs: the project's corpus (see `Store.corpus`).
        today: local date, YYYY-MM-DD, to mark today's log.
    """
    out: list[Section] = []
    for d in docs.values():
        if d.kind == "scratchpad":
            items = [ln for ln in d.lines if OPEN_ITEM.match(ln)]
            if items:
                out.append(Section("Scratchpad (open items)", "\n".join(items)))
    logs = newest_dailies(docs, 2)
    if logs:
        mark = " (today)" if logs[0].key == today else ""
        out.append(Section(f"Daily log {logs[0].key}{mark}", logs[0].text.strip()))
    memory = [d for d in docs.values() if d.kind == "memory" and d.text.strip()]
    if memory:
        out.append(Section("MEMORY.md", memory[0].text.strip()))
    if len(logs) > 1:
        out.append(Section(f"Daily log {logs[1].key}", logs[1].text.strip()))
    notes = sorted((d for d in docs.values() if d.kind == "note"), key=lambda d: d.key)
    if notes:
        index = [_index_line(d) for d in notes]
        out.append(
            Section("Notes (read with `memhooks read notes/NAME`)", "\n".join(index))
        )
    return out


def first_line(doc: Doc) -> str:
    """A note's first meaningful line: not blank, not a header line (``aliases:``,
    ``superseded-by:``), heading marks dropped.
    """
    head = _head(doc)
    for ln in head[header_lines(head) :]:
        s = ln.strip()
        if s:
            return s.lstrip("#").strip()[:120]
    return ""


def _head(doc: Doc, lines: int = 12) -> list[str]:
    # The first lines only: the index is built over every note, and `Doc.lines` would keep
    # a split copy of each one in a session process for the rest of the session.
    return doc.text.split("\n", lines)[:lines]


def _index_line(doc: Doc) -> str:
    # Forgotten notes never reach here (Store.load drops them); superseded ones say so.
    newer = superseded_by(_head(doc))
    mark = f"(superseded by notes/{newer.by}.md) " if newer else ""
    return f"- notes/{doc.filename} — {mark}{first_line(doc)}".rstrip(" —")


def render(
    parts: list[Section], budget: int = DEFAULT_INJECT_BUDGET, usage: str = USAGE
) -> str:
    """Render sections into the wrapped block, within `budget` UTF-8 bytes.

    Whole sections are kept while they fit; the first that does not is cut and marked
    ``…[section truncated: T]``; each later one is replaced by ``…[section omitted: T]``.
    A final backstop cut marks ``…[memory truncated]``. No sections → "".

    Args:
        parts: the sections, in priority order.
        budget: UTF-8 bytes the whole block may take.
        usage: the line after the block: `USAGE`, or `USAGE_MCP` when the caller found
            the MCP server configured.
    """
    if not parts:
        return ""
    frame = nbytes(wrap("")) + nbytes("\n" + usage)
    room = budget - frame
    rendered = [f"## {s.title}\n{neutralise(s.body)}" for s in parts]
    omitted = [f"…[section omitted: {s.title}]" for s in parts]
    out: list[str] = []
    for i, text in enumerate(rendered):
        sep = 2 if out else 0  # blank line between sections
        if nbytes(text) + sep <= room - _later(omitted, i):
            out.append(text)
            room -= nbytes(text) + sep
            continue
        space = room - sep - _later(omitted, i)
        marker = f"…[section truncated: {parts[i].title}]"
        if space > nbytes(marker) + 40:
            out.append(cut(text, space, marker))
        else:
            out.append(omitted[i])
        out.extend(omitted[i + 1 :])
        break
    body = "\n\n".join(out)
    block = wrap(body) + "\n" + usage
    if nbytes(block) > budget:
        # Backstop: only reachable with budgets too small for the markers themselves.
        inner = cut(body, max(0, budget - frame), "…[memory truncated]")
        block = wrap(inner) + "\n" + usage
        block = cut(block, budget) if nbytes(block) > budget else block
    return block


def _later(omitted: list[str], i: int) -> int:
    return sum(nbytes(m) + 2 for m in omitted[i + 1 :])


def build(
    docs: dict[str, Doc],
    today: str,
    budget: int = DEFAULT_INJECT_BUDGET,
    usage: str = USAGE,
) -> str:
    """The block for a project's corpus: `render(sections(docs, today), budget, usage)`."""
    return render(sections(docs, today), budget, usage)


__all__ = [
    "USAGE",
    "USAGE_MCP",
    "WRAPPER_CLOSE",
    "WRAPPER_OPEN",
    "Section",
    "build",
    "render",
    "sections",
]

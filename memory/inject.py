"""The injected memory block (docs/design.md). Pure: documents in, text out.

Sections come in this order: the files a git merge left in conflict (`merging`),
scratchpad open items, the newest daily log, MEMORY.md, the second-newest daily log, then
an index of notes. zerostack put MEMORY.md first and watched it starve today's log once
it grew; a strict priority order starved MEMORY.md instead once the hooks wrote today's
log on their own (issue #15). So each section has a share of the budget (`WEIGHTS`), and
what one does not use flows on to the others.
"""

from __future__ import annotations

from typing import NamedTuple

from memhooks.memory import merging
from memhooks.memory.constants import DEFAULT_INJECT_BUDGET, WRAPPER_CLOSE, WRAPPER_OPEN
from memhooks.memory.corpus import Doc, newest_dailies
from memhooks.memory.log_entries import entries
from memhooks.memory.note_format import OPEN_ITEM, note_head, note_top, superseded_by
from memhooks.memory.text import cut, nbytes, neutralise, wrap
from memhooks.memory.toolsline import USAGE

NOTHING_YET = "No memory to show yet for this project."  #: the block of no sections

#: The sections' titles but the daily logs'; `{prog}` is the tools line's command.
SCRATCHPAD_TITLE = "Scratchpad (open items)"
MEMORY_TITLE = "MEMORY.md"
NOTES_SHELL = "Notes (read with `{prog} read notes/NAME`)"
#: What a note's line in that index says of a note that holds a conflict.
_CONFLICTED = "(unresolved merge conflict) "


class Section(NamedTuple):
    """One titled part of the block; `role` names its share (see `WEIGHTS`)."""

    title: str
    body: str
    role: str = ""


def sections(docs: dict[str, Doc], today: str, prog: str = "memhooks") -> list[Section]:
    """The block's sections in the order of the text; empty ones are left out.

    Args:
        docs: the project's corpus (see `Store.corpus`).
        today: local date, YYYY-MM-DD, to mark today's log.
        prog: the `memhooks` command the index of notes names (hooks/modelshell.py).
    """
    out: list[Section] = []
    for d in docs.values():
        if d.kind == "scratchpad" and (items := body(d)):
            out.append(Section(SCRATCHPAD_TITLE, items, "scratchpad"))
    logs = newest_dailies(docs, 2, today)
    if logs:
        out.append(Section(_log_title(logs[0].key, today), body(logs[0]), "today"))
    memory = [d for d in docs.values() if d.kind == "memory" and d.text.strip()][:1]
    out.extend(Section(MEMORY_TITLE, body(d), "memory") for d in memory)
    if len(logs) > 1:
        out.append(Section(_log_title(logs[1].key, today), body(logs[1]), "older"))
    notes = sorted((d for d in docs.values() if d.kind == "note"), key=lambda d: d.key)
    if notes:
        index = list(map(index_line, notes))
        out.append(Section(NOTES_SHELL.format(prog=prog), "\n".join(index), "notes"))
        # Looked through again only where its index line found a conflict.
        notes = [d for d, line in zip(notes, index, strict=True) if _CONFLICTED in line]
    if told := merging.conflict_body([*logs[:1], *memory, *logs[1:], *notes]):
        out.insert(0, Section(merging.CONFLICT_TITLE, told, "conflict"))
    return out


def body(doc: Doc) -> str:
    """What the section of a scratchpad, a daily log or MEMORY.md shows of it whole,
    before `render` neutralises it: the open items of a scratchpad, another's text."""
    if doc.kind == "scratchpad":
        return "\n".join(ln for ln in doc.lines if OPEN_ITEM.match(ln))
    return doc.text.strip()


def _log_title(key: str, today: str) -> str:
    mark = " (today)" if key == today else " (dated after today)" if key > today else ""
    return f"Daily log {key}{mark}"


def first_line(doc: Doc) -> str:
    """A note's first meaningful line: not blank, not a header line (``aliases:``,
    ``superseded-by:``), heading marks dropped; for a note with YAML front matter, its
    ``title:``, else the first such line after it.
    """
    head = _head(doc)
    top = note_head(head)
    if top.title:
        return top.title[:120]
    for ln in head[top.body : top.body + 40]:
        s = ln.strip()
        if s and not merging.is_marker(s):
            return s.lstrip("#").strip()[:120]
    return ""


def _head(doc: Doc) -> list[str]:
    # The first lines only: the index is built over every note, and `Doc.lines` would keep
    # a split copy of each one in a session process for the rest of the session.
    return note_top(doc.text).split("\n")


def index_line(doc: Doc) -> str:
    """A note's line in the block's index of notes."""
    # Forgotten notes never reach here (Store.load drops them); marked: superseded, merging.
    newer = superseded_by(_head(doc))
    mark = f"(superseded by notes/{newer.by}.md) " if newer else ""
    mark += _CONFLICTED if merging.conflict_at(doc) else ""
    return f"- notes/{doc.filename} — {mark}{first_line(doc)}".rstrip(" —")


#: Each section's share of the budget (docs/design.md, revised after real use). A section
#: that needs less than its share leaves the rest to the others, so with a small log every
#: section is whole; under pressure each keeps at least its share, so today's log, which
#: the hooks append to on their own, can never push MEMORY.md or the open items out. What
#: people wrote weighs most: at Claude Code's 9,000-byte cap MEMORY.md keeps ≥ 3.1 KB and
#: the open items ≥ 2.3 KB however large the logs grow (all five sections present; more
#: when some need less). A merge conflict's warning, short, weighs as MEMORY.md.
WEIGHTS: dict[str, int] = {
    "scratchpad": 3,
    "today": 2,
    "memory": 4,
    "older": 1,
    "notes": 1,
    "conflict": 4,
}

#: What begins the tail of a log cut within a line.
_PART = "…"
#: Bytes of text a truncated section shows at the least; with less it is omitted.
LEAST_SHOWN = 40
#: Where a block too small for the sections' own markers is cut.
CUT = "…[memory truncated]"


class Share(NamedTuple):
    """What one section got: its size whole, the bytes it takes in the block, and how."""

    title: str
    need: int
    used: int
    state: str  #: "whole", "truncated" or "omitted"


def render(
    parts: list[Section], budget: int = DEFAULT_INJECT_BUDGET, usage: str = USAGE
) -> str:
    """Render sections into the wrapped block, within `budget` UTF-8 bytes.

    Each section gets a share of the budget by its weight (`WEIGHTS`); what a section
    does not need flows on to the others. A section longer than what it got is cut and
    marked ``…[section truncated: T]`` (a daily log keeps its newest entries, the marker
    first); one that gets too little for that is replaced by ``…[section omitted: T]``,
    and what the omitted ones got goes, weightiest first, to one it lets show its head
    (at the smallest budget, 512 bytes, MEMORY.md's head rather than no text at all).
    The order of the sections in the text never changes. A final backstop cut marks
    `CUT`. No sections: `NOTHING_YET` in the wrapper, then the tools line.

    Args:
        parts: the sections, in the order of the text.
        budget: UTF-8 bytes the whole block may take.
        usage: the line after the block: `USAGE`, or `USAGE_MCP` when the caller found
            the MCP server configured.
    """
    return render_shares(parts, budget, usage)[0]


def render_shares(
    parts: list[Section], budget: int = DEFAULT_INJECT_BUDGET, usage: str = USAGE
) -> tuple[str, list[Share]]:
    """`render`, and what each section got (for `memhooks report`)."""
    if not parts:
        return wrap(NOTHING_YET) + "\n" + usage, []
    frame = nbytes(wrap("")) + nbytes("\n" + usage)
    room = budget - frame - 2 * (len(parts) - 1)  # a blank line between sections
    rendered = [f"## {s.title}\n{neutralise(s.body)}" for s in parts]
    omitted = [f"…[section omitted: {s.title}]" for s in parts]
    need = [nbytes(t) for t in rendered]
    floor = [min(n, nbytes(m)) for n, m in zip(need, omitted, strict=True)]
    weights = [WEIGHTS.get(s.role, 1) for s in parts]
    extra = _fill(
        [n - f for n, f in zip(need, floor, strict=True)],
        weights,
        max(0, room - sum(floor)),
    )
    least = [nbytes(f"…[section truncated: {s.title}]") + LEAST_SHOWN for s in parts]
    extra = _pooled(
        extra,
        [n - f for n, f in zip(need, floor, strict=True)],
        [lo - f for lo, f in zip(least, floor, strict=True)],
        weights,
    )
    out: list[str] = []
    shares: list[Share] = []
    for part, text, gone, n, f, e in zip(
        parts, rendered, omitted, need, floor, extra, strict=True
    ):
        got = f + e
        marker = f"…[section truncated: {part.title}]"
        if got >= n:
            piece, state = text, "whole"
        elif got > nbytes(marker) + LEAST_SHOWN:
            if part.role in ("today", "older"):
                room = got - nbytes(marker) - nbytes(_PART) - 2
                piece = _cut_tail(_people_first(text, room), got, marker)
            else:
                piece = cut(text, got, marker)
            state = "truncated"
        else:
            piece, state = gone, "omitted"
        out.append(piece)
        shares.append(Share(part.title, n, nbytes(piece), state))
    body = "\n\n".join(out)
    block = wrap(body) + "\n" + usage
    if nbytes(block) > budget:
        # Backstop: only reachable with budgets too small for the markers themselves.
        inner = cut(body, max(0, budget - frame), CUT)
        block = wrap(inner) + "\n" + usage
        block = cut(block, budget) if nbytes(block) > budget else block
    return block, shares


def _pooled(
    extra: list[int], wants: list[int], least: list[int], weights: list[int]
) -> list[int]:
    """`extra`, with what the sections too starved to show any text got (each would be
    only its omitted marker) given, weightiest first, to those it lets show a head.

    At the smallest budgets every share is below that (`INJECT_BUDGET_MIN`): pooled, the
    most important section (MEMORY.md) shows its head, marked truncated, instead of every
    section showing only its title.
    """
    starved = [i for i, e in enumerate(extra) if e < wants[i] and e <= least[i]]
    if len(starved) < 2:
        return extra
    out = list(extra)
    pool = sum(out[i] for i in starved)
    for i in sorted(starved, key=lambda i: -weights[i]):  # stable: first of a weight
        given = min(pool, wants[i]) if pool > least[i] else 0
        out[i] = given
        pool -= given
    return out


def _fill(wants: list[int], weights: list[int], room: int) -> list[int]:
    """Split `room` by weight; what a section does not want goes to those that want more."""
    got = [0] * len(wants)
    open_ = [i for i, w in enumerate(wants) if w > 0]
    while open_ and room > 0:
        total = sum(weights[i] for i in open_)
        share = {i: room * weights[i] // total for i in open_}
        done = [i for i in open_ if wants[i] - got[i] <= share[i]]
        if not done:  # everyone wants more than their share: each gets it
            for i in open_:
                got[i] += share[i]
            break
        for i in done:  # satisfied: the rest of their share flows on
            room -= wants[i] - got[i]
            got[i] = wants[i]
        open_ = [i for i in open_ if i not in done]
    return got


def _people_first(log: str, room: int) -> str:
    """A log too long for `room` bytes, its person's entries kept before the hooks'
    records (`log_entries.TITLES`): the records get what those leave, newest first, the
    one that does not fit whole cut to its heading and newest lines (as a log is: a
    condensed record's last summaries and answer), older ones left out. With no room
    left by a person's entries, those alone (then cut by their tail, `_cut_tail`)."""
    parts = entries(log)
    left = room - sum(nbytes(e.text) for e in parts if not e.automatic)
    out = [e.text for e in parts]
    for i in reversed(range(len(parts))):
        if not parts[i].automatic:
            continue
        text = out[i].rstrip("\n")
        end = out[i][len(text) :]
        if nbytes(out[i]) <= left:
            left -= nbytes(out[i])
        else:
            heading, _, body = text.partition("\n")
            more = left - nbytes(end) - nbytes(heading) - nbytes(_PART) - 1
            tail = _tail(body, more)[0] if more > LEAST_SHOWN else ""
            out[i], left = (f"{heading}\n{tail}{end}" if tail else ""), 0
    return "".join(out).rstrip("\n")  # as the log's text is (`sections`)


def _cut_tail(text: str, max_bytes: int, marker: str) -> str:
    """A log cut to its newest lines: heading, marker, then the tail from a line start,
    or from a word's start after ``…`` when no line starts near the cut; a tail that
    begins within an entry is headed by that entry's ``###`` line (its time and title).
    A log that fits once its records were left out (`_people_first`) is kept whole."""
    heading, _, body = text.partition("\n")
    room = max_bytes - nbytes(heading) - nbytes(marker) - nbytes(_PART) - 2
    if nbytes(body) <= room:
        return f"{heading}\n{marker}\n{body}"
    tail, start = _tail(body, room)
    entry = _entry_heading(body, start, tail)
    if entry and nbytes(entry) + 1 <= room // 2:
        tail, start = _tail(body, room - nbytes(entry) - 1)
        # Cut later now, it may lie in a later entry, whose heading is no longer.
        later = _entry_heading(body, start, tail)
        if later and nbytes(later) <= nbytes(entry):
            tail = f"{later}\n{tail}"
    return f"{heading}\n{marker}\n{tail}" if tail else cut(text, max_bytes, marker)


def _tail(body: str, room: int) -> tuple[str, int]:
    # The last `room` bytes of `body` from a line's or a word's start (then after
    # ``…``), or from an entry's heading where one is near; and where in `body` it starts.
    raw = body.encode("utf-8", "surrogatepass")
    tail = raw[len(raw) - max(room, 0) :].decode("utf-8", "ignore") if room > 0 else ""
    start, mark = len(body) - len(tail), ""
    newline = tail.find("\n")
    if 0 <= newline < len(tail) // 4:
        tail, start = tail[newline + 1 :], start + newline + 1
    elif tail and start > 0 and body[start - 1] != "\n":
        # Mid-line: from the next word on, marked as the end of a longer line.
        space = tail.find(" ")
        if 0 <= space < len(tail) // 4:
            tail, start = tail[space + 1 :], start + space + 1
        mark = _PART
    entry = tail.find("\n### ")  # start at an entry's heading where one is near
    if 0 <= entry < len(tail) // 2:
        return tail[entry + 1 :], start + entry + 1
    return mark + tail, start


def _entry_heading(body: str, start: int, tail: str) -> str:
    # The `###` line of the entry `body[start:]` begins within; "" at one or before one.
    if not tail or tail.startswith("### "):
        return ""
    at = body.rfind("\n### ", 0, start) + 1
    if not at and not body.startswith("### "):
        return ""
    end = body.find("\n", at)
    return body[at : end if end >= 0 else len(body)]


def build(
    docs: dict[str, Doc],
    today: str,
    budget: int = DEFAULT_INJECT_BUDGET,
    usage: str = USAGE,
) -> str:
    """The block for a project's corpus: `render(sections(docs, today), budget, usage)`."""
    return render(sections(docs, today), budget, usage)


__all__ = [
    "CUT",
    "MEMORY_TITLE",
    "NOTES_SHELL",
    "NOTHING_YET",
    "SCRATCHPAD_TITLE",
    "WEIGHTS",
    "WRAPPER_CLOSE",
    "WRAPPER_OPEN",
    "Section",
    "Share",
    "body",
    "build",
    "index_line",
    "render",
    "render_shares",
    "sections",
]

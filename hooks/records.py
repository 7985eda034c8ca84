"""What the hooks write on their own: which daily-log entries are theirs, what is new, condensing.

The hooks append records to today's log with no person choosing to (issue #15): a flush at
compaction, the harness's compaction summary, a session-end record. Left alone they grow
the log on every session and crowd out what people wrote, so a record holds only what is
not on record yet, and a day's records are condensed once the log passes a size. A
person's entries are never touched: records are recognised by their titles (`TITLES`).

Pure: text in, text out; the handlers do the reading and writing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from memhooks.hooks.record_body import render_digest
from memhooks.hooks.transcript import TranscriptDigest
from memhooks.memory.digests import blake2b
from memhooks.memory.file_bytes import crlf
from memhooks.memory.log_entries import (
    CONDENSED,
    COUNT,
    FLUSH,
    HARNESS_SUMMARY,
    HEADING,
    SECTIONS,
    SESSION_END,
    TITLES,
    Entry,
    entries,
    unquote,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

#: Size caps of one record's body, in characters (a record is mostly ASCII).
FLUSH_MAX = 3000
SESSION_END_MAX = 2000
SUMMARY_MAX = 3000
#: Condense today's automatic records once the log passes this many bytes.
CONDENSE_AT = 24 * 1024
#: In a condensed record each summary keeps its head, and all of them at most this much.
CONDENSED_SUMMARY = 500
CONDENSED_SUMMARIES_MAX = 16 * 1024

# A prompt that is only a slash command line: `/compact`, `/model opus`, `/mcp:tool x`.
_SLASH = re.compile(r"/[A-Za-z][\w:.-]*(?:[ \t][^\n]*)?")
_SUMMARY = re.compile(
    r"<\s*summary\s*>(.*?)(?:<\s*/\s*summary\s*>|\Z)", re.IGNORECASE | re.DOTALL
)
_ANALYSIS = re.compile(
    r"<\s*analysis\s*>.*?(?:<\s*/\s*analysis\s*>|(?=<\s*summary\s*>)|\Z)",
    re.IGNORECASE | re.DOTALL,
)
_STRAY_TAG = re.compile(r"<\s*/?\s*(?:analysis|summary)\s*>", re.IGNORECASE)
# Claude Code's own rendering in the transcript: "Analysis:\n…\nSummary:\n…".
_PLAIN_SUMMARY = re.compile(r"^\s*Summary:\s*$", re.MULTILINE)
_PREAMBLE = re.compile(
    r"^This session is being continued from a previous conversation.*?\n", re.DOTALL
)
# ...and its closing lines, addressed to the model, not part of the summary (2.1.332
# adds "Continue the conversation…" and "The messages after this summary…" lines).
_TRAILER = re.compile(
    r"\n\s*(?:Please continue the conversation from where"
    r"|Continue the conversation from where it left off"
    r"|The messages after this summary are the most recent messages"
    r"|If you need specific details from before compaction)[^\n]*(?=\n|\Z)"
)
_KEY_CHARS = 150


def posing_as_record(title: str, body: str) -> str | None:
    """What would make a person's entry with this title and body read as one of the
    records (`TITLES`), which condensing merges away: the title, or a heading line of
    the body; None when nothing would."""
    if " ".join(title.split()) in TITLES:
        return title
    for m in HEADING.finditer(body):
        if m[2].strip() in TITLES:
            return m[0]
    return None


def makes_records(log: str, old: str, new: str) -> bool:
    """Whether replacing `old` by `new` in a daily log makes more of its entries read as
    records (`TITLES`): a person's entry retitled so would be condensed away."""
    if "\r\n" in log:  # as `Store.edit` reads them
        old, new = crlf(old), crlf(new)
    return _automatic(log.replace(old, new, 1)) > _automatic(log)


def _automatic(log: str) -> int:
    return sum(e.automatic for e in entries(log))


def entry_id(text: str) -> str:
    """A daily-log entry's identity: the same entry keeps it when others are appended."""
    return blake2b(
        text.strip().encode("utf-8", "surrogatepass"), digest_size=6
    ).hexdigest()


def entry_ids(log: str) -> set[str]:
    """Ids of every entry of a daily log."""
    return {entry_id(e.text) for e in entries(log)}


def is_slash_command(prompt: str) -> bool:
    """A prompt that is just a `/word` command line (`/compact`, `/model opus`)."""
    return "\n" not in prompt.strip() and bool(_SLASH.fullmatch(prompt.strip()))


def summary_part(text: str) -> str:
    """The `<summary>` of a compaction reply, without the `<analysis>` scratchpad.

    Claude Code's PostCompact `compact_summary` is the model's raw reply: `<analysis>`
    (working notes, several KB) then `<summary>`. Either may be missing or unclosed; an
    unclosed analysis with no summary is all working notes and gives "".
    """
    if match := _SUMMARY.search(text):
        return match[1].strip()
    text = _STRAY_TAG.sub("", _ANALYSIS.sub("", text))
    # The transcript's copy: Claude Code writes "Analysis:" then "Summary:" as labels.
    if plain := _PLAIN_SUMMARY.search(text):
        text = text[plain.end() :]
    return _TRAILER.sub("", _PREAMBLE.sub("", text.strip())).strip()


def key(text: str) -> str:
    """What two mentions of the same item share: its first words, case and spacing aside."""
    words = " ".join(text.replace("`", "'").split()).casefold().rstrip("…").strip()
    return blake2b(
        words[:_KEY_CHARS].encode("utf-8", "surrogatepass"), digest_size=6
    ).hexdigest()


class Items(NamedTuple):
    """The items of a run of records, each once, in first-seen order."""

    prompts: list[str]
    files: list[str]
    commands: list[str]
    summaries: list[tuple[str, str]]  #: (HH:MM, text)
    assistant: str | None


def items(records: Iterable[Entry]) -> Items:
    """Read back the items of automatic records (as `render_digest` wrote them)."""
    found = Items([], [], [], [], None)
    lists = {"prompt": found.prompts, "file": found.files, "command": found.commands}
    seen: set[tuple[str, str]] = set()
    assistant: str | None = None
    for entry in records:
        body = entry.text.split("\n", 1)[1] if "\n" in entry.text else ""
        if entry.title == HARNESS_SUMMARY:
            found.summaries.append((entry.time, unquote(body).strip()))
            continue
        for kind, value in _body_items(body):
            if kind == "assistant":
                assistant = value
            elif kind == "summary":
                at, _, text = value.partition(": ")
                pair = (at, text) if re.fullmatch(r"\d\d:\d\d", at) else ("", value)
                found.summaries.append(pair if pair[0] else (entry.time, value))
            elif (kind, key(value)) not in seen:
                seen.add((kind, key(value)))
                lists[kind].append(value)
    return found._replace(assistant=assistant)


def _body_items(body: str) -> Iterator[tuple[str, str]]:
    kind: str | None = None
    for line in body.split("\n"):
        s = line.strip()
        if s.startswith("**") and s.endswith("**"):
            kind = SECTIONS.get(s.strip("*"))
        elif kind and s.startswith("- ") and not s.startswith("- …("):
            value = s[2:]
            if kind in ("file", "command") and value[:1] == value[-1:] == "`":
                value = value[1:-1]
            yield kind, value
        elif kind and s.startswith("> "):
            yield kind, s[2:]


def on_record(log: str) -> set[str]:
    """Keys of everything today's automatic records already hold (see `key`)."""
    got = items(e for e in entries(log) if e.automatic)
    keys = {key(x) for x in (*got.prompts, *got.files, *got.commands)}
    keys |= {key(text) for _, text in got.summaries}
    if got.assistant:
        keys.add(key(got.assistant))
    return keys


def news(d: TranscriptDigest, recorded: set[str]) -> TranscriptDigest:
    """What a digest holds that is not on record: no slash commands, each item once.

    The last assistant message is kept only beside something else new: a session that
    asked a question already on record and got the same answer adds nothing.
    """
    seen = set(recorded)

    def fresh(values: Iterable[str]) -> tuple[str, ...]:
        out = []
        for v in values:
            if v.strip() and (k := key(v)) not in seen:
                seen.add(k)
                out.append(v)
        return tuple(out)

    prompts = fresh(p for p in d.prompts if not is_slash_command(p))
    files, commands = fresh(d.files), fresh(d.commands)
    summary = summary_part(d.compact_summary or "")
    summary = summary if summary and key(summary) not in seen else ""
    if not (prompts or files or commands or summary):
        return TranscriptDigest()
    last = (
        d.last_assistant
        if d.last_assistant and key(d.last_assistant) not in seen
        else None
    )
    return TranscriptDigest(prompts, files, commands, last, summary or None)


def render(d: TranscriptDigest, max_total: int) -> str:
    """A record's body: `render_digest` within `max_total` characters."""
    return render_digest(d, max_items=20, max_chars=300, max_total=max_total)


def condense(log: str) -> str:
    """Today's log with all its automatic records merged into one, where the first was.

    Every distinct prompt, file and command is kept once, each compaction summary by its
    head; a person's entries keep every byte and their place. A log with fewer than two
    automatic records is returned unchanged.
    """
    parts = entries(log)
    auto = [e for e in parts if e.automatic]
    if len(auto) < 2:
        return log
    merged = _condensed(auto) + "\n"
    first, nl, _ = log.partition("\n")
    if nl and first.endswith("\r"):  # the log's convention, as the store's appends keep
        merged = crlf(merged)
    out: list[str] = []
    last = -1  # the place in `parts` of the last part kept
    for i, e in enumerate(parts):
        if e.automatic and e is not auto[0]:
            continue
        # Two entries of a person that were next to each other stay so, byte for byte.
        joined = last == i - 1 and not (e is auto[0] or parts[last] is auto[0])
        if out and not joined and not out[-1].endswith(("\n\n", "\n\r\n")):
            # A hand-edited entry may end without its blank line: the next heading
            # must still start a line of its own.
            nl = "\r\n" if out[-1].endswith("\r\n") else "\n"
            out.append(nl if out[-1].endswith("\n") else "\n\n")
        out.append(merged if e is auto[0] else e.text)
        last = i
    return "".join(out)


def _records_in(entry: Entry) -> int:
    # A record condensed before counts the records it merged.
    m = COUNT.search(entry.text) if entry.title == CONDENSED else None
    return int(m[1]) if m else 1


def _condensed(auto: list[Entry]) -> str:
    got = items(auto)
    count = sum(_records_in(e) for e in auto)
    lines = [
        f"### {auto[0].time} — {CONDENSED}",
        (
            f"_{count} records from {auto[0].time} to {auto[-1].time}, condensed: each "
            "prompt, file and command once, each compaction summary by its head._"
        ),
    ]
    for title, values, code in (
        ("Prompts", got.prompts, False),
        ("Files edited", got.files, True),
        ("Commands", got.commands, True),
    ):
        if values:
            lines += ["", f"**{title}**"]
            lines += [f"- `{v}`" if code else f"- {v}" for v in values]
    if got.summaries:
        lines += ["", "**Compaction summaries**", *_summary_lines(got.summaries)]
    if got.assistant:
        lines += ["", "**Last assistant message**", f"> {got.assistant}"]
    return "\n".join(lines)


def _summary_lines(summaries: list[tuple[str, str]]) -> list[str]:
    """One line per summary, newest kept longest, all within `CONDENSED_SUMMARIES_MAX`."""
    out: list[str] = []
    room = CONDENSED_SUMMARIES_MAX
    for at, text in reversed(summaries):
        one = " ".join(text.split())
        size = CONDENSED_SUMMARY if room > CONDENSED_SUMMARY * 4 else 160
        if len(one) > size:
            one = one[: size - 1].rstrip() + "…"
        line = f"- {at}: {one}" if at else f"- {one}"
        if len(line) + 1 > room:
            out.append(f"- …({len(summaries) - len(out)} earlier summaries omitted)")
            break
        out.append(line)
        room -= len(line) + 1
    return out[::-1]


__all__ = [
    "CONDENSED",
    "CONDENSE_AT",
    "FLUSH",
    "HARNESS_SUMMARY",
    "SESSION_END",
    "TITLES",
    "Entry",
    "condense",
    "entries",
    "is_slash_command",
    "items",
    "key",
    "news",
    "on_record",
    "posing_as_record",
    "render",
    "summary_part",
]

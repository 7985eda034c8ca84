"""A transcript's digest as the Markdown body of a daily log record: its prompts, files
edited and commands as lists, the compaction summary and the last answer as quotes.

`hooks.transcript` digests what a stretch of transcript holds; `hooks.records` writes
the record and reads its items back. A body over its size keeps the newest items of
each list, shorter, so that the latest prompts, the commands and the last answer stay.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memhooks.memory.log_entries import TRUNCATED

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memhooks.hooks.transcript import TranscriptDigest

_BLANK = re.compile(r"[\s\x00-\x1f\x7f-\x9f]+")


def _one_line(text: str, max_chars: int) -> str:
    # Backticks become quotes (no code spans); a long one keeps its head and its end.
    text, end = _BLANK.sub(" ", text).strip().replace("`", "'"), max_chars // 3
    if len(text) > max_chars:
        text = f"{text[: max(max_chars - end - 1, 0)].rstrip()}…{text[-end:][:end]}"
    return text


def _list_section(title: str, items: Sequence[str], max_items: int, code: bool) -> str:
    kept = items[-max_items:] if max_items > 0 else ()
    lines = [f"**{title}**"]
    if len(items) > len(kept):
        lines.append(f"- …({len(items) - len(kept)} earlier omitted)")
    lines += [f"- `{item}`" if code else f"- {item}" for item in kept]
    return "\n".join(lines)


def render_digest(
    d: TranscriptDigest,
    *,
    max_items: int = 20,
    max_chars: int = 300,
    max_total: int = 4000,
) -> str:
    """Render a digest as the Markdown body (no heading) of a daily log entry.

    Args:
        d: The digest.
        max_items: Keep at most this many (the last) items per list.
        max_chars: Collapse each item to one line of at most this many characters.
        max_total: Cut the whole body to at most this many characters.

    Returns:
        Markdown sections separated by blank lines, only for non-empty parts; "" for
        an empty digest. The same digest always renders to the same text. Over
        `max_total`, fewer and shorter items are kept, the newest of each list, so the
        body still holds the latest prompts, the commands and the last answer.
    """
    body = _body(d, max_items, max_chars)
    for items, chars in _SMALLER:
        if len(body) <= max_total:
            return body
        body = _body(d, min(items, max_items), min(chars, max_chars))
    if len(body) <= max_total:
        return body
    head = body[: max(max_total - len(TRUNCATED) - 1, 0)]
    head = head[: head.rfind("\n")].rstrip() if "\n" in head else ""
    return f"{head}\n{TRUNCATED}" if head else TRUNCATED


#: (items per list, characters per item) tried in turn for a body over its size.
_SMALLER = ((10, 300), (5, 300), (3, 150), (2, 100), (1, 80))


def _body(d: TranscriptDigest, max_items: int, max_chars: int) -> str:
    sections: list[str] = []
    lists = (("Prompts", d.prompts, False), ("Files edited", d.files, True))
    for title, items, code in (*lists, ("Commands", d.commands, True)):
        cut = [one for item in items if (one := _one_line(item, max_chars))]
        if cut:
            sections.append(_list_section(title, cut, max_items, code))
    quotes = {"Compaction summary": d.compact_summary}
    for title, text in {**quotes, "Last assistant message": d.last_assistant}.items():
        if one := _one_line(text or "", max_chars):
            sections.append(f"**{title}**\n> {one}")
    return "\n\n".join(sections)

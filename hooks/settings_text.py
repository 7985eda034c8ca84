"""A harness settings file's text as `memhooks install` changes one key of it.

The file belongs to the person who wrote it: when only its ``hooks`` member changes,
every other byte stays as it was. Within that member, each event, matcher group and
handler kept keeps its text and the separators around it; what is added is written in
the file's indent and line ending after the last one, what goes is cut out with its
comma (a member or list laid out on one line gets what is added on lines of its own).
A member that cannot be edited so is written anew where it stood (or added after the
last member). A file whose text cannot be cut so (one line, a duplicate key, other
values changed) is written whole in its layout: BOM, line ending, indent, final newline.
"""

from __future__ import annotations

import codecs
import json
import re
from itertools import pairwise
from typing import Any, NamedTuple

from memhooks.hooks.json_text import items, members, skip

#: The leading whitespace of the first indented line: the file's indent unit.
_INDENT = re.compile(r"^([ \t]+)\S", re.MULTILINE)
_KEY = "hooks"


def dumps_keeping(value: dict[str, Any], raw: bytes | None) -> bytes:
    """``value`` as JSON, the bytes of ``raw`` kept but for the ``hooks`` member."""
    text = "" if raw is None else raw.decode("utf-8-sig")
    spans = _members(text) if "\n" in text.strip() else None
    old = json.loads(text) if spans is not None else None
    if spans is None or not isinstance(old, dict) or len(spans) != len(old) or not old:
        return dumps_like(value, raw)
    others = [(k, v) for k, v in value.items() if k != _KEY]
    if _canon(others) != _canon([(k, v) for k, v in old.items() if k != _KEY]):
        return dumps_like(value, raw)
    unit = indent[1] if (indent := _INDENT.search(text)) else "  "
    newline = m[0] if (m := re.search(r"\r?\n", text)) else "\n"
    if _KEY not in value:
        # An uninstall that leaves no hooks: the member goes, with the comma before it
        # (after it, when it comes first); the other members keep their bytes.
        return _without(text, spans, raw) if _KEY in spans else dumps_like(value, raw)
    dumped = json.dumps(value[_KEY], indent=unit, ensure_ascii=False)
    dumped = dumped.replace("\n", newline + unit)
    if _KEY in spans:
        _, start, end = spans[_KEY]
        kept = _edit(text, start, end, old[_KEY], value[_KEY], (unit, newline))
        if kept is None or _canon(json.loads(kept)) != _canon(value[_KEY]):
            kept = dumped
        out = text[:start] + kept + text[end:]
    else:
        end = max(e for _, _, e in spans.values())
        out = f"{text[:end]},{newline}{unit}{json.dumps(_KEY)}: {dumped}{text[end:]}"
    return _with_bom(out, raw)


class _Item(NamedTuple):
    """A member of an object (by its key) or an item of a list (by its place) in a text."""

    key: Any
    value: Any
    at: int  # where it starts: a member's key
    start: int  # where its value starts
    end: int


def _edit(
    text: str, start: int, end: int, old: Any, new: Any, layout: tuple[str, str]
) -> str | None:
    """The text for ``new`` where ``text[start:end]`` holds ``old``, each member or item
    ``new`` keeps in its own bytes; None when it keeps none, or reorders them."""
    if _canon(old) == _canon(new):
        return text[start:end]
    if not isinstance(new, type(old)) or not isinstance(old, dict | list):
        return None
    found = _items_of(text, start, end, old)
    plan = None if found is None else _aligned(found, new)
    if not found or not plan or not plan[0]:
        return None
    kept, added = plan
    unit, newline = layout
    one_line = "\n" not in text[start:end]
    if one_line and added:  # what is added goes on lines of its own
        inner = _indent_at(text, start) + unit
        lead, tail = newline + inner, newline + _indent_at(text, start) + text[end - 1]
    else:
        inner = _indent_at(text, found[0].at)
        lead, tail = text[start + 1 : found[0].at], text[found[-1].end : end]
    gaps = [text[a.end : b.at] for a, b in pairwise(found)]
    sep = gaps[0] if gaps and not one_line else "," + (lead if "\n" in lead else " ")

    def dump(v: Any) -> str:
        if one_line and not added:
            return json.dumps(v, ensure_ascii=False)
        return json.dumps(v, indent=unit, ensure_ascii=False).replace(
            "\n", newline + inner
        )

    place = {id(item): n for n, item in enumerate(found)}
    out, last = [text[start], lead], -1
    for n, (item, value) in enumerate(kept):
        if n:
            out.append(sep if one_line and added else gaps[last])
        body = _edit(text, item.start, item.end, item.value, value, layout)
        out.append(text[item.at : item.start] + (body or dump(value)))
        last = place[id(item)]
    for key, value in added:
        name = (
            json.dumps(key, ensure_ascii=False) + ": " if isinstance(new, dict) else ""
        )
        out += [sep, name + dump(value)]
    return "".join([*out, tail])


def _items_of(text: str, start: int, end: int, old: Any) -> list[_Item] | None:
    """Each member or item of the object or list at ``text[start:end]``; None unless
    read whole, each key once."""
    part = text[start:end]
    if isinstance(old, dict):
        found = [
            _Item(m.key, m.value, start + m.key_at, start + m.start, start + m.end)
            for m in members(part)
        ]
        whole = len({i.key for i in found}) == len(found) == len(old)
    else:
        found = [
            _Item(n, v, start + a, start + a, start + e)
            for n, (v, a, e) in enumerate(items(part))
        ]
        whole = len(found) == len(old)
    if not whole or not found:
        return None
    return found if skip(text, found[-1].end) == end - 1 else None


def _aligned(
    old: list[_Item], new: Any
) -> tuple[list[tuple[_Item, Any]], list[tuple[Any, Any]]] | None:
    """The old items ``new`` keeps, in their order, each with its new value, and what it
    adds after them; None when an object's member moves."""
    pairs = list(new.items()) if isinstance(new, dict) else list(enumerate(new))
    kept: list[tuple[_Item, Any]] = []
    i = 0
    for n, (key, value) in enumerate(pairs):
        match = next(
            (
                j
                for j in range(i, len(old))
                if (
                    old[j].key == key
                    if isinstance(new, dict)
                    else _canon(old[j].value) == _canon(value)
                )
            ),
            None,
        )
        if match is None:
            added = pairs[n:]
            keys = {o.key for o in old} if isinstance(new, dict) else set()
            return None if any(k in keys for k, _ in added) else (kept, added)
        kept.append((old[match], value))
        i = match + 1
    return kept, []


def _indent_at(text: str, i: int) -> str:
    """The whitespace that starts the line holding ``text[i]``."""
    line = text[text.rfind("\n", 0, i) + 1 : i]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _without(
    text: str, spans: dict[str, tuple[int, int, int]], raw: bytes | None
) -> bytes:
    """``text`` with its ``hooks`` member cut out, every other byte kept."""
    key_at, _, end = spans[_KEY]
    before = [e for _, _, e in spans.values() if e <= key_at]
    after = [k for k, _, _ in spans.values() if k > end]
    if before:  # from the end of the member before it: its comma goes
        return _with_bom(text[: max(before)] + text[end:], raw)
    if after:  # the first member: up to the next one's key, with its comma
        return _with_bom(text[:key_at] + text[min(after) :], raw)
    return dumps_like({}, raw)


def _with_bom(out: str, raw: bytes | None) -> bytes:
    bom = "\ufeff" if raw is not None and raw.startswith(codecs.BOM_UTF8) else ""
    return (bom + out).encode()


def _members(text: str) -> dict[str, tuple[int, int, int]] | None:
    """Where each top-level member's key starts and its value starts and ends; None if
    not a plain object."""
    spans: dict[str, tuple[int, int, int]] = {}
    end = skip(text, 0) + 1  # past "{", if the text holds an object
    for m in members(text):
        if m.key in spans:
            return None  # a duplicate key: which one counts is the reader's call
        spans[m.key] = (m.key_at, m.start, m.end)
        end = m.end
    return spans if text.startswith("}", skip(text, end)) else None


def dumps_like(value: dict[str, Any], raw: bytes | None) -> bytes:
    """``value`` as JSON laid out as ``raw`` was: its BOM, line ending, indent and final newline.

    A new or blank file, or one without an indented line, gets two spaces of indent;
    one without a line break gets LF; a new or blank one gets a final newline.
    """
    text = "" if raw is None else raw.decode("utf-8-sig")
    indent = _INDENT.search(text)
    out = json.dumps(value, indent=indent[1] if indent else 2, ensure_ascii=False)
    if text.endswith("\n") or not text.strip():
        out += "\n"
    # json.dumps escapes newlines inside strings, so each "\n" here is a line break.
    if newline := re.search(r"\r?\n", text):
        out = out.replace("\n", newline[0])
    return _with_bom(out, raw)


def holding(raw: bytes, value: dict[str, Any]) -> bool:
    """Whether ``raw`` is JSON for ``value`` (``true`` is not ``1``)."""
    try:
        return _canon(json.loads(raw.decode("utf-8-sig"))) == _canon(value)
    except ValueError:
        return False


def made_from(raw: bytes, before: bytes) -> bool:
    """Whether ``raw`` is what `dumps_keeping` makes of ``before`` for the value ``raw``
    holds: a file a change wrote from ``before``, its layout not touched since."""
    try:
        value = json.loads(raw.decode("utf-8-sig"))
    except ValueError:
        return False
    return isinstance(value, dict) and dumps_keeping(value, before) == raw


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True)

"""A harness settings file's text as `memhooks install` changes one key of it.

The file belongs to the person who wrote it: when only its ``hooks`` member changes,
that member's value is written in the file's indent and line ending where it stood (or
added after the last member), and every other byte stays as it was. A file whose text
cannot be cut so (one line, a duplicate key, other values changed) is written whole in
its layout: BOM, line ending, indent, final newline.
"""

from __future__ import annotations

import codecs
import json
import re
from typing import Any

from memhooks.hooks.json_text import members, skip

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
        out = text[:start] + dumped + text[end:]
    else:
        end = max(e for _, _, e in spans.values())
        out = f"{text[:end]},{newline}{unit}{json.dumps(_KEY)}: {dumped}{text[end:]}"
    return _with_bom(out, raw)


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

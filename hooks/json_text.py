"""The members of a JSON object, or the items of an array, read from its text, with where
each one stands: what a settings file's bytes are cut at (`settings_text`), and the ``id``
of a request of which only the head was kept (`events.id_in_head`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Iterator


class Member(NamedTuple):
    """One top-level member of an object: its key and value, where the key starts and
    where the value starts and ends in the text."""

    key: str
    value: Any
    key_at: int
    start: int
    end: int


def members(text: str) -> Iterator[Member]:
    """The top-level members of the object `text` holds, in order, up to the first thing
    that is not one more: the closing brace, text cut short, or not JSON (nothing if
    `text` holds no object). After the last member, `skip` of its end is at ``}`` when
    the object was read whole."""
    decoder = json.JSONDecoder()
    i = skip(text, 0)
    if not text.startswith("{", i):
        return
    i = skip(text, i + 1)
    while text.startswith('"', i):
        key_at = i
        try:
            key, i = decoder.raw_decode(text, i)
            i = skip(text, i)
            if not text.startswith(":", i):
                return
            start = skip(text, i + 1)
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):  # a value cut short, or not JSON
            return
        yield Member(key, value, key_at, start, end)
        i = skip(text, end)
        if not text.startswith(",", i):
            return
        i = skip(text, i + 1)


def items(text: str) -> Iterator[tuple[Any, int, int]]:
    """The items of the array `text` holds, each with where it starts and ends, up to the
    first thing that is not one more (as `members` reads an object's)."""
    decoder = json.JSONDecoder()
    i = skip(text, 0)
    if not text.startswith("[", i):
        return
    i = skip(text, i + 1)
    while i < len(text) and not text.startswith("]", i):
        try:
            value, end = decoder.raw_decode(text, i)
        except (ValueError, RecursionError):
            return
        yield value, i, end
        i = skip(text, end)
        if not text.startswith(",", i):
            return
        i = skip(text, i + 1)


def skip(text: str, i: int) -> int:
    """The index of the first character at or after `i` that is not JSON whitespace."""
    while i < len(text) and text[i] in " \t\n\r":
        i += 1
    return i

"""Redaction of ``<private>`` blocks and secrets.

Memory files live for years, so every digest a hook writes on its own goes through
`redact`. Explicit writes by a person or the model keep their text; `find_secrets`
only names what looks sensitive so the caller can warn. The rules are in
`memory.secret_tokens` (prefixed tokens), `memory.secret_commands` (command lines),
`memory.secret_shapes` (everything else) and `memory.secret_checks` (where the line
between a secret and ordinary text is drawn);
the count of shapes they are tested on is in docs/reliability.md.
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING, Final

from memhooks.memory.private import strip_private
from memhooks.memory.secret_shapes import KINDS, SHAPES, secret_span
from memhooks.memory.secret_tokens import TOKEN_RUN, TOKENS, Token

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Iterator

    from memhooks.memory.secret_rules import Shape

__all__ = ["REDACTED", "find_secrets", "redact", "secret_values"]

REDACTED: Final = "[redacted]"

_MARK_RE: Final = re.compile(re.escape(REDACTED))
_RUN_RE: Final = re.compile(TOKEN_RUN)
_PREFIXES: Final = tuple(t.prefix for t in TOKENS)
_BY_HEAD: Final[dict[str, list[Token]]] = {}
for _token in TOKENS:
    _BY_HEAD.setdefault(_token.prefix[:2], []).append(_token)


def _found(text: str) -> list[tuple[int, int, str]]:
    """Every secret in ``text`` as (start, end, kind), less the parts already redacted.

    A match can reach into an earlier marker (``password=[redacted]``); only what lies
    outside markers counts, so replacing never touches a marker and a second pass over
    the result finds nothing.
    """
    marks = [m.span() for m in _MARK_RE.finditer(text)]
    starts = [start for start, _ in marks]
    found: list[tuple[int, int, str]] = []
    for start, end, kind in _candidates(text):
        # Cut out the markers the span overlaps, keeping the pieces between.
        i = max(bisect.bisect_right(starts, start) - 1, 0)
        while start < end and i < len(marks):
            mark_start, mark_end = marks[i]
            if mark_start >= end:
                break
            if mark_end > start:
                if mark_start > start:
                    found.append((start, mark_start, kind))
                start = max(start, mark_end)
            i += 1
        if start < end:
            found.append((start, end, kind))
    return found


def _candidates(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of every token and every match of a shape in ``text``."""
    # Tokens: one scan for the runs they could start, then only the prefixes there.
    for run in _RUN_RE.finditer(text):
        start = run.start()
        if text.startswith(_PREFIXES, start):
            for token in _BY_HEAD[text[start : start + 2]]:
                if text.startswith(token.prefix, start):
                    m = token.pattern.match(text, start)
                    if m is not None:
                        yield start, m.end(), token.kind
                        break
    lowered = _lower(text)
    present: dict[str, bool] = {}  # a keyword is looked for once, however many use it
    for shape in SHAPES:
        if shape.keywords and not any(
            present.setdefault(k, k in lowered) for k in shape.keywords
        ):
            continue
        ranges = _lines(shape.keywords, lowered) if shape.lines else [(0, len(text))]
        for start, end in _matches(shape, text, lowered, ranges):
            yield start, end, shape.kind


def _matches(
    shape: Shape, text: str, lowered: str, ranges: list[tuple[int, int]]
) -> Iterator[tuple[int, int]]:
    """The spans of the secrets ``shape`` finds within ``ranges``.

    A match its check rejects may span one it would accept (``"Default": "…;
    Password=x;"``), so the search goes on from the next character, not from its end.
    """
    pattern = shape.pattern
    searched = lowered if shape.lower else text
    tail = None if shape.tail is None else re.compile(shape.tail)
    parts = None if shape.parts is None else re.compile(shape.parts)
    for pos, stop in ranges:
        while (m := pattern.search(searched, pos, stop)) is not None:
            if shape.check is not None and not shape.check(text, m):
                pos = m.start() + 1
                continue
            start, end = secret_span(m)
            if tail is not None:
                end = max(end, tail.match(text, end).end())  # type: ignore[union-attr]
            if parts is None:
                yield start, end
            else:
                for part in parts.finditer(text, start, end):
                    yield part.span("secret")
            pos = max(m.end(), end, m.start() + 1)


def _lower(text: str) -> str:
    """``text`` in lower case, each character where it was (`İ` lower-cases to two)."""
    lowered = text.lower()
    if len(lowered) == len(text):  # nothing grew, so nothing moved
        return lowered
    return "".join(c if len(low := c.lower()) != 1 else low for c in text)


def _lines(keywords: tuple[str, ...], lowered: str) -> list[tuple[int, int]]:
    """The (start, end) of each line that holds one of ``keywords``, in order."""
    starts: set[int] = set()
    for word in keywords:
        at = lowered.find(word)
        while at >= 0:
            starts.add(lowered.rfind("\n", 0, at) + 1)
            end = lowered.find("\n", at)
            at = -1 if end < 0 else lowered.find(word, end)
    found = []
    for start in sorted(starts):
        end = lowered.find("\n", start)
        found.append((start, len(lowered) if end < 0 else end))
    return found


def _replace(text: str, found: list[tuple[int, int, str]]) -> str:
    parts: list[str] = []
    pos = 0
    for start, end, _ in sorted(found):
        if end <= pos:
            continue
        if start > pos:
            parts.append(text[pos:start])
            parts.append(REDACTED)
        elif not parts or parts[-1] != REDACTED:
            parts.append(REDACTED)  # overlaps the span before: one marker for both
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


#: The shortest secret `secret_values` gives back: a shorter one, looked for bare, would
#: also take ordinary words.
MIN_KNOWN = 8


def secret_values(texts: Iterable[str]) -> set[str]:
    """The secrets in `texts` as written there, for `redact`'s `known`.

    A password pasted once where its shape gives it away (``postgres://u:pw@host``,
    ``PGPASSWORD=pw``) and then typed bare (``grep -rn pw config/``) has no shape the
    second time. A URL's ``user:password`` also gives its password alone.

    Args:
        texts: The texts a record is made of, before redaction.

    Returns:
        Each secret of at least `MIN_KNOWN` characters.
    """
    found: set[str] = set()
    for text in texts:
        for start, end, _ in _found(text):
            value = text[start:end]
            found.update((value, value.rpartition(":")[2]))
    return {value for value in found if len(value) >= MIN_KNOWN}


def redact(text: str, known: Collection[str] = ()) -> str:
    """Drop private blocks and replace every secret with `REDACTED`.

    Only the secret goes: keys, schemes, flags and hosts around it stay, so
    ``password=hunter22`` becomes ``password=[redacted]`` and ``https://u:p@host``
    becomes ``https://[redacted]@host``. Deterministic and idempotent:
    ``redact(redact(x)) == redact(x)``.

    Args:
        text: Any text, typically a digest a hook is about to write.
        known: Secrets found elsewhere in the same record (`secret_values`), replaced
            wherever they occur in `text`, whatever surrounds them.

    Returns:
        The text that is safe to store.
    """
    result = strip_private(text)
    for value in sorted(known, key=len, reverse=True):
        result = result.replace(value, REDACTED)
    # A replacement can change what a neighbour's boundary check saw, so repeat until
    # nothing is found. Each pass replaces characters outside markers only, so the
    # loop ends; it usually stops at the second look.
    while found := _found(result):
        result = _replace(result, found)
    return result


def find_secrets(text: str) -> list[str]:
    """Name the kinds of secret present in ``text``, without changing it.

    Private blocks are scanned too: this serves explicit writes, which are stored
    as given.

    Args:
        text: Any text, typically an explicit write by a person or the model.

    Returns:
        Kind names such as ``["github-token", "jwt"]``, each at most once, in the
        fixed order of `memory.secret_shapes.KINDS`.

    Example:
        >>> find_secrets("export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ")
        ['github-token', 'secret-assignment']
    """
    kinds = {kind for _, _, kind in _found(text)}
    return [kind for kind in KINDS if kind in kinds]

"""Text helpers shared by injection, search and read: UTF-8-safe cuts and containment,
and a path as a word of a shell command.

zerostack routes every cap through one function so that no renderer can overrun a budget
or split a character; `cut` is that function here.
"""

from __future__ import annotations

import os
import re
import shlex
import unicodedata
from typing import TYPE_CHECKING

from memhooks.memory.constants import WRAPPER_CLOSE, WRAPPER_OPEN

if TYPE_CHECKING:
    from collections.abc import Callable


def nbytes(text: str) -> int:
    """Size of `text` in UTF-8 bytes (what every budget counts)."""
    return len(text.encode("utf-8", "surrogatepass"))


def cut(text: str, max_bytes: int, marker: str = "") -> str:
    """Cut `text` so that it plus `marker` (on its own line) fit in `max_bytes` of UTF-8.

    The cut falls on a character boundary and, where one exists in the last quarter,
    on a line boundary. Text that already fits is returned unchanged, with no marker.

    Args:
        text: what to cut.
        max_bytes: the budget for the result, marker included.
        marker: appended on its own line when (and only when) something was cut.

    Returns:
        The text, or its head plus the marker; "" when not even the marker fits.
    """
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= max_bytes:
        return text
    tail = ("\n" + marker) if marker else ""
    room = max_bytes - nbytes(tail)
    if room < 0:
        return ""
    head = raw[:room].decode(
        "utf-8", "ignore"
    )  # "ignore" drops a split trailing character
    newline = head.rfind("\n")
    if newline >= len(head) * 3 // 4:
        head = head[:newline]
    return head.rstrip("\n") + tail


def fit(
    text: str, max_bytes: int, marker: str = "", size: Callable[[str], int] = nbytes
) -> str:
    """`cut`, until `size` of the result is within `max_bytes`: for text printed in a
    form that takes more bytes than its UTF-8 (JSON quoting ``"``, ``\\``, newlines).

    Args:
        text: what to cut.
        max_bytes: the budget for the result as `size` measures it, marker included.
        marker: as for `cut`.
        size: the bytes the text takes as printed.

    Returns:
        The text, or its head plus the marker; "" when not even that fits.
    """
    out = cut(text, max_bytes, marker)
    room = max_bytes
    while out and (over := size(out) - max_bytes) > 0:
        room -= over  # each round drops at least the excess, so it ends
        out = cut(text, room, marker)
    return out


def abridge(line: str, max_bytes: int) -> str:
    """`line`, or when it takes more than `max_bytes` of UTF-8, its head and its tail
    around ``…[N bytes left out]…``: an error quoting a 1 MB argument still says what is
    wrong (at its end) in a line a person or a model can read."""
    raw = line.encode("utf-8", "surrogatepass")
    if len(raw) <= max_bytes:
        return line
    room = max_bytes - 40  # the marker, its count included
    head = raw[: room * 2 // 3].decode("utf-8", "ignore")
    tail = raw[len(raw) - (room - room * 2 // 3) :].decode("utf-8", "ignore")
    left_out = len(raw) - nbytes(head) - nbytes(tail)
    return f"{head} …[{left_out:,} bytes left out]… {tail}"


def one_line(message: str, max_bytes: int | None = None) -> str:
    """An error `message` on one line (its line breaks made spaces: a path may hold one)
    and, with `max_bytes`, `abridge`d to fit, its tail kept: where the reason is.
    The one way every error memhooks prints or replies gets onto one line.

    Example:
        >>> one_line("bad\\nnews", 100)
        'bad news'
    """
    line = " ".join(message.splitlines())
    return line if max_bytes is None else abridge(line, max_bytes)


# Text a note could carry to close our wrapper, open a fake one, or pose as a harness
# message. A candidate is "<" (or a full-width look-alike), then spaces or a slash, then
# a name that could start a forgeable one; invisible characters anywhere in it
# (`</mem\u200bory>`) and full-width letters do not hide the name. The tag is defused by
# a zero-width joiner after "<", which keeps it legible. Newlines end a candidate, so
# pieces neutralised apart and joined by newlines stay inert. Possessive quantifiers
# keep the scan linear.
_INVISIBLE = "\u00ad\u034f\u061c\u180e\u200b-\u200f\u2060-\u2064\ufeff"
_TAG = re.compile(
    rf"[<\uff1c\ufe64](?P<lead>(?:[^\S\n]|[/{_INVISIBLE}])*+)"
    rf"(?P<name>(?=[cChHiIlLmMsSuU]|[^\x00-\x7f])[\w{_INVISIBLE}-]++)"
)
_STRIP_INVISIBLE = re.compile(f"[{_INVISIBLE}]")
_FORGEABLE = re.compile(
    r"(?:memory|system-reminder|system|user-prompt-submit-hook|hook|instructions?)"
    # Claude Code's <command-name>, <local-command-stdout>, ...: any such name, even cut
    # short after its dash ("<command-" at the end of a note).
    r"(?![a-z0-9])|(?:local-)?command-"
)
# C0/C1 controls except tab and newline, DEL, bidi overrides and isolates.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def shell_word(path: str | os.PathLike[str]) -> str:
    """`path` as one word of a shell command a person can paste: quoted where it holds a
    space or a quote (``'/tmp/my root'``), and where it holds a byte that is no UTF-8
    (held as a surrogate, as `os.fsdecode` makes it) or a character that does not print,
    in bash's ``$'…'``, those as ``\\xHH``."""
    text = os.fspath(path)
    if text.isprintable():
        return shlex.quote(text)
    return "$'" + "".join(map(_escaped, text)) + "'"


def _escaped(c: str) -> str:
    if "\udc80" <= c <= "\udcff":  # a byte os.fsdecode could not decode
        return f"\\x{ord(c) - 0xDC00:02x}"
    if c in "\\'":
        return "\\" + c
    if c.isprintable():
        return c
    return "".join(f"\\x{b:02x}" for b in c.encode("utf-8", "surrogatepass"))


def _defuse(m: re.Match[str]) -> str:
    if m["lead"].startswith("\u200d"):
        return m[0]  # already defused: neutralise is idempotent
    name = m["name"].lower()
    if not name.isascii():
        name = unicodedata.normalize("NFKC", _STRIP_INVISIBLE.sub("", name)).casefold()
    if not _FORGEABLE.match(name.replace("_", "-")):
        return m[0]  # an ordinary "<": "a <b", "<div>", "<systemd>"
    return m[0][0] + "\u200d" + m[0][1:]


def neutralise(text: str) -> str:
    """Make text safe to place inside the `<memory>` wrapper.

    Tags that could end the wrapper or forge a harness message become inert (``<\u200d/memory``),
    and control characters (ANSI escapes, NUL, bidi overrides) are removed. Ordinary
    Markdown is untouched. Idempotent.
    """
    text = text.replace("\r\n", "\n")
    text = _CONTROL.sub("", text)
    return _TAG.sub(_defuse, text)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def scrub_surrogates(text: str) -> str:
    """Replace lone surrogates by U+FFFD, so that the text can be encoded as UTF-8.

    JSON may carry them (``"\\ud800"`` is valid JSON); one such character in a prompt or
    a transcript line must not make a whole digest or state file unwritable.
    """
    return _LONE_SURROGATE.sub("\ufffd", text)


def wrap(body: str) -> str:
    """Wrap already-neutralised text in the memory wrapper."""
    return f"{WRAPPER_OPEN}\n{body}\n{WRAPPER_CLOSE}"

"""Redaction of ``<private>`` blocks and well-known secret shapes.

Memory files live for years, so every digest a hook writes on its own goes through
`redact`. Explicit writes by a person or the model keep their text; `find_secrets`
only names what looks sensitive so the caller can warn.

Every pattern runs in linear time: no nested quantifiers, possessive quantifiers
where a failed match could backtrack, and lookbehinds that let a token start only
at the start of a run, so scans never overlap.

Left alone on purpose, to keep ordinary prose and code intact:

- "token" or "password" without an assignment, and keys that only contain a
  keyword (``max_tokens=4096``, ``token_count: 3``): the keyword must end the key.
- Assignment values shorter than 4 characters (``password=``, ``pwd: abc``),
  placeholders starting with one of ``$ < { % * . = / ~ [`` (``${PASSWORD}``,
  ``<your-token>``, ``{{ secret }}``, ``***``, ``...``, ``[redacted]``), and the
  literals null/none/true/false.
- Unquoted values that look like code (``password = getpass()``,
  ``token = argv[1]``) and the shell's ``PWD=/home/me``. The price: a secret that
  starts with ``/`` after ``password=`` stays visible.
- ``sk-`` inside a word (``task-force``), or followed by fewer than 20 key
  characters or by no digit at all (``sk-this-is-a-hyphenated-phrase``).
- ``key: value`` forms are redacted even in prose ("Password: required" loses
  "required"): redacting a word costs less than keeping a secret for years.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

__all__ = ["REDACTED", "find_secrets", "redact", "strip_private"]

REDACTED: Final = "[redacted]"

# Only the exact tags, ASCII case-insensitively; `<private id=1>` is not a tag.
_OPEN_TAG: Final = "<private>"
_OPEN_RE: Final = re.compile(re.escape(_OPEN_TAG), re.IGNORECASE | re.ASCII)
_CLOSE_RE: Final = re.compile(r"</private>", re.IGNORECASE | re.ASCII)


class _Rule(NamedTuple):
    name: str
    pattern: re.Pattern[str]
    repl: str


def _rule(name: str, pattern: str, flags: int = 0) -> _Rule:
    # Rules that keep a key or a scheme capture it as `pre` and put it back.
    repl = (r"\g<pre>" if "(?P<pre>" in pattern else "") + REDACTED
    return _Rule(name, re.compile(pattern, flags), repl)


_PEM_LABEL: Final = r"[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_ASSIGNMENT: Final = (
    # `PWD=/path` in an env dump is the working directory, not a password.
    r"(?P<pre>(?<![A-Za-z0-9_.-])(?!(?-i:(?:OLD)?PWD=))[A-Za-z0-9_.-]++"
    # The key must end with a keyword; `access_token`, `client_secret` are suffixes.
    r"(?:(?<=password)|(?<=passwd)|(?<=pwd)|(?<=secret)|(?<=token)"
    r"|(?<=api_key)|(?<=api-key)|(?<=apikey))"
    r"[\"']?[ \t]*(?::=|=>|[:=])[ \t]*(?P<q>[\"'])?)"
    r"(?![$<{%*.=/~\[]|(?:null|none|true|false)\b)"
    # A quoted value stops short of an earlier REDACTED, so a second pass finds none.
    r"(?(q)(?:(?!\[redacted\])[^\"'\n]){4,}+"
    r"|[^\s\"'`,;&()\[\]{}<>]{4,}+(?![(\[]))"
)

# Order matters within a pass: whole blocks, URLs and headers come first, so that
# no narrower rule redacts only part of them.
_RULES: Final = (
    _rule("private-key", rf"-----BEGIN{_PEM_LABEL}[\s\S]*?(?:-----END{_PEM_LABEL}|\Z)"),
    _rule(
        "url-credentials",
        r"(?P<pre>(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*+://)"
        r"[^\s/@:\[\]]*+:[^\s/\[\]]+(?=@)",
    ),
    _rule(
        "authorization-header",
        r"(?P<pre>(?<![A-Za-z0-9_-])authorization[\"']?[ \t]*:[ \t]*[\"']?"
        r"(?:bearer|basic|token)[ \t]+)[A-Za-z0-9._~+/=-]{8,}+",
        re.IGNORECASE,
    ),
    _rule(
        "aws-access-key-id", r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])"
    ),
    _rule(
        "aws-secret-access-key",
        r"(?P<pre>(?<![A-Za-z0-9_])aws_?secret_?access_?key[\"']?[ \t]*[:=][ \t]*[\"']?)"
        r"[A-Za-z0-9/+=]{16,}+",
        re.IGNORECASE,
    ),
    _rule(
        "github-token",
        r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{20,}+|github_pat_[A-Za-z0-9_]{20,}+)",
    ),
    _rule("anthropic-key", r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}+"),
    _rule(
        "openai-key",
        r"(?<![A-Za-z0-9_-])sk-(?!ant-)(?=[A-Za-z0-9_-]*?[0-9])[A-Za-z0-9_-]{20,}+",
    ),
    _rule("slack-token", r"(?<![A-Za-z0-9_-])xox[abprs]-[A-Za-z0-9-]{10,}+"),
    _rule("google-api-key", r"(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35,}+"),
    _rule("stripe-key", r"(?<![A-Za-z0-9_])[rs]k_(?:live|test)_[A-Za-z0-9]{16,}+"),
    _rule("npm-token", r"(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36,}+"),
    _rule(
        "jwt",
        r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]*+",
    ),
    _rule("secret-assignment", _ASSIGNMENT, re.IGNORECASE),
)


def strip_private(text: str) -> str:
    """Drop every ``<private>…</private>`` block, tags included.

    Tags match case-insensitively and blocks may span lines. An unclosed
    ``<private>`` drops everything after it; a stray ``</private>`` is kept.
    Dropping a block can splice a new tag (``<pri<private>x</private>vate>``); that
    one is dropped too, so the result never holds an opening tag and the function is
    idempotent. Runs in linear time even on nested splices.

    Args:
        text: Any text.

    Returns:
        The text without its private blocks.
    """
    kept: list[list[int]] = []  # non-empty [start, end) spans of `text` to keep
    pos = 0
    while True:
        cut = _spliced_tag_end(text, kept, pos)
        if cut is None:
            match = _OPEN_RE.search(text, pos)
            if match is None:
                break
            if match.start() > pos:
                kept.append([pos, match.start()])
            cut = match.end()
        close = _CLOSE_RE.search(text, cut)
        pos = len(text) if close is None else close.end()
    if pos < len(text):
        kept.append([pos, len(text)])
    return "".join(text[start:end] for start, end in kept)


def _spliced_tag_end(text: str, kept: list[list[int]], pos: int) -> int | None:
    """Find an opening tag split across the kept tail and ``text[pos:]``.

    If there is one, trim its first part off ``kept`` and return where it ends in
    ``text``. Spans are indices rather than strings, so trimming copies nothing.
    """
    size = len(_OPEN_TAG) - 1
    parts: list[str] = []
    for start, end in reversed(kept):  # at most `size` spans, since none is empty
        parts.append(text[max(start, end - size) : end])
        size -= len(parts[-1])
        if not size:
            break
    tail = "".join(reversed(parts))
    match = _OPEN_RE.search(tail + text[pos : pos + len(_OPEN_TAG) - 1])
    if not tail or match is None or match.start() >= len(tail):
        return None
    count = len(tail) - match.start()
    while count:
        span = kept[-1]
        taken = min(count, span[1] - span[0])
        span[1] -= taken
        count -= taken
        if span[0] == span[1]:
            kept.pop()
    return pos + match.end() - len(tail)


def redact(text: str) -> str:
    """Drop private blocks and replace well-known secret shapes with `REDACTED`.

    Assignments, headers and URLs keep their key or scheme: ``password=hunter22``
    becomes ``password=[redacted]`` and ``https://u:p@host`` becomes
    ``https://[redacted]@host``. Idempotent: ``redact(redact(x)) == redact(x)``.

    Args:
        text: Any text, typically a digest a hook is about to write.

    Returns:
        The text that is safe to store.
    """
    result = strip_private(text)
    # A replacement can change the character a neighbour's boundary check saw, so
    # repeat until stable. Each match replaces characters no rule can match again
    # (no rule matches inside REDACTED), so the loop ends, usually after one check.
    while True:
        changed = 0
        for rule in _RULES:
            result, count = rule.pattern.subn(rule.repl, result)
            changed += count
        if not changed:
            return result


def find_secrets(text: str) -> list[str]:
    """Name the kinds of secret present in ``text``, without changing it.

    Private blocks are scanned too: this serves explicit writes, which are stored
    as given.

    Args:
        text: Any text, typically an explicit write by a person or the model.

    Returns:
        Kind names such as ``["github-token", "jwt"]``, each at most once, in the
        fixed order of the rules.

    Example:
        >>> find_secrets("export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ")
        ['github-token', 'secret-assignment']
    """
    return [rule.name for rule in _RULES if rule.pattern.search(text)]

"""Whether a match of a `memory.secret_shapes.Shape` is a secret: the checks that
read its context, and the value patterns the shapes share.

Where the line is drawn, on purpose (ordinary prose and code must come back intact):

- "token" or "password" without a value, and keys that only contain a keyword
  (``max_tokens=4096``, ``token_count: 3``, ``password_reset_url``): the keyword must
  end the key. ``pass``, ``pw`` and ``auth`` count only as a whole word of the key
  (``DB_PASS``, ``"auth"``; not ``bypass``, ``oauth``).
- Values shorter than 4 characters; placeholders starting with one of
  ``$ < { % * . = / ~ [`` (``${PASSWORD}``, ``<your-token>``, ``{{ secret }}``,
  ``***``, ``[redacted]``); the literals null/none/nil/true/false; and, unquoted,
  code: a call or an index (``password = getpass()``), a dotted name without digits
  (``secret_key = settings.SECRET_KEY``) or a type (``token: str | None``). The price:
  a password such as ``my.password`` after ``password =`` stays visible.
- A line ``NAME=value`` (a dotenv or shell line, ``export`` allowed) is the exception:
  its whole value up to the next blank is redacted, parentheses included, since
  generated keys hold them (Django's do).
- ``PWD=/home/me`` (the shell's working directory, not a password).
- Short command-line flags count only after the command that reads a password from
  them (``mysql -pPW``, ``sshpass -p PW``, ``redis-cli -a PW``, ``docker login -p PW``,
  ``curl -u user:PW``); ``ssh -p 2222`` and ``docker run -p 80:80`` are ports, and
  ``mysql -p db`` asks for the password. ``--password X`` counts for any command, even
  in prose ("the --password option" loses "option").
- Nothing tells a `.pgpass` line from another ``a:12:b:c:text`` (a log format such as
  ``LEVEL:12:module:func:message`` loses its last field): the price of catching the
  line wherever it was pasted.
- A token glued to the word before it (``x-ghp_…``): tokens start a run of
  ``[A-Za-z0-9_.-]``.
- Hex digests, git hashes, UUIDs and base64 data without a key or a known prefix: no
  entropy guess, which eats lockfiles and images. A 40-character AWS-style secret in
  prose counts only with upper case, lower case and a digit, on a line that names AWS,
  IAM, a secret or an access key; a Discord bot token only where "discord" occurs.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import re
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "KEY_WORDS",
    "TAIL",
    "VALUE",
    "assignment",
    "aws_secret",
    "b64_private_key",
    "command",
    "discord_bot",
    "env_line",
    "flag",
    "pgpass_host",
    "prose_password",
    "url_userinfo",
]

_I = re.IGNORECASE
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_KEY = _WORD | {".", "-"}
_SCHEME = (_WORD - {"_"}) | {"+", ".", "-"}


# A value: quoted (up to the quote), or unquoted (up to a blank or punctuation). Both
# are bounded, so that a candidate the check turns down costs little; an unquoted one
# stops at `:` and `=` too (`a=b=c`), and `TAIL` carries an accepted one on.
VALUE = (
    r"(?P<q>[\"'])?(?P<secret>(?(q)[^\"'\n]{4,1000}+"
    r"|[^\s\"'`,;&()\[\]{}<>|:=]{4,100}+(?![(\[])))"
)
TAIL = r"[^\s\"'`,;&()\[\]{}<>|]*+"
_PLACEHOLDER = re.compile(r"[$<{%*.=/~\[]|(?:null|none|nil|true|false|undefined)\b", _I)
_CODE_NAME = re.compile(r"[A-Za-z_]\w*+(?:\.[A-Za-z_]\w*+)++", re.ASCII)
_TYPE_NAME = re.compile(
    r"(?:str|bytes|int|float|bool|dict|list|tuple|object|Any|Optional|Union"
    r"|SecretStr|SecretBytes|String|string)\Z"
)
_SENSITIVE_KEY = re.compile(
    r"(?:password|passwd|passphrase|pwd|secret|token"
    r"|(?:api|secret|private|access|account|encryption|decryption|signing|master|auth"
    r"|app|client|service|license|webhook|shared|hmac|session|cookie|crypt)[_.-]?key"
    r"|(?:\A|[_.-])(?:pass|pw|auth))\Z",
    _I,
)
KEY_WORDS: Final = ("pass", "pwd", "pw", "secret", "token", "key", "auth")
# The last two letters of every sensitive key (password, passwd, passphrase, pwd,
# secret, token, *key, pass, pw, auth): most separators fail this before any more work.
_KEY_ENDS: Final = frozenset({"rd", "wd", "se", "et", "en", "ey", "ss", "pw", "th"})


def _key_before(text: str, end: int) -> tuple[int, str]:
    """The key that ends at ``end``, less blanks and one quote: (its start, the key);
    no key unless it may end in a sensitive word.
    """
    pos = end
    while pos > 0 and end - pos < 16 and text[pos - 1] in " \t":
        pos -= 1
    if pos > 0 and text[pos - 1] in "\"'":
        pos -= 1
    if text[pos - 2 : pos].lower() not in _KEY_ENDS:
        return pos, ""
    stop = pos
    while pos > 0 and stop - pos < 100 and text[pos - 1] in _KEY:
        pos -= 1
    if pos > 0 and text[pos - 1] in _KEY:
        return stop, ""  # longer than any key
    return pos, text[pos:stop]


def _sensitive(key: str) -> bool:
    return key not in ("", "PWD", "OLDPWD") and bool(_SENSITIVE_KEY.search(key))


def assignment(text: str, m: re.Match[str]) -> bool:
    """Whether ``key = value`` (or ``key: value``) holds a secret.

    Args:
        text: The whole text; ``m`` matched its lower-cased copy (same offsets).
        m: From the word that ends the key: ``sep`` and ``secret`` groups.

    Returns:
        True when the key ends in a sensitive word and the value is neither a
        placeholder nor code.
    """
    # `m` is a match in the lower-cased text: read the original by offset.
    start, key = _key_before(text, m.start("sep"))
    if not _sensitive(key) or text.endswith("://", 0, start):
        return False  # `https://user:pass@` is for url-credentials
    value = text[m.start("secret") : m.end("secret")]
    if _PLACEHOLDER.match(value):
        return False
    if m["q"]:
        return True
    if _CODE_NAME.fullmatch(value) and not any(c.isdigit() for c in value):
        return False  # `self.password`, not `ya29.a0AfH6SM`
    return not _TYPE_NAME.match(value)


def prose_password(text: str, m: re.Match[str]) -> bool:
    """Whether the word after "password" in a sentence ("the db password is hunter2",
    "user bob and password hunter2") is one: a word of ASCII with a digit, a symbol or
    mixed case, not an English word ("password is required", "password reset flow")."""
    value = text[m.start("secret") : m.end("secret")].rstrip(".,;:!?)")
    if len(value) < 6 or _PLACEHOLDER.match(value) or "://" in value:
        return False
    mixed = value[1:] != value[1:].lower() and value != value.upper()  # not "Vault"
    return mixed or not value.isalpha()


def env_line(text: str, m: re.Match[str]) -> bool:
    """Whether a ``NAME=value`` line (``key`` and ``secret`` groups) holds a secret."""
    return _sensitive(m["key"]) and not _PLACEHOLDER.match(m["secret"])


_FLAG = re.compile(
    r"--(?:[a-z0-9]++-)*(?:password|passwd|pass|token|secret|auth|api-?key"
    r"|(?:account|access|secret|private|client|auth)-key|client-secret)\Z",
    _I,
)


def flag(text: str, m: re.Match[str]) -> bool:
    """Whether ``--name value`` (``key`` without its dashes) passes a secret."""
    if not _FLAG.match("--" + m["key"]):
        return False
    return not (m["secret"].startswith("-") or _PLACEHOLDER.match(m["secret"]))


def url_userinfo(text: str, m: re.Match[str]) -> bool:
    """Whether ``://user:pass@`` follows a URL scheme."""
    # `scheme://user:pass@`: the scheme ends where the match starts.
    pos = m.start()
    while pos > 0 and m.start() - pos < 32 and text[pos - 1] in _SCHEME:
        pos -= 1
    return pos < m.start() and text[pos].isalpha()


def pgpass_host(text: str, m: re.Match[str]) -> bool:
    """Whether ``:port:db:user:password`` follows a host, as in a `.pgpass` line."""
    # host:port:database:user:password, with the host (or `*`) before the match.
    pos = m.start()
    while pos > 0 and m.start() - pos < 256 and text[pos - 1] in _KEY | {"*"}:
        pos -= 1
    return pos < m.start() and (pos == 0 or text[pos - 1] not in _KEY | {":", "/"})


def aws_secret(text: str, m: re.Match[str]) -> bool:
    """Whether 40 base64 characters mix upper case, lower case and digits."""
    s = m[0]
    return (
        any(c.isupper() for c in s)
        and any(c.islower() for c in s)
        and any(c.isdigit() for c in s)
    )


def b64_private_key(text: str, m: re.Match[str]) -> bool:
    """Whether base64 starting ``LS0tLS1CRUdJTi`` is a PEM *private* key."""
    head = m[0][:64]
    return b"PRIVATE KEY" in base64.b64decode(head[: len(head) // 4 * 4])


def discord_bot(text: str, m: re.Match[str]) -> bool:
    """Whether a Discord-shaped token starts with a base64-encoded user id."""
    # The first part is the bot's user id, base64-encoded: digits once decoded.
    first = m[0].split(".", 1)[0]
    try:
        decoded = base64.b64decode(first + "=" * (-len(first) % 4), altchars=b"-_")
    except (binascii.Error, ValueError):
        return False
    return decoded.isdigit()


def command(*names: str, verb: str = "") -> Callable[[str, re.Match[str]], bool]:
    """A check that the flag matched belongs to one of the commands ``names``.

    The command is on the same line, with no pipe, `;` or `&` between, at most 300
    characters back. The flag leads the pattern, so text without it costs nothing;
    where it occurs, the commands and separators of the text are found once.

    Args:
        names: Command names (``mysql``), also as the last part of a path.
        verb: A word that must come between the command and the flag (``login``).

    Returns:
        The check: whether the flag's ``secret`` group is a password, not a
        placeholder.
    """
    words = "|".join(map(re.escape, names))
    command = re.compile(rf"(?<![\w./-])(?:[\w./-]*/)?(?:{words})(?![\w.-])")
    after = re.compile(rf"(?<![\w-]){verb}(?![\w-])") if verb else None
    cached: list[tuple[str, list[int], list[int], list[int]]] = []

    def positions(text: str) -> tuple[list[int], list[int], list[int]]:
        found = cached[0] if cached else None  # one read: threads may share this
        if found is None or found[0] is not text:
            found = (
                text,
                [m.start() for m in command.finditer(text)],
                [m.start() for m in _SEPARATOR.finditer(text)],
                [m.start() for m in after.finditer(text)] if after else [],
            )
            cached[:] = [found]
        return found[1], found[2], found[3]

    def check(text: str, m: re.Match[str]) -> bool:
        commands, separators, verbs = positions(text)
        start = m.start()
        i = bisect.bisect_left(separators, start)
        floor = max(start - 300, separators[i - 1] + 1 if i else 0)
        j = bisect.bisect_left(commands, start)
        if not j or commands[j - 1] < floor:
            return False
        if after is not None:  # the verb between the command and the flag
            k = bisect.bisect_left(verbs, start)
            if not k or verbs[k - 1] < commands[j - 1]:
                return False
        return not _PLACEHOLDER.match(m["secret"])

    return check


_SEPARATOR = re.compile(r"[\n|;&]")

"""Whether a match of a `memory.secret_rules.Shape` is a secret: the checks that read
its context, and the value patterns the shapes share.

Where the line is drawn, on purpose (ordinary prose and code must come back intact):

- "token" or "password" without a value, and keys that only contain a keyword
  (``max_tokens=4096``, ``token_count: 3``, ``password_reset_url``): the keyword must
  end the key (as it must end an XML element's name: ``<password>``, ``<apiKey>``),
  or come before one word that says what form or version of the secret the key holds
  (``SECRET_KEY_BASE``, ``JWT_SECRET_B64``, ``DB_PASSWORD_OLD``; see `QUALIFIERS`);
  then, but on a ``NAME=value`` line, the value must be quoted or hold a digit, since
  code names its variables so (``self._secret_value = value``).
  ``pass``, ``pw`` and ``auth`` count only as a whole word of the key (``DB_PASS``,
  ``"auth"``; not ``bypass``, ``oauth``).
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
- In a sentence, after "password" (or Passwort, contraseña, mot de passe, пароль…): a
  word of ASCII with a digit, a symbol or mixed case ("password is required" stays).
  After "token", "secret" or "api key": 16 characters or more with a letter and a
  digit ("the token is expired", "the secret is TokenRefreshService" stay).
- A request's ``Cookie:`` header: every value, whatever its name, but a lower-case
  word shorter than 16 letters (``theme=dark``); ``Set-Cookie:``: its first value.
- ``user:password`` without a scheme (``admin:Gf6Hj8Kl0Zx2``): only a lower-case user
  name standing alone, and a password of 8 to 64 characters with upper case, lower
  case and a digit and no ``/ \\ : @ = +``, followed by a blank or the end (no
  ``host:8080``, ``file.py:12``, ``12:30:45``, ``sha256:…``, ``h1:…=``, ``C:\\``).
- Nothing tells a `.pgpass` line from another ``a:12:b:c:text`` (a log format such as
  ``LEVEL:12:module:func:message`` loses its last field): the price of catching the
  line wherever it was pasted.
- A token glued to the word before it (``x-ghp_…``): tokens start a run of
  ``[A-Za-z0-9_.-]``.
- Hex digests, git hashes, UUIDs and base64 data without a key or a known prefix: no
  entropy guess, which eats lockfiles and images. A 40-character AWS-style secret in
  prose counts only with upper case, lower case and a digit, on a line that names AWS,
  IAM, a secret or an access key; a Discord bot token only where "discord" occurs.

Command lines are `memory.secret_commands`'.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Final

__all__ = [
    "COOKIE",
    "COOKIES",
    "COOKIE_VALUE",
    "KEY_WORDS",
    "PLACEHOLDER",
    "QUALIFIERS",
    "TAIL",
    "VALUE",
    "assignment",
    "aws_secret",
    "b64_private_key",
    "discord_bot",
    "env_line",
    "pgpass_host",
    "prose_password",
    "prose_secret",
    "url_userinfo",
    "user_password",
    "xml_element",
]

_I = re.IGNORECASE
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_KEY = _WORD | {".", "-"}
_USER = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
_SCHEME = (_WORD - {"_"}) | {"+", ".", "-"}


# A value: quoted (up to the quote), or unquoted (up to a blank or punctuation). Both
# are bounded, so that a candidate the check turns down costs little; an unquoted one
# stops at `:` and `=` too (`a=b=c`), and `TAIL` carries an accepted one on.
VALUE = (
    r"(?P<q>[\"'])?(?P<secret>(?(q)[^\"'\n]{4,1000}+"
    r"|[^\s\"'`,;&()\[\]{}<>|:=]{4,100}+(?![(\[])))"
)
TAIL = r"[^\s\"'`,;&()\[\]{}<>|]*+"
PLACEHOLDER = re.compile(r"[$<{%*.=/~\[]|(?:null|none|nil|true|false|undefined)\b", _I)
_CODE_NAME = re.compile(r"[A-Za-z_]\w*+(?:\.[A-Za-z_]\w*+)++", re.ASCII)
_TYPE_NAME = re.compile(
    r"(?:str|bytes|int|float|bool|dict|list|tuple|object|Any|Optional|Union"
    r"|SecretStr|SecretBytes|String|string)\Z"
)
#: Words that may follow a key's secret word and still name the secret: the form it
#: is written in (Rails' ``SECRET_KEY_BASE``, ``JWT_SECRET_B64``) or its version
#: (``DB_PASSWORD_OLD``, ``API_TOKEN_PROD``). Not ``_PATH``, ``_FILE``, ``_ID``,
#: ``_URL``, ``_LENGTH``, ``_TTL``: those name something else.
QUALIFIERS: Final = (
    *("base", "b64", "base64", "hex", "raw", "value", "pem"),
    *("old", "new", "prev", "previous", "current", "next"),
    *("prod", "production", "live", "staging", "dev", "test"),
)
_SECRET_WORD = (
    r"(?:password|passwd|passphrase|pwd|secret|token"
    r"|(?:api|secret|private|access|account|encryption|decryption|signing|master|auth"
    r"|app|client|service|license|webhook|shared|hmac|session|cookie|crypt)[_.-]?key"
    r"|(?:\A|[_.-])(?:pass|pw|auth))"
)
_SENSITIVE_KEY = re.compile(rf"{_SECRET_WORD}\Z", _I)
_QUALIFIED_KEY = re.compile(rf"{_SECRET_WORD}[_.-](?:{'|'.join(QUALIFIERS)})\Z", _I)
KEY_WORDS: Final = ("pass", "pwd", "pw", "secret", "token", "key", "auth")
# The last two letters of every sensitive key (password, passwd, passphrase, pwd,
# secret, token, *key, pass, pw, auth, and a qualifier): most separators fail this
# before any more work.
_KEY_ENDS: Final = frozenset(
    {"rd", "wd", "se", "et", "en", "ey", "ss", "pw", "th"}
    | {q[-2:] for q in QUALIFIERS}
)


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


def _qualified(key: str) -> bool:
    """Whether ``key``'s secret word comes before a qualifier (``SECRET_KEY_BASE``)."""
    return bool(_QUALIFIED_KEY.search(key))


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
    if text.endswith("://", 0, start):
        return False  # `https://user:pass@` is for url-credentials
    value = text[m.start("secret") : m.end("secret")]
    if PLACEHOLDER.match(value):
        return False
    if not _sensitive(key):
        # Code names its variables so (`self._secret_value = value`): a qualified
        # key's value counts quoted or with a digit (`secret_key_base: 9c1e…`).
        return _qualified(key) and bool(m["q"] or any(c.isdigit() for c in value))
    if m["q"]:
        return True
    if _CODE_NAME.fullmatch(value) and not any(c.isdigit() for c in value):
        return False  # `self.password`, not `ya29.a0AfH6SM`
    return not _TYPE_NAME.match(value)


_OPENSSL_SOURCE = re.compile(r"(?:pass|env|file|fd):")


def prose_password(text: str, m: re.Match[str]) -> bool:
    """Whether the word after "password" in a sentence ("the db password is hunter2",
    "user bob and password hunter2") is one: a word of ASCII with a digit, a symbol or
    mixed case, not an English word ("password is required", "password reset flow")."""
    value = text[m.start("secret") : m.end("secret")].rstrip(".,;:!?)")
    if len(value) < 6 or PLACEHOLDER.match(value) or "://" in value:
        return False
    if _OPENSSL_SOURCE.match(value):
        return False  # `-password pass:PW`: the flag's rule keeps `pass:`
    mixed = value[1:] != value[1:].lower() and value != value.upper()  # not "Vault"
    return mixed or not value.isalpha()


# What makes "key" a secret's name in a sentence ("api key", "access_key").
_KEY_NAME = re.compile(
    r"(?<![a-z])(?:api|access|secret|private|auth|client|app|master|license|signing"
    r"|encryption)[ _-]?\Z",
    _I,
)


def prose_secret(text: str, m: re.Match[str]) -> bool:
    """Whether the word after "token", "secret" or "api key" in a sentence ("the token
    is Hx7Kq2…") is one: 16 characters or more with a letter and a digit, not a word
    or a name ("the token is expired", "the secret is TokenRefreshService")."""
    start = m.start()
    if m["word"] == "key" and not _KEY_NAME.search(text, max(0, start - 16), start):
        return False  # "the key is …" alone names too much
    value = m["secret"]
    if PLACEHOLDER.match(value) or "://" in value:
        return False
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def xml_element(text: str, m: re.Match[str]) -> bool:
    """Whether ``<name>value</name>`` holds a secret (``m`` from the ``>``): ``name``
    ends in a sensitive word and is closed after the value."""
    stop = m.start()
    if text[stop - 2 : stop].lower() not in _KEY_ENDS:
        return False  # most `>` end no such name: the cheap test first
    pos = stop
    while pos > 0 and stop - pos < 100 and text[pos - 1] in _KEY | {":"}:
        pos -= 1
    if pos == 0 or text[pos - 1] != "<" or not _sensitive(text[pos:stop]):
        return False
    if not text.startswith(text[pos:stop] + ">", m.end()):
        return False  # `<token>a</b>`: no element
    value = m["secret"].strip()
    return len(value) >= 4 and not PLACEHOLDER.match(value)


# A cookie (`name=value`; RFC 6265 bars blanks, `;`, `,`, quotes and `\` from the
# value) and a list of them, as a request's `Cookie:` header or `curl -b` holds it.
COOKIE = r"[^\s;=,\"'\\]++=[^\s;,\"'\\]*+"
COOKIES = rf"{COOKIE}(?:;[ \t]*+{COOKIE})*+"
# Each value of such a list (`Shape.parts`): not a placeholder, nor a lower-case word
# (`theme=dark`, `lang=en`).
COOKIE_VALUE = (
    r"=(?![$<{\[*])(?![a-z]{1,15}+(?![^\s;,\"'\\]))(?P<secret>[^\s;,\"'\\]{4,}+)"
)


def user_password(text: str, m: re.Match[str]) -> bool:
    """Whether ``user:value`` (no scheme before it) ends in a password: upper case,
    lower case and a digit, as a password rule asks and no ``host:port``, ``key:value``
    or digest has."""
    pos = m.start()
    while pos > 0 and m.start() - pos < 32 and text[pos - 1] in _USER:
        pos -= 1
    if m.start() - pos < 2 or not text[pos].islower():
        return False  # no user, or `Class:` or `12:`
    if pos > 0 and not (text[pos - 1].isspace() or text[pos - 1] in "\"'(["):
        return False  # `a.b:`, `x/y:`, `std::`, `git@host:`
    value = m["secret"]
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
        and not PLACEHOLDER.match(value)
    )


def env_line(text: str, m: re.Match[str]) -> bool:
    """Whether a ``NAME=value`` line (``key`` and ``secret`` groups) holds a secret."""
    key = m["key"]
    return (_sensitive(key) or _qualified(key)) and not PLACEHOLDER.match(m["secret"])


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

"""The shapes of secret that `memory.redact` looks for, besides prefixed tokens.

A token is known by a literal prefix (``ghp_``, ``sk-ant-``; `memory.secret_tokens`).
A `Shape` is a pattern of its own (a key and its value, a command and its flag, a
private key block, a URL's credentials); it may veto a match on context its pattern
cannot express (`check`), and runs only when one of its `keywords` occurs in the
lower-cased text, as gitleaks does (which also spares compiling it). Prefixes and lengths
follow the public rule sets of gitleaks and detect-secrets; the patterns are written
here, for Python's `re`. Issue 14 measured the maintained libraries on
tests/data/secrets/corpus.toml first (tests/benchmarks/bench_redact.py): the best,
betterleaks, found 79 of its 138 shapes, and 124 with the shapes below run after it
(it misses 14 prefixed tokens); it ships no macOS build. detect-secrets found 35.

Every pattern runs in linear time: possessive quantifiers, values of bounded length
(`Shape.tail` carries an accepted value on to its end), and a look-behind right after
the first literal wherever a pattern could start again inside its own run.

Left alone on purpose, to keep ordinary prose and code intact:

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
from typing import TYPE_CHECKING, Final, NamedTuple

from memhooks.memory.secret_tokens import TOKENS

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["KINDS", "SHAPES", "Shape", "secret_span"]


class Shape(NamedTuple):
    """One kind of secret with a pattern of its own, as `memory.redact` runs it."""

    kind: str
    source: str
    #: Lower-case strings of which one must occur in the text (none: always run).
    keywords: tuple[str, ...] = ()
    #: Whether a match is a secret after all, given the whole text.
    check: Callable[[str, re.Match[str]], bool] | None = None
    #: Search only the lines that hold one of the keywords (context on the same line).
    lines: bool = False
    #: What may follow an accepted secret and belongs to it (values are matched with a
    #: bounded length, so that a rejected candidate costs little).
    tail: str | None = None
    #: Search the lower-cased text (same offsets): the pattern is in lower case, which
    #: `re` scans far faster than an IGNORECASE one. Checks read `text` by offset.
    lower: bool = False

    @property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.source)


def secret_span(m: re.Match[str]) -> tuple[int, int]:
    """Where the secret itself is in a match: its ``secret`` group, else all of it."""
    if "secret" in m.re.groupindex and m.start("secret") >= 0:
        return m.span("secret")
    return m.span()


_I = re.IGNORECASE
_ID = r"[A-Za-z0-9]"
_ID_ = r"[A-Za-z0-9_-]"
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_KEY = _WORD | {".", "-"}
_SCHEME = (_WORD - {"_"}) | {"+", ".", "-"}

# -- checks -------------------------------------------------------------------------------


def _starts(after: frozenset[str]) -> Callable[[str, re.Match[str]], bool]:
    """A check that the match does not continue a run of ``after`` characters."""

    def check(text: str, m: re.Match[str]) -> bool:
        return m.start() == 0 or text[m.start() - 1] not in after

    return check


_WORD_START = _starts(_WORD | {"-"})

# A value: quoted (up to the quote), or unquoted (up to a blank or punctuation). Both
# are bounded, so that a candidate the check turns down costs little; an unquoted one
# stops at `:` and `=` too (`a=b=c`), and `_TAIL` carries an accepted one on.
_VALUE = (
    r"(?P<q>[\"'])?(?P<secret>(?(q)[^\"'\n]{4,1000}+"
    r"|[^\s\"'`,;&()\[\]{}<>|:=]{4,100}+(?![(\[])))"
)
_TAIL = r"[^\s\"'`,;&()\[\]{}<>|]*+"
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
_KEY_WORDS: Final = ("pass", "pwd", "pw", "secret", "token", "key", "auth")
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


def _assignment(text: str, m: re.Match[str]) -> bool:
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


def _env_line(text: str, m: re.Match[str]) -> bool:
    return _sensitive(m["key"]) and not _PLACEHOLDER.match(m["secret"])


_FLAG = re.compile(
    r"--(?:[a-z0-9]++-)*(?:password|passwd|pass|token|secret|auth|api-?key"
    r"|(?:account|access|secret|private|client|auth)-key|client-secret)\Z",
    _I,
)


def _flag(text: str, m: re.Match[str]) -> bool:
    if not _FLAG.match("--" + m["key"]):
        return False
    return not (m["secret"].startswith("-") or _PLACEHOLDER.match(m["secret"]))


def _not_placeholder(text: str, m: re.Match[str]) -> bool:
    return _WORD_START(text, m) and not _PLACEHOLDER.match(m["secret"])


def _url_userinfo(text: str, m: re.Match[str]) -> bool:
    # `scheme://user:pass@`: the scheme ends where the match starts.
    pos = m.start()
    while pos > 0 and m.start() - pos < 32 and text[pos - 1] in _SCHEME:
        pos -= 1
    return pos < m.start() and text[pos].isalpha()


def _pgpass_host(text: str, m: re.Match[str]) -> bool:
    # host:port:database:user:password, with the host (or `*`) before the match.
    pos = m.start()
    while pos > 0 and m.start() - pos < 256 and text[pos - 1] in _KEY | {"*"}:
        pos -= 1
    return pos < m.start() and (pos == 0 or text[pos - 1] not in _KEY | {":", "/"})


def _aws_secret(text: str, m: re.Match[str]) -> bool:
    s = m[0]
    return (
        any(c.isupper() for c in s)
        and any(c.islower() for c in s)
        and any(c.isdigit() for c in s)
    )


def _b64_private_key(text: str, m: re.Match[str]) -> bool:
    head = m[0][:64]
    return b"PRIVATE KEY" in base64.b64decode(head[: len(head) // 4 * 4])


def _discord_bot(text: str, m: re.Match[str]) -> bool:
    # The first part is the bot's user id, base64-encoded: digits once decoded.
    first = m[0].split(".", 1)[0]
    try:
        decoded = base64.b64decode(first + "=" * (-len(first) % 4), altchars=b"-_")
    except (binascii.Error, ValueError):
        return False
    return decoded.isdigit()


# -- shapes -------------------------------------------------------------------------------


def _s(
    kind: str,
    pattern: str,
    keywords: tuple[str, ...] = (),
    check: Callable[[str, re.Match[str]], bool] | None = None,
    *,
    lines: bool = False,
    tail: str | None = None,
    lower: bool = False,
) -> Shape:
    """A shape; without ``keywords``, the literal its pattern starts with is one."""
    if not keywords and (head := _literal_head(pattern)):
        keywords = (head,)
    return Shape(kind, pattern, keywords, check, lines, tail, lower)


def _literal_head(pattern: str) -> str:
    """The literal text ``pattern`` starts with, in lower case ("" if none)."""
    head = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern) and not pattern[i + 1].isalnum():
            head.append(pattern[i + 1])
            i += 2
        elif c.isalnum() or c in "-_:/~ !@#%&=,;'\"<>":
            head.append(c)
            i += 1
        else:
            break
    return "".join(head).lower()


def _guarded(prefix: str, guard: str) -> str:
    """``prefix``, then a look-behind that no ``guard`` character comes before it."""
    literal = re.escape(prefix)
    return f"{literal}(?<!{guard}{literal})"


def _command(*names: str, verb: str = "") -> Callable[[str, re.Match[str]], bool]:
    """A check that the flag matched belongs to one of the commands ``names`` (and to
    its ``verb``): on the same line, with no pipe, `;` or `&` between, at most 300
    characters back. The flag leads the pattern, so text without it costs nothing;
    where it occurs, the commands and separators of the text are found once.
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
# A flag's argument, quoted or not; a placeholder or a marker (`$PW`, `[redacted]`) is
# none, and failing here spares the check.
_ARG = r"(?P<q>[\"'])?(?![$<{\[])(?P<secret>(?(q)[^\"'\n]++|[^\s\"'`;&|]++))"
_MYSQL = ("mysql", "mysqldump", "mysqladmin", "mysqlimport", "mariadb", "mariadb-dump")
_REGISTRY = ("docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "az")


_PEM_LABEL: Final = r"[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_B64 = "[A-Za-z0-9+/]"

# Order only decides what `find_secrets` lists first (these, then the tokens, then the
# rest): the spans of all rules are joined before anything is replaced, so a narrow
# rule inside a wide one is harmless.
_FIRST: Final = (
    # The body goes; the BEGIN and END lines stay, to say what was there.
    _s(
        "private-key",
        rf"-----BEGIN{_PEM_LABEL}\s*+(?P<secret>[\s\S]*?)\s*+(?:-----END{_PEM_LABEL}|\Z)",
    ),
    # PuTTY keeps the private part in the lines after `Private-Lines: N`.
    _s(
        "private-key",
        r"Private-Lines:(?<![^\n]Private-Lines:)[ \t]*+\d++\r?\n"
        r"(?P<secret>[A-Za-z0-9+/=]++(?:\r?\n[A-Za-z0-9+/=]++(?=\r?\n|\Z))*+)",
    ),
    # A PEM private key, base64-encoded once more (kubeconfig, Kubernetes Secrets).
    _s(
        "private-key",
        _guarded("LS0tLS1CRUdJTi", _B64) + f"{_B64}{{40,}}+={{0,2}}",
        check=_b64_private_key,
    ),
    _s(
        "url-credentials",
        r"://(?P<secret>[^\s/@:\[\]]*+:[^\s/\[\]]+)(?=@)",
        check=_url_userinfo,
    ),
    _s(
        "webhook-url",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/"
        r"(?P<secret>[A-Za-z0-9+/_-]{20,}+)",
    ),
    _s(
        "webhook-url",
        r"/api/webhooks/\d++/(?P<secret>[A-Za-z0-9_-]{20,}+)",
    ),
    _s(
        "webhook-url",
        r"\.webhook\.office\.com/webhookb2/(?P<secret>[^\s\"'<>]{20,}+)",
    ),
    _s(
        "authorization-header",
        _guarded("authorization", "[a-z0-9_]")
        + r"[\"']?[ \t]*:[ \t]*[\"']?(?:bearer|basic|token|ssws|apikey)[ \t]+"
        r"(?P<secret>[a-z0-9._~+/=-]{8,}+)",
        ("authorization",),
        lower=True,
    ),
    _s(
        "aws-access-key-id",
        r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)(?<![A-Za-z0-9]....)[A-Z0-9]{16}"
        r"(?![A-Za-z0-9])",
        ("a3t", "akia", "asia", "abia", "acca"),
    ),
    _s(
        "aws-secret-access-key",
        _guarded("aws", "[a-z0-9_]")
        + r"_?secret_?access_?key[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?P<secret>[a-z0-9/+=]{16,}+)",
        ("aws",),
        lower=True,
    ),
    # Searched only on the lines holding one of its keywords, and from a run's start.
    _s(
        "aws-secret-access-key",
        r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
        ("aws", "amazon", "iam", "secret", "access", "akia", "asia"),
        _aws_secret,
        lines=True,
    ),
)
_REST: Final = (
    # Tokens whose characters do not all fit `TOKEN_RUN`, or whose prefix is not first.
    _s("grafana-token", _guarded("glc_", _B64) + f"{_B64}{{32,}}+={{0,2}}"),
    _s(
        "sentry-token",
        _guarded("sntrys_", _B64) + r"[A-Za-z0-9+/=_]{40,}+",
    ),
    _s(
        "onepassword-token",
        _guarded("ops_eyJ", _B64) + f"{_B64}{{100,}}+={{0,3}}",
    ),
    _s(
        "atlassian-token",
        _guarded("ATATT3", "[A-Za-z0-9_=-]") + "[A-Za-z0-9_=-]{100,}+",
    ),
    _s(
        "planetscale-token",
        _guarded("pscale_", "[A-Za-z0-9_.=-]")
        + r"(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,}+",
    ),
    # bot id:secret; the id is no secret, and starting at the colon is fast.
    _s(
        "telegram-bot-token",
        rf":(?<=\d{{5}}:)(?P<secret>AA{_ID_}{{33}})(?!{_ID_})",
        (":aa",),
    ),
    _s(
        "terraform-token",
        rf"\.atlasv1\.(?<={_ID}{{14}}\.atlasv1\.)[A-Za-z0-9_=-]{{60,}}+",
    ),
    _s(
        "firebase-key",
        rf":APA91b(?<=AAAA{_ID_}{{7}}:APA91b){_ID_}{{100,}}+",
    ),
    _s(
        "azure-client-secret",
        r"Q~(?<=[A-Za-z0-9_~.]{3}\dQ~)[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
    ),
    _s(
        "discord-bot-token",
        rf"(?<![A-Za-z0-9_-])[MNO]{_ID_}{{23,27}}\.{_ID_}{{6}}\.{_ID_}{{27,40}}(?!{_ID_})",
        ("discord",),
        _discord_bot,
    ),
    _s(
        "jwt",
        _guarded("eyJ", "[A-Za-z0-9_-]")
        + r"[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]*+",
    ),
    _s(
        "signed-url",
        r"[?&](?:sig|signature|x-amz-signature|x-goog-signature)="
        r"(?P<secret>[A-Za-z0-9%+/=._-]{16,}+)",
        ("sig",),
        lower=True,
    ),
    # mysql -pPW (attached: `-p db` asks for the password), sshpass -p, redis-cli -a,
    # a registry login's -p, twine -p, curl -u user:PW, openssl -passout pass:PW.
    _s(
        "cli-password",
        r"-p(?<![^ \t]-p)" + _ARG,
        ("mysql", "mariadb", "sshpass"),
        _command(*_MYSQL, "sshpass"),
    ),
    _s(
        "cli-password",
        r"-p(?<![^ \t]-p)[ \t]++" + _ARG,
        ("sshpass", "twine"),
        _command("sshpass", "twine"),
    ),
    _s(
        "cli-password",
        r"-p(?<![^ \t]-p)[ \t]++" + _ARG,
        ("login",),
        _command(*_REGISTRY, verb="login"),
    ),
    _s(
        "cli-password",
        r"-a(?<![^ \t]-a)[ \t]++" + _ARG,
        ("redis-cli",),
        _command("redis-cli"),
    ),
    _s(
        "cli-password",
        r"(?:--user|-u)(?<![^ \t]-u)(?<![^ \t]--user)(?:[ \t]++|=)"
        r"(?P<q>[\"'])?[^\s:\"']*+:(?P<secret>(?(q)[^\"'\n]++|[^\s\"'`;&|]++))",
        ("curl", "wget"),
        _command("curl", "wget"),
    ),
    _s("cli-password", r"-pass(?:in|out)?[ \t]++pass:(?P<secret>\S++)"),
    # --password X, --token X, --account-key X (`--password=X` is an assignment).
    _s(
        "cli-password",
        _guarded("--", "[A-Za-z0-9_-]")
        + r"(?P<key>[A-Za-z0-9][A-Za-z0-9-]*+)[ \t]++(?!-)"
        + _VALUE,
        check=_flag,
        tail=_TAIL,
    ),
    _s(
        "pgpass",
        r":(?:\d{1,5}+|\*):[^:\s]++:[^:\s]++:(?P<secret>[^\s:]{4,}+)(?![^\s])",
        check=_pgpass_host,
    ),
    *(
        _s(
            "netrc",
            rf"{_guarded(word, '[A-Za-z0-9_-]')}{rest}\s++login[ \t]++\S++\s++"
            r"password[ \t]++(?P<secret>\S++)",
        )
        for word, rest in (("machine", r"[ \t]++\S++"), ("default", ""))
    ),
    # NAME=value lines of a dotenv file or a shell: the value runs to the next blank.
    _s(
        "secret-assignment",
        r"(?m)^[ \t]*+(?:\$[ \t]++)?(?:export[ \t]++)?(?P<key>[A-Za-z_][A-Za-z0-9_]*+)="
        r"(?P<q>[\"'])?(?P<secret>(?(q)[^\"'\n]{4,}+|\S{4,}+))",
        _KEY_WORDS,
        _env_line,
    ),
    # Led by the word that ends a sensitive key, in the lower-cased text.
    _s(
        "secret-assignment",
        r"(?:password|passwd|passphrase|pwd|secret|token|key|pass|pw|auth)"
        r"[\"']?[ \t]{0,16}+(?P<sep>:=|=>|[:=])[ \t]*+" + _VALUE,
        _KEY_WORDS,
        _assignment,
        tail=_TAIL,
        lower=True,
    ),
)

SHAPES: Final = _FIRST + _REST
#: Kind names as `find_secrets` reports them, in its order.
KINDS: Final = tuple(
    dict.fromkeys(
        [s.kind for s in _FIRST] + [t.kind for t in TOKENS] + [s.kind for s in _REST]
    )
)

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

Where the line is drawn between a secret and ordinary text is in `memory.secret_checks`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final, NamedTuple

from memhooks.memory.secret_checks import (
    KEY_WORDS,
    TAIL,
    VALUE,
    assignment,
    aws_secret,
    b64_private_key,
    command,
    discord_bot,
    env_line,
    flag,
    pgpass_host,
    prose_password,
    url_userinfo,
)
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


_ID = r"[A-Za-z0-9]"
_ID_ = r"[A-Za-z0-9_-]"

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
    # The body goes; the BEGIN and END lines stay, to say what was there. A body cut
    # before its END runs to the end of the text, unless it is redacted already: a
    # record joins redacted items, and the next item is no key.
    _s(
        "private-key",
        rf"-----BEGIN{_PEM_LABEL}\s*+(?!\[redacted\])"
        rf"(?P<secret>[\s\S]*?)\s*+(?:-----END{_PEM_LABEL}|\Z)",
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
        check=b64_private_key,
    ),
    _s(
        "url-credentials",
        r"://(?P<secret>[^\s/@:\[\]]*+:[^\s/\[\]]+)(?=@)",
        check=url_userinfo,
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
        aws_secret,
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
        discord_bot,
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
        command(*_MYSQL, "sshpass"),
    ),
    _s(
        "cli-password",
        r"-p(?<![^ \t]-p)[ \t]++" + _ARG,
        ("sshpass", "twine"),
        command("sshpass", "twine"),
    ),
    _s(
        "cli-password",
        r"-p(?<![^ \t]-p)[ \t]++" + _ARG,
        ("login",),
        command(*_REGISTRY, verb="login"),
    ),
    _s(
        "cli-password",
        r"-a(?<![^ \t]-a)[ \t]++" + _ARG,
        ("redis-cli",),
        command("redis-cli"),
    ),
    _s(
        "cli-password",
        r"(?:--user|-u)(?<![^ \t]-u)(?<![^ \t]--user)(?:[ \t]++|=)"
        r"(?P<q>[\"'])?[^\s:\"']*+:(?P<secret>(?(q)[^\"'\n]++|[^\s\"'`;&|]++))",
        ("curl", "wget"),
        command("curl", "wget"),
    ),
    _s("cli-password", r"-pass(?:in|out)?[ \t]++pass:(?P<secret>\S++)"),
    # --password X, --token X, --account-key X (`--password=X` is an assignment).
    _s(
        "cli-password",
        _guarded("--", "[A-Za-z0-9_-]")
        + r"(?P<key>[A-Za-z0-9][A-Za-z0-9-]*+)[ \t]++(?!-)"
        + VALUE,
        check=flag,
        tail=TAIL,
    ),
    _s(
        "pgpass",
        r":(?:\d{1,5}+|\*):[^:\s]++:[^:\s]++:(?P<secret>[^\s:]{4,}+)(?![^\s])",
        check=pgpass_host,
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
        KEY_WORDS,
        env_line,
    ),
    # In a sentence: "the db password is hunter2", "password for bob: Tr0ub4dor",
    # "password：Tr0ub4dor" (the full-width colon of a Chinese or Japanese keyboard).
    _s(
        "prose-password",
        r"(?:password|passwd|passphrase)(?:[ \t]++for[ \t]++\S++)?"
        r"(?:(?:[ \t]++(?:is|was)|[ \t]*+:)?[ \t]++|[ \t]*+：[ \t]*+)"
        r"(?P<secret>[!#-&(-_a-~]{6,64}+)",
        ("password", "passwd", "passphrase"),
        prose_password,
        lower=True,
    ),
    # The same in Chinese, Japanese or Korean, where no blank need part the word from
    # the value: "数据库的密码是Hunter2xyz，", "パスワードは Tr0ub4dor&3 です".
    _s(
        "prose-password",
        r"(?:密码|密碼|口令|パスワード|비밀번호)"
        r"[ \t]*+(?:是|为|為|は|が|는|은|:|：)?[ \t]*+(?P<secret>[!#-&(-_a-~]{6,64}+)",
        ("密码", "密碼", "口令", "パスワード", "비밀번호"),
        prose_password,
    ),
    # Led by the word that ends a sensitive key, in the lower-cased text.
    _s(
        "secret-assignment",
        r"(?:password|passwd|passphrase|pwd|secret|token|key|pass|pw|auth)"
        r"[\"']?[ \t]{0,16}+(?P<sep>:=|=>|[:=])[ \t]*+" + VALUE,
        KEY_WORDS,
        assignment,
        tail=TAIL,
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

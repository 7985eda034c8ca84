"""The shapes of secret that `memory.redact` looks for, besides prefixed tokens.

A token is known by a literal prefix (``ghp_``, ``sk-ant-``; `memory.secret_tokens`).
A `Shape` is a pattern of its own (a key and its value, a command and its flag, a
private key block, a URL's credentials, a cookie list); it may veto a match on context
its pattern cannot express (`check`), and runs only when one of its `keywords` occurs
in the lower-cased text, as gitleaks does (which also spares compiling it). Prefixes and lengths
follow the public rule sets of gitleaks and detect-secrets; the patterns are written
here, for Python's `re`. Issue 14 measured the maintained libraries on
tests/data/secrets/corpus.toml first (tests/benchmarks/bench_redact.py): the best,
betterleaks, found 79 of its 138 shapes, and 124 with the shapes below run after it
(it misses 14 prefixed tokens); it ships no macOS build. detect-secrets found 35.

Every pattern runs in linear time: possessive quantifiers, values of bounded length
(`Shape.tail` carries an accepted value on to its end), and a look-behind right after
the first literal wherever a pattern could start again inside its own run.

Where the line is drawn between a secret and ordinary text is in `memory.secret_checks`;
the shapes of command lines are in `memory.secret_commands`, and `Shape` itself in
`memory.secret_rules`.
"""

from __future__ import annotations

from typing import Final

from memhooks.memory.secret_checks import (
    COOKIE,
    COOKIE_VALUE,
    COOKIES,
    KEY_WORDS,
    QUALIFIERS,
    TAIL,
    VALUE,
    assignment,
    aws_secret,
    b64_private_key,
    discord_bot,
    env_line,
    pgpass_host,
    prose_password,
    prose_secret,
    url_userinfo,
    user_password,
    xml_element,
)
from memhooks.memory.secret_commands import COMMANDS
from memhooks.memory.secret_rules import Shape, guarded, secret_span, shape
from memhooks.memory.secret_tokens import TOKENS

__all__ = ["KINDS", "SHAPES", "Shape", "secret_span"]

_ID = r"[A-Za-z0-9]"
_ID_ = r"[A-Za-z0-9_-]"

# -- shapes -------------------------------------------------------------------------------

# "password" in the languages whose sentences the English pattern fits (German's
# Passwort is the English pattern's), the keywords that find it, and the words that
# link it to its value ("das Passwort für root lautet …").
_PASSWORD_WORDS: Final = ("kennwort", "contrase", "senha", "mot de passe", "пароль")
_OF = "for|für|von|para|de|del|pour|du|voor|per|для|от"
_IS = "is|was|ist|war|lautet|es|era|est|était|é|è|это"
_BLANK = r"[ \t\u00a0\u202f]"
_PROSE_SEPARATOR: Final = (
    rf"(?:{_BLANK}++(?:{_OF}){_BLANK}++\S++)?"
    rf"(?:(?:{_BLANK}++(?:{_IS}|[—–-])|{_BLANK}*+:)?{_BLANK}++|{_BLANK}*+：{_BLANK}*+)"
)
_PROSE_VALUE = r"[!#-&(-_a-~]{6,64}+"
_PEM_LABEL: Final = r"[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_B64 = "[A-Za-z0-9+/]"

# Order only decides what `find_secrets` lists first (these, then the tokens, then the
# rest): the spans of all rules are joined before anything is replaced, so a narrow
# rule inside a wide one is harmless.
_FIRST: Final = (
    # The body goes; the BEGIN and END lines stay, to say what was there. A body cut
    # before its END runs to the end of the text, unless it is redacted already: a
    # record joins redacted items, and the next item is no key.
    shape(
        "private-key",
        rf"-----BEGIN{_PEM_LABEL}\s*+(?!\[redacted\])"
        rf"(?P<secret>[\s\S]*?)\s*+(?:-----END{_PEM_LABEL}|\Z)",
    ),
    # PuTTY keeps the private part in the lines after `Private-Lines: N`.
    shape(
        "private-key",
        r"Private-Lines:(?<![^\n]Private-Lines:)[ \t]*+\d++\r?\n"
        r"(?P<secret>[A-Za-z0-9+/=]++(?:\r?\n[A-Za-z0-9+/=]++(?=\r?\n|\Z))*+)",
    ),
    # A PEM private key, base64-encoded once more (kubeconfig, Kubernetes Secrets).
    shape(
        "private-key",
        guarded("LS0tLS1CRUdJTi", _B64) + f"{_B64}{{40,}}+={{0,2}}",
        check=b64_private_key,
    ),
    shape(
        "url-credentials",
        r"://(?P<secret>[^\s/@:\[\]]*+:[^\s/\[\]]+)(?=@)",
        check=url_userinfo,
    ),
    shape(
        "webhook-url",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/"
        r"(?P<secret>[A-Za-z0-9+/_-]{20,}+)",
    ),
    shape(
        "webhook-url",
        r"/api/webhooks/\d++/(?P<secret>[A-Za-z0-9_-]{20,}+)",
    ),
    shape(
        "webhook-url",
        r"\.webhook\.office\.com/webhookb2/(?P<secret>[^\s\"'<>]{20,}+)",
    ),
    shape(
        "authorization-header",
        guarded("authorization", "[a-z0-9_]")
        + r"[\"']?[ \t]*:[ \t]*[\"']?(?:bearer|basic|token|ssws|apikey)[ \t]+"
        r"(?P<secret>[a-z0-9._~+/=-]{8,}+)",
        ("authorization",),
        lower=True,
    ),
    # A request's cookies are credentials whatever their names: each value goes, each
    # name stays. A response sets one cookie, then its attributes (`Path=/`).
    shape(
        "session-cookie",
        guarded("cookie", "[a-z0-9_-]")
        + rf"[\"']?[ \t]*+:[ \t]*+[\"']?(?P<secret>{COOKIES})",
        lower=True,
        parts=COOKIE_VALUE,
    ),
    shape(
        "session-cookie",
        guarded("set-cookie", "[a-z0-9_-]")
        + rf"[\"']?[ \t]*+:[ \t]*+(?P<secret>{COOKIE})",
        ("cookie",),
        lower=True,
        parts=COOKIE_VALUE,
    ),
    shape(
        "aws-access-key-id",
        r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)(?<![A-Za-z0-9]....)[A-Z0-9]{16}"
        r"(?![A-Za-z0-9])",
        ("a3t", "akia", "asia", "abia", "acca"),
    ),
    shape(
        "aws-secret-access-key",
        guarded("aws", "[a-z0-9_]")
        + r"_?secret_?access_?key[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?P<secret>[a-z0-9/+=]{16,}+)",
        ("aws",),
        lower=True,
    ),
    # Searched only on the lines holding one of its keywords, and from a run's start.
    shape(
        "aws-secret-access-key",
        r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
        ("aws", "amazon", "iam", "secret", "access", "akia", "asia"),
        aws_secret,
        lines=True,
    ),
)
_REST: Final = (
    # Tokens whose characters do not all fit `TOKEN_RUN`, or whose prefix is not first.
    shape("grafana-token", guarded("glc_", _B64) + f"{_B64}{{32,}}+={{0,2}}"),
    shape(
        "sentry-token",
        guarded("sntrys_", _B64) + r"[A-Za-z0-9+/=_]{40,}+",
    ),
    shape(
        "onepassword-token",
        guarded("ops_eyJ", _B64) + f"{_B64}{{100,}}+={{0,3}}",
    ),
    shape(
        "atlassian-token",
        guarded("ATATT3", "[A-Za-z0-9_=-]") + "[A-Za-z0-9_=-]{100,}+",
    ),
    shape(
        "planetscale-token",
        guarded("pscale_", "[A-Za-z0-9_.=-]")
        + r"(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,}+",
    ),
    # bot id:secret; the id is no secret, and starting at the colon is fast.
    shape(
        "telegram-bot-token",
        rf":(?<=\d{{5}}:)(?P<secret>AA{_ID_}{{33}})(?!{_ID_})",
        (":aa",),
    ),
    shape(
        "terraform-token",
        rf"\.atlasv1\.(?<={_ID}{{14}}\.atlasv1\.)[A-Za-z0-9_=-]{{60,}}+",
    ),
    shape(
        "firebase-key",
        rf":APA91b(?<=AAAA{_ID_}{{7}}:APA91b){_ID_}{{100,}}+",
    ),
    shape(
        "azure-client-secret",
        r"Q~(?<=[A-Za-z0-9_~.]{3}\dQ~)[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
    ),
    shape(
        "discord-bot-token",
        rf"(?<![A-Za-z0-9_-])[MNO]{_ID_}{{23,27}}\.{_ID_}{{6}}\.{_ID_}{{27,40}}(?!{_ID_})",
        ("discord",),
        discord_bot,
    ),
    shape(
        "jwt",
        guarded("eyJ", "[A-Za-z0-9_-]")
        + r"[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]*+",
    ),
    shape(
        "signed-url",
        r"[?&](?:sig|signature|x-amz-signature|x-goog-signature)="
        r"(?P<secret>[A-Za-z0-9%+/=._-]{16,}+)",
        ("sig",),
        lower=True,
    ),
    *COMMANDS,
    shape(
        "pgpass",
        r":(?:\d{1,5}+|\*):[^:\s]++:[^:\s]++:(?P<secret>[^\s:]{4,}+)(?![^\s])",
        check=pgpass_host,
    ),
    *(
        shape(
            "netrc",
            rf"{guarded(word, '[A-Za-z0-9_-]')}{rest}\s++login[ \t]++\S++\s++"
            r"password[ \t]++(?P<secret>\S++)",
        )
        for word, rest in (("machine", r"[ \t]++\S++"), ("default", ""))
    ),
    # NAME=value lines of a dotenv file or a shell: the value runs to the next blank.
    shape(
        "secret-assignment",
        r"(?m)^[ \t]*+(?:\$[ \t]++)?(?:export[ \t]++)?(?P<key>[A-Za-z_][A-Za-z0-9_]*+)="
        r"(?P<q>[\"'])?(?P<secret>(?(q)[^\"'\n]{4,}+|\S{4,}+))",
        KEY_WORDS,
        env_line,
    ),
    # In a sentence: "the db password is hunter2", "password for bob: Tr0ub4dor",
    # "password：Tr0ub4dor" (the full-width colon of a Chinese or Japanese keyboard),
    # "das Passwort ist …", "la contraseña es …", "mot de passe : …", "пароль — …".
    shape(
        "prose-password",
        rf"pass(?:word|wd|phrase|wort){_PROSE_SEPARATOR}(?P<secret>{_PROSE_VALUE})",
        ("passw", "passphrase"),
        prose_password,
        lower=True,
    ),
    shape(
        "prose-password",
        r"(?:kennwort|contraseña|contrasena|senha|mot de passe|пароль)"
        rf"{_PROSE_SEPARATOR}(?P<secret>{_PROSE_VALUE})",
        _PASSWORD_WORDS,
        prose_password,
        lines=True,  # no literal leads the pattern: only where a word is
        lower=True,
    ),
    # "the token is Hx7Kq2…", "our api key is 7d1f0c9e…": longer values, and a digit;
    # the mark that ends the sentence is none of it. A shape a word, each led by a
    # literal, which `re` finds far faster; the check reads the word before "key".
    *(
        shape(
            "prose-secret",
            rf"(?P<word>{word}){_PROSE_SEPARATOR}"
            r"(?P<secret>[a-z0-9#-&*+./:=?@^_~!-]{15,999}[a-z0-9#-&*+/=@^_~-])",
            (word,),
            prose_secret,
            lower=True,
        )
        for word in ("token", "secret", "key")
    ),
    # The same in Chinese, Japanese or Korean, where no blank need part the word from
    # the value: "数据库的密码是Hunter2xyz，", "パスワードは Tr0ub4dor&3 です".
    shape(
        "prose-password",
        r"(?:密码|密碼|口令|パスワード|비밀번호)"
        r"[ \t]*+(?:是|为|為|は|が|는|은|:|：)?[ \t]*+(?P<secret>[!#-&(-_a-~]{6,64}+)",
        ("密码", "密碼", "口令", "パスワード", "비밀번호"),
        prose_password,
    ),
    # <password>…</password> (Maven's settings.xml), <apiKey>, <ns:secret>: the check
    # reads the element's name back from `>`, a literal that keeps the search fast.
    shape(
        "secret-assignment",
        r">(?P<secret>[^<>\n]{4,1000}+)</",
        KEY_WORDS,
        xml_element,
    ),
    # admin:Gf6Hj8Kl0Zx2 with no scheme: a password up to a blank or the end (one mark
    # of punctuation may end a sentence), after a lower-case user standing alone.
    shape(
        "user-password",
        r":(?P<secret>[A-Za-z0-9!#$%&*?^_~.-]{7,63}[A-Za-z0-9!#$%&*?^_~-])"
        r"(?=[.,;!?)\]\"']?(?:\s|\Z))",
        (":",),
        user_password,
    ),
    # Led by the word that ends a sensitive key (or comes before a qualifier), in the
    # lower-cased text: a shape a word, each led by a literal, which `re` finds far
    # faster than an alternation.
    *(
        shape(
            "secret-assignment",
            rf"{word}(?:[_.-](?:{'|'.join(QUALIFIERS)}))?"
            r"[\"']?[ \t]{0,16}+(?P<sep>:=|=>|[:=])[ \t]*+" + VALUE,
            (keyword,),
            assignment,
            tail=TAIL,
            lower=True,
        )
        for word, keyword in (
            *((r"pass(?:word|wd|phrase)?", "pass"), (r"pwd?", "pw")),
            *((word, word) for word in ("secret", "token", "key", "auth")),
        )
    ),
)

SHAPES: Final = _FIRST + _REST
#: Kind names as `find_secrets` reports them, in its order.
KINDS: Final = tuple(
    dict.fromkeys(
        [s.kind for s in _FIRST] + [t.kind for t in TOKENS] + [s.kind for s in _REST]
    )
)

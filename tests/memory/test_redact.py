from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memhooks.memory.private import private_lines_out, strip_private
from memhooks.memory.redact import REDACTED, find_secrets, redact

# Fake credentials in realistic shapes:
# (kind that find_secrets reports, text, the part that must vanish).
SHAPES = [
    pytest.param(
        "private-key",
        "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n"
        "-----END OPENSSH PRIVATE KEY-----\nsaved",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU",
        id="private-key-openssh",
    ),
    pytest.param(
        "private-key",
        "saved:\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oWdqZ\n"
        "-----END EC PRIVATE KEY-----\ndone",
        "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oWdqZ",
        id="private-key-ec",
    ),
    pytest.param(
        "private-key",
        "gpg:\n-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0bN3IBCADJx8\n"
        "-----END PGP PRIVATE KEY BLOCK-----\ndone",
        "lQOYBF0bN3IBCADJx8",
        id="private-key-pgp",
    ),
    pytest.param(
        "private-key",
        "cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n"
        "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM\nmore lines",
        "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM",
        id="private-key-unterminated",
    ),
    pytest.param(
        "aws-access-key-id",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "AKIAIOSFODNN7EXAMPLE",
        id="aws-akia",
    ),
    pytest.param(
        "aws-access-key-id",
        "session key ASIAY34FZKBOKMUTVV7A used",
        "ASIAY34FZKBOKMUTVV7A",
        id="aws-asia",
    ),
    pytest.param(
        "aws-secret-access-key",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        id="aws-secret",
    ),
    pytest.param(
        "github-token",
        "git clone https://ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8@github.com/o/r",
        "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
        id="github-token",
    ),
    pytest.param(
        "github-token",
        "GH token github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ in use",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
        id="github-pat",
    ),
    pytest.param(
        "openai-key",
        "client = OpenAI(api_key='sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_7A-9bCdEfGh')",
        "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_7A-9bCdEfGh",
        id="openai-key",
    ),
    pytest.param(
        "anthropic-key",
        "using sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AbCdEf_12345 for claude",
        "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AbCdEf_12345",
        id="anthropic-key",
    ),
    pytest.param(
        "slack-token",
        "SLACK bot xoxb-2048123456-4096123456789-AbCdEfGhIjKlMnOpQrStUvWx posted",
        "xoxb-2048123456-4096123456789-AbCdEfGhIjKlMnOpQrStUvWx",
        id="slack-token",
    ),
    pytest.param(
        "google-api-key",
        "maps key AIzaSyA-1234567890abcdefghijklmnopqrstu loaded",
        "AIzaSyA-1234567890abcdefghijklmnopqrstu",
        id="google-api-key",
    ),
    pytest.param(
        "stripe-key",
        "stripe.api_key = sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        id="stripe-live",
    ),
    pytest.param(
        "stripe-key",
        "tests use sk_test_51H8xYzAbCdEfGh12 only",
        "sk_test_51H8xYzAbCdEfGh12",
        id="stripe-test",
    ),
    pytest.param(
        "stripe-key",
        "restricted rk_live_51H8xYzAbCdEfGh34 key",
        "rk_live_51H8xYzAbCdEfGh34",
        id="stripe-restricted",
    ),
    pytest.param(
        "npm-token",
        "//registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        id="npm-token",
    ),
    pytest.param(
        "jwt",
        "cookie session=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c; path=/",
        "eyJzdWIiOiIxMjM0NTY3ODkwIn0",
        id="jwt",
    ),
    pytest.param(
        "secret-assignment",
        "mysql --password=hunter2hunter2 -h db",
        "hunter2hunter2",
        id="password-flag",
    ),
    pytest.param(
        "secret-assignment",
        '{"password": "correct horse battery"}',
        "correct horse battery",
        id="json",
    ),
    pytest.param(
        "prose-password",
        "my db password is hunter2 and the key is in the vault",
        "hunter2",
        id="prose-is",
    ),
    pytest.param(
        "prose-password",
        "login with user bob and password Tr0ub4dor, then run make",
        "Tr0ub4dor",
        id="prose-bare",
    ),
    pytest.param(
        "secret-assignment",
        "export DB_TOKEN=tok_9f8e7d6c5b4a",
        "tok_9f8e7d6c5b4a",
        id="export-token",
    ),
    pytest.param(
        "secret-assignment",
        "client_secret: s3cr3t-value\nnext: 1",
        "s3cr3t-value",
        id="yaml-client-secret",
    ),
    pytest.param(
        "secret-assignment",
        "GET /v1?api_key=abcd1234efgh&limit=5",
        "abcd1234efgh",
        id="query-api-key",
    ),
    pytest.param(
        "secret-assignment", "PASSWD='Tr0ub4dor&3'", "Tr0ub4dor&3", id="passwd-quoted"
    ),
    pytest.param(
        "secret-assignment",
        "settings.SECRET = 'dj4ng0-s3cr3t'",
        "dj4ng0-s3cr3t",
        id="secret",
    ),
    pytest.param(
        "secret-assignment", "apikey: Zm9vYmFyYmF6", "Zm9vYmFyYmF6", id="apikey"
    ),
    pytest.param(
        "secret-assignment",
        "access_token=ya29.a0AfH6SM",
        "ya29.a0AfH6SM",
        id="access-token",
    ),
    pytest.param(
        "secret-assignment", "login pwd=qwerty123 done", "qwerty123", id="pwd"
    ),
    pytest.param(
        "url-credentials",
        "DATABASE_URL=postgres://admin:s3cretPass@db.example.com:5432/app",
        "admin:s3cretPass",
        id="url-credentials",
    ),
    pytest.param(
        "url-credentials",
        "redis://:hunter2@cache:6379/0",
        "hunter2",
        id="url-password-only",
    ),
    pytest.param(
        "authorization-header",
        'curl -H "Authorization: Bearer abc.def-ghi_jkl123456" https://api.example.com',
        "abc.def-ghi_jkl123456",
        id="bearer-header",
    ),
]
SECRETS = [str(param.values[1]) + "\x00" + str(param.values[2]) for param in SHAPES]

# Ordinary prose and code that must come back unchanged.
NOT_SECRETS = [
    pytest.param(
        "The password is required; password reset flow v2 is stored in Vault.",
        id="prose-password-words",
    ),
    pytest.param(
        "Remember to rotate the token before the password expires.", id="prose"
    ),
    pytest.param(
        "Set max_tokens=4096 and token_count: 12 in the config.",
        id="keyword-inside-key",
    ),
    pytest.param(
        "The task-force installed scikit-learn; see sk-learn docs.",
        id="sk-inside-words",
    ),
    pytest.param(
        "sk-this-is-just-a-hyphenated-phrase-without-digits", id="sk-hyphenated-prose"
    ),
    pytest.param("password=", id="empty-value"),
    pytest.param('"password": ""', id="empty-json-value"),
    pytest.param("pwd: abc", id="short-value"),
    pytest.param("password=${PASSWORD}", id="env-placeholder"),
    pytest.param("export API_TOKEN=$API_TOKEN", id="shell-variable"),
    pytest.param("token: <your-token>", id="angle-placeholder"),
    pytest.param("secret: {{ vault_secret }}", id="template-placeholder"),
    pytest.param("password=***", id="masked"),
    pytest.param('"password": null, "token": true', id="json-literals"),
    pytest.param("password = getpass.getpass()", id="code-call"),
    pytest.param("token = sys.argv[1]", id="code-index"),
    pytest.param("if password == expected:", id="comparison"),
    pytest.param("def login(password: str) -> None:", id="type-annotation"),
    pytest.param("PWD=/home/user/project\nOLDPWD=/tmp", id="shell-pwd"),
    pytest.param("Authorization: Bearer $TOKEN", id="bearer-placeholder"),
    pytest.param(
        "http://localhost:8080/path and git@github.com:org/repo.git",
        id="url-without-credentials",
    ),
    pytest.param("ssh://git@github.com/org/repo", id="url-user-only"),
    pytest.param(
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----", id="certificate"
    ),
    pytest.param("AKIA is the prefix of long-term AWS keys", id="aws-prefix-alone"),
    pytest.param("使用令牌 token 登录，不要把密码 password 写进日志。", id="cjk-prose"),
    pytest.param(
        f"password={REDACTED} and https://{REDACTED}@host", id="already-redacted"
    ),
]

PRIVATE = [
    pytest.param(
        "before <private>my secret plan</private> after", "before  after", id="inline"
    ),
    pytest.param("a <PRIVATE>x</Private> b", "a  b", id="case-insensitive"),
    pytest.param(
        "keep\n<private>\nline one\nline two\n</private>\nend",
        "keep\n\nend",
        id="multi-line",
    ),
    pytest.param("keep <private>gone\nforever", "keep ", id="unclosed"),
    pytest.param("1<private>a</private>2<private>b</private>3", "123", id="several"),
    pytest.param(
        "<pri<private>x</private>vate>hidden</private>shown", "shown", id="spliced-tag"
    ),
    pytest.param("a </private> b", "a </private> b", id="stray-close"),
    # Before 2026-12-06 the first </private> closed the outer block: " c" was shown.
    pytest.param(
        "A <private>a <private>b</private> c</private> D", "A  D", id="nested"
    ),
    pytest.param(
        "A <private>a\n<PRIVATE>b</private>\nc</private>\nD", "A \nD", id="nested-lines"
    ),
    pytest.param("A <private>a <private>b</private> c", "A ", id="nested-unclosed"),
    pytest.param("日本語<private>秘密</private>テキスト", "日本語テキスト", id="cjk"),
]


@pytest.mark.parametrize(("kind", "text", "secret"), SHAPES)
def test_redact_removes_secret(kind: str, text: str, secret: str) -> None:
    result = redact(text)
    assert secret not in result
    assert REDACTED in result
    # Text around the secret survives; an unterminated key block runs to the end.
    before, _, after = text.partition(secret)
    assert result.startswith(before[:4])
    assert result.endswith(
        REDACTED if "-----END" not in text and kind == "private-key" else after[-4:]
    )


@pytest.mark.parametrize(("kind", "text", "secret"), SHAPES)
def test_find_secrets_names_kind(kind: str, text: str, secret: str) -> None:
    assert kind in find_secrets(text)


@pytest.mark.parametrize(("kind", "text", "secret"), SHAPES)
def test_redact_is_idempotent_on_shapes(kind: str, text: str, secret: str) -> None:
    once = redact(text)
    assert redact(once) == once
    assert find_secrets(once) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "mysql --password=hunter2hunter2 -h db",
            "mysql --password=[redacted] -h db",
            id="flag",
        ),
        pytest.param(
            '{"password": "correct horse"}', '{"password": "[redacted]"}', id="json"
        ),
        pytest.param(
            "export GITHUB_TOKEN=abc123def456",
            "export GITHUB_TOKEN=[redacted]",
            id="env",
        ),
        pytest.param(
            "postgres://u:p4ss@db/app", "postgres://[redacted]@db/app", id="url"
        ),
        pytest.param(
            "Authorization: Bearer abcdefgh1234",
            "Authorization: Bearer [redacted]",
            id="bearer",
        ),
        pytest.param("key AKIAIOSFODNN7EXAMPLE end", "key [redacted] end", id="token"),
    ],
)
def test_redact_keeps_key(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_no_false_positives(text: str) -> None:
    assert redact(text) == text
    assert find_secrets(text) == []


@pytest.mark.parametrize(("text", "expected"), PRIVATE)
def test_strip_private(text: str, expected: str) -> None:
    assert strip_private(text) == expected
    assert strip_private(expected) == expected
    assert redact(text) == expected


@pytest.mark.parametrize(("text", "expected"), PRIVATE)
def test_strip_private_keeping_lines_drops_the_same_text(
    text: str, expected: str
) -> None:
    # As many lines as `text`: what is left of each line is where it was.
    kept = strip_private(text, lines=True)
    assert kept.count("\n") == text.count("\n")
    assert kept.replace("\n", "") == expected.replace("\n", "")


def test_private_lines_out_says_which_lines_of_the_file_it_left_out() -> None:
    text = "a\n<private>\nb\n</private>\nc <private>d</private> e\n\n<private>f</private>\ng"
    assert private_lines_out(text) == ("a\nc  e\n\ng", (1, 2, 3, 6))


def test_strip_private_leaves_secrets() -> None:
    text = "password=hunter2hunter2"
    assert strip_private(text) == text


def test_redact_drops_private_before_secrets() -> None:
    assert (
        redact("x <private>ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8</private> y")
        == "x  y"
    )


def test_find_secrets_order_and_duplicates() -> None:
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlMTIz"
    github = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    text = f"{jwt} then {github} and again {github}"
    assert find_secrets(text) == ["github-token", "jwt"]
    assert find_secrets("") == []


def test_find_secrets_scans_private_blocks() -> None:
    assert find_secrets("<private>AKIAIOSFODNN7EXAMPLE</private>") == [
        "aws-access-key-id"
    ]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("a" * 1_000_000, id="letters"),
        pytest.param("a." * 500_000, id="dotted-run"),
        pytest.param("a://x:" * 170_000, id="url-prefixes"),
        pytest.param("x://" + "a:" * 500_000, id="url-colons"),
        pytest.param("password=" * 110_000, id="assignments"),
        pytest.param("password=abcd(" * 70_000, id="code-calls"),
        pytest.param('password="' + " " * 1_000_000, id="open-quote"),
        pytest.param("sk-" * 330_000, id="sk-prefixes"),
        pytest.param(" sk-" + "a" * 1_000_000, id="sk-no-digit"),
        pytest.param("AKIA" * 250_000, id="akia"),
        pytest.param("eyJ" + "a." * 500_000, id="jwt-dots"),
        pytest.param("-----BEGIN " * 90_000, id="pem-begins"),
        pytest.param(
            "-----BEGIN PRIVATE KEY-----" + "-----END " * 110_000, id="pem-ends"
        ),
        pytest.param("Authorization: Bearer " * 45_000, id="bearers"),
        pytest.param("<private>" * 110_000, id="open-tags"),
        pytest.param(
            "<pri" * 50_000 + "<private></private>" + "vate>" * 50_000,
            id="nested-splices",
        ),
        pytest.param("<priv" * 200_000, id="partial-tags"),
    ],
)
def test_adversarial_input_is_fast(text: str) -> None:
    start = time.process_time()  # CPU time: a busy machine does not inflate it
    redact(text)
    find_secrets(text)
    assert time.process_time() - start < 2.0  # generous: about 0.1 s here


@settings(max_examples=200, derandomize=True, database=None)
@given(before=st.text(), after=st.text(), case=st.sampled_from(SECRETS))
def test_inserted_secret_never_survives(before: str, after: str, case: str) -> None:
    text, secret = case.split("\x00")
    assert secret not in redact(f"{before}\n{text}\n{after}")


FRAGMENTS = st.sampled_from(
    [
        "<private>",
        "</private>",
        "<pri",
        "vate>",
        "password",
        "token",
        "=",
        ": ",
        '"',
        "'",
        "[",
        "]",
        REDACTED,
    ]
    + [
        "-----BEGIN RSA PRIVATE KEY-----",
        "-----END RSA PRIVATE KEY-----",
        "https://",
        "u:p@",
        "@",
        " ",
        "\n",
    ]
    + [
        "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
        "AKIAIOSFODNN7EXAMPLE",
        "sk-",
        "Authorization: Bearer ",
    ]
)


@settings(max_examples=200, derandomize=True, database=None)
@given(parts=st.lists(st.one_of(FRAGMENTS, st.text(max_size=8)), max_size=30))
def test_redact_is_idempotent(parts: list[str]) -> None:
    text = "".join(parts)
    once = redact(text)
    assert redact(once) == once
    assert strip_private(strip_private(text)) == strip_private(text)


def test_a_redacted_key_cut_before_its_end_keeps_what_follows() -> None:
    # A record joins items redacted one by one, then is redacted whole: a key cut before
    # its END line in one prompt took every later prompt and command with it.
    item = redact("here: -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAtruncated")
    assert item == "here: -----BEGIN RSA PRIVATE KEY-----\n[redacted]"
    record = f"## Prompts\n- {item}\n- deploy the billing service\n## Commands\n- make"
    assert redact(record) == record

"""Every shape of tests/data/secrets/corpus.toml is redacted, and nothing else changes.

The corpus holds fake secrets the way they reach a coding session (a prompt, a shell
command, a tool's output, a dotenv dump, a config file, prose) and text that looks
close but is no secret (git hashes, UUIDs, lockfile hashes, base64 images, ports,
names without values): eating those would be a failure too.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from memhooks.memory.redact import REDACTED, find_secrets, redact, secret_values
from memhooks.memory.secret_shapes import KINDS

CORPUS = tomllib.loads(
    (Path(__file__).parents[1] / "data" / "secrets" / "corpus.toml").read_text(
        encoding="utf-8"
    )
)
POSITIVES = CORPUS["positive"]
NEGATIVES = CORPUS["negative"]


def _ids(cases: list[dict[str, object]]) -> list[str]:
    seen: dict[str, int] = {}
    ids = []
    for case in cases:
        name = f"{case['kind']}-{case.get('where', 'text')}"
        seen[name] = seen.get(name, 0) + 1
        ids.append(f"{name}-{seen[name]}")
    return ids


def test_the_corpus_is_broad() -> None:
    """What the README quotes: at least 80 shapes in at least 25 categories."""
    kinds = {case["kind"] for case in POSITIVES}
    assert len(POSITIVES) >= 80 and len(kinds) >= 25
    assert len(NEGATIVES) >= 40
    # Every secret is in its text, and no negative holds one.
    for case in POSITIVES:
        assert all(s in case["text"] for s in case["secrets"] + case["keep"]), case
    secrets = {s for case in POSITIVES for s in case["secrets"]}
    assert not any(s in case["text"] for case in NEGATIVES for s in secrets)


@pytest.mark.parametrize("case", POSITIVES, ids=_ids(POSITIVES))
def test_every_shape_is_redacted_and_its_context_kept(
    case: dict[str, list[str]],
) -> None:
    text = str(case["text"])
    result = redact(text)
    left = [s for s in case["secrets"] if s in result]
    assert not left, f"{left} survived in:\n{result}"
    lost = [k for k in case["keep"] if k not in result]
    assert not lost, f"{lost} lost from:\n{result}"
    assert REDACTED in result
    assert redact(result) == result
    kinds = find_secrets(text)
    assert kinds and set(kinds) <= set(KINDS)
    assert find_secrets(result) == []


@pytest.mark.parametrize("case", NEGATIVES, ids=_ids(NEGATIVES))
def test_what_is_no_secret_survives_byte_for_byte(case: dict[str, str]) -> None:
    assert redact(case["text"]) == case["text"]
    assert find_secrets(case["text"]) == []


def test_a_whole_session_at_once_loses_only_its_secrets() -> None:
    """All the corpus in one text, as a digest holds it: each shape is still found when
    its neighbours are other shapes, and every line without a secret stays.
    """
    texts = [str(c["text"]) for c in POSITIVES + NEGATIVES]
    joined = "\n".join(texts)
    result = redact(joined)
    for case in POSITIVES:
        for secret in case["secrets"]:
            assert secret not in result
    result_lines = set(result.splitlines())
    secrets = [s for case in POSITIVES for s in case["secrets"]]
    for line in joined.splitlines():
        if not any(part in line for s in secrets for part in s.split("\n")):
            assert line in result_lines, line


def test_a_cookie_list_gives_each_value_alone_and_no_name() -> None:
    """A rule with `Shape.parts` (a cookie list) reports each value as a secret of its
    own: redacted wherever it comes again bare, while the names stay words."""
    text = "curl -b 'sid=Wd3Kp9Lq2Zx7Vb; remember_token=Tn5Gh8Jm1Qs4Xc' https://a.dev"
    assert secret_values([text]) == {"Wd3Kp9Lq2Zx7Vb", "Tn5Gh8Jm1Qs4Xc"}
    again = "grep -rn Tn5Gh8Jm1Qs4Xc logs/ and the sid cookie"
    assert redact(again, secret_values([text])) == (
        "grep -rn [redacted] logs/ and the sid cookie"
    )

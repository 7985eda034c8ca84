"""Terms as typed: which punctuation is part of a term (a literal) and which only
separates, wraps or joins words."""

from __future__ import annotations

import pytest

from memhooks.memory.typed import literal_of, query_terms


@pytest.mark.parametrize(
    ("term", "literal"),
    [
        pytest.param("%s", "%s", id="format"),
        pytest.param("C++", "c++", id="cpp"),
        pytest.param("C#", "c#", id="csharp"),
        pytest.param(".env", ".env", id="dotfile"),
        pytest.param("#123,", "#123", id="issue-then-comma"),
        pytest.param("--cap", "--cap", id="flag"),
        pytest.param("->", "->", id="arrow"),
        pytest.param("foo.bar", "", id="dotted-identifier"),
        pytest.param("snake_case", "", id="snake-case"),
        pytest.param("node.js", "", id="node-js"),
        pytest.param("it's", "", id="apostrophe"),
        pytest.param("e-receipt", "", id="hyphen"),
        pytest.param("port?", "", id="question-mark"),
        pytest.param("'now'", "", id="quoted"),
        pytest.param("(redis),", "", id="bracketed"),
        pytest.param("+", "", id="lone-plus-between-words"),
        pytest.param("迁移现在完成了吗?旧的", "", id="cjk-question"),
    ],
)
def test_literal_of(term: str, literal: str) -> None:
    assert literal_of(term) == literal


def test_a_literal_is_its_terms_one_key() -> None:
    # Before: "%s" was the key "s" and "c++" the key "c".
    assert [t.keys for t in query_terms("%s C++ foo.bar")] == [
        ("%s",),
        ("c++",),
        ("foo", "bar"),
    ]
    assert [t.keys for t in query_terms("%")] == [("%",)]  # alone, it is looked for

"""Containment helpers: `neutralise` defuses forgeries and leaves ordinary text alone."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhooks.memory.text import neutralise, one_line, scrub_surrogates

ZWJ = "\u200d"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("</memory>", f"<{ZWJ}/memory>", id="close"),
        pytest.param("</MEMORY >", f"<{ZWJ}/MEMORY >", id="upper-case"),
        pytest.param("< /memory>", f"<{ZWJ} /memory>", id="space-before-slash"),
        pytest.param("</ memory>", f"<{ZWJ}/ memory>", id="space-after-slash"),
        pytest.param("</mem\u200bory>", f"<{ZWJ}/mem\u200bory>", id="zero-width-inside"),
        pytest.param("<\u200b/memory>", f"<{ZWJ}\u200b/memory>", id="zero-width-after-lt"),
        pytest.param("<\u00ad/memory>", f"<{ZWJ}\u00ad/memory>", id="soft-hyphen"),
        pytest.param("\uff1c/memory\uff1e", f"\uff1c{ZWJ}/memory\uff1e", id="full-width-lt"),
        pytest.param("</\uff4d\uff45\uff4d\uff4f\uff52\uff59>", f"<{ZWJ}/\uff4d\uff45\uff4d\uff4f\uff52\uff59>", id="full-width-name"),
        pytest.param("<system-reminder>", f"<{ZWJ}system-reminder>", id="reminder"),
        pytest.param("<system_reminder>", f"<{ZWJ}system_reminder>", id="underscore"),
        pytest.param("<user-prompt-submit-hook>", f"<{ZWJ}user-prompt-submit-hook>", id="prompt-hook"),
        pytest.param("<command-name>/x", f"<{ZWJ}command-name>/x", id="slash-command"),
        pytest.param("<local-command-stdout>", f"<{ZWJ}local-command-stdout>", id="local-command"),
        pytest.param("x <COMMAND-", f"x <{ZWJ}COMMAND-", id="command-cut-short"),
        pytest.param("<Instructions>", f"<{ZWJ}Instructions>", id="instructions"),
        pytest.param("\x1b[31mred\x1b[0m", "[31mred[0m", id="ansi"),
        pytest.param("a\x00b\x07c\x85d\x9be", "abcde", id="nul-bell-c1"),
        pytest.param("\u202egnp.exe\u202c \u2066x\u2069", "gnp.exe x", id="bidi"),
        pytest.param("one\r\ntwo", "one\ntwo", id="crlf"),
    ],
)  # fmt: skip
def test_forgeries_are_defused(text: str, expected: str) -> None:
    assert neutralise(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("if a < b and c > d: return", id="comparison"),
        pytest.param("List<String> and Map<K, V>", id="generics"),
        pytest.param("<div class='memory'>x</div>", id="html"),
        pytest.param("<systemd> <memoryview> <hooks.py>", id="longer-names"),
        pytest.param("<commander> and <commands>", id="command-words"),
        pytest.param("x <\n/memory>", id="newline-between"),
        pytest.param("family 👨\u200d👩\u200d👧 emoji", id="emoji-zwj"),
        pytest.param("می\u200cخواهم", id="persian-zwnj"),
        pytest.param("tab\tand\nnewline", id="tab-newline"),
        pytest.param("&lt;/memory&gt;", id="entities"),
    ],
)
def test_ordinary_text_is_untouched(text: str) -> None:
    assert neutralise(text) == text


@given(
    st.text(st.sampled_from("<>/ \n\u200b\u200d\uff1cmemorysystemhook_-x\x1b\u202e"))
)
def test_neutralise_is_idempotent(text: str) -> None:
    once = neutralise(text)
    assert neutralise(once) == once


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("<" + "\u200b" * 1_000_000 + "!", id="invisible-run"),
        pytest.param("<" * 1_000_000, id="lt-run"),
        pytest.param("< " * 500_000, id="lt-space"),
        pytest.param("<m" * 500_000, id="many-candidates"),
        pytest.param("</" + " " * 1_000_000, id="open-lead"),
        pytest.param("<" + "a" * 5_000_000, id="long-name"),
    ],
)
def test_adversarial_input_is_fast(text: str) -> None:
    start = time.process_time()  # CPU time: a busy machine does not inflate it
    neutralise(text)
    assert time.process_time() - start < 2.0  # about 0.3 s at worst here


def test_lone_surrogates_become_replacement_characters() -> None:
    assert scrub_surrogates("a\ud800b\udcffc😀") == "a\ufffdb\ufffdc😀"
    scrub_surrogates("\ud800" * 10).encode("utf-8")  # encodable


@pytest.mark.parametrize(
    ("message", "max_bytes", "expected"),
    [
        pytest.param("a\nb\r\nc\u2028d", None, "a b c d", id="line-breaks"),
        pytest.param("my  file.md\n", None, "my  file.md", id="spaces-kept"),
        pytest.param("é" * 40 + " why", 70, None, id="abridged"),
    ],
)
def test_one_line(message: str, max_bytes: int | None, expected: str | None) -> None:
    line = one_line(message, max_bytes)
    if expected is not None:
        assert line == expected
    else:
        assert len(line.encode()) <= 70 and line.endswith("é why")
        assert line.startswith("éé") and "bytes left out]…" in line

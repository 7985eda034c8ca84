"""`hooks.stdin_lines`: a session's stdin split into lines, a line past the limit dropped."""

from __future__ import annotations

import io

import pytest

from memhooks.hooks import stdin_lines as lines_module
from memhooks.hooks.stdin_lines import Dropped, lines


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        pytest.param(b"ab\ncd\n", [b"ab\n", b"cd\n"], id="whole-lines"),
        pytest.param(b"ab\ncd", [b"ab\n", b"cd"], id="last-line-unended"),
        pytest.param(
            b"abcdef\nab\n", [Dropped(b"abc"), b"ab\n"], id="too-long-then-next"
        ),
        pytest.param(b"abcde\n", [b"abcde\n"], id="newline-counts-to-the-limit"),
        pytest.param(b"abcdefghij", [Dropped(b"abc")], id="too-long-unended"),
        pytest.param(b"abcdefg", [Dropped(b"abc")], id="one-past-the-limit"),
        pytest.param(b"\n\n", [b"\n", b"\n"], id="empty-lines"),
        pytest.param(b"", [], id="nothing"),
    ],
)
def test_lines_across_reads(
    data: bytes, expected: list[bytes | Dropped], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lines_module, "CHUNK", 2)  # a line spans several reads
    monkeypatch.setattr(
        lines_module, "HEAD", 3
    )  # of a line too long, its start is kept
    assert list(lines(io.BytesIO(data), limit=6)) == expected

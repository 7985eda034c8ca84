"""The thin client reads a payload as `json` would, without importing it (hooks/wire.py)."""

from __future__ import annotations

import json
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from memhooks.hooks.wire import FAILED, FAILURE_MAX, failed, failure, parse_object

_TEXT = st.text(
    st.characters(exclude_categories=["Cs"])
)  # JSON text: no lone surrogates
_SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(st.dictionaries(_TEXT, _VALUES))
def test_an_object_reads_back_as_json_reads_it(obj: dict[str, object]) -> None:
    for indent in (None, 2):
        raw = json.dumps(obj, indent=indent, ensure_ascii=indent is None).encode()
        assert parse_object(b" \n" + raw + b"\r\n\t") == json.loads(raw)


@given(st.binary() | _VALUES.map(lambda v: json.dumps(v).encode()))
def test_anything_else_is_read_as_json_reads_it_or_left_to_json(raw: bytes) -> None:
    got = parse_object(raw)
    if got is not None:  # None: the caller takes the full path, where json reads it
        assert got == json.loads(raw)


def test_what_json_would_refuse_or_reads_differently_is_left_to_json() -> None:
    for raw in (
        b'{"a": 1} x',  # trailing data
        b'{"a": 1',  # cut
        b"[1, 2]",  # not an object
        b'\xef\xbb\xbf{"a": 1}',  # a BOM: json.loads reads past it
        b'{"a": "\xed\xa0\x80"}',  # an encoded lone surrogate: json reads it as one
        b'{"a": "\xff"}',  # not UTF-8
        b"",
        b'{"a": ' + b"[" * 100_000,  # too deep
    ):
        assert parse_object(raw) is None, raw
    assert parse_object(b'{"n": NaN, "i": -Infinity}') is not None


#: The thin client's case: a payload read without `json`; then malformed input, whose
#: error the C scanner raises as a SystemError on Python 3.11 (`json.decoder` not loaded)
#: and as JSONDecodeError from 3.12, which loads `json.decoder` itself to raise it.
NO_JSON = r"""
import sys
from memhooks.hooks.wire import parse_object
assert "json.decoder" not in sys.modules
assert parse_object(b'{"ok": [1, 2.5, null]}') == {"ok": [1, 2.5, None]}
print("json" in sys.modules)
for raw in (b"{not json", b'{"a": }', b'{"a": 1,}', b'{"a": "\\x"}'):
    assert parse_object(raw) is None, raw
"""


def test_malformed_input_is_left_to_json_where_json_was_never_imported() -> None:
    done = subprocess.run(
        [sys.executable, "-c", NO_JSON], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_failure_sent_to_a_hook_keeps_its_reason_at_the_end() -> None:
    # Before: a session process sent a hook the first 400 characters of why it failed
    # an event: a long one lost its reason, at its end.
    raw = failed("unknown event 'xxx" + "x" * 5000 + "'\nexpected one of a, b")
    assert raw.startswith(FAILED) and len(raw) <= FAILURE_MAX + len(FAILED)
    said = failure(raw)
    assert said is not None
    assert said.startswith("unknown event 'xxx") and said.endswith(
        "' expected one of a, b"
    )

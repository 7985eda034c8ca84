"""memory/digests.py: the same digests as hashlib, so that names made before are found."""

from __future__ import annotations

import hashlib
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from memhooks.memory import digests


@given(st.binary(max_size=4096), st.integers(min_value=1, max_value=64))
def test_digests_are_hashlibs(data: bytes, size: int) -> None:
    assert digests.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert (
        digests.blake2b(data, digest_size=size).hexdigest()
        == hashlib.blake2b(data, digest_size=size).hexdigest()
    )


def test_a_hook_process_does_not_load_openssl_for_them() -> None:
    code = "import sys, memhooks.memory.digests; print('_hashlib' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"

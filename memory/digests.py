"""The hash functions names and fingerprints are made with, from CPython's own C modules.

`hashlib` loads OpenSSL for the same digests, ~5 ms of every hook process (a SessionStart
hook hashes a project's path and a session id); where there is no C module, `hashlib`
stands in. The digests are the same either way: file names made with one are found by
the other.
"""

from __future__ import annotations

#: Not `typing.TYPE_CHECKING`: see `memory.home`.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from hashlib import blake2b, sha256
else:
    try:
        from _blake2 import blake2b
    except ImportError:  # not CPython
        from hashlib import blake2b
    try:
        from _sha256 import sha256  # CPython 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # 3.12 and later
        except ImportError:
            from hashlib import sha256

__all__ = ["blake2b", "sha256"]

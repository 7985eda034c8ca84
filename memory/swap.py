"""Swapping the files two names hold, atomically (Linux `renameat2` with RENAME_EXCHANGE):
how `files.write_atomic` replaces a file only if no other program saved it meanwhile.
"""

from __future__ import annotations

import errno
import functools
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_works = True  # until the kernel or the file system says otherwise


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    """libc's renameat2, loaded at the first swap (ctypes is not for every hook)."""
    import ctypes

    return getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)


def exchange(a: Path, b: Path) -> bool:
    """Swap the files named `a` and `b` atomically; False where this is not supported.

    Raises:
        OSError: the disk refused (not a lack of support).
    """
    global _works  # learnt once per process
    renameat2 = _renameat2() if _works else None
    if renameat2 is None:
        return False
    if renameat2(
        _AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE
    ):
        import ctypes

        err = ctypes.get_errno()
        if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
            _works = False
            return False
        raise OSError(err, os.strerror(err), str(b))
    return True

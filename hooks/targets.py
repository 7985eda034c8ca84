"""A memory file named as search prints one of its lines: ``PATH:N``.

`memhooks forget` and `memory_forget` retire line N of PATH; `memhooks read` and
`memory_read` show PATH whole. A file whose name itself ends in ``:N`` (a note written
as ``port:8080``) is that file.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from memhooks.memory import MemoryStoreError

if TYPE_CHECKING:
    from memhooks.memory import Store

# ASCII digits only: `\d` and int() also take other scripts' digits ("MEMORY.md:١").
NUMBERED = re.compile(r"(.+):([0-9]+)")


def is_file(store: Store, target: str) -> bool:
    """Whether `target` names a memory file that is there."""
    try:
        return os.path.lexists(store.path(store.locate(target).rel))
    except MemoryStoreError:
        return False


def file_target(store: Store, target: str) -> str:
    """`target`, or PATH when it is ``PATH:N`` and only PATH names a file."""
    m = NUMBERED.fullmatch(target.strip())
    if m and not is_file(store, target) and is_file(store, m[1]):
        return m[1]
    return target


__all__ = ["NUMBERED", "file_target", "is_file"]

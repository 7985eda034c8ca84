"""The files the root's caches keep per project (``.index/<slug>.mhix``,
``.activity/<slug>.jsonl``), removed once the project's folder is gone.

A project renamed or deleted by hand leaves them: nothing reads or replaces them again,
so over months of use they would pile up with every such project. A file is removed
only when ``projects/<slug>`` is gone and the file was last written `GONE_SECONDS` ago;
a project that comes back rebuilds its index and starts a new activity file.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from typing import TYPE_CHECKING

from memhooks.memory.constants import PROJECTS_DIR
from memhooks.memory.lazylog import getLogger

if TYPE_CHECKING:
    from pathlib import Path

logger = getLogger(__name__)

#: How long after it was last written a gone project's file is removed.
GONE_SECONDS = 30 * 24 * 3600


def sweep(
    root: Path, folder: str, suffixes: tuple[str, ...], now: float | None = None
) -> list[str]:
    """Remove the files ``<root>/<folder>/<slug><suffix>`` of projects with no folder
    under ``projects/``, untouched for `GONE_SECONDS`.

    Returns:
        The names removed.
    """
    now = time.time() if now is None else now
    removed: list[str] = []
    with contextlib.suppress(OSError), os.scandir(root / folder) as entries:
        for entry in entries:
            slug, dot, suffix = entry.name.rpartition(".")
            if not dot or f".{suffix}" not in suffixes:
                continue
            with contextlib.suppress(OSError):
                if os.path.lexists(root / PROJECTS_DIR / slug):
                    continue
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(st.st_mode) and now - st.st_mtime >= GONE_SECONDS:
                    os.unlink(entry.path)
                    removed.append(entry.name)
    if removed:
        logger.info("removed %d files of projects gone from %s", len(removed), folder)
    return removed


__all__ = ["GONE_SECONDS", "sweep"]

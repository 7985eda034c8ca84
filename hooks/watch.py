"""The one module that imports watchfiles: report memory files edited under a root."""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

import anyio
from watchfiles import Change, awatch

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

logger = logging.getLogger(__name__)


def _is_memory_file(change: Change, path: str) -> bool:
    # Our temp files are hidden (".name.pid.rand.tmp") and end in .tmp: never a memory file.
    name = os.path.basename(path)
    return name.endswith(".md") and not name.startswith(".")


def _relative(changes: set[tuple[Change, str]], base: str) -> set[str]:
    return {
        os.path.relpath(os.path.realpath(p), base).replace(os.sep, "/")
        for _, p in changes
    }


async def watch_root(
    root: Path, on_change: Callable[[set[str]], None], stop: anyio.Event
) -> None:
    """Call `on_change` with root-relative POSIX paths of edited Markdown files until `stop` is set.

    The debounce is short (30 ms, watchfiles' default is 1.6 s) so that an edit made just
    before an event is seen by it.
    """
    base = str(await anyio.Path(root).resolve())
    async for changes in awatch(
        root, watch_filter=_is_memory_file, debounce=30, step=10, stop_event=stop
    ):
        rels = _relative(changes, base)
        logger.debug("changed: %s", ", ".join(sorted(rels)))
        on_change(rels)

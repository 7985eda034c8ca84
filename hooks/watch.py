"""Report memory files edited under a root, recursively (watchfiles' Rust half is loaded
by `hooks.notify`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from memhooks.hooks.notify import DEBOUNCE_MS, folders_changed, relative, watching
from memhooks.memory.lazylog import getLogger

if TYPE_CHECKING:
    from pathlib import Path

    from watchfiles._rust_notify import RustNotify

    from memhooks.hooks.reread import Rereads

logger = getLogger(__name__)

_STEP_MS = 10
#: How long one wait for changes may block its thread (the stop flag is checked meanwhile).
_TIMEOUT_MS = 5000


def start_watching(root: Path) -> RustNotify:
    """Watch `root` from now on: when this returns, every later change is reported.

    watchfiles' own `awatch` starts watching only once its loop runs; a session process
    starts here first, then lists the files, so no change falls between the two.

    Raises:
        OSError: `root` is missing or cannot be watched.
    """
    return watching([str(root)], recursive=True)


async def watch_root(
    root: Path,
    rereads: Rereads,
    stop: anyio.Event,
    watcher: RustNotify | None = None,
) -> None:
    """Give `rereads` the root-relative POSIX paths of edited Markdown files until `stop`
    is set, from `watcher` (`start_watching`) or from a watch started now; tell it when
    a folder of them changed as a whole, and when the watch is lost.
    """
    base = str(await anyio.Path(root).resolve())
    with watcher or start_watching(root) as notify:
        while True:
            try:
                raw = await anyio.to_thread.run_sync(
                    notify.watch, DEBOUNCE_MS, _STEP_MS, _TIMEOUT_MS, stop
                )
            except Exception as e:  # noqa: BLE001 - the watch is lost, not the session
                # watchfiles gives up for good on a path that is not UTF-8 (caf\xe9.md),
                # as soon as anything reads that file: the process died with it.
                rereads.lost(f"{type(e).__name__}: {e}")
                return
            if raw == "stop":
                return
            if isinstance(raw, str):  # a timeout: wait again
                continue
            rels = relative(raw, base)
            if folders_changed(raw, base):
                logger.debug("a folder of memory files changed: listing them again")
                rereads.relist()
            if rels:
                logger.debug("changed: %s", ", ".join(sorted(rels)))
                rereads.add(rels)


__all__ = ["start_watching", "watch_root"]

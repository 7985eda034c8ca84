"""The one module that imports watchfiles: report memory files edited under a root."""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

import anyio
from watchfiles._rust_notify import RustNotify

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

logger = logging.getLogger(__name__)

#: Changes are grouped this long (watchfiles' default is 1.6 s): an edit made just before
#: an event is seen by it.
DEBOUNCE_MS = 30
_STEP_MS = 10
#: How long one wait for changes may block its thread (the stop flag is checked meanwhile).
_TIMEOUT_MS = 5000


def _is_memory_file(path: str) -> bool:
    # Our temp files are hidden (".name.pid.rand.tmp") and end in .tmp: never a memory file.
    name = os.path.basename(path)
    return name.endswith(".md") and not name.startswith(".")


def _relative(changes: set[tuple[int, str]], base: str) -> set[str]:
    return {
        os.path.relpath(os.path.realpath(p), base).replace(os.sep, "/")
        for _, p in changes
        if _is_memory_file(p)
    }


def start_watching(root: Path) -> RustNotify:
    """Watch `root` from now on: when this returns, every later change is reported.

    watchfiles' own `awatch` starts watching only once its loop runs; a session process
    starts here first, then lists the files, so no change falls between the two.

    Raises:
        OSError: `root` is missing or cannot be watched.
    """
    # watchfiles' Rust half, as its `watch`/`awatch` use it (typed in its `_rust_notify.pyi`).
    return RustNotify(
        watch_paths=[str(root)],
        debug=False,
        force_polling=False,
        poll_delay_ms=300,
        recursive=True,
        ignore_permission_denied=False,
    )


def drain(notify: RustNotify, root: Path) -> set[str]:
    """What `notify` reported so far (root-relative paths, as `watch_root` gives them),
    waiting only for a change already begun to settle."""
    raw = notify.watch(DEBOUNCE_MS, 1, 1, None)
    base = os.path.realpath(root)
    return set() if isinstance(raw, str) else _relative(raw, base)


async def watch_root(
    root: Path,
    on_change: Callable[[set[str]], None],
    stop: anyio.Event,
    watcher: RustNotify | None = None,
) -> None:
    """Call `on_change` with root-relative POSIX paths of edited Markdown files until
    `stop` is set; from `watcher` (`start_watching`), or from a watch started now.
    """
    base = str(await anyio.Path(root).resolve())
    with watcher or start_watching(root) as notify:
        while True:
            raw = await anyio.to_thread.run_sync(
                notify.watch, DEBOUNCE_MS, _STEP_MS, _TIMEOUT_MS, stop
            )
            if raw == "stop":
                return
            if isinstance(raw, str):  # a timeout: wait again
                continue
            rels = _relative(raw, base)
            if rels:
                logger.debug("changed: %s", ", ".join(sorted(rels)))
                on_change(rels)


__all__ = ["drain", "start_watching", "watch_root"]

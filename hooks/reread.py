"""Re-reading the files the watcher reports, off the session process's event loop.

A 30 MB note written during a session takes seconds to read and tokenize: on the event
loop, that froze every request (and the checks that end the process with its harness).
Here one daemon thread re-reads them, a batch at a time, while requests are served with
what the views hold; a request waits at most `SETTLE_SECONDS` for re-reads in flight, so
an ordinary edit made just before a prompt is still seen by it.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import anyio
import anyio.lowlevel

from memhooks.hooks.listing import rescan
from memhooks.memory.lazylog import getLogger

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from memhooks.hooks.view import View

logger = getLogger(__name__)

#: How long a request waits for re-reads in flight before answering with what is ready.
SETTLE_SECONDS = 0.5


class Rereads:
    """Files to re-read, and the daemon thread that re-reads them into every view."""

    def __init__(self, views: Callable[[], Iterable[View]]) -> None:
        self._views = views
        self._pending: dict[str, None] = {}
        self._busy = False
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._blind = False  #: the watcher is lost: `settle` compares the disk
        self._relist = False  #: a folder of memory files changed: compare the disk

    def add(self, rels: Iterable[str]) -> None:
        """Re-read `rels` soon, in a thread (never waits: called on the event loop)."""
        with self._wake:
            self._pending.update(dict.fromkeys(rels))
            if self._thread is None:
                # A daemon: a re-read in progress never keeps a finished session alive.
                self._thread = threading.Thread(
                    target=self._run, daemon=True, name="reread"
                )
                self._thread.start()
            self._wake.notify_all()

    def relist(self) -> None:
        """Compare every view with the disk soon, in the thread (`hooks.listing.rescan`):
        a folder moved away or back is reported by its own name, not by its files'."""
        with self._wake:
            self._relist = True
        self.add(())

    def idle(self) -> bool:
        """Whether every reported file has been re-read."""
        with self._wake:
            return self._idle()

    def _idle(self) -> bool:
        return not self._pending and not self._relist and not self._busy

    def lost(self, why: str) -> None:
        """The watcher is gone: from now on each request first finds what changed."""
        logger.warning("memory root no longer watched (%s); edits found by stat", why)
        self._blind = True

    async def settle(self) -> None:
        """Wait until `idle`, at most `SETTLE_SECONDS`; with no watcher, re-read first
        what changed on disk (a stat of each file, as a view catches up when it starts)."""
        await anyio.lowlevel.checkpoint()  # let the watcher report edits made just now
        if self._blind:
            await anyio.to_thread.run_sync(self._catch_up)
        if not self.idle():
            await anyio.to_thread.run_sync(self._wait_idle)

    def _catch_up(self) -> None:
        for view in list(self._views()):
            rescan(view)

    def _wait_idle(self) -> None:
        with self._wake:
            self._wake.wait_for(self._idle, SETTLE_SECONDS)

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._pending and not self._relist:
                    self._busy = False
                    self._wake.notify_all()  # a request may be waiting in `settle`
                    self._wake.wait()
                batch, self._pending = list(self._pending), {}
                relist, self._relist = self._relist, False
                self._busy = True
            for view in list(self._views()):
                try:
                    # A rescan re-reads what changed on disk: the batch's files too.
                    done = set(rescan(view)) if relist else set()
                    view.refresh([rel for rel in batch if rel not in done])
                except Exception as e:  # noqa: BLE001 - one bad file must not stop re-reading
                    logger.warning("re-reading %d files failed: %s", len(batch), e)


__all__ = ["SETTLE_SECONDS", "Rereads"]

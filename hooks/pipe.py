"""A session process over a pipe (`memhooks session`): one JSON line in, one JSON line out.

For harnesses that stream their lifecycle events to a process of their own; it shares its
loop with the socket's (`hooks.serve.Process`), and leaves at session-end, end of input,
its parent's death or an idle timeout.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, BinaryIO

import anyio
from anyio.lowlevel import current_token

from memhooks.hooks.runner import MAX_PAYLOAD, end_open
from memhooks.hooks.serve import Process
from memhooks.hooks.spawn import harness_pid
from memhooks.hooks.stdin_lines import Dropped, closed_on_signal, pump
from memhooks.hooks.upgraded import keep_release
from memhooks.memory.lazylog import getLogger
from memhooks.memory.store import make_folder

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from memhooks.hooks.events import Harness

logger = getLogger(__name__)


async def serve_pipe(
    stdin: BinaryIO,
    write: Callable[[str], None],
    *,
    root: Path,
    harness: Harness | None,
    idle_timeout: float | None = None,
) -> int:
    """Answer events from `stdin` until session-end, end of input, parent death or idle."""
    # Noted before anything slow (the root made, the watcher started): a parent that dies
    # meanwhile would leave this process with pid 1 as its parent, and nothing to notice.
    parent = os.getppid()
    caller = harness_pid()  # the harness streaming the events, for their state
    keep_release()  # it cannot leave at an upgrade: the harness holds its pipes
    await anyio.to_thread.run_sync(make_folder, root)
    process = Process(root, idle_timeout)
    send, receive = anyio.create_memory_object_stream[bytes | Dropped](16)
    pumped = (stdin, send, current_token(), MAX_PAYLOAD)
    threading.Thread(target=pump, args=pumped, daemon=True, name="stdin").start()
    replying = True

    async def requests() -> None:
        nonlocal replying
        async with receive, anyio.create_task_group() as signals:
            signals.start_soon(closed_on_signal, send)
            async for line in receive:
                if isinstance(line, bytes) and not line.strip():
                    continue
                result = await process.answer(line, harness, caller)
                if replying:
                    replying = _reply(write, result.text or "{}")
                if result.ended:
                    break
            signals.cancel_scope.cancel()

    def leave() -> str | None:
        return "parent process is gone" if os.getppid() != parent else None

    await process.run(requests, leave)
    if not process.idled():  # input closed or the harness died: none of its sessions
        await end_open(process.sessions)  # hears from it again, so each ends here
    return 0


def _reply(write: Callable[[str], None], text: str) -> bool:
    # A harness that stops reading (`| head`, a reader gone) still has its events
    # handled, its session end recorded: only the replies are dropped, said once.
    try:
        write(text)
    except OSError as e:
        logger.warning("replies could not be written (%s); events still handled", e)
        return False
    return True

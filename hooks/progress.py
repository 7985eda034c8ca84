"""A one-line status on stderr while slow work runs, shown only when stderr is a terminal.

The slow cases have no steps to count from here (the first search of a project builds
its index; the first eval with meaning embeds every file), so a line saying what is
happening is all a progress bar library would show: none is imported (a hook command
must not pay for one, and tqdm or rich cost a one-shot command more than its search).
"""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING

from memhooks.hooks.constants import PROG
from memhooks.memory.text import nbytes

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import TextIO


@contextlib.contextmanager
def status(text: str, stream: TextIO | None = None) -> Iterator[None]:
    """Show ``memhooks: TEXT…`` while the block runs; erase it afterwards."""
    out = sys.stderr if stream is None else stream
    shown = out.isatty()
    if shown:
        out.write(f"{PROG}: {text}…")
        out.flush()
    try:
        yield
    finally:
        if shown:
            out.write("\r\033[K")
            out.flush()


#: Text from this many characters on takes seconds to write and check (a 40 MB note
#: takes several): `memhooks write` says so on a terminal.
SLOW_WRITE_CHARS = 1 << 20


def writing(to: str, text: str) -> contextlib.AbstractContextManager[None]:
    """`status` while `text` is written to `to`, if it is long enough to take seconds."""
    if len(text) < SLOW_WRITE_CHARS:
        return contextlib.nullcontext()
    mib = nbytes(text) / (1 << 20)
    return status(f"writing {mib:.0f} MiB to {to}, checking it for secrets")


__all__ = ["SLOW_WRITE_CHARS", "status", "writing"]

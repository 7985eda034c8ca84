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


__all__ = ["status"]

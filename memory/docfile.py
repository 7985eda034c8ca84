"""A memory file in scope read from disk as a document, and what is said of one that
cannot be: its bytes and modification time (a regular file only), the `Doc` search and
the block see of it, and the one warning a process gives of a file left out.

`memory.scope.Scope` lists the files in scope and reads each through these; a file that
cannot be read, or that links outside the root, is named once a process: left out without
a word, it would look like none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhooks.memory.corpus import make_doc
from memhooks.memory.errors import UnsafeNameError
from memhooks.memory.files import NotRegularFileError, read_regular
from memhooks.memory.lazylog import getLogger
from memhooks.memory.note_format import searchable

if TYPE_CHECKING:
    from memhooks.memory.corpus import Doc
    from memhooks.memory.paths import Located

logger = getLogger(__name__)

#: What in scope was found unreadable, said once a process.
_WARNED: set[str] = set()


def warn_once(rel: str, problem: str) -> None:
    """Log that the file at `rel` is `problem`, the first time this process finds it."""
    if rel not in _WARNED:
        _WARNED.add(rel)
        logger.warning("%s %s", rel, problem)


def left_out(e: Exception) -> str:
    """What `warn_once` says of a file in scope that `e` kept from being read."""
    if isinstance(e, UnsafeNameError):
        return "links outside the root: left out"
    why = (e.strerror if isinstance(e, OSError) else None) or str(e)
    return f"cannot be read ({why}): left out"


def slurp(path: str, rel: str) -> tuple[bytes, int]:
    """A regular file's bytes and modification time (a FIFO or device raises OSError);
    one there but unreadable is named once (left out without a word, it looks like none)."""
    try:
        read = read_regular(path)
    except (FileNotFoundError, NotADirectoryError, NotRegularFileError):
        raise  # gone, or no file (the listing says so for MEMORY.md and the scratchpad)
    except OSError as e:
        warn_once(rel, left_out(e))
        raise
    return read.data, read.mtime_ns


def read_doc(
    loc: Located, path: str, read: tuple[bytes, int] | None = None
) -> Doc | None:
    """The document of the memory file at `loc` (its absolute `path`), as search and the
    block see it; `read` is its bytes and modification time, if read already (`slurp`).
    None when it cannot be read or is forgotten whole."""
    try:
        raw, mtime = read or slurp(path, loc.rel)
    except OSError:
        return None
    text = raw.decode("utf-8", errors="replace")
    # Forgotten lines and notes, and a person's private text, stay in the file for
    # people, never for search and the block (memory.forget, memory.private).
    seen = searchable(loc.kind, text)
    if seen is None:
        return None
    shown, skipped = seen
    return make_doc(loc, shown, size=len(raw), mtime_ns=mtime, skipped=skipped)

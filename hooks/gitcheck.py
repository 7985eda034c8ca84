"""`memhooks doctor`: a memory root kept in git that tracks what one machine keeps.

``.index/``, ``.sessions/``, ``.activity/`` and ``.embeddings/`` ignore themselves (each
holds a ``.gitignore`` of ``*``), but a file git tracks already stays tracked: in a root
committed with a memhooks from before 2026-12-04 (no ``.gitignore`` in ``.activity/`` or
``.sessions/``), or after a ``git add -f``, each session's records are still committed,
and two clones conflict in ``.activity/<slug>.jsonl`` at every merge. What git tracks is
read from its index file, and the repository from ``.git`` (`memory.paths.git_checkout`):
git is never run.
"""

from __future__ import annotations

import contextlib
import os
import struct
from typing import TYPE_CHECKING

from memhooks.hooks.activity import ACTIVITY_DIR
from memhooks.hooks.harnesscheck import Finding
from memhooks.hooks.state import SessionState
from memhooks.memory.constants import EMBEDDINGS_DIR, INDEX_DIR, STATE_DIR
from memhooks.memory.files import read_bytes
from memhooks.memory.merging import git_waits
from memhooks.memory.paths import git_checkout
from memhooks.memory.text import shell_word

if TYPE_CHECKING:
    from pathlib import Path

#: The root's folders of what one machine keeps, in the order they are named.
CACHES = (ACTIVITY_DIR, STATE_DIR, INDEX_DIR, EMBEDDINGS_DIR)


def check_tracked(root: Path) -> list[Finding]:
    """A fix when the git repository the root is in tracks files of `CACHES`."""
    top, gitdir = git_checkout(root.resolve()) or (root, None)
    if gitdir is None:  # not in git, or a `.git` file that cannot be read
        return []
    rel = os.path.relpath(root.resolve(), top)
    folders = [c if rel == "." else f"{rel}/{c}" for c in CACHES]
    names = tracked(read_bytes(gitdir / "index") or b"", folders)
    if not names:
        return []
    which = [f for f in folders if any(n.startswith(f + "/") for n in names)]
    words = " ".join(shell_word(f) for f in which)
    return [
        Finding(
            "fix",
            f"the git repository of the memory root tracks {len(names)} file"
            f"{'s' if len(names) != 1 else ''} of what one machine keeps (e.g. "
            f"{names[0]}), committed before memhooks ignored them: each clone changes "
            f"them, and merges conflict there; `git -C {shell_word(top)} rm -r --cached "
            f"--quiet -- {words}` stops tracking them (they stay here), then commit",
        )
    ]


def check_waiting(root: Path) -> list[Finding]:
    """A warning while the root's git stands in a merge or a rebase: the records of the
    sessions that end meanwhile wait (`stale.deferred`)."""
    what = git_waits(root)
    if not what:
        return []
    kept = 0
    for path in (root / STATE_DIR).glob("*.json"):
        with contextlib.suppress(ValueError, TypeError, RecursionError):
            kept += bool(SessionState.from_json(read_bytes(path) or b"").kept)
    n = f"{kept} session{'s' if kept != 1 else ''}" if kept else "a session"
    return [
        Finding(
            "warn",
            f"the memory root's git is in {what}: the records of {n} that ended "
            "meanwhile wait in its state; the first session start once it is done "
            "(committed, or aborted) writes them",
        )
    ]


def tracked(index: bytes, folders: list[str]) -> list[str]:
    """The paths in git's index file `index` (versions 2 to 4) under `folders`, sorted;
    [] for anything else."""
    prefixes = tuple(os.fsencode(f) + b"/" for f in folders)
    try:
        signature, version, count = struct.unpack(">4sII", index[:12])
        if signature != b"DIRC" or version not in (2, 3, 4):
            return []
        at, name, out = 12, b"", set[str]()
        for _ in range(count):
            (flags,) = struct.unpack(">H", index[at + 60 : at + 62])
            head = 64 if version >= 3 and flags & 0x4000 else 62  # extended flags
            start = at + head
            if version == 4:  # the path: how much of the last to drop, then the rest
                drop, start = _offset(index, start)
                end = index.index(b"\0", start)
                name = name[: len(name) - drop] + index[start:end]
                at = end + 1
            else:  # the path, then 1-8 NULs to a multiple of 8 bytes
                end = index.index(b"\0", start)
                name = index[start:end]
                at += (head + len(name) + 8) & ~7
            if name.startswith(prefixes):
                out.add(os.fsdecode(name))  # once, whatever its merge stages
    except (struct.error, ValueError, IndexError):
        return []
    return sorted(out)


def _offset(data: bytes, at: int) -> tuple[int, int]:
    # git's variable-length number (varint.c) at `at`: its value, and where it ends.
    byte = data[at]
    value = byte & 0x7F
    while byte & 0x80:
        at += 1
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, at + 1


__all__ = ["CACHES", "check_tracked", "tracked"]

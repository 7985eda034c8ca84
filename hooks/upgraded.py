"""Whether memhooks' own files changed on disk since this process read them: an upgrade.

A session process lives as long as its session and imports some modules only when first
needed (the glosses of a question asked in Chinese, the postings of an index build). After
`pip install -U` or `pipx upgrade`, those would come from the new files and meet the old
code already in memory, which may lack a name they use. So a session process leaves once its
install changed (`hooks.serve`), and the next hook, run with the new files, starts one.
`memhooks mcp` cannot leave (the harness would lose its tools), so it imports the whole
release once it has listed its tools to the client (`load_release`).

What tells: each package folder's `.py` files, by name, inode, modification time and size.
An install writes every file anew (new inodes), an editor's save in an editable install
changes the file it writes, and a file missing or a folder gone mid-install counts as a
change. Compiled files (`__pycache__`) are not looked at: Python writes those as it runs.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys

from memhooks.memory import files
from memhooks.memory.lazylog import getLogger

logger = getLogger(__name__)

#: The folders of the `memhooks.hooks` and `memhooks.memory` packages this process runs.
FOLDERS = (
    os.path.dirname(os.path.abspath(__file__)),
    os.path.dirname(os.path.abspath(files.__file__)),
)

Fingerprint = frozenset[tuple[str, str, int, int, int]]


def fingerprint(folders: tuple[str, ...] = FOLDERS) -> Fingerprint | None:
    """The `.py` files of `folders` as they are on disk now; None if one cannot be read."""
    seen: set[tuple[str, str, int, int, int]] = set()
    try:
        for folder in folders:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.name.endswith(".py"):
                        st = entry.stat()
                        seen.add(
                            (folder, entry.name, st.st_ino, st.st_mtime_ns, st.st_size)
                        )
    except OSError:
        return None
    return frozenset(seen)


class Install:
    """The files this process was started from, read once, to compare with later."""

    def __init__(self, folders: tuple[str, ...] = FOLDERS) -> None:
        self.folders = folders
        #: None where they could not be read at start (a zip import): never "changed".
        self.at_start = fingerprint(folders)

    def changed(self) -> bool:
        """True once a file was added, removed, replaced or edited (~0.2 ms a call)."""
        return self.at_start is not None and fingerprint(self.folders) != self.at_start


def load_release(folders: tuple[str, ...] = FOLDERS) -> None:
    """Import each module of `folders` this process has not imported yet.

    A process that must outlive an upgrade then runs one release whole: no module of
    the new files is imported later beside the old ones in memory: 70-140 ms, most of
    the modules of both packages and what they import.
    """
    for folder in folders:
        package = f"memhooks.{os.path.basename(folder)}"
        for found in pkgutil.iter_modules([folder]):
            name = f"{package}.{found.name}"
            if found.name == "__main__" or name in sys.modules:
                continue
            try:
                importlib.import_module(name)
            except Exception as e:  # noqa: BLE001 - it fails where used, as it did
                logger.debug("%s not imported ahead: %r", name, e)

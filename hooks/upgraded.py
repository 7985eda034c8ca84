"""Whether memhooks' own files changed on disk since this process read them: an upgrade.

A session process lives as long as its session and imports some modules only when first
needed (the glosses of a question asked in Chinese, the postings of an index build). After
`pip install -U` or `pipx upgrade`, those would come from the new files and meet the old
code already in memory, which may lack a name they use. So a session process leaves once its
install changed (`hooks.serve`), and the next hook, run with the new files, starts one.
`memhooks mcp` and `memhooks session` over a pipe cannot leave (the harness would lose its
tools, or its pipes): they keep the release they started with in memory (`keep_release`).

What tells: each package folder's `.py` files, by name, inode, modification time and size.
An install writes every file anew (new inodes), an editor's save in an editable install
changes the file it writes, and a file missing or a folder gone mid-install counts as a
change. Compiled files (`__pycache__`) are not looked at: Python writes those as it runs.
"""

from __future__ import annotations

import contextlib
import errno
import importlib.machinery
import importlib.util
import os
import pkgutil
import sys

from memhooks.memory import files

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


def keep_release(folders: tuple[str, ...] = FOLDERS) -> None:
    """Read into memory each module of `folders` this process has not imported yet, and
    import it from there when it is first needed, whatever an upgrade wrote since.

    For a process that cannot leave at an upgrade (`memhooks mcp`, whose tools the
    harness would lose; `memhooks session` over a pipe the harness holds): it runs the
    release it started with, whole. Each module's compiled file, as Python would have
    read it (its source where there is none): ~3 ms and ~1 MB, nothing imported ahead.
    """
    kept: dict[str, _Kept] = {}
    for folder in folders:
        package = f"memhooks.{os.path.basename(folder)}"
        for found in pkgutil.iter_modules([folder]):
            name = f"{package}.{found.name}"
            if found.name != "__main__" and name not in sys.modules:
                with contextlib.suppress(OSError):  # not kept: imported from disk
                    kept[name] = _Kept(name, os.path.join(folder, f"{found.name}.py"))
    if kept:
        sys.meta_path.insert(0, _KeptFinder(kept))


class _Kept(importlib.machinery.SourceFileLoader):
    """A module's compiled file as Python would load it, or its source where that is
    missing or stale, and the source's stat, read now."""

    def __init__(self, fullname: str, path: str) -> None:
        super().__init__(fullname, path)
        st = os.stat(path)
        self.stats = {"mtime": st.st_mtime, "size": st.st_size}
        cached = importlib.util.cache_from_source(path)
        self.data: dict[str, bytes] = {}
        with contextlib.suppress(OSError), open(cached, "rb") as f:
            self.data[cached] = f.read()
        header = (
            importlib.util.MAGIC_NUMBER
            + bytes(4)  # flags: a timestamp-based file
            + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
            + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")
        )
        if not self.data.get(cached, b"").startswith(header):
            with open(path, "rb") as f:
                self.data = {path: f.read()}

    def get_data(self, path: str) -> bytes:
        if path not in self.data:
            raise OSError(errno.ENOENT, "not kept", path)
        return self.data[path]

    def path_stats(self, path: str) -> dict[str, float]:
        return self.stats

    def set_data(self, path: str, data: object, *, _mode: int = 0o666) -> None:
        """No compiled file written: the folder may hold another release by now."""


class _KeptFinder:
    def __init__(self, kept: dict[str, _Kept]) -> None:
        self.kept = kept

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        loader = self.kept.get(fullname)
        if loader is None:
            return None
        return importlib.util.spec_from_file_location(
            fullname, loader.path, loader=loader
        )

"""The one module that loads watchfiles: its Rust watcher, the memory files it reports,
and the watch a forked session process starts with (`FolderWatch`).

A forked session process watches before it answers its first request, which the prompt
hook sends as SessionStart's exits. Importing the `watchfiles` package runs its
`__init__`, which imports anyio and its process runner (40-100 ms on the 2-core test
machine, more than everything else the process does first); the Rust half is loaded here
on its own (~1 ms), and the package, when it is imported later, finds it loaded.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.util
import os
import sys
from typing import TYPE_CHECKING

from memhooks.memory.constants import (
    DAILY_DIR,
    MEMORY_FILE,
    NOTES_DIR,
    PROJECTS_DIR,
    SCRATCHPAD_FILE,
)

if TYPE_CHECKING:
    from pathlib import Path
    from types import ModuleType

    from watchfiles._rust_notify import RustNotify

#: Changes are grouped this long (watchfiles' default is 1.6 s): an edit made just before
#: an event is seen by it.
DEBOUNCE_MS = 30
_MODULE = "watchfiles._rust_notify"


def rust_notify() -> type[RustNotify]:
    """watchfiles' `RustNotify` (typed in its `_rust_notify.pyi`), without its package."""
    module = sys.modules.get(_MODULE) or _load()
    cls: type[RustNotify] = module.RustNotify
    return cls


def _load() -> ModuleType:
    package = importlib.util.find_spec("watchfiles")
    folders = package.submodule_search_locations if package else None
    for folder in folders or ():
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(folder, "_rust_notify" + suffix)
            spec = importlib.util.spec_from_file_location(_MODULE, path)
            if spec is None or spec.loader is None or not os.path.exists(path):
                continue
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            sys.modules[_MODULE] = module
            return module
    # Laid out otherwise (a zip, a frozen build): the ordinary way.
    import watchfiles._rust_notify

    return watchfiles._rust_notify


def watching(paths: list[str], *, recursive: bool) -> RustNotify:
    """A Rust watcher of `paths`, started: every later change is reported.

    Raises:
        OSError: a path is missing or cannot be watched.
    """
    return rust_notify()(
        watch_paths=paths,
        debug=False,
        force_polling=False,
        poll_delay_ms=300,
        recursive=recursive,
        ignore_permission_denied=False,
    )


def is_memory_file(path: str) -> bool:
    """True for a Markdown file that is not one of our temp files."""
    # Our temp files are hidden (".name.pid.rand.tmp") and end in .tmp: never a memory file.
    name = os.path.basename(path)
    return name.endswith(".md") and not name.startswith(".")


def relative(changes: set[tuple[int, str]], base: str) -> set[str]:
    """The memory files among `changes`, as POSIX paths relative to `base` (the root's
    real path); a file of a project folder that links to another folder of the root
    (a project's memory kept elsewhere) also under the project's path, which the views
    know it by: the watcher may name it by either path. A file that is a link is named
    by its own name, not its target's: a note replaced by a link to another note is
    what changed; a MEMORY.md or scratchpad that links to another file of the root is
    named too when that file changes (the watcher names only the file written)."""
    reals = {_real_folder(p) for _, p in changes if is_memory_file(p)}
    out = {os.path.relpath(r, base).replace(os.sep, "/") for r in reals}
    for target, rel in _links(base) if reals else ():
        out |= {
            rel + r[len(target) :].replace(os.sep, "/")
            for r in reals
            if r == target or r.startswith(target + os.sep)
        }
    return out


def folders_changed(changes: set[tuple[int, str]], base: str) -> bool:
    """Whether `changes` name a folder that holds memory files (the projects folder, a
    project's folder, its notes or daily folder): moved away, back or created whole
    (`mv`, a checkout, a pull), it is reported by its own name, not by its files'."""
    for _, p in changes:
        head, name = os.path.split(p)
        if name not in _FOLDERS and os.path.basename(head) != PROJECTS_DIR:
            continue  # not one (a cheap test first: a pull reports thousands of paths)
        rel = os.path.relpath(_real_folder(p), base).split(os.sep)
        if rel[0] == PROJECTS_DIR and (
            len(rel) <= 2 or (len(rel) == 3 and rel[2] in (DAILY_DIR, NOTES_DIR))
        ):
            return True
    return False


#: The names of the folders that hold memory files, but a project's own.
_FOLDERS = (PROJECTS_DIR, DAILY_DIR, NOTES_DIR)


def _real_folder(path: str) -> str:
    # `path` with its folder's real path: through a linked root or project, not a link
    # at `path` itself.
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


def _links(base: str) -> list[tuple[str, str]]:
    # (real path, root-relative path) of each project folder that is a link to a folder
    # in the root, and of MEMORY.md and each project's scratchpad that is a link to a
    # file in the root (one outside it is refused: `Scope.path`).
    links = [MEMORY_FILE]
    with (
        contextlib.suppress(OSError),
        os.scandir(os.path.join(base, PROJECTS_DIR)) as it,
    ):
        for entry in it:
            links.append(f"{PROJECTS_DIR}/{entry.name}")
            if not entry.is_symlink():
                links.append(f"{PROJECTS_DIR}/{entry.name}/{SCRATCHPAD_FILE}")
    out = []
    for rel in links:
        path = os.path.join(base, rel)
        if os.path.islink(path):
            target = os.path.realpath(path)
            if target.startswith(base + os.sep):
                out.append((target, rel))
    return out


class FolderWatch:
    """A watch of the folders that hold one project's memory files, each alone.

    A recursive watch of the root walks and stats every file under it (50-70 ms at ten
    thousand notes); these five folders take ~2 ms. It does not follow a folder created
    later, nor other projects: it is `whole` only while every folder was there and none
    was created, removed or replaced since, and a session process hands over to a
    recursive watch (`hooks.watch.start_watching`) once its first request is answered.
    """

    def __init__(self, root: Path, slug: str | None) -> None:
        self.slug = slug
        self.base = os.path.realpath(root)
        top = os.path.abspath(root)  # as the watcher names what it reports
        project = os.path.join(top, PROJECTS_DIR, slug or "")
        wanted = [top, os.path.join(top, PROJECTS_DIR)]
        if slug is not None:
            wanted += [
                project,
                *(os.path.join(project, d) for d in (DAILY_DIR, NOTES_DIR)),
            ]
        self._wanted = set(wanted)
        there = [w for w in wanted if os.path.isdir(w)]
        #: every file of project `slug` was watched from the start (see the class)
        self.whole = slug is not None and len(there) == len(wanted)
        self.notify = watching(there, recursive=False)

    def drain(self) -> set[str]:
        """The memory files changed since the last call (see `relative`), waiting only for
        a change already begun to settle; none once the watch is lost."""
        try:
            raw = self.notify.watch(DEBOUNCE_MS, 1, 1, None)
        except Exception:  # noqa: BLE001 - the watch is lost, not the session process
            # watchfiles gives up for good on a path that is not UTF-8 (caf\xe9.md):
            # what it misses is found by a listing (`covers`).
            self.whole = False
            return set()
        if isinstance(raw, str):  # a timeout: nothing reported
            return set()
        if any(p in self._wanted for _, p in raw):
            self.whole = False  # a folder came, went or was replaced: not watched now
        return relative(raw, self.base)

    def covers(self, slug: str) -> bool:
        """True if every change to project `slug`'s files was reported."""
        return self.whole and slug == self.slug

    def close(self) -> None:
        """Stop watching."""
        self.notify.close()


__all__ = [
    "DEBOUNCE_MS",
    "FolderWatch",
    "folders_changed",
    "is_memory_file",
    "relative",
    "rust_notify",
    "watching",
]

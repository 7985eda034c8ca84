"""The files of a session process's view, listed once and then kept current from what its
watcher reports: until the corpus is in memory, what a prompt's search and change notice
compare with, instead of a stat of every file per prompt (~60 ms at ten thousand notes).

A forked session process may start from the walk its SessionStart hook made (`Walked`)
and list the files itself only once no request waits (`Listing.complete`): ten thousand
stats take 60-110 ms on the 2-core test machine, and the first prompt is sent as the hook
exits. Until then, a file created, deleted or renamed since that walk is seen (its
folder's time changed), a file rewritten in place by another program is not.

A complete listing vouches for the scope (`memory.index_file.Watch`): a one-shot search
(the model running `memhooks search` in this session) trusts what it last found of the
files until the watcher reports a change, instead of stat'ing every file again.
"""

from __future__ import annotations

import os
import stat
import time
from typing import TYPE_CHECKING, NamedTuple

from memhooks.memory.constants import MEMORY_FILE, PROJECTS_DIR
from memhooks.memory.errors import UnsafeNameError
from memhooks.memory.index_file import Watch
from memhooks.memory.lazylog import getLogger
from memhooks.memory.paths import kind_of
from memhooks.memory.scope import Found

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from memhooks.hooks.view import View
    from memhooks.memory import Store
    from memhooks.memory.paths import Located


logger = getLogger(__name__)

#: Files stat'ed between two looks for a request waiting (~1-3 ms on the test machine).
_STEP = 256


def located_in(store: Store, rel: str) -> Located | None:
    """Where `rel` (root-relative) lives, if it is a memory file in `store`'s scope."""
    loc = kind_of(rel)
    scope = f"{PROJECTS_DIR}/{store.slug}/"
    if loc is None or not (rel == MEMORY_FILE or rel.startswith(scope)):
        return None
    return loc


class Walked(NamedTuple):
    """A stat of every file in scope (`Store.walk`), and when it began."""

    at: int  #: ns since the epoch, before the folders' times were read
    stamps: tuple[int, ...]  #: `Store.stamps` before the walk
    files: list[Found]


def walk(store: Store) -> Walked:
    """Every file in `store`'s scope, noting what tells of files created since."""
    at = time.time_ns()
    return Walked(at, store.stamps(), store.walk())


class Listing:
    """Every file in `store`'s scope with its size and modification time.

    Take it only once the watcher is up (`hooks.watch.start_watching`) and pass it every
    change the watcher reports (`update`): it is then as current as a walk made now.
    With `seed` (a walk made before the watcher was up) and no file created, deleted or
    renamed since, it starts from that walk and is not `complete` until `finish`.
    """

    def __init__(self, store: Store, seed: Walked | None = None) -> None:
        self.store = store
        trusted = seed is not None and _same_names(store, seed)
        #: listed since the watcher was up (else: edits in place since `seed` unseen)
        self.complete = not trusted
        files = seed.files if seed is not None and trusted else store.walk()
        self._files = {f.rel: f for f in files}
        #: a listing `stop` paused: the files still to stat, and those stat'ed
        self._paused: tuple[Iterator[Found], dict[str, Found]] | None = None
        self._watch: Watch | None = None
        if self.complete:
            self._vouch()

    def finish(self, stop: Callable[[], bool] | None = None) -> list[str]:
        """Make it `complete`, unless `stop` (asked every `_STEP` files) says to leave it
        as it was for now (the next call goes on from there); the files that changed
        since the seed (see `relist`)."""
        return [] if self.complete else self._list(stop)

    def files(self) -> list[Found]:
        """The files, as `Store.walk` would list them now."""
        return list(self._files.values())

    @property
    def count(self) -> int:
        """How many files it holds."""
        return len(self._files)

    def relist(self) -> list[str]:
        """List the files afresh (after a watch that missed some); those that came, went
        or changed since."""
        self._paused = None
        return self._list(None)

    def _list(self, stop: Callable[[], bool] | None) -> list[str]:
        found, now = self._paused or (self.store.found(), {})
        self._paused = None
        for f in found:
            now[f.rel] = f
            if stop is not None and len(now) % _STEP == 0 and stop():
                self._paused = found, now
                return []
        old, self._files = self._files, now
        self.complete = True
        self._vouch()
        gone = [rel for rel in old if rel not in now]
        return [rel for rel, f in now.items() if old.get(rel) != f] + gone

    def update(self, rels: Iterable[str]) -> None:
        """Stat these files again (edited, created or deleted); others are ignored."""
        rels = list(rels)
        files = dict(self._files)  # a new dict: a search may be iterating this one
        listed = self._paused[1] if self._paused is not None else {}
        for rel in rels:
            if (found := self._stat(rel)) is None:
                files.pop(rel, None)
                listed.pop(rel, None)
            else:
                files[rel] = found
                if rel in listed:  # else the paused listing stats it when it goes on
                    listed[rel] = found
        self._files = files
        if self._watch is not None and any(located_in(self.store, r) for r in rels):
            self._watch.changed()

    def _vouch(self) -> None:
        # Listed with the watcher up: from now on it reports every change in the scope.
        if self._watch is not None:
            self._watch.changed()
            return
        try:
            self._watch = Watch(self.store)
        except OSError as e:
            logger.info("searches of %s not vouched for (%s)", self.store.slug, e)

    def _stat(self, rel: str) -> Found | None:
        loc = located_in(self.store, rel)
        if loc is None:
            return None
        try:
            path = str(self.store.path(rel))
            st = os.stat(path)
        except (OSError, UnsafeNameError):
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        return Found(loc.kind, rel, loc.key, path, st.st_size, st.st_mtime_ns)


def rescan(view: View) -> list[str]:
    """Compare `view` with the disk: its listing taken again (a stat of every file) and
    the files that came, went or changed since re-read; without a listing, as
    `View.catch_up`. For changes the watcher named no file of: a folder moved away or
    back, a watch that missed some or was lost. Returns the files re-read."""
    if view.listing is None:
        return view.catch_up()
    rels = view.listing.relist()
    view.refresh(rels)
    return rels


def _same_names(store: Store, seed: Walked) -> bool:
    # No file in scope created, deleted or renamed since `seed`: its folders keep their
    # times. A folder changed just before the walk may have changed again within the same
    # tick of the file system's clock: its names are compared instead.
    from memhooks.memory.layered import RACY_NS

    if store.stamps() != seed.stamps:
        return False
    for folder, stamp in zip(store.folders(), seed.stamps, strict=True):
        if stamp >= seed.at - RACY_NS and _names(store, folder) != {
            f.rel for f in seed.files if os.path.dirname(f.rel) == folder
        }:
            return False
    return True


def _names(store: Store, folder: str) -> set[str]:
    # The files in scope in `folder` (a root-relative folder), by name alone: no stat.
    prefix = f"{folder}/" if folder else ""
    try:
        with os.scandir(os.path.join(store.root, folder)) as listed:
            rels = {prefix + e.name for e in listed if e.is_file()}
    except OSError:
        return set()
    return {rel for rel in rels if located_in(store, rel) is not None}

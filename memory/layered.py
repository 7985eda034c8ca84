"""The on-disk index plus what changed since it was written: what a one-shot search and a
session process rank over.

`open_index` stats every file in scope (nothing is read), compares each with the index
file (`memory.segment`): a file of the same size and modification time is ranked from
the file's postings, any other is read and indexed in memory, and the index file's
postings of files changed or gone are skipped. When too many files changed, or there is
no index file yet, it is built anew first. What that check found is kept beside the
index file (`Seen`): a one-shot search trusts it while the four folders that hold the
files keep their modification times, for `FULL_CHECK_NS` or while a session process
watches and reports no change (`index_file.Watch`): it stats four folders, not every
file, unless a full check would build the index file anew (`Seen.calls_for_build`). The
ranking is the same as over an `Index` of every file (test_layered.py), while a one-shot
search at 10,000 notes reads a few postings, not 40 MB of notes (README).
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from memhooks.memory import index_file
from memhooks.memory.changes import Seen, compare
from memhooks.memory.corpus import make_doc
from memhooks.memory.index import Index
from memhooks.memory.layered_index import Layered
from memhooks.memory.lazylog import getLogger
from memhooks.memory.needles import prefilter
from memhooks.memory.paths import Located, kind_of
from memhooks.memory.scope import Found
from memhooks.memory.segment import encode

if TYPE_CHECKING:
    from collections.abc import Mapping

    from memhooks.memory.corpus import Doc
    from memhooks.memory.index import Query
    from memhooks.memory.segment import Segment
    from memhooks.memory.store import Store

logger = getLogger(__name__)

#: A file changed this soon before a build began may have changed again after it was
#: read with the same modification time (file systems stamp times with a coarse
#: clock), so it is read again rather than trusted.
RACY_NS = 2_000_000_000
#: A one-shot search stats every file when the last such check is older than this; in
#: between the four folders (`Store.stamps`: every file created, deleted or renamed)
#: and the files people append to (`Store.appended_since`); another write in place is
#: seen within this time (or when a session process's watcher reports it).
FULL_CHECK_NS = 10_000_000_000


def open_index(
    store: Store,
    only: Query | None = None,
    docs: Mapping[str, Doc] | None = None,
    files: list[Found] | None = None,
    build: bool = True,
) -> Layered:
    """The index of `store`'s scope, current to the last modification of every file
    (for a one-shot search: to the last file created, deleted or renamed, and to every
    change older than `FULL_CHECK_NS`).

    Args:
        store: the project's memory.
        only: a one-shot search's query: changed files are read only if they can match
            it, and indexed only for its keys.
        docs: the documents already in memory (a session's corpus), used for changed
            files and the documents hits show instead of reading them again.
        files: every file in scope as it is now, kept so by the caller (a session's
            watcher): no file is stat'ed, and no note beside the index file kept.
        build: False: never write the index file (the files it lacks read as changed).
    """
    now = time.time_ns()
    seg = index_file.open_segment(store)
    seen = _trusted(store, seg, now) if docs is None and files is None else None
    if seen is None:
        seen, n = _check(store, seg, now, files)
        rebuild = seg is None or seen.calls_for_build(n, now, RACY_NS)
        if n and rebuild and build and _build(store, now):
            seg = index_file.open_segment(store)
            # Dated after the build, which created .index: else the root is newer.
            seen, _ = _check(store, seg, time.time_ns(), files)
        if docs is None and files is None and seg is not None:
            index_file.save_note(store, seen.encode())
    stale = [f for rel in seen.stale if (f := _found(store, rel)) is not None]
    if docs is not None:
        overlay = Index(d for f in stale if (d := docs.get(f.rel)) is not None)
    else:
        scan = store.scan(
            prefilter(only.needles) if only else lambda _raw, _loc: True, stale
        )
        overlay = Index(
            scan.docs,
            count=scan.files,
            total_size=scan.total_size,
            dailies=scan.dailies,
            only=only,
        )

    def load(rel: str) -> Doc:
        doc = docs.get(rel) if docs is not None else store.read_listed(rel)
        # A file gone since the stat matches nothing more; its hit shows no lines.
        return doc or make_doc(kind_of(rel) or Located("note", rel, ""), "")

    out = Layered(seg, seen.dead, overlay, load)
    if docs is not None:
        from memhooks.memory.topk import Columns  # a one-shot search ranks once

        out.columns = Columns()  # a session's: it ranks again and again
    return out


def _trusted(store: Store, seg: Segment | None, now: int) -> Seen | None:
    # The last full check, if it describes this index file, no watcher reported a change
    # since (`index_file.Watch`), it is recent or one still watches, and no folder
    # changed since (a folder stamp near the check could hide a change in the same tick).
    data = None if seg is None else index_file.read_note(store)
    seen = None if data is None else Seen.decode(data)
    if (
        seen is None
        or seg is None
        or seen.built_at != seg.built_at
        or any(s >= seen.checked_at - RACY_NS for s in seen.stamps)
        or store.stamps() != seen.stamps
        or store.appended_since(seen.checked_at - RACY_NS)
        or any(i >= len(seg) for i in seen.dead)
        or seen.mark != index_file.watch_mark(store)  # a watcher reported a change
        or seen.calls_for_build(len(seg), now, RACY_NS)
    ):
        return None
    recent = 0 <= now - seen.checked_at <= FULL_CHECK_NS
    return seen if recent or index_file.watched(store) else None


def _check(
    store: Store, seg: Segment | None, now: int, files: list[Found] | None
) -> tuple[Seen, int]:
    # Compare every file (stat'ed now, unless listed) with the index file; and how many.
    # The watcher's mark and the folders' times first: a change meanwhile changes them.
    mark, stamps = index_file.watch_mark(store), store.stamps()
    files = store.walk() if files is None else files
    fresh, stale, changed, settling = compare(seg, files, now, RACY_NS)
    n, built = (len(seg), seg.built_at) if seg is not None else (0, 0)
    dead = sorted(set(range(n)).difference(fresh))
    gone = [f.rel for f in stale]
    return Seen(built, now, stamps, changed, dead, gone, mark, settling), len(files)


def _build(store: Store, now: int) -> bool:
    # Write the index file anew; False when the disk refused (the notes are read then).
    try:
        index_file.rebuild(store, lambda: encode(store.entries(), now))
    except OSError as e:
        logger.info("search index not written (%s); reading the notes", e)
        return False
    return True


def _found(store: Store, rel: str) -> Found | None:
    # A file to read, as `Store.walk` would list it (its stat is not needed).
    if (loc := kind_of(rel)) is None:
        return None
    return Found(loc.kind, rel, loc.key, os.path.join(store.root, rel), -1, 0)


__all__ = ["FULL_CHECK_NS", "RACY_NS", "open_index"]

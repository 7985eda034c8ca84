"""A project's memory as the handlers see it: store, config and a corpus kept between events.

The one-shot hook builds the corpus once from disk; the session process keeps it and
re-reads only the files the watcher reports (docs/design.md), so both rank the same documents.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from memhooks.hooks.meaning import Warm, lexical, open_meaning
from memhooks.hooks.ondisk import OnDisk, changed, mtimes_of
from memhooks.memory import Config, MemoryStoreError, Store, default_root
from memhooks.memory.config import parse_config_kept
from memhooks.memory.corpus import log_order
from memhooks.memory.index_file import has_index
from memhooks.memory.inject import index_line
from memhooks.memory.lazylog import getLogger
from memhooks.memory.text import nbytes

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path

    from memhooks.hooks.listing import Listing, Walked
    from memhooks.memory import Doc
    from memhooks.memory.index import Prepared
    from memhooks.memory.layered_index import Layered
    from memhooks.memory.results import SearchResult
    from memhooks.memory.scope import Found

logger = getLogger(__name__)

#: Files in scope past which a session process with no index file yet answers a prompt
#: with no hits until it has built one, rather than read them for the prompt's words.
SCAN_MAX = 2_000


class View:
    """Memory of one project under one root."""

    def __init__(self, store: Store, config: Config, *, indexed: bool = False) -> None:
        self.store = store
        self.config = config
        #: keep an inverted index (a session process), not just the corpus
        self.indexed = indexed
        #: every document in scope: in a session process ranking by words, an `OnDisk`
        #: (paths and modification times; a text is read when asked for)
        self._docs: Mapping[str, Doc] | None = None
        self._index: Layered | None = None
        #: meaning (the [semantic] extra), in a session process only: see `hooks.meaning`
        self.meaning: Warm | None = None
        self.reread: list[str] = []  #: files re-read since the last `take_reread`
        #: no document of the corpus changed after this (ns; an upper bound)
        self.newest = 0
        # The watcher re-reads files on the event loop while a handler, in a worker
        # thread, re-reads the log it just wrote: two patches of one index at once
        # corrupt it (a condensed daily log made it a KeyError in every session).
        self._patching = threading.Lock()
        #: Held while the corpus and index are read (a session's, in the background)
        self._loading = threading.RLock()
        #: a session process reads the corpus in the background: answer without it meanwhile
        self.warming = False
        #: the files in scope, kept current by a session process's watcher (`watch`)
        self.listing: Listing | None = None
        #: the stat of every file a hook's block made: where its forked process starts
        self.walked: Walked | None = None

    @classmethod
    def open(
        cls, root: str | Path | None, cwd: str | Path, *, indexed: bool = False
    ) -> View:
        """The view for the project containing `cwd` under `root` (default: env, home)."""
        base = default_root(root)
        store = Store.for_project(base, cwd)
        path = str(base / "config.toml")
        try:  # a typo must not turn memory off, nor cost the settings beside it
            config, error = parse_config_kept(store.config_text(), path)
        except MemoryStoreError as e:  # not a readable file
            config, error = Config(), e
        if error is not None:  # the hook's one stderr line; `memhooks doctor` names it
            logger.warning("%s; using the defaults for it", error)
        return cls(store, config, indexed=indexed)

    def corpus(self) -> Mapping[str, Doc]:
        """Every document in scope; read from disk once, then kept. A session process
        ranking by words keeps only each file's modification time (`OnDisk`): its index
        holds what ranking needs, and a reply reads the few texts it shows.
        """
        with self._loading:
            if self._docs is None:
                self._docs = self._read_corpus()
            return self._docs

    def _read_corpus(self) -> Mapping[str, Doc]:
        semantic, root = self.config.search.semantic, self.store.root
        meaning = (
            open_meaning(root, semantic, long_lived=True) if self.indexed else None
        )
        if meaning is None and self.indexed and self.config.search.ranking == "default":
            mtimes = {f.rel: f.mtime_ns for f in self._files()}
            self.newest = max(mtimes.values(), default=0)
            return OnDisk(self.store, mtimes)
        docs = self.store.corpus()
        self.newest = max((d.mtime_ns for d in docs.values()), default=0)
        if meaning is not None:
            self.meaning = Warm(meaning, root)
            self.meaning.start(list(docs.values()))
        return docs

    def loaded(self) -> bool:
        """True once the whole corpus is in memory."""
        return self._docs is not None

    def prompt_docs(self, since: int) -> Mapping[str, Doc]:
        """The documents a prompt needs: the corpus once in memory; before that, those
        changed after `since` (ns), and any other read when first asked for. A hook, or a
        session process still reading ten thousand notes, so reads a few, not all.
        """
        if self._docs is not None or (self.indexed and not self.warming):
            # Not `corpus` when read already: it waits while the index is built.
            return self._docs if self._docs is not None else self.corpus()
        docs = _OnDemand(self.store)
        if not since:  # no block, so no news either
            return docs
        for f in self._files():  # only those changed are read
            if f.mtime_ns > since and (d := self.store.read_listed(f.rel)):
                docs[f.rel] = d
        return docs

    def _listed(self) -> list[Found] | None:
        """The files in scope as a session process's listing holds them, if it keeps one."""
        return self.listing.files() if self.listing is not None else None

    def _count(self) -> int:  # the files in scope, as listed
        return self.listing.count if self.listing is not None else 0

    def _files(self) -> list[Found]:
        """The files in scope now: listed, else a stat of each."""
        listed = self._listed()
        return self.store.walk() if listed is None else listed

    def read_in_background(self) -> None:
        """Answer without the corpus until a session process has read it (`warming`),
        from a listing of the files taken now and kept current with what `refresh` is
        told from here on: call it once the process's watcher is up. A prompt then
        compares the index file with the listing instead of a stat of every file (ten
        thousand stats take ~60 ms). A forked process starts from its hook's walk, if
        still good (`Listing`).
        """
        from memhooks.hooks.listing import Listing  # a session process's only

        self.warming = True
        self.listing = Listing(self.store, self.walked)
        self.walked = None

    def open_early(self) -> bool:
        """Read the corpus now (`index`) if that reads no note, and whether it did.

        A session process that ranks by words only reads no note to read its corpus: it
        opens the index file and compares it with its listing (30-55 ms of CPU at ten
        thousand notes), once, where a prompt answered before that (`search`) opened
        and compared it again (a forked process starts it before its first request).
        With no index file, or meaning to embed, the corpus is read later, as before.
        """
        if not (
            self.warming
            and self._index is None
            and self.listing is not None
            and self.config.search.ranking == "default"
            and lexical(self.config.search.semantic)
            and has_index(self.store)
        ):
            return False
        self.index()
        return True

    def columns_wanted(self) -> bool:
        """Whether a search lacked a key's scores that `build_column` makes."""
        columns = self._index.columns if self._index is not None else None
        return columns is not None and columns.wanted

    def build_column(self) -> bool:
        """Make one key's scores that a search lacked (`memory.topk.Columns.build`), as a
        session process does between events; whether more are wanted."""
        with self._patching:  # not while the watcher patches the index
            columns = self._index.columns if self._index is not None else None
            return columns is not None and columns.build()

    def kept(self) -> View:
        """This view, from now on kept by a session process (with an index, and meaning)."""
        if not self.indexed:
            self.indexed = True
            # Read again as a session keeps it (its texts dropped, or meaning started).
            self._docs = None
        return self

    def block_corpus(self, budget: int, today: str) -> tuple[dict[str, Doc], int]:
        """What the block is built from, and the newest modification time in scope.

        A view holding every text (searching by meaning, or the baseline ranking) builds
        it from them. Any other reads what `budget` bytes can show: MEMORY.md, the
        scratchpad, the two newest logs (by `log_order`), notes in name order until their
        index lines fill it (reading all cost SessionStart ~0.8 s at 10,000 notes).
        """
        held = self.corpus() if self.indexed else self._docs
        if isinstance(held, dict):  # every text in memory already
            return held, max((d.mtime_ns for d in held.values()), default=1)
        found = self._listed()
        if found is None:
            from memhooks.hooks.listing import walk

            walked = walk(self.store)
            if not self.indexed:  # a hook's: the process it forks starts from it
                self.walked = walked
            found = walked.files
        docs: dict[str, Doc] = {}
        logs = 0
        # The newest logs first; one emptied or wholly forgotten does not count.
        dailies = (f for f in found if f.kind == "daily")
        for f in sorted(dailies, key=lambda f: log_order(f.key, today)):
            if logs < 2 and (d := self.store.read_listed(f.rel)):
                docs[f.rel] = d
                logs += bool(d.text.strip())
        used = 0  # bytes of the notes' index lines so far
        for f in sorted(found, key=lambda f: f.key):
            wanted = f.kind in ("memory", "scratchpad") or (
                f.kind == "note" and used <= budget
            )
            if wanted and (d := self.store.read_listed(f.rel)):
                docs[f.rel] = d
                if f.kind == "note":
                    used += nbytes(index_line(d)) + 1
        return docs, max((f.mtime_ns for f in found), default=1)

    def index(self) -> Layered:
        """The corpus's inverted index: the index file, patched per re-read file."""
        from memhooks.memory.layered import open_index

        with self._loading:
            if self._index is None:
                docs = self.corpus()
                index = open_index(self.store, docs=docs, files=self._listed())
                with self._patching:  # what the watcher re-read meanwhile: corpus only
                    missed = changed(mtimes_of(docs), mtimes_of(self.corpus()))
                    self._index = index
                self.refresh(missed)
            return self._index

    def search(
        self,
        query: str,
        limit: int | None = None,
        *,
        counted: bool = True,
        frame: str | None = None,
    ) -> SearchResult:
        """`memory.searching.search` over what this view holds: the index and corpus in a
        session, else the index file (or, with none yet, the corpus); at most `limit` hits
        (default: `memory.rank.MAX_HITS`); `counted` and `frame`: as for `search`."""
        # The search modules only here: a SessionStart hook never searches.
        from memhooks.memory.rank import MAX_HITS
        from memhooks.memory.searching import search

        limit = MAX_HITS if limit is None else limit
        ranking = self.config.search.ranking
        ready = self._docs is not None and (self._index is not None or not self.indexed)
        cold = not ready and (not self.indexed or self.warming)
        if cold and ranking == "default":
            # Not read yet (a hook, or a session process still reading): search as
            # `memhooks search` does, from the index file and the files changed since.
            # A session process builds a missing or stale index file itself, not here:
            # for a large project (8 s at ten thousand notes) a prompt gets no hits.
            indexed = has_index(self.store)
            if self.warming and not indexed and self._count() > SCAN_MAX:
                from memhooks.memory.results import SearchResult

                logger.info("search index of %s not built yet", self.store.slug)
                return SearchResult((), ())
            if self.warming or indexed:
                return search(
                    self.store,
                    query,
                    limit=limit,
                    files=self._listed(),
                    counted=counted,
                    build=not self.warming,
                    frame=frame,
                )
        docs = self.corpus()
        semantic = self.meaning.usable(list(docs.values())) if self.meaning else None
        if self.indexed and ranking == "default":
            index = self.index()  # first: it takes the lock below once opened
            with self._patching:  # not while the watcher patches the index
                result = search(
                    self.store,
                    query,
                    index=index,
                    semantic=semantic,
                    docs=docs if semantic is not None else None,
                    limit=limit,
                    counted=counted,
                    frame=frame,
                )
            if index.damaged:
                self._index = None  # its file was dropped: the next search rebuilds it
            return result
        return search(
            self.store,
            query,
            ranking=ranking,
            docs=docs,
            semantic=semantic,
            limit=limit,
            counted=counted,
            frame=frame,
        )

    def catch_up(self) -> list[str]:
        """Re-read the files that changed (or appeared, or went) since the corpus was
        read, and say which: for the moment between reading the corpus and the watcher
        starting (a session process reads first, then watches)."""
        if self._docs is None:
            return []
        now = {f.rel: f.mtime_ns for f in self._files()}
        rels = list(changed(mtimes_of(self._docs), now))
        self.refresh(rels)
        return rels

    def refresh(self, rels: Iterable[str]) -> None:
        """Re-read just these root-relative files (edited, created or deleted).

        Reading and tokenizing happen outside the lock a search takes (a 30 MB note
        takes seconds); only the patch itself is made under it, so a search answers
        meanwhile with what the view held before.
        """
        from memhooks.hooks.listing import located_in

        rels = list(rels)
        if self.listing is not None:
            self.listing.update(rels)
        if self._docs is None:
            return
        for rel in rels:
            loc = located_in(self.store, rel)
            if loc is None:
                continue
            doc = self.store.load(loc)
            index = self._index
            prepared = (
                index.prepare(doc) if index is not None and doc is not None else None
            )
            if self.meaning is not None:
                self.meaning.changed(rel, doc)
            with self._patching:
                self._patch(rel, doc, prepared if self._index is index else None)

    def _patch(self, rel: str, doc: Doc | None, prepared: Prepared | None) -> None:
        assert self._docs is not None
        self.reread.append(rel)
        # A new mapping, not a change to the one a handler may be iterating in its thread.
        if isinstance(self._docs, OnDisk):
            self._docs = self._docs.changed(rel, doc)
        else:
            docs = dict(self._docs)
            if doc is None:
                docs.pop(rel, None)
            else:
                docs[rel] = doc
            self._docs = docs
        if doc is None:
            if self._index is not None:
                self._index.remove(rel)
        else:
            self.newest = max(self.newest, doc.mtime_ns)
            if self._index is not None:
                self._index.add(doc, prepared)

    def take_reread(self) -> list[str]:
        """Files re-read since the last call (the session reports them per event)."""
        # Once each: catching up and the watcher may both have re-read one edit.
        out, self.reread = list(dict.fromkeys(self.reread)), []
        return out


class _OnDemand(dict[str, "Doc"]):
    """Documents read so far; any other is read when first looked up."""

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store

    def __missing__(self, rel: str) -> Doc:
        doc = self.store.read_listed(rel)
        if doc is None:
            raise KeyError(rel)
        self[rel] = doc
        return doc

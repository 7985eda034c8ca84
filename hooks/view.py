"""A project's memory as the handlers see it: store, config and a corpus kept between events.

The one-shot hook builds the corpus once from disk; the session process keeps it and
re-reads only the files the watcher reports (docs/design.md), so both rank the same documents.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from memhooks.hooks.meaning import Warm, open_meaning
from memhooks.memory import (
    Config,
    MemoryStoreError,
    Store,
    default_root,
    parse_config,
)
from memhooks.memory.layered import Layered, open_index
from memhooks.memory.paths import kind_of
from memhooks.memory.rank import MAX_HITS
from memhooks.memory.search import search

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from memhooks.memory import Doc
    from memhooks.memory.results import SearchResult

logger = logging.getLogger(__name__)


class View:
    """Memory of one project under one root."""

    def __init__(self, store: Store, config: Config, *, indexed: bool = False) -> None:
        self.store = store
        self.config = config
        self.indexed = (
            indexed  #: keep an inverted index (a session process), not just the corpus
        )
        self._docs: dict[str, Doc] | None = None
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

    @classmethod
    def open(
        cls, root: str | Path | None, cwd: str | Path, *, indexed: bool = False
    ) -> View:
        """The view for the project containing `cwd` under `root` (default: env, home)."""
        base = default_root(root)
        store = Store.for_project(base, cwd)
        try:
            config = parse_config(store.config_text(), str(base / "config.toml"))
        except MemoryStoreError as e:
            # A typo must not turn memory off in every session: the defaults serve, and
            # the problem is the hook's one stderr line (`memhooks doctor` shows it too).
            logger.warning("%s; using the defaults", e)
            config = Config()
        return cls(store, config, indexed=indexed)

    def corpus(self) -> dict[str, Doc]:
        """Every document in scope; read from disk once, then kept."""
        if self._docs is None:
            self._docs = self.store.corpus()
            self.newest = max((d.mtime_ns for d in self._docs.values()), default=0)
            if self.indexed:
                self._start_meaning(list(self._docs.values()))
        return self._docs

    def kept(self) -> View:
        """This view, from now on kept by a session process (with an index, and meaning)."""
        if not self.indexed:
            self.indexed = True
            if self._docs is not None:
                self._start_meaning(list(self._docs.values()))
        return self

    def _start_meaning(self, docs: list[Doc]) -> None:
        index = open_meaning(
            self.store.root, self.config.search.semantic, long_lived=True
        )
        if index is not None:
            self.meaning = Warm(index)
            self.meaning.start(docs)

    def index(self) -> Layered:
        """The corpus's inverted index: the index file, patched per re-read file."""
        if self._index is None:
            self._index = open_index(self.store, docs=self.corpus())
        return self._index

    def search(self, query: str, limit: int = MAX_HITS) -> SearchResult:
        """`memory.search.search` over what this view holds: the index in a session, else
        the corpus; at most `limit` hits."""
        ranking = self.config.search.ranking
        docs = self.corpus()
        semantic = self.meaning.usable() if self.meaning else None
        if self.indexed and ranking == "default":
            with self._patching:  # not while the watcher patches the index
                index = self.index()
                result = search(
                    self.store,
                    query,
                    index=index,
                    semantic=semantic,
                    docs=docs,
                    limit=limit,
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
        )

    def catch_up(self) -> None:
        """Re-read files that changed (or appeared, or went) since the corpus was read.

        For the moment between reading the corpus and the watcher starting: a session
        process reads first, then watches.
        """
        if self._docs is None:
            return
        now = {f.rel: f.mtime_ns for f in self.store.walk()}
        stale = [
            rel
            for rel, t in now.items()
            if (d := self._docs.get(rel)) is None or d.mtime_ns != t
        ]
        self.refresh([*stale, *(rel for rel in self._docs if rel not in now)])

    def refresh(self, rels: Iterable[str]) -> None:
        """Re-read just these root-relative files (edited, created or deleted)."""
        if self._docs is None:
            return
        with self._patching:
            self._refresh(rels)

    def _refresh(self, rels: Iterable[str]) -> None:
        assert self._docs is not None
        scope = f"projects/{self.store.slug}/"
        for rel in rels:
            loc = kind_of(rel)
            if loc is None or not (rel == "MEMORY.md" or rel.startswith(scope)):
                continue
            doc = self.store.load(loc)
            self.reread.append(rel)
            if self.meaning is not None:
                self.meaning.changed(rel, doc)
            if doc is None:
                self._docs.pop(rel, None)
                if self._index is not None:
                    self._index.remove(rel)
            else:
                self._docs[rel] = doc
                self.newest = max(self.newest, doc.mtime_ns)
                if self._index is not None:
                    self._index.add(doc)

    def take_reread(self) -> list[str]:
        """Files re-read since the last call (the session reports them per event)."""
        # Once each: catching up and the watcher may both have re-read one edit.
        out, self.reread = list(dict.fromkeys(self.reread)), []
        return out

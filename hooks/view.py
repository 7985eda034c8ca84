"""A project's memory as the handlers see it: store, config and a corpus kept between events.

The one-shot hook builds the corpus once from disk; the session process keeps it and
re-reads only the files the watcher reports (spec §6), so both rank the same documents.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from memory import Config, Store, default_root, parse_config
from memory.layout import kind_of

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from memory import Doc

logger = logging.getLogger(__name__)


class View:
    """Memory of one project under one root."""

    def __init__(self, store: Store, config: Config) -> None:
        self.store = store
        self.config = config
        self._docs: dict[str, Doc] | None = None
        self.reread: list[str] = []  #: files re-read since the last `take_reread`

    @classmethod
    def open(cls, root: str | Path | None, cwd: str | Path) -> View:
        """The view for the project containing `cwd` under `root` (default: env, home)."""
        base = default_root(root)
        store = Store.for_project(base, cwd)
        return cls(store, parse_config(store.config_text(), str(base / "config.toml")))

    def corpus(self) -> dict[str, Doc]:
        """Every document in scope; read from disk once, then kept."""
        if self._docs is None:
            self._docs = self.store.corpus()
        return self._docs

    def refresh(self, rels: Iterable[str]) -> None:
        """Re-read just these root-relative files (edited, created or deleted)."""
        if self._docs is None:
            return
        scope = f"projects/{self.store.slug}/"
        for rel in rels:
            loc = kind_of(rel)
            if loc is None or not (rel == "MEMORY.md" or rel.startswith(scope)):
                continue
            doc = self.store.load(loc)
            self.reread.append(rel)
            if doc is None:
                self._docs.pop(rel, None)
            else:
                self._docs[rel] = doc

    def take_reread(self) -> list[str]:
        """Files re-read since the last call (the session reports them per event)."""
        out, self.reread = self.reread, []
        return out

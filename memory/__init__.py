"""memhooks memory core: plain Markdown files, bounded injection, ranked search."""

from __future__ import annotations

from memhooks.memory.config import Config, parse_config
from memhooks.memory.corpus import Doc, make_doc
from memhooks.memory.errors import (
    ConfigError,
    EditError,
    InvalidTargetError,
    MemoryStoreError,
    StoreWriteError,
    TargetNotFoundError,
    UnsafeNameError,
)
from memhooks.memory.inject import build as build_block
from memhooks.memory.paths import Located, default_root, project_dir, slug_for, today
from memhooks.memory.render import render_text, to_json
from memhooks.memory.results import Hit, SearchResult
from memhooks.memory.search import search, search_docs
from memhooks.memory.store import Store, WriteResult

__all__ = [
    "Config",
    "ConfigError",
    "Doc",
    "EditError",
    "Hit",
    "InvalidTargetError",
    "Located",
    "MemoryStoreError",
    "SearchResult",
    "Store",
    "StoreWriteError",
    "TargetNotFoundError",
    "UnsafeNameError",
    "WriteResult",
    "build_block",
    "default_root",
    "make_doc",
    "parse_config",
    "project_dir",
    "render_text",
    "search",
    "search_docs",
    "slug_for",
    "to_json",
    "today",
]

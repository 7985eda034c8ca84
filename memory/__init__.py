"""memhooks memory core: plain Markdown files, bounded injection, ranked search."""

from __future__ import annotations

from memory.config import Config, parse_config
from memory.corpus import Doc, make_doc
from memory.errors import (
    ConfigError,
    EditError,
    InvalidTargetError,
    MemoryStoreError,
    StoreWriteError,
    TargetNotFoundError,
    UnsafeNameError,
)
from memory.inject import build as build_block
from memory.layout import Located, slug_for
from memory.search import SearchResult, render_text, search, to_json
from memory.store import Store, WriteResult, default_root, project_dir, today

__all__ = [
    "Config",
    "ConfigError",
    "Doc",
    "EditError",
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
    "slug_for",
    "to_json",
    "today",
]

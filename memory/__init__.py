"""memhooks memory core: plain Markdown files, bounded injection, ranked search.

Each name is imported from its module when first used, so that importing one module of the
core (a hook's thin client needs `memory.home` alone) does not import all of it.
"""

from __future__ import annotations

#: Not `typing.TYPE_CHECKING`: see `memory.home`.
TYPE_CHECKING = False
if TYPE_CHECKING:
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
    from memhooks.memory.paths import (
        Located,
        default_root,
        project_dir,
        slug_for,
        today,
    )
    from memhooks.memory.render import render_text, to_json
    from memhooks.memory.results import Hit, SearchResult
    from memhooks.memory.searching import search, search_docs
    from memhooks.memory.store import Store, WriteResult

#: Public name → (module, name in it).
_HOMES = {
    "Config": ("config", "Config"),
    "parse_config": ("config", "parse_config"),
    "Doc": ("corpus", "Doc"),
    "make_doc": ("corpus", "make_doc"),
    **{
        name: ("errors", name)
        for name in (
            "ConfigError",
            "EditError",
            "InvalidTargetError",
            "MemoryStoreError",
            "StoreWriteError",
            "TargetNotFoundError",
            "UnsafeNameError",
        )
    },
    "build_block": ("inject", "build"),
    **{
        name: ("paths", name)
        for name in ("Located", "default_root", "project_dir", "slug_for", "today")
    },
    "render_text": ("render", "render_text"),
    "to_json": ("render", "to_json"),
    "Hit": ("results", "Hit"),
    "SearchResult": ("results", "SearchResult"),
    "search": ("searching", "search"),
    "search_docs": ("searching", "search_docs"),
    "Store": ("store", "Store"),
    "WriteResult": ("store", "WriteResult"),
}


def __getattr__(name: str) -> object:
    try:
        module, attr = _HOMES[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    globals()[name] = value  # found here from now on
    return value


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

"""The human and model commands on memory files: search, read, write, edit, inject, status.

Each takes the parsed arguments and the output stream and returns an exit code; errors
are raised and mapped to exit codes in one place, `cli.error_handler`.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from hooks.constants import EXIT_OK
from hooks.errors import UsageError
from memory import (
    Config,
    Store,
    build_block,
    default_root,
    parse_config,
    render_text,
    search,
    to_json,
    today,
)
from memory.constants import DEFAULT_READ_CAP
from memory.text import nbytes

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping

    from memory import Doc
    from memory.search import Ranking, SearchResult

logger = logging.getLogger(__name__)


def open_store(args: argparse.Namespace) -> tuple[Store, Config]:
    """The store and config named by --root / --project / --slug (defaults: env, cwd)."""
    root = default_root(args.root)
    store = (
        Store(root, args.slug)
        if args.slug
        else Store.for_project(root, args.project or Path.cwd())
    )
    return store, parse_config(store.config_text(), str(root / "config.toml"))


def run_search(
    store: Store,
    query: str,
    *,
    ranking: Ranking = "default",
    docs: Mapping[str, Doc] | None = None,
) -> SearchResult:
    """The one search path shared by the CLI, auto-search and eval.

    `docs` is the store's corpus when the caller already holds it (eval loads each
    project once for thousands of queries, as a session process would); else it is read.
    """
    corpus = store.corpus() if docs is None else docs
    return search(corpus.values(), query, ranking=ranking)


def cmd_search(args: argparse.Namespace, out: TextIO) -> int:
    store, config = open_store(args)
    budget = args.budget or config.search.budget
    ranking = args.ranking or config.search.ranking
    result = run_search(store, " ".join(args.terms), ranking=ranking)
    if args.json:
        out.write(
            json.dumps(to_json(result, budget), ensure_ascii=False, indent=2) + "\n"
        )
    else:
        out.write(render_text(result, budget) + "\n")
    return EXIT_OK


def cmd_read(args: argparse.Namespace, out: TextIO) -> int:
    store, _ = open_store(args)
    rel, text = store.read(args.target, args.cap or DEFAULT_READ_CAP)
    if args.json:
        out.write(json.dumps({"path": rel, "text": text}, ensure_ascii=False) + "\n")
    else:
        out.write(text if text.endswith("\n") else text + "\n")
    return EXIT_OK


def cmd_write(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    store, _ = open_store(args)
    text = args.text if args.text is not None else stdin.read()
    if args.to == "memory":
        result = store.write_memory(text, mode=args.mode)
    elif args.to == "scratchpad":
        result = store.write_scratchpad(text, mode=args.mode)
    elif args.to == "daily":
        result = store.append_daily(args.title or "note", text)
    else:
        if not args.name:
            raise UsageError("write --to note needs --name NAME")
        result = store.write_note(args.name, text, mode=args.mode, aliases=args.aliases)
    for line in result.dropped:
        logger.warning("dropped, already in %s: %s", result.rel, line.strip())
    out.write(f"wrote {result.rel}\n")
    return EXIT_OK


def cmd_edit(args: argparse.Namespace, out: TextIO) -> int:
    store, _ = open_store(args)
    result = store.edit(args.target, args.old, args.new)
    out.write(f"edited {result.rel}\n")
    return EXIT_OK


def cmd_inject(args: argparse.Namespace, out: TextIO) -> int:
    store, config = open_store(args)
    block = build_block(store.corpus(), today(), args.budget or config.inject.budget)
    if block:
        out.write(block + "\n")
    return EXIT_OK


def cmd_status(args: argparse.Namespace, out: TextIO) -> int:
    store, config = open_store(args)
    docs = store.corpus()
    block = build_block(docs, today(), config.inject.budget)
    lines = [
        f"root:    {store.root}",
        f"project: {store.slug}",
        f"files:   {len(docs)}",
    ]
    lines += [f"  {nbytes(d.text):>8} B  {rel}" for rel, d in sorted(docs.items())]
    sections = [ln[3:] for ln in block.splitlines() if ln.startswith("## ")]
    marks = [ln for ln in block.splitlines() if ln.startswith("…[")]
    lines.append(f"block:   {nbytes(block)} of {config.inject.budget} bytes")
    lines += [f"  section: {s}" for s in sections]
    lines += [f"  {m}" for m in marks]
    out.write("\n".join(lines) + "\n")
    return EXIT_OK


__all__ = [
    "cmd_edit",
    "cmd_inject",
    "cmd_read",
    "cmd_search",
    "cmd_status",
    "cmd_write",
    "open_store",
    "run_search",
]

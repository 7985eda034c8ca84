"""The human and model commands on memory files: search, read, write, edit, inject, status.

Each takes the parsed arguments and the output stream and returns an exit code; errors
are raised and mapped to exit codes in one place, `cli.error_handler`.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from memhooks.hooks.constants import EXIT_OK
from memhooks.hooks.errors import UsageError
from memhooks.hooks.meaning import open_meaning
from memhooks.memory import (
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
from memhooks.memory.constants import DEFAULT_READ_CAP
from memhooks.memory.text import nbytes

if TYPE_CHECKING:
    import argparse

    from memhooks.memory import WriteResult
    from memhooks.memory.store import WriteMode

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


def cmd_search(args: argparse.Namespace, out: TextIO) -> int:
    store, config = open_store(args)
    budget = args.budget or config.search.budget
    ranking = args.ranking or config.search.ranking
    semantic = open_meaning(
        store.root, config.search.semantic, flag=getattr(args, "semantic", None)
    )
    result = search(store, " ".join(args.terms), ranking=ranking, semantic=semantic)
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


def write(
    store: Store,
    to: str,
    text: str,
    *,
    name: str | None = None,
    title: str | None = None,
    mode: WriteMode = "append",
    aliases: str | None = None,
) -> WriteResult:
    """The one write path shared by `memhooks write` and the MCP tool `memory_write`."""
    if to == "memory":
        return store.write_memory(text, mode=mode)
    if to == "scratchpad":
        return store.write_scratchpad(text, mode=mode)
    if to == "daily":
        return store.append_daily(title or "note", text)
    if to != "note":
        raise UsageError(f"write --to {to!r}: use memory, scratchpad, daily or note")
    if not name:
        raise UsageError("write --to note needs --name NAME")
    return store.write_note(name, text, mode=mode, aliases=aliases)


def write_warnings(
    store: Store,
    result: WriteResult,
    text: str,
    *,
    title: str | None = None,
    aliases: str | None = None,
) -> list[str]:
    """What a writer should be told after a write: lines dropped, secrets, forgotten notes."""
    # Imported here: a search, the commonest command, needs neither.
    from memhooks.memory.note_format import note_forgotten
    from memhooks.memory.redact import find_secrets

    notes = [f"dropped, already in {result.rel}: {ln.strip()}" for ln in result.dropped]
    # Explicit writes are stored as given (only automatic digests are redacted), so say so.
    kinds = find_secrets("\n".join(filter(None, (title, aliases, text))))
    if kinds:
        notes.append(
            f"warning: {result.rel} may hold a secret ({', '.join(kinds)}); stored as "
            "given, remove it with `memhooks edit`"
        )
    if "/notes/" in result.rel and note_forgotten(
        store.read_text(result.rel).split("\n")
    ):
        notes.append(
            f"warning: {result.rel} is forgotten, so search will not find this; "
            f"`memhooks restore {result.rel}` brings it back"
        )
    return notes


def cmd_write(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    store, _ = open_store(args)
    try:
        text = args.text if args.text is not None else stdin.read()
    except UnicodeDecodeError:
        raise UsageError(
            "the text on stdin is not UTF-8; nothing was written"
        ) from None
    result = write(
        store,
        args.to,
        text,
        name=args.name,
        title=args.title,
        mode=args.mode,
        aliases=args.aliases,
    )
    for note in write_warnings(
        store, result, text, title=args.title, aliases=args.aliases
    ):
        logger.warning("%s", note)
    out.write(f"wrote {result.rel}\n")
    return EXIT_OK


def cmd_edit(args: argparse.Namespace, out: TextIO) -> int:
    store, _ = open_store(args)
    result = store.edit(args.target, args.old, args.new)
    out.write(f"edited {result.rel}\n")
    return EXIT_OK


def cmd_inject(args: argparse.Namespace, out: TextIO) -> int:
    from memhooks.hooks.mcp_config import usage_line  # here: a search needs none of it

    store, config = open_store(args)
    usage = usage_line(args.project or Path.cwd())
    block = build_block(
        store.corpus(), today(), args.budget or config.inject.budget, usage
    )
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
    "write",
    "write_warnings",
]

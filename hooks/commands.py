"""The human and model commands on memory files: search, read, write, edit.

Each takes typed arguments (where: the memory root and project) and the output stream
and returns an exit code; errors are raised and mapped to exit codes in one place,
`cli.error_handler`.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TextIO

from memhooks.hooks.cautions import secret_warnings, write_warnings
from memhooks.hooks.constants import EXIT_NOT_FOUND, EXIT_OK
from memhooks.hooks.errors import UsageError, project_folder
from memhooks.hooks.meaning import open_meaning
from memhooks.hooks.modelshell import shell_prog
from memhooks.hooks.progress import writing
from memhooks.hooks.targets import file_target
from memhooks.memory import (
    Config,
    Store,
    default_root,
    parse_config,
    render_text,
    search,
    to_json,
)
from memhooks.memory.constants import DEFAULT_READ_CAP, INDEX_DIR, PROJECTS_DIR
from memhooks.memory.lazylog import getLogger
from memhooks.memory.merging import conflict_warning
from memhooks.memory.note_format import checklist
from memhooks.memory.paths import project_slugs
from memhooks.memory.text import nbytes

if TYPE_CHECKING:
    from memhooks.memory import WriteResult
    from memhooks.memory.searching import Ranking
    from memhooks.memory.store import WriteMode

logger = getLogger(__name__)


class Where(NamedTuple):
    """Which memory a command works on: --root, --project, --slug (None: the defaults)."""

    root: str | None = None
    project: str | None = None
    slug: str | None = None


def root_exists(root: Path) -> None:
    """Raise `UsageError` unless `root` is a folder: for commands and tools that only
    read, a typo in --root or $MEMHOOKS_HOME must not look like an empty memory."""
    if not root.is_dir():
        raise UsageError(
            f"memory root {root} is not a folder (check --root and $MEMHOOKS_HOME)"
            if root.exists()  # a file there was said not to exist
            else f"memory root {root} does not exist (check --root and $MEMHOOKS_HOME; "
            f"`{shell_prog()} write` creates it)"
        )


def open_store(where: Where, *, must_exist: bool = False) -> tuple[Store, Config]:
    """The store and config named by --root / --project / --slug (defaults: env, cwd).

    With `must_exist` (commands that only read), a root that is not there is an error:
    a typo in --root or $MEMHOOKS_HOME must not look like an empty memory.
    """
    root = default_root(where.root)
    if must_exist or root.exists():
        root_exists(root)
    elif (
        up := next((p for p in root.parents if p.exists()), None)
    ) and not up.is_dir():
        raise UsageError(
            f"memory root {root} cannot be made: {up} is not a folder (check --root "
            "and $MEMHOOKS_HOME)"
        )
    project_folder(where.project)
    store = (
        Store(root, where.slug)
        if where.slug is not None  # "" is refused, not the current project
        else Store.for_project(root, where.project or Path.cwd())
    )
    return store, parse_config(store.config_text(), str(root / "config.toml"))


def unknown_slug(where: Where, root: Path, *, writing: bool = False) -> str | None:
    """What to say when --slug names no project of `root` (typed by hand: a slug
    mistyped searched MEMORY.md alone, or wrote a new project's files, without a word);
    for a write, only when it is a letter or two from a project's (a new one may be
    meant)."""
    if where.slug is None or (root / PROJECTS_DIR / where.slug).is_dir():
        return None
    import difflib

    near = difflib.get_close_matches(where.slug, project_slugs(root), n=1, cutoff=0.8)
    if not near and writing:
        return None
    hint = f"; did you mean --slug {near[0]}?" if near else ""
    return f"--slug {where.slug}: no project of that name in {root}{hint}"


def searchable(query: str) -> str:
    """`query`, unless it is blank: `memhooks search` and MCP `memory_search` refuse it."""
    if not query.strip():
        raise UsageError("search needs a word to look for; the terms are blank")
    return query


def cmd_search(
    where: Where,
    terms: list[str],
    out: TextIO,
    *,
    as_json: bool = False,
    budget: int | None = None,
    ranking: Ranking | None = None,
    semantic: str | None = None,
) -> int:
    """Exit 0 when a file matched, 1 when none did (as grep does)."""
    query = searchable(" ".join(terms))
    store, config = open_store(where, must_exist=True)
    if unknown := unknown_slug(where, store.root):
        logger.warning("%s", unknown)
    budget = budget or config.search.budget
    meaning = open_meaning(store.root, config.search.semantic, flag=semantic)
    # By meaning, every file is read and no index file is built.
    with _first_search(store) if meaning is None else _embedding():
        result = search(
            store, query, ranking=ranking or config.search.ranking, semantic=meaning
        )
    if as_json:
        import json  # a search's page is text unless asked: ~2 ms of its start

        out.write(
            json.dumps(to_json(result, budget), ensure_ascii=False, indent=2) + "\n"
        )
    else:
        out.write(render_text(result, budget) + "\n")
    return EXIT_OK if result.files_matched else EXIT_NOT_FOUND


def _first_search(store: Store) -> contextlib.AbstractContextManager[None]:
    # The first search of a project builds its index: seconds for 10,000 notes.
    if (store.root / INDEX_DIR / f"{store.slug}.mhix").exists():
        return contextlib.nullcontext()
    from memhooks.hooks.progress import status

    return status(f"building the search index of {store.slug} (first search only)")


def _embedding() -> contextlib.AbstractContextManager[None]:
    # The first search by meaning embeds every file: a minute for a thousand notes, and
    # not a word on the terminal meanwhile looked like a hang.
    from memhooks.hooks.progress import status

    return status("ranking by meaning: embedding the files its cache lacks")


def cmd_read(
    where: Where,
    target: str,
    out: TextIO,
    *,
    cap: int | None = None,
    as_json: bool = False,
) -> int:
    store, _ = open_store(where, must_exist=True)
    target = file_target(store, target)  # PATH:LINE as search prints a line
    if as_json:
        import json

        def line(rel: str, text: str) -> str:
            return json.dumps({"path": rel, "text": text}, ensure_ascii=False)

        # --cap bounds the JSON line, quoting included (README "read").
        rel, text = store.read(
            target, cap or DEFAULT_READ_CAP, shown=lambda r, t: nbytes(line(r, t))
        )
        out.write(line(rel, text) + "\n")
    else:
        rel, text = store.read(target, cap or DEFAULT_READ_CAP)
        out.write(text if text.endswith("\n") else text + "\n")
    if warning := conflict_warning(rel, text):
        logger.warning("%s", warning)
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
    """The one write path shared by `memhooks write` and the MCP tool `memory_write`;
    run by the model of a session, its own write (`session_writes`).

    Raises:
        UsageError: nothing to write, an overwrite of a daily log, a note without a name.
    """
    from memhooks.hooks.session_writes import recording, write_target

    with recording(store, lambda: write_target(store, to, name)):
        return _write(store, to, text, name, title, mode, aliases)


def _write(
    store: Store,
    to: str,
    text: str,
    name: str | None,
    title: str | None,
    mode: WriteMode,
    aliases: str | None,
) -> WriteResult:
    if not text.strip() and not (to == "daily" and title):
        raise UsageError(f"write --to {to}: the text is empty; nothing was written")
    for flag, value, only in (
        ("--name", name, "note"),
        ("--aliases", aliases, "note"),
        ("--title", title, "daily"),  # a title of MEMORY.md was dropped without a word
    ):
        if value and to != only:  # an MCP client may send "" for an unused one
            raise UsageError(f"write {flag} is for --to {only}; nothing was written")
    given = {"--text": text, "--name": name, "--title": title, "--aliases": aliases}
    for flag, value in given.items():
        utf8(f"write {flag}", value)
    if to == "daily" and mode == "overwrite":
        raise UsageError(
            "write --to daily only appends (a log is a record); nothing was written; "
            f"change an entry with `{shell_prog()} edit`"
        )
    if to == "memory":
        return store.write_memory(text, mode=mode)
    if to == "scratchpad":
        if not checklist(text).strip():
            raise UsageError(
                "write --to scratchpad: no item in the text (an empty box is none); "
                "nothing was written"
            )
        return store.write_scratchpad(text, mode=mode)
    if to == "daily":
        from memhooks.hooks.records import posing_as_record  # a search needs none of it

        if posing := posing_as_record(title or "note", text):
            raise UsageError(
                f"write --to daily: {posing!r} marks memhooks' own records, which are "
                "condensed away once the log grows; use another title; nothing was written"
            )
        return store.append_daily(title or "note", text)
    if to != "note":
        raise UsageError(f"write --to {to!r}: use memory, scratchpad, daily or note")
    if not name:
        raise UsageError("write --to note needs --name NAME")
    if name != name.strip():
        # `read notes/NAME` strips what is typed: such a note could not be named again.
        raise UsageError(
            f"write --to note --name {name!r}: a name may not start or end with a "
            "space; nothing was written"
        )
    return store.write_note(name, text, mode=mode, aliases=aliases)


def cmd_write(
    where: Where,
    to: str,
    text: str | None,
    out: TextIO,
    stdin: TextIO,
    *,
    name: str | None = None,
    title: str | None = None,
    mode: WriteMode = "append",
    aliases: str | None = None,
) -> int:
    """`text` None or ``-``: read it from `stdin` (`arguments.stdin_text`)."""
    if text in (None, "-"):
        from memhooks.hooks.arguments import stdin_text  # argparse: not for a search

        text = stdin_text(stdin)
        utf8("the text on standard input", text, "convert it: iconv -t UTF-8")
    store, _ = open_store(where)
    unknown = unknown_slug(where, store.root, writing=True)
    with writing(to, text):
        result = write(
            store, to, text, name=name, title=title, mode=mode, aliases=aliases
        )
        notes = write_warnings(store, result, text, title=title, aliases=aliases)
        done = said(text, result)
    # The slug's line once written: a write that fails says one line, its error.
    for note in [unknown, *notes] if unknown else notes:
        logger.warning("%s", note)
    out.write(done + "\n")
    return EXIT_OK


def said(text: str, result: WriteResult) -> str:
    """What a write of `text` says it did."""
    if _all_dropped(text, result):
        return f"unchanged {result.rel}: every line is already there"
    return f"wrote {result.rel}"


def _all_dropped(text: str, result: WriteResult) -> bool:
    # Only duplicates are dropped, and a blank line never is: when every written line
    # was a duplicate, the file was left as it was.
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return bool(result.dropped) and len(result.dropped) >= len(lines)


def utf8(what: str, value: str | None, fix: str = "set the terminal to UTF-8") -> None:
    """Refuse a value to be written that is not UTF-8: bytes argv could not decode (a
    Latin-1 terminal) or a lone surrogate, written as such (search shows "caf�"); or
    that holds a NUL byte, which makes the file binary to grep, git and editors."""
    if value and value.encode("utf-8", "replace").decode("utf-8") != value:
        raise UsageError(f"{what} is not UTF-8 ({fix}); nothing was written")
    if value and "\x00" in value:
        raise UsageError(f"{what} holds a NUL byte (binary data?); nothing was written")


def edit(store: Store, target: str, old: str, new: str) -> WriteResult:
    """The one edit path of `memhooks edit` and the MCP tool `memory_edit`; run by the
    model of a session, its own write (`session_writes`).

    Raises:
        UsageError: the edit would make an entry of a daily log read as one of the
            records, which condensing merges away (`write` refuses them too).
    """
    from memhooks.hooks.session_writes import recording

    utf8("edit --new", new)
    loc = store.locate(target := file_target(store, target))  # PATH:LINE, as read takes
    if loc.kind == "daily" and old:
        from memhooks.hooks.records import makes_records  # a search needs none of it

        if makes_records(store.read_text(loc.rel), old, new):
            raise UsageError(
                f"edit {loc.rel}: the new text makes an entry read as one of memhooks' "
                "own records, which are condensed away once the log grows; nothing "
                "was written"
            )
    with recording(store, lambda: loc.rel):
        return store.edit(target, old, new)


def cmd_edit(where: Where, target: str, old: str, new: str, out: TextIO) -> int:
    store, _ = open_store(where, must_exist=True)
    result = edit(store, target, old, new)
    for note in secret_warnings(result.rel, new):
        logger.warning("%s", note)
    out.write(edited(result.rel, old, new) + "\n")
    return EXIT_OK


def edited(rel: str, old: str, new: str) -> str:
    """What an edit that succeeded says it did."""
    if old == new:
        return f"unchanged {rel}: the new text is the old text"
    return f"edited {rel}"


__all__ = [
    "Where",
    "cmd_edit",
    "cmd_read",
    "cmd_search",
    "cmd_write",
    "edit",
    "open_store",
    "write",
]

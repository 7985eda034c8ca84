"""`memhooks mcp`: the memory tools as an MCP server over stdio (`hooks.mcp_stdio`).

No SDK: the official `mcp` package took 0.5 s to import, answering a client's first
message after 0.9 s, past the ~1.1 s Codex CLI waits for an optional server on a busy
machine, and it left a line it could not parse unanswered, refused a lone surrogate and
dropped an unknown argument without a word, each worked around here. Tools only: each
tool's arguments are checked by a pydantic model made from its function's signature,
which also gives the JSON schema the model reads. Every tool calls the function the
CLI command calls (`hooks.commands`, `hooks.corrections`), so a tool and its command
never disagree. A bad target or a refused name comes back as a tool result with
``isError: true`` and the same one-line message the CLI prints; arguments that do not
fit a tool's schema, as one line naming each field and what it should be (and an
argument the tool does not take, rather than dropped).
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NamedTuple, get_type_hints

from pydantic import BaseModel, Field, ValidationError, create_model

from memhooks.hooks import corrections
from memhooks.hooks.arguments import installed_version
from memhooks.hooks.cautions import secret_warnings, write_warnings
from memhooks.hooks.commands import (
    edit,
    edited,
    root_exists,
    said,
    searchable,
    write,
)
from memhooks.hooks.constants import ERROR_MAX_BYTES
from memhooks.hooks.errors import HookError, project_folder
from memhooks.hooks.mcp_stdio import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    RpcError,
    serve,
)
from memhooks.hooks.meaning import open_meaning
from memhooks.hooks.targets import file_target
from memhooks.hooks.upgraded import keep_release
from memhooks.memory import (
    Config,
    MemoryStoreError,
    Store,
    default_root,
    parse_config,
    render_text,
)
from memhooks.memory.constants import CONFIG_FILE, DEFAULT_READ_CAP
from memhooks.memory.lazylog import getLogger
from memhooks.memory.merging import conflict_warning
from memhooks.memory.searching import search
from memhooks.memory.text import one_line, scrub_surrogates
from memhooks.memory.toolsline import USAGE_MCP

if TYPE_CHECKING:
    from collections.abc import Callable

    from memhooks.memory.semantic import SemanticIndex

logger = getLogger(__name__)

NAME = "memhooks"
#: Claude Code sets this for stdio MCP servers too.
ENV_PROJECT_DIR = "CLAUDE_PROJECT_DIR"


# Argument types: the descriptions become the tools' JSON schemas, read by the model.
Query = Annotated[
    str,
    Field(description="Words to look for, separated by spaces; any word may match."),
]
Target = Annotated[
    str,
    Field(
        description="MEMORY.md, scratchpad, daily/YYYY-MM-DD, notes/NAME, or a path "
        "exactly as memory_search printed it."
    ),
]
To = Annotated[
    Literal["memory", "scratchpad", "daily", "note"],
    Field(
        description="memory: a lasting rule or preference for every project "
        "(MEMORY.md); scratchpad: an open task; daily: what happened today; note: "
        "reference knowledge about this project under a name."
    ),
]
Text = Annotated[str, Field(description="What to write, Markdown.")]
NoteName = Annotated[
    str | None,
    Field(description="Note name for to=note, e.g. redis-deploy (no folder, no .md)."),
]
Title = Annotated[str | None, Field(description="Short entry title for to=daily.")]
Aliases = Annotated[
    str | None,
    Field(description='Other words to find a note by, comma-separated: "a, b, c".'),
]
Mode = Annotated[
    Literal["append", "overwrite"],
    Field(description="append (default) adds; overwrite replaces the file."),
]
Old = Annotated[str, Field(description="Text that occurs exactly once in the file.")]
New = Annotated[str, Field(description='Replacement text ("" deletes).')]
Line = Annotated[
    str | None,
    Field(
        description="Text that occurs in exactly one line of the file: forget that "
        "line. Leave out to forget a whole note."
    ),
]
Reason = Annotated[
    str | None, Field(description="Why, kept beside the mark for people to read.")
]
By = Annotated[
    str | None,
    Field(
        description="Name of the newer note that replaces this one: the old note is "
        "kept but marked superseded, instead of forgotten."
    ),
]

_DESCRIPTIONS = {
    "memory_search": "Find which memory files mention something (past decisions, "
    "fixes, conventions, notes). Use before answering about earlier work or before "
    "writing, then memory_read the best file; a term shown with (0) matched nothing, "
    "so try other words.",
    "memory_read": "Read one memory file whole: a path from memory_search, or "
    "MEMORY.md, scratchpad, daily/YYYY-MM-DD, notes/NAME.",
    "memory_write": "Save something worth remembering in a later session: a lasting "
    "rule (memory), an open task (scratchpad), what happened (daily) or reference "
    "knowledge (note). Lines already in MEMORY.md or the note are dropped.",
    "memory_edit": "Correct a memory file by replacing text that occurs exactly once "
    "in it (new may be empty to delete).",
    "memory_forget": "Retire a wrong or outdated line or note: it disappears from "
    "search and the injected block but stays in the file, marked with the date and "
    "reason, for a person to restore. Name a line by its PATH:LINE as memory_search "
    "prints it, or by line. With superseded_by, mark a note replaced by a newer one "
    "instead.",
}


def _default_project(value: str | None) -> Path:
    if value:
        return Path(value)
    return Path(os.environ.get(ENV_PROJECT_DIR) or Path.cwd())


#: The protocol versions this server speaks (its tools are the same in each); a client
#: asking for another gets the newest, and decides.
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


class Tool(NamedTuple):
    """One memory tool: what `tools/list` says of it, and how a call is checked and run."""

    name: str
    run: Callable[..., str]
    arguments: type[BaseModel]  #: its arguments, from the function's signature
    read_only: bool

    def listed(self) -> dict[str, Any]:
        """The tool as `tools/list` describes it to the model."""
        return {
            "name": self.name,
            "description": _DESCRIPTIONS[self.name],
            "inputSchema": self.arguments.model_json_schema(),
            "annotations": {"readOnlyHint": self.read_only, "openWorldHint": False},
        }

    def call(self, given: dict[str, Any]) -> str:
        """Check `given` against the tool's arguments and run it.

        Raises:
            MemoryStoreError, HookError: refused, with what to fix in one line.
        """
        known = list(self.arguments.model_fields)
        if unknown := [str(k) for k in given if k not in known]:
            # `alias` for `aliases`: what it held would be lost without a word.
            raise HookError(
                f"bad arguments: {', '.join(unknown)}: no such argument (it takes "
                f"{', '.join(known)}); nothing was done"
            )
        try:
            checked = self.arguments.model_validate(given)
        except ValidationError as e:  # pydantic's report: several lines and a link
            raise HookError(_bad_arguments(e)) from None
        return self.run(**{k: getattr(checked, k) for k in known})


def tools(store: Store) -> dict[str, Tool]:
    """The five memory tools, over `store`."""

    def config() -> Config:
        # Read per call, like the CLI: an edited config.toml counts at once.
        return parse_config(store.config_text(), str(store.root / CONFIG_FILE))

    # Meaning as `memhooks search` has it (`semantic = "on"`), its model loaded and its
    # vectors kept once for the server's life.
    held: list[SemanticIndex] = []

    def memory_search(query: Query) -> str:
        cfg = config().search
        meaning = open_meaning(store.root, cfg.semantic)
        if meaning is not None:
            held[:] = held or [meaning]
            meaning = held[0]
        result = search(store, searchable(query), ranking=cfg.ranking, semantic=meaning)
        return render_text(result, cfg.budget)

    def memory_read(target: Target) -> str:
        rel, text = store.read(file_target(store, target), DEFAULT_READ_CAP)
        if warning := conflict_warning(rel, text):  # as `memhooks read` says it
            return text.removesuffix("\n") + "\n" + warning
        return text

    def memory_write(
        to: To,
        text: Text,
        name: NoteName = None,
        title: Title = None,
        aliases: Aliases = None,
        mode: Mode = "append",
    ) -> str:
        # A client may send "" for an argument it does not use: no aliases given, so
        # an overwrite keeps the note's own.
        result = write(
            store, to, text, name=name, title=title, mode=mode, aliases=aliases or None
        )
        notes = write_warnings(store, result, text, title=title, aliases=aliases)
        return "\n".join([said(text, result), *notes])

    def memory_edit(target: Target, old: Old, new: New) -> str:
        rel = edit(store, target, old, new).rel
        return "\n".join([edited(rel, old, new), *secret_warnings(rel, new)])

    def memory_forget(
        target: Target,
        line: Line = None,
        reason: Reason = None,
        superseded_by: By = None,
    ) -> str:
        return corrections.forget(
            store, target, line=line, reason=reason or "", by=superseded_by
        )

    def tool(fn: Callable[..., str], *, reading: bool, read_only: bool) -> Tool:
        hints = get_type_hints(fn, include_extras=True)
        fields: dict[str, Any] = {
            name: (hints[name], ... if p.default is p.empty else p.default)
            for name, p in inspect.signature(fn).parameters.items()
        }
        model = create_model(f"{fn.__name__}_arguments", **fields)
        run = _reading(store, fn) if reading else fn
        return Tool(fn.__name__, run, model, read_only)

    found = [
        tool(memory_search, reading=True, read_only=True),
        tool(memory_read, reading=True, read_only=True),
        # Creates the root, as `memhooks write` does.
        tool(memory_write, reading=False, read_only=False),
        tool(memory_edit, reading=True, read_only=False),
        tool(memory_forget, reading=True, read_only=False),
    ]
    return {t.name: t for t in found}


def handler(store: Store) -> Callable[[str, dict[str, Any]], Any]:
    """What `memhooks mcp` answers to each MCP method (`mcp_stdio.serve`)."""
    offered = tools(store)

    def handle(method: str, params: dict[str, Any]) -> Any:
        if method == "initialize":
            asked = params.get("protocolVersion")
            return {
                "protocolVersion": asked if asked in VERSIONS else VERSIONS[-1],
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": NAME, "version": installed_version()},
                "instructions": USAGE_MCP,
            }
        if method == "tools/list":
            return {"tools": [t.listed() for t in offered.values()]}
        if method == "tools/call":
            return _called(offered, params)
        if method == "ping":
            return {}
        if method in _EMPTY:  # asked by a client that lists everything: none here
            return {_EMPTY[method]: []}
        if method.startswith("notifications/"):
            return None  # initialized, cancelled (a call is answered before the next)
        raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")

    return handle


_EMPTY = {
    "prompts/list": "prompts",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
}


def _called(offered: dict[str, Tool], params: dict[str, Any]) -> dict[str, Any]:
    name, given = params.get("name"), params.get("arguments") or {}
    tool = offered.get(name) if isinstance(name, str) else None
    if tool is None:
        raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}")
    if not isinstance(given, dict):
        raise RpcError(INVALID_PARAMS, "Invalid params: arguments is not an object")
    # A lone surrogate (Node writes one for a cut emoji) is U+FFFD in a file.
    given = {
        k: scrub_surrogates(v) if isinstance(v, str) else v for k, v in given.items()
    }
    try:
        # A file name that is not UTF-8 (caf\xe9.md) is held as surrogates.
        text, failed = scrub_surrogates(tool.call(given)), False
    except (MemoryStoreError, HookError) as e:
        said = one_line(str(e), ERROR_MAX_BYTES)
        text, failed = f"Error executing tool {tool.name}: {said}", True
    return {"content": [{"type": "text", "text": text}], "isError": failed}


def _bad_arguments(error: ValidationError) -> str:
    """Each argument a call got wrong, with what it should be, on one line."""
    said = []
    for e in error.errors(include_url=False):
        field = ".".join(str(part) for part in e["loc"]) or "arguments"
        said.append(f"{field}: {one_line(str(e['msg']))}")
    return "bad arguments: " + "; ".join(said)


def _reading(store: Store, fn: Callable[..., str]) -> Callable[..., str]:
    # A tool that needs memory to be there, as the commands that only read do: a typo
    # in the client's MEMHOOKS_HOME must not look like an empty memory.
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> str:
        root_exists(store.root)
        return fn(*args, **kwargs)

    return run


def cmd_mcp(root: str | None, project: str | None, slug: str | None) -> int:
    """`memhooks mcp`: serve until the client closes stdin."""
    keep_release()  # an upgrade during the session must not mix two (`hooks.upgraded`)
    where = default_root(root)
    if project is not None:
        project_folder(project)
    store = (
        Store(where, slug)
        if slug is not None
        else Store.for_project(where, _default_project(project))
    )
    logger.debug("serving %s for %s", where, store.slug)
    serve(handler(store), sys.stdin.buffer, sys.stdout.buffer)
    return 0


__all__ = ["VERSIONS", "Tool", "cmd_mcp", "handler", "tools"]

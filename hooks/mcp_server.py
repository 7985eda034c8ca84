"""`memhooks mcp`: the memory tools as an MCP server over stdio.

An optional extra (the ``[mcp]`` extra: ``pipx install '.[mcp]'`` from a clone) built on the official `mcp` package,
imported only here and only when the command runs. Every tool calls the function the
CLI command calls (`hooks.commands`, `hooks.corrections`), so a tool and its command
never disagree. A bad target or a refused name comes back as a tool result with
``isError: true`` and the same one-line message the CLI prints; arguments that do not
fit a tool's schema, as one line naming each field and what it should be (and an
argument the tool does not take, rather than dropped).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import os
import re
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, BinaryIO, Literal

from pydantic import Field, ValidationError

from memhooks.hooks import corrections
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
from memhooks.hooks.stdin_lines import lines
from memhooks.hooks.targets import file_target
from memhooks.memory import (
    Config,
    MemoryStoreError,
    Store,
    default_root,
    parse_config,
    render_text,
)
from memhooks.memory.constants import CONFIG_FILE, DEFAULT_READ_CAP
from memhooks.memory.inject import USAGE_MCP
from memhooks.memory.lazylog import getLogger
from memhooks.memory.searching import search
from memhooks.memory.text import abridge, scrub_surrogates

if TYPE_CHECKING:
    from collections.abc import Callable

logger = getLogger(__name__)

NAME = "memhooks"
MISSING_EXTRA = (
    "memhooks mcp needs the mcp extra: add the mcp package to memhooks' environment "
    "(`pipx inject memhooks mcp`), or reinstall from the clone with `.[mcp]`"
)
#: Claude Code sets this for stdio MCP servers too.
ENV_PROJECT_DIR = "CLAUDE_PROJECT_DIR"


class MissingExtraError(HookError):
    """Raised by `memhooks mcp` when the `mcp` package is not installed."""

    def __init__(self) -> None:
        super().__init__(MISSING_EXTRA)


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


def _load_server() -> tuple[Any, type[Exception], Any]:
    """(server class, its ToolError, ToolAnnotations) from mcp 2.x, else mcp 1.x."""
    try:
        types = importlib.import_module("mcp.types")
        try:
            from mcp.server.mcpserver import MCPServer
            from mcp.server.mcpserver.exceptions import ToolError
        except ImportError:  # mcp 1.x: the same API under its old name
            fast = importlib.import_module("mcp.server.fastmcp")
            errors = importlib.import_module("mcp.server.fastmcp.exceptions")
            return fast.FastMCP, errors.ToolError, types.ToolAnnotations
    except ImportError as e:
        if (e.name or "").split(".")[0] == "mcp":
            raise MissingExtraError from None
        raise
    return MCPServer, ToolError, types.ToolAnnotations


def build_server(store: Store) -> Any:
    """The MCP server with the five memory tools, over `store`.

    Raises:
        MissingExtraError: the `mcp` package is not installed.
    """
    server_cls, tool_error, annotations = _load_server()

    takes: dict[str, list[str]] = {}  # each tool's arguments, in order

    class Server(server_cls):  # type: ignore[misc,valid-type]
        async def call_tool(self, name: str, *args: Any, **kwargs: Any) -> Any:
            # An argument the tool does not take (`alias` for `aliases`) was dropped
            # by the SDK without a word, and what it held with it.
            given = args[0] if args else kwargs.get("arguments")
            known = takes.get(name, [])
            unknown = [str(k) for k in given or () if k not in known]
            if known and isinstance(given, dict) and unknown:
                raise tool_error(
                    f"Error executing tool {name}: bad arguments: {', '.join(unknown)}: "
                    f"no such argument (it takes {', '.join(known)}); nothing was done"
                )
            # Arguments that do not fit the schema fail in the SDK, before our code,
            # as pydantic's report: several lines and a link. One line instead.
            try:
                return await super().call_tool(name, *args, **kwargs)
            except tool_error as e:
                if not isinstance(e.__cause__, ValidationError):
                    raise
                bad = _bad_arguments(e.__cause__)
                raise tool_error(f"Error executing tool {name}: {bad}") from None

    server = Server(NAME, instructions=USAGE_MCP, log_level="WARNING")

    def tool(fn: Callable[..., str], *, read_only: bool) -> None:
        # wraps() keeps fn's signature, which the SDK turns into the JSON schema.
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> str:
            try:
                # A file name that is not UTF-8 (caf\xe9.md) is held as surrogates,
                # which the SDK cannot serialize: the server died on it.
                return scrub_surrogates(fn(*args, **kwargs))
            except (MemoryStoreError, HookError) as e:
                # The SDK's own error type: the message reaches the model (isError).
                said = abridge(" ".join(str(e).split()), ERROR_MAX_BYTES)
                raise tool_error(said) from None

        takes[fn.__name__] = list(inspect.signature(fn).parameters)
        server.add_tool(
            run,
            name=fn.__name__,
            description=_DESCRIPTIONS[fn.__name__],
            annotations=annotations(readOnlyHint=read_only, openWorldHint=False),
            structured_output=False,
        )

    def config() -> Config:
        # Read per call, like the CLI: an edited config.toml counts at once.
        return parse_config(store.config_text(), str(store.root / CONFIG_FILE))

    def memory_search(query: Query) -> str:
        cfg = config().search
        result = search(store, searchable(query), ranking=cfg.ranking)
        return render_text(result, cfg.budget)

    def memory_read(target: Target) -> str:
        return store.read(file_target(store, target), DEFAULT_READ_CAP)[1]

    def memory_write(
        to: To,
        text: Text,
        name: NoteName = None,
        title: Title = None,
        aliases: Aliases = None,
        mode: Mode = "append",
    ) -> str:
        result = write(
            store, to, text, name=name, title=title, mode=mode, aliases=aliases
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

    tool(_reading(store, memory_search), read_only=True)
    tool(_reading(store, memory_read), read_only=True)
    tool(memory_write, read_only=False)  # creates the root, as `memhooks write` does
    tool(_reading(store, memory_edit), read_only=False)
    tool(_reading(store, memory_forget), read_only=False)
    return server


def _bad_arguments(error: ValidationError) -> str:
    """Each argument a call got wrong, with what it should be, on one line."""
    said = []
    for e in error.errors(include_url=False):
        field = ".".join(str(part) for part in e["loc"]) or "arguments"
        said.append(f"{field}: {' '.join(str(e['msg']).split())}")
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
    where = default_root(root)
    if project is not None:
        project_folder(project)
    store = (
        Store(where, slug)
        if slug is not None
        else Store.for_project(where, _default_project(project))
    )
    server = build_server(store)
    logger.debug("serving %s for %s", where, store.slug)
    _mend_stdin()
    server.run("stdio")
    return 0


#: A JSON escape of a surrogate (a pair's half or a lone one) in a line's bytes.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _mend_stdin() -> None:
    """Make fd 0 a pipe fed from the real stdin, a line at a time, each lone surrogate
    in it (JSON's "\\ud800", valid JSON) made U+FFFD: the SDK's parser refuses such a
    line, and it dropped the request unanswered, the client waiting on it for good."""
    real = os.fdopen(os.dup(0), "rb", buffering=0)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)
    threading.Thread(
        target=_pump, args=(real, write_end), daemon=True, name="stdin"
    ).start()


def _pump(real: BinaryIO, out: int) -> None:
    # Its end closed, the server sees the end of input the client gave.
    try:
        for line in lines(real, sys.maxsize):
            if isinstance(line, bytes):
                left = memoryview(_mended(line))
                while left:
                    left = left[os.write(out, left) :]
    except OSError as e:  # the server stopped reading: it is leaving
        logger.debug("stdin pump stopped: %s", e)
    finally:
        os.close(out)


def _mended(line: bytes) -> bytes:
    if not _SURROGATE_ESCAPE.search(line):
        return line
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):  # not JSON, or too deep: the SDK's to judge
        return line
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    mended = scrub_surrogates(text)
    return line if mended == text else mended.encode() + b"\n"  # pairs only: as sent


__all__ = ["MISSING_EXTRA", "MissingExtraError", "build_server", "cmd_mcp"]

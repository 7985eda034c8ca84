"""Where harnesses register MCP servers, and whether `memhooks mcp` is one of them.

The injected block ends with a line naming the memory tools the model actually has
(`memory.toolsline.USAGE_SHELL` / `USAGE_MCP`); reading the harness's files to know that is I/O,
so it happens here and the memory core only gets the line. `memhooks doctor` uses the
same look-up. Locations (Claude Code ``.mcp.json``, ``claude mcp
add`` writing ``~/.claude.json``), §6.1 (Codex ``config.toml`` ``[mcp_servers.NAME]``),
§6.2 (Gemini CLI ``settings.json`` ``mcpServers``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from memhooks.hooks.harness_dirs import claude_dir, claude_state, codex_dir, gemini_dir
from memhooks.hooks.modelshell import model_prog
from memhooks.memory.home import root_dir
from memhooks.memory.lazylog import getLogger
from memhooks.memory.paths import project_dir as _project_dir
from memhooks.memory.toolsline import USAGE_SHELL, usage_mcp

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

logger = getLogger(__name__)

#: `~/.claude.json` also holds history; one larger than this is not worth parsing per session.
_MAX_CONFIG_BYTES = 16 * 1024 * 1024
_OURS = re.compile(
    r"""(?:^|[\s/\\'"])memhooks(?:\.exe)?['"]?\s+mcp\b|(?:^|\s)-m\s+(?:memhooks\.)?hooks\s+mcp\b"""
)


#: What picks the memory root (`memory.home`). Codex gives an MCP server only a few
#: variables of its environment (HOME, PATH, LANG…), and these only when its entry names
#: them (`env_vars`, or `env`).
ROOT_VARIABLES = ("MEMHOOKS_HOME", "XDG_DATA_HOME")

#: How a harness names an MCP server's tool to the model, as the tool lists of its
#: requests show, and the characters of a server's name it keeps (others become ``_``):
#: Claude Code 2.1.332 ``mcp__memhooks__memory_search`` (deferred: the model loads it by
#: that name with ToolSearch; `claude mcp add` takes no other characters), Gemini CLI
#: 0.61.0 ``mcp_memhooks_memory_search`` (``mem.hooks-x`` kept as it is). Codex CLI
#: 0.171.0 offers them by their own names, in a namespace ``mcp__memhooks``.
_SPELLING = {
    "claude-code": ("mcp__{server}__{tool}", re.compile(r"[^A-Za-z0-9_-]")),
    "gemini": ("mcp_{server}_{tool}", re.compile(r"[^A-Za-z0-9_.-]")),
}


class Registration(NamedTuple):
    """One MCP server entry: the file, the harness, the server's name, its command line,
    and the variables it names for the server (`env` and Codex's `env_vars`)."""

    path: Path
    harness: str
    name: str
    argv: tuple[str, ...]
    env: tuple[str, ...] = ()

    @property
    def ours(self) -> bool:
        """Whether the entry runs `memhooks mcp` (or `python -m memhooks.hooks mcp`)."""
        return is_ours(shlex.join(self.argv))


def is_ours(command: str) -> bool:
    """Whether a command line runs our MCP server."""
    return _OURS.search(command) is not None


def _read(path: Path) -> object:
    try:
        if path.stat().st_size > _MAX_CONFIG_BYTES:
            return None
        raw = path.read_bytes()
        if path.suffix == ".toml":
            import tomllib  # only for a TOML file: a SessionStart hook reads few

            return tomllib.loads(raw.decode("utf-8"))
        return json.loads(raw.decode("utf-8-sig"))
    except (OSError, ValueError) as e:  # ValueError: bad JSON, TOML or UTF-8
        if not isinstance(e, FileNotFoundError):
            logger.debug("cannot read %s: %s", path, e)
        return None


def server_entry(reg: Registration) -> dict[str, Any]:
    """A Codex or Gemini CLI entry as its file holds it now: Codex's
    ``[mcp_servers.NAME]`` table, Gemini's ``mcpServers.NAME`` object ({} when it cannot
    be read, and for Claude Code)."""
    key = {"codex": "mcp_servers", "gemini": "mcpServers"}.get(reg.harness)
    entry = _get(_read(reg.path), key, reg.name) if key else None
    return entry if isinstance(entry, dict) else {}


def root_problem(reg: Registration, environ: Mapping[str, str]) -> str | None:
    """What keeps the server of a Codex entry off the hooks' memory root: a variable that
    picks the root, set here, that the entry does not pass on; None when nothing does."""
    # The first one set decides (`memory.home.root_dir`).
    decides = next((v for v in ROOT_VARIABLES if environ.get(v)), None)
    if reg.harness != "codex" or decides is None or decides in reg.env:
        return None
    # The server finds its root from HOME and what its entry passes on: the same one
    # when the variable names the default (XDG_DATA_HOME=~/.local/share).
    passed = {v: environ[v] for v in reg.env if v in ROOT_VARIABLES and v in environ}
    theirs, ours = root_dir(env=passed), root_dir(env=environ)
    if os.path.realpath(theirs) == os.path.realpath(ours):
        return None
    return (
        f"does not get {decides} (Codex passes an MCP server only the variables its "
        "entry names): its tools use another memory root than the hooks; add "
        f'env_vars = ["{decides}"] to [mcp_servers.{reg.name}]'
    )


def _entries(servers: object) -> Iterator[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    if not isinstance(servers, dict):
        return
    for name, spec in servers.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("command"), str):
            continue
        if spec.get("enabled") is False:  # Codex's `enabled = false`: never started
            continue
        args = spec.get("args", [])
        extra = (
            tuple(a for a in args if isinstance(a, str))
            if isinstance(args, list)
            else ()
        )
        env, names = spec.get("env"), spec.get("env_vars")
        passed = [*(env if isinstance(env, dict) else ())]
        passed += names if isinstance(names, list) else []
        yield str(name), (spec["command"], *extra), tuple(map(str, passed))


def _get(data: object, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _names(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def registrations(
    project: Path, home: Path, harness: str | None = None
) -> list[Registration]:
    """Every MCP server registered for `project`, for one harness or (None) all of them.

    Args:
        project: the project directory (the main checkout, as for the memory slug).
        home: the user's home directory.
        harness: ``claude-code``, ``codex``, ``gemini``; None or ``generic`` for all.

    Returns:
        Entries in the order the files are listed above; unreadable files are skipped.
    """
    want = None if harness in (None, "generic") else harness
    found: list[Registration] = []

    def add(
        path: Path, who: str, servers: object, declined: Sequence[str] = ()
    ) -> None:
        found.extend(
            Registration(path, who, n, argv, env)
            for n, argv, env in _entries(servers)
            if n not in declined
        )

    if want in (None, "claude-code"):
        user = claude_state(home)
        data = _read(user)
        # A server of .mcp.json the user said no to: Claude Code's dialog writes its name
        # to .claude/settings.local.json (2.1.332); any settings file, or the project's
        # entry in .claude.json, may hold one. Its tools are not the model's.
        declined = [
            name
            for path in (
                project / ".claude" / "settings.local.json",
                project / ".claude" / "settings.json",
                claude_dir(home) / "settings.json",
            )
            for name in _names(_get(_read(path), "disabledMcpjsonServers"))
        ]
        declined += _names(
            _get(data, "projects", str(project), "disabledMcpjsonServers")
        )
        mcp_json = project / ".mcp.json"
        add(mcp_json, "claude-code", _get(_read(mcp_json), "mcpServers"), declined)
        path = claude_dir(home) / "settings.json"
        add(path, "claude-code", _get(_read(path), "mcpServers"))
        add(user, "claude-code", _get(data, "mcpServers"))
        add(user, "claude-code", _get(data, "projects", str(project), "mcpServers"))
    if want in (None, "codex"):
        for path in (
            codex_dir(home) / "config.toml",
            project / ".codex" / "config.toml",
        ):
            add(path, "codex", _get(_read(path), "mcp_servers"))
    if want in (None, "gemini"):
        for path in (
            project / ".gemini" / "settings.json",
            gemini_dir(home) / "settings.json",
        ):
            add(path, "gemini", _get(_read(path), "mcpServers"))
    return found


def usage_line(cwd: str | Path | None, harness: str | None = None) -> str:
    """The block's last line: the MCP tools, named as `harness` names them to the model
    (their own names for None), when `memhooks mcp` is registered for the project
    containing `cwd` (for this harness), else the shell commands, `memhooks` spelled so
    that the model's shell runs this install (`modelshell.model_prog`).
    """
    if cwd is None:
        return USAGE_SHELL.format(prog=model_prog(harness))
    try:
        project = _project_dir(cwd)
        home = Path.home()
    except (OSError, RuntimeError):  # RuntimeError: no home directory
        return USAGE_SHELL.format(prog=model_prog(harness))
    ours = [r for r in registrations(project, home, harness) if r.ours]
    if not ours:
        return USAGE_SHELL.format(prog=model_prog(harness, home))
    spell, unsafe = _SPELLING.get(harness or "", ("{tool}", None))
    name = unsafe.sub("_", ours[0].name) if unsafe else ours[0].name
    return usage_mcp(name, spell)


__all__ = [
    "ROOT_VARIABLES",
    "Registration",
    "is_ours",
    "registrations",
    "root_problem",
    "server_entry",
    "usage_line",
]

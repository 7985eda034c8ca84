"""Checks of a harness's settings for `memhooks doctor`: our hooks (our MCP server's
registrations: `hooks.mcpcheck`).

Each expected event must run `memhooks hook` exactly once, with a command that exists
and a timeout that makes sense in the harness's unit: Claude Code (seconds), Codex (the
same in ``hooks.json``) and Gemini CLI (milliseconds). Pure but for reading the settings.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, cast

from memhooks.hooks import install
from memhooks.hooks.executable import GONE, executable_problem, other_install
from memhooks.hooks.harness_dirs import codex_config, codex_dir
from memhooks.memory.text import one_line

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

Level = Literal["ok", "warn", "fix"]

HARNESS_NAMES = {
    "claude-code": "Claude Code",
    "codex": "Codex",
    "gemini": "Gemini CLI",
}
#: Events we install, and the timeouts that make sense for each, in seconds.
_RANGES: dict[str, dict[str, tuple[float, float]]] = {
    "claude-code": {
        "SessionStart": (1, 60),
        "UserPromptSubmit": (1, 30),  # it runs before every prompt
        "PreCompact": (1, 120),
        "PostCompact": (1, 60),
        "SessionEnd": (1, 5),  # all SessionEnd hooks share a 1.5 s budget
    },
    "codex": {
        "SessionStart": (1, 60),
        "UserPromptSubmit": (1, 30),
        "PreCompact": (1, 120),
        "PostCompact": (1, 60),
        "SessionEnd": (1, 3),  # Codex caps SessionEnd hooks at 3 s
    },
    "gemini": {
        "SessionStart": (1, 60),
        "BeforeAgent": (1, 30),
        "PreCompress": (1, 120),
        "SessionEnd": (1, 5),
    },
}


_ON_PATH = (
    "install memhooks so that it is on PATH for the harness "
    "(`pipx install .` or `uv tool install .` in a clone; see the README)"
)
_REINSTALL = (
    "reinstall memhooks with a Python that is there (`pipx reinstall memhooks`, "
    "`uv tool install --reinstall .` in a clone, or a new venv)"
)


class Finding(NamedTuple):
    """One line of the report."""

    level: Level
    message: str


class _Handler(NamedTuple):
    path: Path
    event: str
    spec: dict[str, Any]


def _settings_files(harness: str, project: Path, home: Path) -> list[tuple[str, Path]]:
    """(scope, path) of each file the harness reads hooks from, user level first."""
    scopes: tuple[install.Scope, ...] = (
        ("user", "project", "local")
        if harness == "claude-code"
        else ("user", "project")
    )
    h = cast("install.Harness", harness)
    out: dict[Path, tuple[str, Path]] = {}
    for s in scopes:
        path = install.settings_path(h, s, project_dir=project, home=home)
        # A project at home: its project file is the user file, read once.
        out.setdefault(path.resolve(), (s, path))
    return list(out.values())


def _our_handlers(path: Path) -> tuple[list[_Handler], str | None]:
    """Our handlers in one settings file, or why the file cannot be read."""
    try:
        data = install.read_jsonc(path.read_text("utf-8-sig") or "{}")
    except FileNotFoundError:
        return [], None
    except (OSError, ValueError) as e:
        return [], f"cannot be read as JSON ({one_line(str(e))})"
    hooks = data.get("hooks", data) if isinstance(data, dict) else None
    out: list[_Handler] = []
    for event, groups in (hooks or {}).items() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h in handlers if isinstance(handlers, list) else ():
                if isinstance(h, dict) and install.is_ours(str(h.get("command", ""))):
                    out.append(_Handler(path, str(event), h))
    return out, None


def _timeout_problem(
    harness: str, event: str, value: object
) -> tuple[Level, str] | None:
    lo, hi = _RANGES[harness].get(event, (1, 600))
    ms = harness == "gemini"
    unit = "ms" if ms else "s"
    if value is None:
        return "warn", "has no timeout (the harness default applies)"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "fix", f"has timeout {value!r}, not a number"
    seconds = value / 1000 if ms else value
    if lo <= seconds <= hi:
        return None
    want = f"{int(lo * 1000)}-{int(hi * 1000)} ms" if ms else f"{lo:g}-{hi:g} s"
    hint = ""
    if not ms and value >= 1000:
        hint = f" ({HARNESS_NAMES[harness]} counts seconds)"
    elif ms and value < 1000:
        hint = " (Gemini CLI counts milliseconds)"
    return "fix", f"has timeout {value:g} {unit}{hint}; use {want}"


def check_harness(
    harness: str,
    project: Path,
    home: Path,
    which: Callable[[str], str | None],
    *,
    unsent: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Our hooks in one harness's settings: each expected event exactly once, a command
    that exists, sensible timeouts. Nothing installed is not a problem here. `unsent`:
    the events the installed release of the harness never sends (`hooks.harnessversion`).
    """
    name = HARNESS_NAMES[harness]
    found: list[Finding] = []
    handlers: list[_Handler] = []
    scope_of: dict[Path, str] = {}
    for scope, path in _settings_files(harness, project, home):
        scope_of[path] = scope
        hs, error = _our_handlers(path)
        if error:
            found.append(Finding("fix", f"{name}: {short_path(path, home)} {error}"))
        handlers += hs
    if not handlers:
        return found or [Finding("ok", f"{name}: no memhooks hooks for this project")]

    def fix(path: Path) -> str:
        return f"run `memhooks install {harness} --scope {scope_of[path]}`"

    expected = list(_RANGES[harness])
    missing = [e for e in expected if not any(h.event == e for h in handlers)]
    if missing:
        found.append(
            Finding(
                "fix",
                f"{name}: no memhooks hook on {', '.join(missing)}: "
                f"{fix(handlers[0].path)}",
            )
        )
    # Events run more than once, grouped by the files they come from: one line per cause.
    doubled: dict[tuple[Path, ...], list[str]] = {}
    for event in expected:
        paths = tuple(h.path for h in handlers if h.event == event)
        if len(paths) > 1:
            doubled.setdefault(paths, []).append(event)
    for paths, events in doubled.items():
        files = list(dict.fromkeys(paths))
        where = ", ".join(short_path(p, home) for p in files)
        if len(files) == 1:
            how = f"{fix(files[0])} to keep one"
        elif harness == "codex":
            how = "remove ours from all but one of them"
        else:
            how = "keep one: run " + " and ".join(
                f"`memhooks uninstall {harness} --scope {scope_of[p]}`"
                for p in files[1:]
            )
        found.append(
            Finding(
                "fix",
                f"{name}: memhooks runs {len(paths)} times on {', '.join(events)} "
                f"({where}): {how}",
            )
        )
    for event in dict.fromkeys(h.event for h in handlers if h.event not in expected):
        found.append(
            Finding(
                "warn", f"{name}: memhooks hook on {event}, which it does not handle"
            )
        )
    reported: set[tuple[Path, str]] = set()
    for h in handlers:
        command = str(h.spec.get("command", ""))
        problem = executable_problem(command, project, which)
        if problem and (h.path, command) not in reported:
            reported.add((h.path, command))
            # A bare `memhooks` is what a shared settings file holds: the fix is to put
            # memhooks on PATH, never to write this machine's path into a shared file.
            how = f"{fix(h.path)} with the memhooks you use"
            if problem.endswith("not on PATH"):
                how = _ON_PATH
            elif problem.endswith(GONE):  # the script is there, its Python is not
                bare = problem.startswith("runs `")
                how = (
                    _REINSTALL if bare else f"{_REINSTALL}, then {fix(h.path)} with it"
                )
            found.append(
                Finding(
                    "fix",
                    f"{name}: hook in {short_path(h.path, home)} {problem}: {how}",
                )
            )
        elif (python := other_install(command)) and (h.path, command) not in reported:
            reported.add((h.path, command))
            found.append(
                Finding(
                    "warn",
                    f"{name}: hook in {short_path(h.path, home)} runs "
                    f"{shlex.split(command)[0]}, of another install than this memhooks "
                    f"(its Python is {python}, this one's {sys.executable}): upgrading "
                    f"this one does not change what the hooks run; {fix(h.path)} with "
                    "this one to point them here",
                )
            )
        timeout = _timeout_problem(harness, h.event, h.spec.get("timeout"))
        if timeout:
            level, text = timeout
            found.append(
                Finding(
                    level,
                    f"{name}: {h.event} hook in {short_path(h.path, home)} {text}",
                )
            )
    if harness == "codex":
        found += _codex_trust(
            project, home, [h for h in handlers if h.event not in unsent]
        )
    if harness == "gemini":
        found += _gemini_environment(handlers)
    if not any(f.level != "ok" for f in found):
        where = ", ".join(dict.fromkeys(short_path(h.path, home) for h in handlers))
        found.append(
            Finding(
                "ok",
                f"{name}: memhooks on {len(expected)} events, once each, "
                f"command found, timeouts sensible ({where})",
            )
        )
    return found


def _codex_trust(project: Path, home: Path, handlers: list[_Handler]) -> list[Finding]:
    """Codex runs hooks only once reviewed (a hash per file in its config.toml), and reads
    a project's hooks.json only in a trusted project. A release that sends no SessionEnd
    (before 0.145.0) never lists that hook for review: `handlers` leaves it out."""
    config = codex_dir(home) / "config.toml"
    data = codex_config(config)
    found = []
    hooks = data.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    # Codex keys a reviewed hook "<hooks.json path>:<event in snake case>:<group>:<n>"
    # (0.171.0): a review of another file's hooks, or of other events, is not ours.
    state = state if isinstance(state, dict) else {}
    keys = [
        k.rsplit(":", 3)
        for k, v in state.items()
        if isinstance(v, dict) and "trusted_hash" in v
    ]
    reviewed = {(os.path.realpath(k[0]), k[1]) for k in keys if len(k) == 4}
    if not all(
        (os.path.realpath(h.path), _snake(h.event)) in reviewed for h in handlers
    ):
        found.append(Finding("warn", "Codex: " + install.TRUST_STEPS["codex"]))
    projects = data.get("projects")
    entry = projects.get(str(project)) if isinstance(projects, dict) else None
    trusted = isinstance(entry, dict) and entry.get("trust_level") == "trusted"
    if any(h.path.is_relative_to(project) for h in handlers) and not trusted:
        found.append(
            Finding(
                "warn",
                f"Codex: {project} is not a trusted project in {short_path(config, home)}, "
                "so Codex ignores its .codex/hooks.json: trust it when Codex asks, or "
                "run `memhooks install codex --scope user`",
            )
        )
    return found


def _snake(event: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def _gemini_environment(handlers: list[_Handler]) -> list[Finding]:
    """In a GitHub Actions job Gemini CLI hides MEMHOOKS_HOME from hooks unless allowed."""
    if not (os.environ.get("GITHUB_SHA") and os.environ.get("MEMHOOKS_HOME")):
        return []
    for path in dict.fromkeys(h.path for h in handlers):
        try:
            data = install.read_jsonc(path.read_text("utf-8-sig") or "{}")
        except (OSError, ValueError):
            continue
        redaction = data.get("security", {}).get("environmentVariableRedaction", {})
        if "MEMHOOKS_HOME" in (redaction.get("allowed") or []):
            return []
    return [
        Finding(
            "fix",
            "Gemini CLI: GITHUB_SHA is set, so Gemini hides MEMHOOKS_HOME from hooks "
            'and they use another memory root: add "MEMHOOKS_HOME" to '
            "security.environmentVariableRedaction.allowed in its settings.json",
        )
    ]


def short_path(path: Path, home: Path) -> str:
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)


def has_ours(path: Path) -> bool:
    """Whether the settings file at `path` holds a memhooks hook."""
    return bool(_our_handlers(path)[0])


def our_handlers(harness: str, project: Path, home: Path) -> list[dict[str, Any]]:
    """Each of our handlers (its settings entry) the harness reads for `project`."""
    files = _settings_files(harness, project, home)
    return [h.spec for _, path in files for h in _our_handlers(path)[0]]


def installed(project: Path, home: Path) -> bool:
    """Whether any harness has a memhooks hook for `project`."""
    return any(
        _our_handlers(path)[0]
        for harness in _RANGES
        for _, path in _settings_files(harness, project, home)
    )


__all__ = [
    "HARNESS_NAMES",
    "Finding",
    "Level",
    "check_harness",
    "has_ours",
    "installed",
    "our_handlers",
    "short_path",
]

"""Merge memhooks' lifecycle hooks into Claude Code, Codex CLI and Gemini CLI settings files.

The file belongs to the user: other keys and foreign hooks keep their values and
order, every byte outside ``hooks`` is kept (`settings_text`), a file we
cannot parse is never rewritten, and the old content goes to ``<name>.bak``
(`settings_file`); a file an install made is deleted by the uninstall that empties it.
Layouts as the harnesses document them: Claude Code (timeouts in seconds) and Gemini CLI
(timeouts in milliseconds).
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from memhooks.hooks import settings_file
from memhooks.hooks.errors import HookError
from memhooks.hooks.harness_dirs import claude_dir, codex_dir, gemini_dir

if TYPE_CHECKING:
    from pathlib import Path

Harness = Literal["claude-code", "codex", "gemini"]
Scope = Literal["user", "project", "local"]


@dataclass(frozen=True)
class _HookSpec:
    event: str
    matcher: str | None
    timeout: int  # in the harness's own unit


_SPECS: dict[str, tuple[_HookSpec, ...]] = {
    "claude-code": (
        _HookSpec("SessionStart", "startup|resume|clear|compact|fork", 10),
        _HookSpec("UserPromptSubmit", None, 10),
        _HookSpec("PreCompact", "manual|auto", 30),
        _HookSpec("PostCompact", "manual|auto", 10),
        # All SessionEnd hooks share a 1.5 s budget (docs/design.md).
        _HookSpec("SessionEnd", None, 2),
    ),
    # Codex reads Claude Code's layout from .codex/hooks.json; its SessionEnd hooks get
    # 1 s by default, at most 3 (as observed with the real CLI).
    "codex": (
        _HookSpec("SessionStart", "startup|resume|clear|compact", 10),
        _HookSpec("UserPromptSubmit", None, 10),
        _HookSpec("PreCompact", "manual|auto", 30),
        _HookSpec("PostCompact", "manual|auto", 10),
        _HookSpec("SessionEnd", None, 2),
    ),
    "gemini": (
        _HookSpec("SessionStart", None, 10_000),
        _HookSpec("BeforeAgent", None, 10_000),
        _HookSpec("PreCompress", None, 30_000),
        _HookSpec("SessionEnd", None, 2_000),
    ),
}

# Our handler runs the `memhooks` command's `hook` subcommand, or `python -m memhooks.hooks hook`.
# Matching on tokens rather than a bare substring keeps e.g. `memhooks-lint hook` foreign.
_OURS_RE = re.compile(
    r"""(?:^|[\s/\\'"])memhooks(?:\.exe)?['"]?\s+hook\b|(?:^|\s)-m\s+(?:memhooks\.)?hooks\s+hook\b"""
)


class InstallError(HookError):
    """Raised by install/uninstall when a settings file cannot be read, parsed or written."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


@dataclass(frozen=True)
class InstallResult:
    """What install/uninstall did (or, on dry run, would do) to one settings file."""

    path: Path
    changed: bool
    added: tuple[str, ...]
    removed: tuple[str, ...]
    backup: Path | None
    action: Literal["install", "uninstall"] = "install"
    dry_run: bool = False
    #: uninstall left nothing in a file an install had made, and deleted it
    deleted: bool = False

    def describe(self) -> str:
        """Return one human-readable line per change, e.g. ``added SessionStart hook to <path>``."""
        if not self.changed:
            state = "already installed" if self.action == "install" else "not installed"
            return f"{state}: {self.path}"
        lines = []
        for event in dict.fromkeys(self.added + self.removed):
            if event in self.added and event in self.removed:
                verb, past, prep = "update", "updated", "in"
            elif event in self.added:
                verb, past, prep = "add", "added", "to"
            else:
                verb, past, prep = "remove", "removed", "from"
            lines.append(
                f"{'would ' + verb if self.dry_run else past} {event} hook {prep} {self.path}"
            )
        if self.deleted:
            verb = "would delete" if self.dry_run else "deleted"
            lines.append(
                f"{verb} {self.path}: install made it, and nothing else is in it"
            )
        if self.backup is not None:
            lines.append(f"backup: {self.backup}")
        return "\n".join(lines)


def settings_path(
    harness: Harness, scope: Scope, *, project_dir: Path, home: Path
) -> Path:
    """Return the settings file that ``scope`` refers to for ``harness``.

    Args:
        harness: ``"claude-code"``, ``"codex"`` or ``"gemini"``.
        scope: ``"user"``, ``"project"`` or ``"local"`` (Codex and Gemini have no
            local file, so it maps to the project one).
        project_dir: Project root.
        home: The user's home directory (a harness's own variable, such as
            ``CLAUDE_CONFIG_DIR``, moves its user file: `harness_dirs`).

    Returns:
        The settings file path; it may not exist yet.
    """
    if scope == "user":
        folder = {"gemini": gemini_dir, "codex": codex_dir}.get(harness, claude_dir)
        return folder(home) / ("hooks.json" if harness == "codex" else "settings.json")
    if harness == "gemini":
        return project_dir / ".gemini" / "settings.json"
    if harness == "codex":
        return project_dir / ".codex" / "hooks.json"
    name = "settings.local.json" if scope == "local" else "settings.json"
    return project_dir / ".claude" / name


def hook_command(harness: Harness, executable: str | os.PathLike[str]) -> str:
    """Return the handler command, e.g. ``'/v/bin/memhooks' hook --harness gemini``.

    Args:
        harness: Harness name passed to ``--harness``.
        executable: Path of the `memhooks` command; it is shell-quoted.

    Returns:
        The command string to pass to :func:`install`.
    """
    return f"{shlex.quote(os.fspath(executable))} hook --harness {harness}"


#: What a user must still do before the harness runs the hooks it was given.
TRUST_STEPS: dict[Harness, str] = {
    "claude-code": "",
    "codex": (
        "Codex runs new hooks only after you review them: start `codex` in the project "
        'and trust them when it shows "Hooks need review" (or in /hooks; an edit of '
        "hooks.json asks again; project hooks load only in a project you trusted). `codex exec "
        "--dangerously-bypass-hook-trust` skips the review for one run."
    ),
    "gemini": (
        "Gemini CLI runs the hooks of its settings, the user's too, only in a folder "
        "you trusted: answer yes when it asks. In CI (GITHUB_SHA set) it hides "
        "MEMHOOKS_HOME from hooks unless security.environmentVariableRedaction.allowed "
        "lists it."
    ),
}


def is_ours(handler_command: str) -> bool:
    """Return True if a handler's ``command`` runs ``memhooks hook`` (or ``python -m memhooks.hooks hook``)."""
    return _OURS_RE.search(handler_command) is not None


def install(
    harness: Harness, path: Path, command: str, *, dry_run: bool = False
) -> InstallResult:
    """Put our handler in each of the harness's events in ``path``, exactly once.

    Other handlers of ours in those events (stale command, e.g. after moving the
    venv, or duplicates) are replaced; everything else is left as it is.

    Args:
        harness: Which settings layout and events to use.
        path: Settings file; missing or empty counts as ``{}``.
        command: Shell command of our handler (see :func:`hook_command`).
        dry_run: Compute the result but write nothing.

    Returns:
        What changed; ``changed`` is False if already installed.

    Raises:
        InstallError: The file is not a JSON object with an object ``hooks``, or
            cannot be read or written.
    """
    raw, data = _load(path)
    hooks: dict[str, Any] = dict(data.get("hooks", {}))
    added: list[str] = []
    removed: list[str] = []
    for spec in _SPECS[harness]:
        groups = hooks.get(spec.event, [])
        if not isinstance(groups, list):
            raise InstallError(path, f'"hooks.{spec.event}" is not a list')
        group = _our_group(harness, spec, command)
        kept, n_removed = _strip_ours(groups)
        if n_removed == 1 and group in groups:
            continue
        if n_removed:
            removed.append(spec.event)
        hooks[spec.event] = [*kept, group]
        added.append(spec.event)
    new = {**data, "hooks": hooks} if added else data
    backup = _save(path, raw, new) if added and not dry_run else None
    return InstallResult(
        path, bool(added), (*added,), (*removed,), backup, "install", dry_run
    )


def uninstall(harness: Harness, path: Path, *, dry_run: bool = False) -> InstallResult:
    """Remove every handler of ours from ``path``, under any event.

    Matcher groups, events and the ``hooks`` object that only we filled are
    dropped. Every harness shares the layout, so ``harness`` is for symmetry.

    A missing file stays missing; ``changed`` is False if nothing of ours was there.
    Raises :class:`InstallError` as :func:`install` does.
    """
    try:
        raw, data = _load(path)
    except InstallError:
        if _ours_in_commented(path):
            raise
        # A file with comments and nothing of ours: nothing to take out.
        return InstallResult(path, False, (), (), None, "uninstall", dry_run, False)
    hooks: dict[str, Any] = dict(data.get("hooks", {}))
    removed: list[str] = []
    for event, groups in list(hooks.items()):
        if not isinstance(groups, list):
            continue
        kept, n_removed = _strip_ours(groups)
        if not n_removed:
            continue
        removed.append(event)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    new = {**data, "hooks": hooks} if removed else data
    if removed and not hooks:
        del new["hooks"]
    made = bool(removed) and not new and settings_file.made_by_install(path)
    if made and not dry_run:
        _writable(path)
        try:
            settings_file.remove(path)
        except OSError as e:
            raise InstallError(path, f"cannot remove settings file ({e})") from e
    backup = _save(path, raw, new) if removed and not dry_run and not made else None
    return InstallResult(
        path, bool(removed), (), (*removed,), backup, "uninstall", dry_run, made
    )


def _our_group(harness: Harness, spec: _HookSpec, command: str) -> dict[str, Any]:
    handler: dict[str, Any] = {"type": "command", "command": command}
    if harness == "gemini":
        # Gemini shows `name` in its /hooks panel.
        handler["name"] = "memhooks"
    handler["timeout"] = spec.timeout
    group: dict[str, Any] = {} if spec.matcher is None else {"matcher": spec.matcher}
    group["hooks"] = [handler]
    return group


def _handler_is_ours(handler: Any) -> bool:
    return (
        isinstance(handler, dict)
        and isinstance(cmd := handler.get("command"), str)
        and is_ours(cmd)
    )


def _strip_ours(groups: list[Any]) -> tuple[list[Any], int]:
    """Drop our handlers; a group emptied by that goes too, foreign groups stay as is."""
    kept: list[Any] = []
    n_removed = 0
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list):
            kept.append(group)  # not a shape we understand, so not ours to touch
            continue
        others = [h for h in handlers if not _handler_is_ours(h)]
        n_removed += len(handlers) - len(others)
        if len(others) == len(handlers):
            kept.append(group)
        elif others:
            kept.append({**group, "hooks": others})
    return kept, n_removed


#: A JSON string, or a `//` or `/* */` comment (which Gemini CLI's settings allow).
_JSONC = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*[\s\S]*?\*/')


def read_jsonc(text: str) -> Any:
    """`text` read as JSON with comments: what Gemini CLI accepts in its settings.

    Raises:
        ValueError: not JSON once its comments are left out.
    """
    return json.loads(_JSONC.sub(lambda m: m[0] if m[0][0] == '"' else " ", text))


def _commented(text: str) -> bool:
    try:
        read_jsonc(text)
    except ValueError:
        return False
    return True


def _ours_in_commented(path: Path) -> bool:
    # Whether a file `_load` refused may hold a handler of ours: all but one with
    # comments and none of ours, which uninstall need not touch.
    try:
        data = read_jsonc(path.read_text("utf-8-sig"))
    except (OSError, ValueError):
        return True
    hooks = data.get("hooks", {}) if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        return True
    return any(isinstance(g, list) and _strip_ours(g)[1] for g in hooks.values())


def _load(path: Path) -> tuple[bytes | None, dict[str, Any]]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, {}
    except OSError as e:
        raise InstallError(path, f"cannot read settings file ({e.strerror})") from e
    try:
        text = raw.decode("utf-8-sig")
        data = _strict_loads(text) if text.strip() else {}
    except ValueError as e:  # JSONDecodeError and UnicodeDecodeError
        if isinstance(e, json.JSONDecodeError) and _commented(text):
            raise InstallError(
                path,
                "settings file has comments, which memhooks cannot keep when it "
                "rewrites the file: remove them and install again",
            ) from e
        raise InstallError(path, f"settings file is not valid JSON ({e})") from e
    if not isinstance(data, dict):
        raise InstallError(path, "settings file top level is not a JSON object")
    if not isinstance(data.get("hooks", {}), dict):
        raise InstallError(path, '"hooks" is not a JSON object')
    return raw, data


def _strict_loads(text: str) -> Any:
    # JSON as a harness reads it: NaN and Infinity are no JSON, and a number too large
    # for a float would be written back as Infinity, which no harness could read.
    def number(s: str) -> float:
        if not math.isfinite(value := float(s)):
            raise ValueError(f"number {s[:40]} is too large to write back")
        return value

    def constant(s: str) -> float:
        raise ValueError(f"{s} is not JSON")

    return json.loads(text, parse_float=number, parse_constant=constant)


def _save(path: Path, raw: bytes | None, new: dict[str, Any]) -> Path | None:
    _writable(path)
    try:
        return settings_file.save(path, raw, new)
    except OSError as e:
        raise InstallError(path, f"cannot write settings file ({e})") from e


def _writable(path: Path) -> None:
    # A file with no write bit was locked on purpose (a team's policy, a managed dotfile):
    # a rename would replace it all the same.
    if settings_file.read_only(path):
        raise InstallError(
            path,
            "read-only; nothing was written (make it writable to let memhooks change it)",
        )

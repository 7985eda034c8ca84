"""Settings that turn a harness's hooks off, memhooks' with them, for `memhooks doctor`.

Each harness has a switch a person (or another tool) may have set: Claude Code's
`"disableAllHooks": true`, Codex CLI's `[features] hooks = false` in `config.toml`, Gemini
CLI's `"hooksConfig": {"enabled": false}` or our hook's name in `hooksConfig.disabled`
(what its `/hooks disable memhooks` writes). With one set, Claude Code 2.1.332, Codex CLI
0.171.0 and Gemini CLI 0.61.0 ran no memhooks hook: the model got no block, and doctor,
which reads only the `hooks` entries, said they were fine (tests/hooks/test_hooksoff.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memhooks.hooks import install
from memhooks.hooks.harness_dirs import claude_dir, codex_config, codex_dir, gemini_dir
from memhooks.hooks.harnesscheck import HARNESS_NAMES, Finding, our_handlers, short_path

if TYPE_CHECKING:
    from collections.abc import Iterator

#: Claude Code's managed settings on Linux: a setting there binds every user.
CLAUDE_MANAGED = Path("/etc/claude-code/managed-settings.json")


def switched_off(harness: str, project: Path, home: Path) -> list[Finding]:
    """A `fix` (or a `warn`, when files disagree) for each setting that keeps the
    harness from running memhooks' hooks; nothing when none is installed for `project`."""
    handlers = our_handlers(harness, project, home)
    if not handlers:
        return []
    if harness == "claude-code":
        return _claude(project, home)
    if harness == "codex":
        return _codex(project, home)
    names = {str(h.get("name") or h.get("command", "")) for h in handlers}
    return _gemini(project, home, names)


def read_settings(path: Path) -> dict[str, Any]:
    """A harness's JSON settings file as an object ({} when missing or unreadable)."""
    try:
        data = install.read_jsonc(path.read_text("utf-8-sig") or "{}")
    except (OSError, ValueError):
        return {}  # doctor names a file it cannot read elsewhere (harnesscheck)
    return data if isinstance(data, dict) else {}


def claude_settings(project: Path, home: Path) -> tuple[Path, ...]:
    """Claude Code's settings files for the project: the user's, the project's two, and
    the managed one."""
    return (
        claude_dir(home) / "settings.json",
        project / ".claude" / "settings.json",
        project / ".claude" / "settings.local.json",
        CLAUDE_MANAGED,
    )


def _claude(project: Path, home: Path) -> list[Finding]:
    files = claude_settings(project, home)
    said = {
        p: v
        for p in files
        if isinstance(v := read_settings(p).get("disableAllHooks"), bool)
    }
    on = [short_path(p, home) for p, v in said.items() if v]
    if not on:
        return []
    off = [short_path(p, home) for p, v in said.items() if not v]
    where = f"disableAllHooks is true in {', '.join(on)}"
    if off:
        # Which file wins is Claude Code's to decide (2.1.332 let some mixes run hooks
        # and not others): say what is there.
        return [
            Finding(
                "warn",
                f"Claude Code: {where} (false in {', '.join(off)}): Claude Code may run "
                "no hook, memhooks' neither; remove the true one to be sure",
            )
        ]
    return [
        Finding(
            "fix",
            f"Claude Code: {where}, so Claude Code runs no hook, memhooks' neither: "
            "remove it",
        )
    ]


def _codex(project: Path, home: Path) -> list[Finding]:
    # A project's config.toml (read in a trusted project) wins over the user's.
    value, where = None, None
    for path in (codex_dir(home) / "config.toml", project / ".codex" / "config.toml"):
        features = codex_config(path).get("features")
        if isinstance(features, dict) and isinstance(features.get("hooks"), bool):
            value, where = features["hooks"], path
    if value is not False or where is None:
        return []
    return [
        Finding(
            "fix",
            f"Codex: [features] hooks = false in {short_path(where, home)}, so Codex runs "
            "no hook, memhooks' neither: remove that line",
        )
    ]


def _gemini(project: Path, home: Path, names: set[str]) -> list[Finding]:
    # Either file turns them off: Gemini CLI 0.61.0 ran none with `enabled` false in the
    # user's settings and true in the workspace's; `disabled` lists add up.
    user = gemini_dir(home) / "settings.json"
    found: list[Finding] = []
    for path, config in _hooks_configs((user, project / ".gemini" / "settings.json")):
        where = short_path(path, home)
        if config.get("enabled") is False:
            found.append(
                Finding(
                    "fix",
                    f"{HARNESS_NAMES['gemini']}: hooksConfig.enabled is false in {where}, "
                    "so Gemini CLI runs no hook, memhooks' neither: remove it",
                )
            )
        listed = config.get("disabled")
        ours = sorted(n for n in names if isinstance(listed, list) and n in listed)
        if ours:
            found.append(
                Finding(
                    "fix",
                    f"{HARNESS_NAMES['gemini']}: hooksConfig.disabled in {where} lists "
                    f"{', '.join(map(repr, ours))}, so Gemini CLI skips memhooks' hooks: "
                    f"take it out (or `/hooks enable {ours[0]}` in Gemini CLI)",
                )
            )
    return found + _gemini_distrusted(project, home)


def _gemini_distrusted(project: Path, home: Path) -> list[Finding]:
    """A project Gemini CLI was told not to trust: it runs no hook of its settings there,
    the user's included (0.61.0 said so when it started, and ran none of memhooks',
    installed with `--scope user` too; doctor said ok). One it was never asked about:
    its TUI asks, and `gemini -p` exits (0.61.0: status 55). Asked only where Gemini's
    settings, the project's or the user's, hold a memhooks hook (`switched_off`)."""
    if os.environ.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return []
    trust = read_settings(gemini_dir(home) / "settings.json").get("security")
    folder_trust = trust.get("folderTrust") if isinstance(trust, dict) else None
    if isinstance(folder_trust, dict) and folder_trust.get("enabled") is False:
        return []
    moved = os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    rules = Path(moved) if moved else gemini_dir(home) / "trustedFolders.json"
    # As Gemini CLI decides: the longest rule whose folder holds the project wins (a
    # TRUST_PARENT rule names a folder in the one it trusts).
    real, best = os.path.realpath(project), ("", "")
    for rule, level in read_settings(rules).items():
        folder = os.path.dirname(rule) if level == "TRUST_PARENT" else rule
        inside = Path(real).is_relative_to(os.path.realpath(folder))
        if inside and len(rule) > len(best[0]):
            best = (rule, str(level))
    if not best[1]:
        return [
            Finding(
                "warn",
                f"{HARNESS_NAMES['gemini']}: {project} is not trusted yet, and Gemini CLI "
                "runs the hooks of its settings, memhooks' too (~/.gemini/settings.json's "
                "as well), only in a trusted folder: trust it when Gemini CLI asks at its "
                "next start there (`gemini -p` cannot ask, and exits)",
            )
        ]
    if best[1] != "DO_NOT_TRUST":
        return []
    return [
        Finding(
            "fix",
            f"{HARNESS_NAMES['gemini']}: {short_path(rules, home)} marks {best[0]} "
            f"DO_NOT_TRUST, so Gemini CLI runs no hook of its settings in {project}, "
            "memhooks' neither (~/.gemini/settings.json's neither): trust it "
            "(/permissions in Gemini CLI)",
        )
    ]


def _hooks_configs(paths: tuple[Path, ...]) -> Iterator[tuple[Path, dict[str, Any]]]:
    for path in paths:
        config = read_settings(path).get("hooksConfig")
        if isinstance(config, dict):
            yield path, config


__all__ = ["CLAUDE_MANAGED", "claude_settings", "read_settings", "switched_off"]

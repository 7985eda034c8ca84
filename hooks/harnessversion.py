"""The harness CLI's release, for `memhooks doctor` and `memhooks install`: a release
older than one memhooks relies on is named, with the release it needs, in one line.

What each release brought was found by running tests/e2e against older releases
(docs/harness-versions.md). A CLI not on PATH, or one whose `--version` says nothing
we can read, is not reported: there is nothing to say about it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memhooks.hooks.harnesscheck import HARNESS_NAMES, Finding
from memhooks.hooks.spawn import output_of

if TYPE_CHECKING:
    from collections.abc import Callable

Version = tuple[int, int, int]

#: The command of each harness, and the npm package that updates it.
COMMANDS = {"claude-code": "claude", "codex": "codex", "gemini": "gemini"}
_PACKAGES = {
    "claude-code": "@anthropic-ai/claude-code",
    "codex": "@openai/codex",
    "gemini": "@google/gemini-cli",
}
#: The first Claude Code that, started in a subfolder, reads the repository root's
#: .claude/settings.local.json (bisected: 2.1.210 reads the subfolder's).
LOCAL_AT_ROOT: Version = (2, 1, 211)
#: Per harness, the release that brought what memhooks relies on, and what an older one
#: does instead.
NEEDS: dict[str, list[tuple[Version, str]]] = {
    "claude-code": [
        (
            (2, 1, 76),
            (
                "it does not know the PostCompact event and runs no hook of a settings "
                "file that names it, so no memhooks hook runs at all"
            ),
        ),
        (
            LOCAL_AT_ROOT,
            (
                "run from a subfolder it reads .claude/settings.local.json there, not "
                "at the repository's root, so a `--scope local` install works only in "
                "the project's folder"
            ),
        ),
    ],
    "codex": [
        (
            (0, 141, 0),
            "`codex exec --dangerously-bypass-hook-trust` runs no unreviewed hook",
        ),
    ],
    "gemini": [
        (
            (0, 26, 0),
            (
                'it runs hooks only with "hooks": {"enabled": true} in '
                "~/.gemini/settings.json (add it, or no memhooks hook runs)"
            ),
        ),
        (
            (0, 45, 2),
            (
                "`gemini --resume` sends the model the first prompt's hook context "
                "again, so a resumed session gets the block twice"
            ),
        ),
    ],
}
#: Per harness, an event memhooks hooks that releases older than the one named never send.
UNSENT: dict[str, list[tuple[Version, str]]] = {"codex": [((0, 145, 0), "SessionEnd")]}
_VERSION = re.compile(r"\b(\d+)\.(\d+)\.(\d+)\b")
#: `gemini --version` starts Node.js: ~1-2 s on a busy machine.
_TIMEOUT = 10.0


def version_of(harness: str, which: Callable[[str], str | None]) -> Version | None:
    """The release `<cli> --version` prints (`2.1.165 (Claude Code)`, `codex-cli
    0.134.0`, `0.45.2`), or None: not on PATH, failed, or printed no version."""
    path = which(COMMANDS[harness])
    out = None if path is None else output_of([path, "--version"], _TIMEOUT)
    found = _VERSION.search(out) if out else None
    return None if found is None else (int(found[1]), int(found[2]), int(found[3]))


def lacks(version: Version | None, needed: Version) -> bool:
    """Whether a known `version` is older than `needed`."""
    return version is not None and version < needed


def unsent_events(harness: str, version: Version | None) -> frozenset[str]:
    """The events memhooks hooks that this release of `harness` never sends."""
    return frozenset(e for v, e in UNSENT.get(harness, []) if lacks(version, v))


def check_version(harness: str, version: Version | None) -> list[Finding]:
    """One warning when `version` is older than a release memhooks relies on."""
    missing = [(v, why) for v, why in NEEDS.get(harness, []) if lacks(version, v)]
    if not missing or version is None:
        return []
    need = ".".join(map(str, max(v for v, _ in missing)))
    have = ".".join(map(str, version))
    return [
        Finding(
            "warn",
            f"{HARNESS_NAMES[harness]} {have} is older than {need}, the release "
            f"memhooks needs: {'; '.join(why for _, why in missing)}. Update it "
            f"(`npm install -g {_PACKAGES[harness]}@latest`, or as you installed it)",
        )
    ]


__all__ = [
    "COMMANDS",
    "LOCAL_AT_ROOT",
    "NEEDS",
    "UNSENT",
    "check_version",
    "lacks",
    "unsent_events",
    "version_of",
]

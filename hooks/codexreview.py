"""Other tools' Codex hooks that an install or uninstall moved, and so untrusted.

Codex CLI 0.171.0 runs a hook of `hooks.json` only once a person reviewed it, and keys
that review by the hook's place: `<hooks.json>:<event>:<group>:<n>` in its config.toml,
with the hash of what was there. `memhooks uninstall codex` takes our group out of each
event, so another tool's group after ours moves up one place, where the hash recorded is
ours: Codex then skips it, and `codex exec` says nothing (its SessionStart hook, reviewed
and trusted, no longer ran). The person has to review it again: the uninstall says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memhooks.hooks import install

if TYPE_CHECKING:
    from pathlib import Path


def _places(raw: bytes | None) -> dict[str, list[tuple[int, int, Any]]]:
    """Each event's other handlers (not ours) with their group and place in it."""
    try:
        data = install.read_jsonc(raw.decode("utf-8-sig")) if raw else {}
    except ValueError:
        return {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    out: dict[str, list[tuple[int, int, Any]]] = {}
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        for g, group in enumerate(groups if isinstance(groups, list) else ()):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for n, h in enumerate(handlers if isinstance(handlers, list) else ()):
                command = h.get("command") if isinstance(h, dict) else None
                if not (isinstance(command, str) and install.is_ours(command)):
                    out.setdefault(str(event), []).append((g, n, h))
    return out


def moved(before: bytes | None, after: bytes | None) -> list[str]:
    """The events whose other handlers are at another place in `after` than in `before`."""
    old, new = _places(before), _places(after)
    return [
        event
        for event, was in old.items()
        if [(g, n) for g, n, _ in was] != [(g, n) for g, n, _ in new.get(event, [])]
    ]


def review_again(path: Path, events: list[str]) -> str:
    """What to tell the person whose other Codex hooks `moved` names."""
    return (
        f"Codex: the other hooks on {', '.join(events)} in {path} moved, and Codex runs "
        "a hook only at the place it was reviewed: review them again with /hooks in "
        "`codex` (until then Codex skips them, and `codex exec` does so silently)"
    )


__all__ = ["moved", "review_again"]

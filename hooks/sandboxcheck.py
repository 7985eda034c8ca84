"""Whether the model's own commands may write the memory root, for `memhooks doctor`.

The block ends with the shell commands that save memory (`memhooks write …`) unless
`memhooks mcp` is registered. Codex CLI runs the model's commands in its sandbox, which
writes only the workspace and `[sandbox_workspace_write] writable_roots` (and /tmp,
where no memory root is kept, so it is not looked at here): with
Codex 0.171.0's defaults (`codex exec`, nothing set) every `memhooks write` the model ran
failed ("cannot write ROOT/.memhooks.lock: Read-only file system") while the hooks, which
Codex runs outside it, worked; with the root in `writable_roots` it wrote. Codex runs
its MCP servers outside the sandbox too.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from memhooks.hooks.harness_dirs import codex_config, codex_dir
from memhooks.hooks.harnesscheck import Finding, our_handlers, short_path
from memhooks.hooks.mcp_config import registrations


def codex_sandbox(root: Path, project: Path, home: Path) -> list[Finding]:
    """A warning when memhooks' hooks run in Codex for `project` and the model's
    `memhooks write` would meet a sandbox that cannot write `root`."""
    if not our_handlers("codex", project, home):
        return []
    if any(r.ours for r in registrations(project, home, "codex")):
        return []  # the block names the MCP tools, which run outside the sandbox
    config = codex_dir(home) / "config.toml"
    mode: object = None
    writable = [project]
    # The project's config.toml (read in a trusted project) wins over the user's.
    for path in (config, project / ".codex" / "config.toml"):
        data = codex_config(path)
        mode = data.get("sandbox_mode", mode)
        extra = data.get("sandbox_workspace_write")
        roots = extra.get("writable_roots") if isinstance(extra, dict) else None
        for r in roots if isinstance(roots, list) else ():
            if isinstance(r, str):
                writable.append(Path(os.path.expanduser(r)))
    if mode == "danger-full-access":
        return []
    real = Path(os.path.realpath(root))
    inside = any(real.is_relative_to(os.path.realpath(w)) for w in writable)
    if inside and mode != "read-only":
        return []
    how = f'sandbox_mode = "{mode}"' if isinstance(mode, str) else "no sandbox_mode set"
    return [
        Finding(
            "warn",
            f"Codex: the model's commands run in Codex's sandbox ({how}), which cannot "
            f"write the memory root {root}: a `memhooks write` the model runs fails. "
            f"Let it in {short_path(config, home)}: "
            f"[sandbox_workspace_write] writable_roots = [{json.dumps(str(root))}] (and no "
            'sandbox_mode = "read-only"), or register `memhooks mcp` (examples/mcp)',
        )
    ]


__all__ = ["codex_sandbox"]

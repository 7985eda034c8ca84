"""A memory root on a disk that is really full: a 64 KiB tmpfs, filled, in a mount namespace
of its own (`unshare`), with the real command and hooks run on it.

The seams a disk refuses at one by one are tested in test_crash.py; here the file system
itself says ENOSPC wherever it will, and what was there must be there after.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from memhooks.memory.paths import slug_for

if TYPE_CHECKING:
    from pathlib import Path

_SCRIPT = """
set -u
mount -t tmpfs -o size=64k tmpfs "$DISK" || exit 77
export MEMHOOKS_HOME="$DISK/mem"
run() { "$PY" -m memhooks.hooks "$@" --project "$PROJECT" >/dev/null; }
run write --to memory --text "- deploys need two approvals"
run write --to note --name pool --text "pool size is 20"
head -c 1048576 /dev/zero > "$DISK/fill" 2>/dev/null
for step in $FULL; do
    "$PY" -m memhooks.hooks hook < "$OUT/$step.json" > "$OUT/$step.out" 2> "$OUT/$step.err"
    echo $? > "$OUT/$step.rc"
done
rm "$DISK/fill"
for step in $FREED; do
    "$PY" -m memhooks.hooks hook < "$OUT/$step.json" > "$OUT/$step.out" 2> "$OUT/$step.err"
    echo $? > "$OUT/$step.rc"
done
cp -a "$DISK/mem" "$OUT/mem"
"""


def _on_a_full_disk(
    tmp_path: Path, project: Path, full: dict[str, dict[str, str]], freed: list[str]
) -> Path:
    """Run the hooks `full` (name: event) on a full disk, then those of them in `freed`
    once it has room again; return the folder holding each one's .rc, .out, .err and a
    copy of the memory root (`mem`)."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare here")
    out, disk = tmp_path / "out", tmp_path / "disk"
    out.mkdir()
    disk.mkdir()
    for name, event in full.items():
        payload = {"session_id": "s", "cwd": str(project), **event}
        (out / f"{name}.json").write_text(json.dumps(payload))
    env = {
        "DISK": str(disk),
        "OUT": str(out),
        "PY": sys.executable,
        "PROJECT": str(project),
        "FULL": " ".join(full),
        "FREED": " ".join(f"{n}-again" for n in freed),
    }
    for name in freed:
        shutil.copy(out / f"{name}.json", out / f"{name}-again.json")
    done = _unshared(_SCRIPT, env)
    if done.returncode != 0:
        pytest.skip(f"no tmpfs in a mount namespace here: {done.stderr.strip()}")
    return out


def test_hooks_on_a_full_disk_lose_nothing_and_leave_whole_gitignores(
    tmp_path: Path, project: Path
) -> None:
    # Before: a hook's first run on a full disk made .sessions/, .activity/ and .index/
    # with a .gitignore of 0 bytes (made, then its "*" refused), and later runs, the disk
    # freed, never wrote it: a root kept in git then offered each session's state (the
    # prompts it saw) and the activity record to the next commit.
    out = _on_a_full_disk(
        tmp_path,
        project,
        {
            "start": {"hook_event_name": "SessionStart", "source": "startup"},
            "prompt": {"hook_event_name": "UserPromptSubmit", "prompt": "pool size"},
            "end": {"hook_event_name": "SessionEnd", "reason": "exit"},
        },
        freed=["start", "prompt"],
    )
    for step in ("start", "prompt", "end", "start-again", "prompt-again"):
        assert (out / f"{step}.rc").read_text() == "0\n", step
        err = (out / f"{step}.err").read_text()
        assert err.count("\n") <= 1 and "Traceback" not in err, (step, err)
    assert "No space left on device" in (out / "start.err").read_text()
    assert "deploys need two approvals" in (out / "start.out").read_text()
    mem = out / "mem"
    note = mem / "projects" / slug_for(str(project)) / "notes" / "pool.md"
    assert (mem / "MEMORY.md").read_bytes() == b"- deploys need two approvals\n"
    assert note.read_bytes() == b"pool size is 20\n"
    assert not [p for p in mem.rglob("*") if p.name.endswith(".tmp")]
    ignores = {str(p.relative_to(mem)): p.read_bytes() for p in mem.rglob(".gitignore")}
    assert {".sessions/.gitignore", ".activity/.gitignore"} <= set(ignores)
    assert ignores == dict.fromkeys(ignores, b"*\n")


def test_doctor_names_a_full_disk(tmp_path: Path, project: Path) -> None:
    # Before: with the root's disk full, every write and hook record failed, and
    # doctor said "healthy".
    if shutil.which("unshare") is None:
        pytest.skip("no unshare here")
    disk = tmp_path / "disk"
    disk.mkdir()
    script = """
    mount -t tmpfs -o size=64k tmpfs "$DISK" || exit 77
    export MEMHOOKS_HOME="$DISK/mem"
    "$PY" -m memhooks.hooks write --to memory --text "- a rule" --project "$PROJECT"
    head -c 1048576 /dev/zero > "$DISK/fill" 2>/dev/null
    "$PY" -m memhooks.hooks doctor --project "$PROJECT"
    """
    env = {"DISK": str(disk), "PY": sys.executable, "PROJECT": str(project)}
    done = _unshared(script, env)
    if done.returncode == 77:
        pytest.skip(f"no tmpfs in a mount namespace here: {done.stderr.strip()}")
    assert done.returncode == 1, done.stderr
    assert (
        f"fix: memory root {disk / 'mem'}: its disk has 0 KiB free: writes and the "
        "hooks' records fail; free some space\n"
    ) in done.stdout


def _unshared(script: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`script` run by sh as root of a user and mount namespace of its own, where it may
    mount a small tmpfs: the real commands, on a disk that fills."""
    return subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )

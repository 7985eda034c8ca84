"""The memory root kept in git on two machines, as the README says: a `git pull` that
conflicts in MEMORY.md and today's log, left unresolved while the real Claude Code runs
a session (`claude -p`), then `git merge --abort` and another session. Asserted on what
the model received and on the log's bytes."""

from __future__ import annotations

import re
import subprocess
import time
from datetime import date
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import setup_claude
from tests.e2e.sandbox import MEMHOOKS
from tests.e2e.test_claude_code import hook_errors

if TYPE_CHECKING:
    from pathlib import Path

    from tests.e2e.sandbox import Sandbox

pytestmark = pytest.mark.timeout(300)

ASKED = "Which zone does the kittiwake cluster run in."
AFTER = "Say hello once the merge is undone."


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "user.name=p", "-c", "user.email=p@p", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )


def _write(sb: Sandbox, root: Path, *args: str) -> None:
    env = sb.env() | {"MEMHOOKS_HOME": str(root)}
    subprocess.run(
        [str(MEMHOOKS), "write", *args],
        cwd=sb.project,
        env=env,
        check=True,
        capture_output=True,
        timeout=60,
    )


def _settled(path: Path, wait: float = 3.0) -> bytes:
    """`path`'s bytes once they stopped changing for a second (a session end's record is
    written by the session process after `claude -p` exits)."""
    deadline = time.monotonic() + wait
    last = path.read_bytes()
    while time.monotonic() < deadline:
        time.sleep(1)
        now = path.read_bytes()
        if now == last:
            return now
        last = now
    return last


def _pulled_in_conflict(sb: Sandbox) -> Path:
    """The root (the laptop's) and a clone of it (the desktop's) each add a rule to
    MEMORY.md and an entry to today's log; the laptop pulls and leaves the conflict.
    Today's log, mid-merge."""
    laptop, desktop = sb.root, sb.base / "desktop-root"
    _write(sb, laptop, "--to", "memory", "--text", "- Deploy with make.")
    (laptop / ".gitignore").write_text(
        ".memhooks.lock\n.sessions.lock\n.*.tmp\n*.bak\n"
    )
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "a"]):
        assert _git(laptop, *args).returncode == 0
    assert _git(sb.base, "clone", "-q", str(laptop), str(desktop)).returncode == 0
    for root, zone in ((laptop, "kw-1"), (desktop, "kw-2")):
        rule = f"- The kittiwake cluster runs in zone {zone}."
        _write(sb, root, "--to", "memory", "--text", rule)
        _write(sb, root, "--to", "daily", "--title", "zones", "--text", zone)
        assert _git(root, "add", "-A").returncode == 0
        assert _git(root, "commit", "-qm", zone).returncode == 0
    pull = _git(laptop, "pull", "--no-rebase", str(desktop), "main")
    assert "CONFLICT" in pull.stdout, pull.stdout + pull.stderr
    log = next(laptop.glob(f"projects/*/daily/{date.today().isoformat()}.md"))
    assert b"<<<<<<<" in log.read_bytes()
    return log


def test_a_session_during_an_unresolved_pull(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    with sandbox(tmp_path_factory.mktemp("git-root"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        laptop = sb.root
        log = _pulled_in_conflict(sb)
        mid_merge = log.read_bytes()

        debug = sb.base / "debug.txt"
        done = sb.run(["claude", "-p", ASKED, "--debug-file", str(debug)], env=env)
        assert done.returncode == 0, done.stderr
        context = sb.turn(ASKED).text
        day = date.today().isoformat()
        # The log's conflict starts at its heading, or below it when both entries were
        # written in one minute.
        told = re.search(
            r'<memory note="[^"]*">\n## Unresolved git merge conflict\n'
            rf"daily/{day}\.md \(from line [12]\) and MEMORY\.md \(from line 2\) hold"
            r" both sides of a git merge between <<<<<<< and >>>>>>> lines: the person"
            r" has chosen neither yet, so neither side is settled\.",
            context,
        )
        assert told, context
        assert "=======\n- The kittiwake cluster runs in zone kw-2.\n>>>>>>>" in context
        assert sb.leftovers().states  # its record kept, in its state
        assert _settled(log) == mid_merge  # no record below the markers
        errors = hook_errors(debug.read_text() if debug.exists() else "")
        assert all("unresolved git merge conflict" in e for e in errors), errors

        assert _git(laptop, "merge", "--abort").returncode == 0
        done = sb.run(["claude", "-p", AFTER], env=env)
        assert done.returncode == 0, done.stderr
        assert "Unresolved git merge conflict" not in sb.turn(AFTER).text
        text = _settled(log).decode()
        assert text.count(ASKED) == 1
        assert text.count(AFTER) == 1
        assert text.index(ASKED) < text.index(AFTER)
        assert not sb.leftovers()
        assert "?? " not in _git(laptop, "status", "--porcelain").stdout


def test_a_session_resumed_while_the_merge_stands(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    # Its second end kept only its own prompt: the first run's, kept by its first end,
    # was never recorded (claude -p --continue, then the log resolved).
    first, second, third = (
        "Which zone now, in the merge.",
        "And again, the merge still open.",
        "Say hello once the log is resolved.",
    )
    with sandbox(tmp_path_factory.mktemp("git-root"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        log = _pulled_in_conflict(sb)
        mid_merge = log.read_bytes()
        for argv in (["claude", "-p", first], ["claude", "-p", "--continue", second]):
            done = sb.run(argv, env=env)
            assert done.returncode == 0, done.stderr
            assert _settled(log) == mid_merge
        assert _git(sb.root, "checkout", "--theirs", str(log)).returncode == 0
        assert _git(sb.root, "commit", "-qam", "resolved").returncode == 0
        done = sb.run(["claude", "-p", "--continue", third], env=env)
        assert done.returncode == 0, done.stderr
        text = _settled(log).decode()
        assert [text.count(p) for p in (first, second, third)] == [1, 1, 1]
        assert text.index(first) < text.index(second) < text.index(third)
        assert not sb.leftovers()

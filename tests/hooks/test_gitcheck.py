"""A memory root kept in git that tracks what one machine keeps: real git, real hooks."""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import TYPE_CHECKING

import pytest

from memhooks.hooks.gitcheck import CACHES, tracked
from tests.conftest import run_cli
from tests.promises.test_git import _hook

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(at: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=a", "-c", "user.email=a@x", *args],
        cwd=at,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def _tracked_lines(doctor: str) -> list[str]:
    return [ln for ln in doctor.splitlines() if "of what one machine keeps" in ln]


def test_doctor_names_session_records_a_root_in_git_tracks(
    memory_root: Path, project: Path
) -> None:
    # A root committed by a memhooks from before .activity/ ignored itself: git goes on
    # tracking its files once the .gitignore is there, and two clones conflict in them.
    memory_root.mkdir()
    _git(memory_root, "init", "-q")
    _hook(project, "SessionStart", source="startup")
    _hook(project, "UserPromptSubmit", prompt="how do we deploy?")
    _hook(project, "SessionEnd", reason="exit")
    _git(memory_root, "add", "-A")
    _git(memory_root, "add", "-f", ".activity")
    _git(memory_root, "commit", "-qm", "memory")
    records = _git(memory_root, "ls-files", ".activity").split()
    assert records

    said = _tracked_lines(run_cli("doctor", "--project", str(project)).stdout)

    fix = (
        f"fix: the git repository of the memory root tracks {len(records)} file"
        f"{'s' if len(records) > 1 else ''} of what one machine keeps (e.g. "
        f"{records[0]}), committed before memhooks ignored them: each clone changes "
        f"them, and merges conflict there; `git -C {memory_root.resolve()} rm -r "
        "--cached --quiet -- .activity` stops tracking them (they stay here), then "
        "commit"
    )
    assert said == [fix]
    command = re.search(r"`(git -C .*?)`", said[0])
    assert command is not None
    subprocess.run(command[1], shell=True, check=True)
    assert _git(memory_root, "ls-files", ".activity") == ""
    assert all((memory_root / r).is_file() for r in records)  # kept on disk
    assert _tracked_lines(run_cli("doctor", "--project", str(project)).stdout) == []


@pytest.mark.parametrize("version", [2, 3, 4])
def test_the_index_file_is_read_as_git_reads_it(tmp_path: Path, version: int) -> None:
    # The root in a folder of a larger repository (dotfiles), names of every length (the
    # padding of versions 2 and 3), shared beginnings (version 4 drops them), and with
    # version 3 and 4 a file added with -N (an entry with extended flags).
    top = tmp_path / "dotfiles"
    top.mkdir()
    _git(top, "init", "-q")
    intent = "mem/.activity/n-0123abcd.jsonl"  # added with -N from version 3
    names = [
        *(f"mem/.activity/{'p' * n}-0123abcd.jsonl" for n in range(1, 12)),
        "mem/.index/p-0123abcd.mhix",
        "mem/.sessions/0123abcd.json",
        "mem/.indexes/not-ours.md",
        "mem/MEMORY.md",
        "mem/projects/p-0123abcd/daily/2026-12-05.md",
        "other/.activity/x.jsonl",
        "é/.activity/x.jsonl",
    ]
    for name in [*names, intent]:
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text("x\n")
    _git(top, "add", "-f", *names)
    _git(top, "add", "-f", *(["-N"] if version >= 3 else []), intent)
    _git(top, "update-index", "--index-version", str(version))
    index = (top / ".git" / "index").read_bytes()
    assert int.from_bytes(index[4:8], "big") == version
    folders = [f"mem/{c}" for c in CACHES]
    expected = sorted(_git(top, "ls-files", "-z", "--", *folders).split("\0")[:-1])

    found = tracked(index, folders)

    assert found == expected
    assert len(found) == 14


def test_what_is_no_index_file_tracks_nothing() -> None:
    assert tracked(b"", [".activity"]) == []
    assert tracked(b"DIRC\x00\x00\x00\x02\x00\x00\x00\x05", [".activity"]) == []
    assert tracked(b"DIRC\x00\x00\x00\x09\x00\x00\x00\x00", [".activity"]) == []

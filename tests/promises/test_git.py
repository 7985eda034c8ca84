"""A memory root kept in git, as a team shares one: real `git`, real hook processes.

What a session leaves behind for `git add -A` is memory a person can read, not the
caches and records of one machine that would conflict at every merge.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from memhooks.memory import today
from memhooks.memory.paths import slug_for
from tests.conftest import run_cli

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def _hook(project: Path, event: str, session: str = "s1", **fields: object) -> str:
    payload = {"session_id": session, "cwd": str(project), "hook_event_name": event}
    proc = run_cli(
        "hook", "--harness", "claude-code", input=json.dumps(payload | fields)
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_session_leaves_git_only_memory_files(
    memory_root: Path, project: Path
) -> None:
    memory_root.mkdir()
    _git(memory_root, "init", "-q")
    # A root made before its machine-local folders ignored themselves.
    (memory_root / ".activity").mkdir(mode=0o700)
    proc = run_cli(
        "write", "--to", "memory", "--text", "- deploy with make", cwd=project
    )
    assert proc.returncode == 0, proc.stderr
    _hook(project, "SessionStart", source="startup")
    _hook(project, "UserPromptSubmit", prompt="how do we deploy?")
    assert list((memory_root / ".sessions").glob("*.json"))  # the session runs on
    assert run_cli("search", "deploy", cwd=project).returncode == 0
    during = _untracked(memory_root)
    _hook(project, "SessionEnd", reason="exit")
    after = _untracked(memory_root)
    local = (".activity", ".sessions/", ".index")
    assert [p for p in during + after if p.startswith(local)] == []
    assert "MEMORY.md" in after
    assert any(p.startswith("projects/") and "/daily/" in p for p in after)


def _untracked(root: Path) -> list[str]:
    status = _git(root, "status", "--porcelain", "--untracked-files=all")
    return sorted(line[3:] for line in status.splitlines())


def _merged_in_conflict(
    memory_root: Path,
    project: Path,
    tmp_path: Path,
    *also: str,
    pull: str = "--no-rebase",
    before_pull: Callable[[], None] = lambda: None,
) -> None:
    """Two clones write MEMORY.md and a note (and `also`: "daily", today's log); the
    first pulls the second's and leaves the conflict (as `git pull` does, MERGE_HEAD and
    all)."""

    def write(*args: str) -> None:
        proc = run_cli("write", "--slug", slug_for(str(project)), *args, cwd=project)
        assert proc.returncode == 0, proc.stderr

    write("--to", "memory", "--text", "- deploy with make")
    write("--to", "note", "--name", "setup", "--text", "Title\n=======\nuse uv")
    _git(memory_root, "init", "-q", "-b", "main")
    _git(memory_root, "add", "-A")
    _git(memory_root, "-c", "user.name=a", "-c", "user.email=a@x", "commit", "-qm", "a")
    other = tmp_path / "other"
    _git(tmp_path, "clone", "-q", str(memory_root), str(other))
    for root, who in ((memory_root, "alice"), (other, "bob")):
        env = {"MEMHOOKS_HOME": str(root)}
        for to in ("memory", "note", *also):
            args = ("--to", to, "--text", f"- {who} was here")
            extra = ("--name", "setup") if to == "note" else ()
            proc = run_cli(
                "write", "--slug", slug_for(str(project)), *args, *extra, env=env
            )
            assert proc.returncode == 0, proc.stderr
        _git(root, "add", "-A")
        _git(
            root, "-c", f"user.name={who}", "-c", "user.email=x@x", "commit", "-qm", who
        )
    before_pull()
    merge = subprocess.run(
        ["git", "pull", "-q", pull, str(other), "main"],
        cwd=memory_root,
        capture_output=True,
        text=True,
        env={"GIT_AUTHOR_NAME": "a", "GIT_COMMITTER_NAME": "a", "EMAIL": "a@x"}
        | {"PATH": os.environ["PATH"], "HOME": str(tmp_path)},
        check=False,
    )
    assert "CONFLICT" in merge.stdout + merge.stderr


def test_doctor_names_a_merge_conflict_left_in_memory(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    _merged_in_conflict(memory_root, project, tmp_path)
    doctor = run_cli("doctor", "--project", str(project))
    fixes = [ln for ln in doctor.stdout.splitlines() if "merge conflict" in ln]
    assert doctor.returncode == 1
    said = (
        "an unresolved git merge conflict (<<<<<<< … >>>>>>>): both sides are injected"
        " and searched as they stand; keep what is right and delete the marker lines"
    )
    assert fixes == [
        f"fix: MEMORY.md:2: {said}",
        f"fix: projects/{slug_for(str(project))}/notes/setup.md:5: {said}",
    ]


def test_a_note_that_shows_a_conflict_in_code_is_no_conflict(
    memory_root: Path, project: Path
) -> None:
    # A note on resolving conflicts showed one in a fenced block: doctor called it a fix.
    shown = "```\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> main\n```"
    proc = run_cli(
        "write", "--to", "note", "--name", "git", "--text", shown, cwd=project
    )
    assert proc.returncode == 0, proc.stderr
    doctor = run_cli("doctor", "--project", str(project))
    assert "merge conflict" not in doctor.stdout
    # The same lines outside a fence are one.
    text = shown.strip("`\n")
    proc = run_cli(
        "write", "--to", "note", "--name", "left", "--text", text, cwd=project
    )
    assert proc.returncode == 0, proc.stderr
    doctor = run_cli("doctor", "--project", str(project))
    assert "notes/left.md:1: an unresolved git merge conflict" in doctor.stdout


def test_a_write_into_a_file_left_in_conflict_says_so(
    memory_root: Path, project: Path
) -> None:
    memory_root.mkdir()
    conflict = "- a\n<<<<<<< HEAD\n- ours\n=======\n- theirs\n>>>>>>> 1a2b3c4\n"
    (memory_root / "MEMORY.md").write_text(conflict)
    args = ("write", "--to", "memory", "--text", "- a new rule")
    proc = run_cli(*args, cwd=project)
    assert proc.returncode == 0
    assert proc.stderr == (
        "memhooks: warning: MEMORY.md:2: an unresolved git merge conflict: keep what "
        "is right and delete the marker lines\n"
    )
    assert (memory_root / "MEMORY.md").read_text() == conflict + "\n- a new rule\n"


def test_the_block_says_which_files_a_merge_left_in_conflict(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # Both sides of MEMORY.md's conflict went to the model as two rules, not a word
    # that the person had chosen neither; the note was listed as "<<<<<<< HEAD".
    _merged_in_conflict(memory_root, project, tmp_path)
    out = _hook(project, "SessionStart", source="startup")
    block = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "- alice was here\n=======\n- bob was here" in block  # shown as it stands
    head = block.split("\n## ", 2)[1]
    assert head == (
        "Unresolved git merge conflict\n"
        "MEMORY.md (from line 2) and notes/setup.md (from line 5) hold both sides of a"
        " git merge between <<<<<<< and >>>>>>> lines: the person has chosen neither"
        " yet, so neither side is settled. Do not follow either as a rule; ask which"
        " is right, or to resolve the file.\n"
    )
    assert "- notes/setup.md — (unresolved merge conflict) Title" in block


def test_a_session_ending_mid_merge_keeps_its_record_out_of_the_conflict(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # Its record went below the markers of today's log, and `git merge --abort` (or
    # `git checkout --theirs`) then dropped it without a word.
    _merged_in_conflict(memory_root, project, tmp_path, "daily")
    log = memory_root / "projects" / slug_for(str(project)) / "daily" / f"{today()}.md"
    mid_merge = log.read_bytes()
    assert b"<<<<<<< HEAD" in mid_merge
    _hook(project, "SessionStart", source="startup")
    _hook(project, "UserPromptSubmit", prompt="what is the pool size on staging?")
    payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": "SessionEnd"}
    args = ("hook", "--harness", "claude-code")
    end = run_cli(*args, input=json.dumps(payload | {"reason": "exit"}))
    assert end.returncode == 0
    assert log.read_bytes() == mid_merge  # the merge is the person's to finish
    said = end.stderr.splitlines()
    assert len(said) == 1
    assert "unresolved git merge conflict" in said[0]
    _hook(project, "SessionStart", "s2", source="startup")  # still mid-merge: kept
    assert log.read_bytes() == mid_merge
    _git(memory_root, "merge", "--abort")
    kept = log.read_text()
    _hook(project, "SessionStart", "s3", source="startup")  # once resolved
    now = log.read_text()
    assert now.startswith(kept)
    assert now.count("what is the pool size on staging?") == 1
    _hook(project, "SessionEnd", "s3", reason="exit")
    _hook(project, "SessionStart", "s4", source="startup")
    assert log.read_text().count("what is the pool size on staging?") == 1


@pytest.mark.parametrize("pull", ["--no-rebase", "--rebase"])
def test_a_session_ending_while_git_waits_on_the_root_leaves_it_be(
    memory_root: Path, project: Path, tmp_path: Path, pull: str
) -> None:
    # Today's log merged cleanly (`merge=union`, as the README says) but a note did not:
    # a session end appended to the log, and `git merge --abort` then refused ("not
    # uptodate"); mid-rebase, `git rebase --abort` dropped the record without a word.
    (memory_root).mkdir()
    (memory_root / ".gitattributes").write_text("projects/*/daily/*.md merge=union\n")
    _merged_in_conflict(memory_root, project, tmp_path, "daily", pull=pull)
    log = memory_root / "projects" / slug_for(str(project)) / "daily" / f"{today()}.md"
    assert "<<<<<<<" not in log.read_text()
    before = log.read_bytes()
    _hook(project, "SessionStart", source="startup")
    _hook(project, "UserPromptSubmit", prompt="what is the pool size on staging?")
    _hook(project, "SessionEnd", reason="exit")
    assert log.read_bytes() == before
    abort = "merge" if pull == "--no-rebase" else "rebase"
    said = run_cli("doctor", "--project", str(project)).stdout.splitlines()
    assert (
        f"warn: the memory root's git is in a {abort}: the records of 1 session that"
        " ended meanwhile wait in its state; the first session start once it is done"
        " (committed, or aborted) writes them"
    ) in said
    _git(memory_root, abort, "--abort")  # check=True: it must not refuse
    _hook(project, "SessionStart", "s2", source="startup")
    assert log.read_text().count("what is the pool size on staging?") == 1


def test_a_pull_mid_session_that_conflicts_is_told_as_one(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # The change notice gave MEMORY.md's conflict as lines added ("+<<<<<<< HEAD",
    # "+- bob was here", ...), the other side's rule read as a new one, with no word.
    def started() -> None:
        # The session starts after both clones committed, before the pull.
        _hook(project, "SessionStart", source="startup")
        _hook(project, "UserPromptSubmit", prompt="hello there")

    _merged_in_conflict(memory_root, project, tmp_path, before_pull=started)
    out = _hook(project, "UserPromptSubmit", prompt="how do we deploy?")
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    lines = context.split("\n")
    assert lines[1].startswith("Memory changed on disk since this session's block")
    assert lines[2] == (
        "MEMORY.md (from line 2) and notes/setup.md (from line 5) hold both sides of a"
        " git merge between <<<<<<< and >>>>>>> lines: the person has chosen neither"
        " yet, so neither side is settled. Do not follow either as a rule; ask which"
        " is right, or to resolve the file."
    )
    assert "+- bob was here" in lines  # the lines, as they stand


def test_doctor_names_what_git_mergetool_leaves(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # While `git mergetool` runs, a note's sides (notes/setup_LOCAL_<pid>.md, ...) are
    # notes to the block and to search, doctor silent; after it, setup.md.orig (kept by
    # default) was "not named NAME.md ... rename it": a second copy of the note.
    _merged_in_conflict(memory_root, project, tmp_path)
    during = tmp_path / "during.txt"
    doctor = f"{sys.executable} -m memhooks.hooks doctor --project {project}"
    tool = f'{doctor} > {during}; cp "$REMOTE" "$MERGED"'
    slug = slug_for(str(project))
    note = f"projects/{slug}/notes/setup.md"
    args = (
        "-c",
        f"mergetool.fake.cmd={tool}",
        "-c",
        "mergetool.fake.trustExitCode=true",
    )
    _git(memory_root, *args, "mergetool", "--tool=fake", note)
    said = [ln for ln in during.read_text().splitlines() if "mergetool" in ln]
    sides = sorted(ln.split(":")[1].split("/")[-1].split("_")[1] for ln in said)
    assert sides == ["BACKUP", "BASE", "LOCAL", "REMOTE"], said
    assert said[0].startswith(f"fix: projects/{slug}/notes/setup_")
    assert said[0].endswith(
        ": what git mergetool made of setup.md while it runs, read as a note; it"
        " removes it when done (left by one stopped: delete it)"
    )
    after = run_cli("doctor", "--project", str(project)).stdout.splitlines()
    assert (
        f"warn: {note}.orig: git mergetool's copy of setup.md as it was before the"
        " merge: never read; delete it once setup.md is as it should be" in after
    )


def test_a_compaction_mid_merge_keeps_its_flush_out_of_the_log(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # `/compact` while today's log held a conflict: its flush went below the markers,
    # where `git merge --abort` dropped it.
    asked = "what is the pool size on staging?"

    def started() -> None:
        _hook(project, "SessionStart", source="startup")
        _hook(project, "UserPromptSubmit", prompt=asked)

    _merged_in_conflict(memory_root, project, tmp_path, "daily", before_pull=started)
    log = memory_root / "projects" / slug_for(str(project)) / "daily" / f"{today()}.md"
    mid_merge = log.read_bytes()
    _hook(project, "PreCompact", trigger="manual")
    _hook(project, "PostCompact", trigger="manual", compact_summary="Asked the pool.")
    assert log.read_bytes() == mid_merge
    _git(memory_root, "merge", "--abort")
    _hook(project, "SessionEnd", reason="exit")
    assert log.read_text().count(asked) == 1


def test_a_merge_left_standing_a_week_holds_up_no_record_longer(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # A merge never finished (or an abandoned `git am`) kept every record waiting.
    import time

    from memhooks.hooks import stale
    from memhooks.memory import Store

    memory_root.mkdir()
    (memory_root / ".gitattributes").write_text("projects/*/daily/*.md merge=union\n")
    _merged_in_conflict(memory_root, project, tmp_path, "daily")
    log = memory_root / "projects" / slug_for(str(project)) / "daily" / f"{today()}.md"
    _hook(project, "SessionStart", source="startup")
    _hook(project, "UserPromptSubmit", prompt="what is the pool size on staging?")
    _hook(project, "SessionEnd", reason="exit")
    store = Store(memory_root, slug_for(str(project)))
    assert stale.sweep(store, now=time.time() + 3600) == []  # waits
    week = time.time() + stale.STALE_SECONDS + 60
    stale.sweep(store, now=week)
    assert not list((memory_root / ".sessions").glob("*.json"))
    assert log.read_text().count("what is the pool size on staging?") == 1


def test_a_write_while_the_roots_git_is_mid_rebase_says_what_abort_does(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # A write mid-rebase (the model's memory_write, or a person's) landed in a file git
    # had not stopped on, without a word: `git rebase --abort` then dropped it.
    begun = ("write", "--to", "daily", "--title", "begun", "--text", "the log")
    assert run_cli(*begun, cwd=project).returncode == 0
    _merged_in_conflict(memory_root, project, tmp_path, pull="--rebase")
    args = ("write", "--to", "daily", "--title", "staging", "--text", "pool is 30")
    proc = run_cli(*args, cwd=project)
    assert proc.returncode == 0
    assert proc.stderr.splitlines()[-1] == (
        "memhooks: warning: the memory root's git is in a rebase: `git rebase --abort`"
        " would drop this write; finish the rebase to keep it (`git rebase --continue`)"
    )
    _git(memory_root, "rebase", "--abort")
    assert (
        "pool is 30" not in next(memory_root.glob("projects/*/daily/*.md")).read_text()
    )


def test_a_git_file_naming_no_usable_folder_stops_no_record(
    memory_root: Path, project: Path
) -> None:
    # A root whose `.git` file names a folder git could not use (a name too long):
    # the look for a merge in progress raised, and the session end recorded nothing.
    memory_root.mkdir()
    (memory_root / ".git").write_text("gitdir: " + "a" * 300 + "/x\n")
    _hook(project, "SessionStart", source="startup")
    _hook(project, "UserPromptSubmit", prompt="what is the pool size on staging?")
    payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": "SessionEnd"}
    end = run_cli("hook", "--harness", "claude-code", input=json.dumps(payload))
    assert (end.returncode, end.stderr) == (0, "")
    (log,) = memory_root.glob("projects/*/daily/*.md")
    assert "what is the pool size on staging?" in log.read_text()
    proc = run_cli("write", "--to", "memory", "--text", "- a rule", cwd=project)
    assert (proc.returncode, proc.stderr) == (0, "")


def test_reading_a_file_left_in_conflict_says_so(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # `memhooks read` (the model's way to a note the block did not show) gave both
    # sides as the note's text, with no word.
    _merged_in_conflict(memory_root, project, tmp_path)
    proc = run_cli("read", "notes/setup.md", cwd=project)
    assert proc.returncode == 0
    assert "=======\n- bob was here\n>>>>>>>" in proc.stdout  # as it stands
    assert proc.stderr == (
        "memhooks: warning: notes/setup.md:5: an unresolved git merge conflict: both"
        " sides of a merge stand between <<<<<<< and >>>>>>>, neither settled\n"
    )
    note = memory_root / "projects" / slug_for(str(project)) / "notes" / "setup.md"
    note.write_text("Title\n=======\nuse uv\n- alice was here\n")  # resolved
    assert run_cli("read", "notes/setup.md", cwd=project).stderr == ""

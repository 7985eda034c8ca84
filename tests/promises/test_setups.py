"""Memory files as people keep them: behind a link, with their own permissions, beside
odd files.

Each test runs the real command on real files; each names what a person met before.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from memhooks.memory.paths import slug_for
from tests.conftest import run_cli

if TYPE_CHECKING:
    from pathlib import Path

SLUG = "proj-0123abcd"


def _ok(*args: str) -> str:
    done = run_cli(*args, "--slug", SLUG)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_link_inside_the_root_is_written_through_and_stays_a_link(
    memory_root: Path,
) -> None:
    # Before: MEMORY.md linked to a file kept elsewhere in the root (a folder synced as
    # a whole), or a note kept under a second name, was read and searched, but every
    # write, edit, forget and restore refused it ("refusing to replace a symlink").
    notes = memory_root / "projects" / SLUG / "notes"
    kept = memory_root / "synced"
    kept.mkdir(parents=True)
    notes.mkdir(parents=True)
    (kept / "MEMORY.md").write_bytes(b"- always run the linter\r\n")
    (kept / "pool.md").write_bytes(b"pool size is 20\n")
    (memory_root / "MEMORY.md").symlink_to("synced/MEMORY.md")
    (notes / "db.md").symlink_to(kept / "pool.md")
    _ok("write", "--to", "memory", "--text", "- squash before merge")
    _ok("write", "--to", "note", "--name", "db", "--text", "pgbouncer in front")
    _ok("edit", "notes/db", "--old", "20", "--new", "40")
    _ok("forget", "MEMORY.md", "--line", "linter")
    _ok("restore", "MEMORY.md", "--line", "linter")
    for link in (memory_root / "MEMORY.md", notes / "db.md"):
        assert link.is_symlink()
    assert (kept / "MEMORY.md").read_bytes() == (
        b"- always run the linter\r\n- squash before merge\r\n"
    )
    assert (kept / "pool.md").read_bytes() == b"pool size is 40\n\npgbouncer in front\n"
    _ok("write", "--to", "memory", "--mode", "overwrite", "--text", "- one rule")
    assert (memory_root / "MEMORY.md").is_symlink()
    assert (kept / "MEMORY.md").read_bytes() == b"- one rule\n"
    assert (memory_root / "MEMORY.md.bak").read_bytes() == (
        b"- always run the linter\r\n- squash before merge\r\n"
    )
    assert sorted(p.name for p in kept.iterdir()) == ["MEMORY.md", "pool.md"]


def test_a_dangling_link_inside_the_root_gets_its_file_and_a_loop_is_refused(
    memory_root: Path,
) -> None:
    # A link whose file is not there yet (a synced folder before its first sync) is
    # written as vim writes it: the file is made where the link points.
    memory_root.mkdir(parents=True)
    (memory_root / "MEMORY.md").symlink_to("synced/MEMORY.md")
    _ok("write", "--to", "memory", "--text", "- first rule")
    assert (memory_root / "MEMORY.md").is_symlink()
    assert (memory_root / "synced" / "MEMORY.md").read_bytes() == b"- first rule\n"
    (memory_root / "MEMORY.md").unlink()
    (memory_root / "MEMORY.md").symlink_to("MEMORY.md")
    done = run_cli("write", "--to", "memory", "--text", "- x", "--slug", SLUG)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "memhooks: error: refused name 'MEMORY.md': a symlink in a loop\n"
    )
    assert (memory_root / "MEMORY.md").is_symlink()


def test_a_link_out_of_the_root_is_still_never_written_through(
    memory_root: Path, tmp_path: Path
) -> None:
    # Links out of the root stay refused (a memory folder shared in git could carry
    # one to ~/.bashrc): the file they point at keeps its bytes.
    memory_root.mkdir(parents=True)
    outside = tmp_path / "dotfiles" / "MEMORY.md"
    outside.parent.mkdir()
    outside.write_bytes(b"- mine\n")
    (memory_root / "MEMORY.md").symlink_to(outside)
    done = run_cli("write", "--to", "memory", "--text", "- x", "--slug", SLUG)
    assert (done.returncode, done.stdout) == (1, "")
    assert "resolves outside the memory root" in done.stderr
    assert outside.read_bytes() == b"- mine\n"


def test_a_write_keeps_the_permissions_a_person_gave_the_file(
    memory_root: Path,
) -> None:
    # Before: every write, edit and forget made the file owner-only (600): a MEMORY.md
    # a person had made 640 for a group (or 644) silently stopped being readable to
    # the others.
    _ok("write", "--to", "memory", "--text", "- always run the linter")
    _ok("write", "--to", "note", "--name", "pool", "--text", "pool size is 20")
    mine = memory_root / "MEMORY.md"
    note = memory_root / "projects" / SLUG / "notes" / "pool.md"
    mine.chmod(0o640)
    note.chmod(0o644)
    _ok("write", "--to", "memory", "--text", "- squash before merge")
    _ok("edit", "notes/pool", "--old", "20", "--new", "40")
    _ok("forget", "MEMORY.md", "--line", "squash")
    _ok("write", "--to", "note", "--name", "pool", "--mode", "overwrite", "--text", "x")
    assert (mine.stat().st_mode & 0o777, note.stat().st_mode & 0o777) == (0o640, 0o644)
    _ok("write", "--to", "note", "--name", "fresh", "--text", "new note")
    assert (note.parent / "fresh.md").stat().st_mode & 0o777 == 0o600


def test_a_read_only_file_is_not_written_as_root_either(memory_root: Path) -> None:
    # Before: as root (an agent in a container often is), MEMORY.md made read-only
    # (chmod 444: "the model must not change this") was replaced all the same and left
    # 600: os.access says root may write anything. (As another user this was refused.)
    _ok("write", "--to", "memory", "--text", "- deploys need two approvals")
    mine = memory_root / "MEMORY.md"
    mine.chmod(0o444)
    for args in (
        ("write", "--to", "memory", "--text", "- one approval"),
        ("edit", "MEMORY.md", "--old", "two", "--new", "one"),
        ("forget", "MEMORY.md", "--line", "two"),
    ):
        done = run_cli(*args, "--slug", SLUG)
        assert (done.returncode, done.stdout) == (1, ""), args
        assert done.stderr == (
            "memhooks: error: cannot write MEMORY.md: it is read-only; "
            f"chmod u+w {mine} to allow writes\n"
        ), args
    assert mine.read_bytes() == b"- deploys need two approvals\n"
    assert mine.stat().st_mode & 0o777 == 0o444


def _acl(*entries: tuple[int, int, int]) -> bytes:
    """A POSIX ACL as the kernel stores it (what `setfacl` writes): version 2, then
    (tag, permissions, id) entries."""
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)


def test_a_write_keeps_a_files_acl_and_extended_attributes(memory_root: Path) -> None:
    # Before: a note shared with one colleague by an ACL (setfacl -m u:1234:r) lost it,
    # and a tag a person set lost that, at memhooks' next write: the file that replaces
    # it had neither.
    if not hasattr(os, "setxattr"):
        pytest.skip("no extended attributes here")
    _ok("write", "--to", "note", "--name", "pool", "--text", "pool size is 20")
    note = memory_root / "projects" / SLUG / "notes" / "pool.md"
    nobody = 0xFFFFFFFF
    acl = _acl(
        (1, 6, nobody), (2, 4, 1234), (4, 0, nobody), (16, 4, nobody), (32, 0, nobody)
    )
    try:
        os.setxattr(note, "user.tag", b"shared")
        os.setxattr(note, "system.posix_acl_access", acl)
    except OSError as e:
        pytest.skip(f"this file system keeps no ACL or user attribute: {e}")
    _ok("write", "--to", "note", "--name", "pool", "--text", "pgbouncer in front")
    _ok("edit", "notes/pool", "--old", "20", "--new", "40")
    assert note.read_bytes() == b"pool size is 40\n\npgbouncer in front\n"
    assert os.getxattr(note, "user.tag") == b"shared"
    assert os.getxattr(note, "system.posix_acl_access") == acl


def test_a_write_to_a_hard_linked_note_says_its_other_name_keeps_the_old_text(
    memory_root: Path, tmp_path: Path
) -> None:
    # Before: a note hard-linked from a folder of the person's own (a link out of the
    # root is never followed, so a hard link looks like the way) stopped being the same
    # file at memhooks' first write, without a word: the person's copy kept the old
    # text, and what they typed there from then on was never searched.
    _ok("write", "--to", "note", "--name", "pool", "--text", "pool size is 20")
    note = memory_root / "projects" / SLUG / "notes" / "pool.md"
    mine = tmp_path / "pool.md"
    os.link(note, mine)
    done = run_cli(
        "write", "--to", "note", "--name", "pool", "--text", "more", "--slug", SLUG
    )
    assert done.returncode == 0
    assert done.stderr == (
        f"memhooks: projects/{SLUG}/notes/pool.md had another name (a hard link), "
        "which keeps the text from before this write\n"
    )
    assert mine.read_bytes() == b"pool size is 20\n"  # the person's text, kept
    assert note.read_bytes() == b"pool size is 20\n\nmore\n"
    again = run_cli(
        "write", "--to", "note", "--name", "pool", "--text", "x", "--slug", SLUG
    )
    assert (again.returncode, again.stderr) == (0, "")  # one name now: nothing to say


@pytest.mark.parametrize("in_process", ["0", "1"])
def test_a_fifo_where_the_activity_record_goes_does_not_hold_up_the_hooks(
    memory_root: Path, project: Path, in_process: str
) -> None:
    # Before: a FIFO at .activity/<slug>.jsonl (made to watch the record live, with no
    # reader at the moment) held every hook in open() until its deadline: each session
    # started with no memory ("deadline exceeded; no context"), each prompt too.
    done = run_cli("write", "--to", "memory", "--text", "- pool size is 20")
    assert done.returncode == 0, done.stderr
    fifo = memory_root / ".activity" / f"{slug_for(str(project))}.jsonl"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    env = {"MEMHOOKS_SESSION_PROCESS": "0" if in_process == "0" else "1"}
    for event in (
        {"hook_event_name": "SessionStart", "source": "startup"},
        {"hook_event_name": "UserPromptSubmit", "prompt": "pool size"},
        {"hook_event_name": "SessionEnd", "reason": "exit"},
    ):
        payload = {"session_id": f"s{in_process}", "cwd": str(project), **event}
        done = run_cli("hook", input=json.dumps(payload), env=env)
        assert done.returncode == 0
        assert "deadline" not in done.stderr, event
        said = "memhooks: activity record not written: not a regular file\n"
        assert done.stderr in ("", said), event
        if event["hook_event_name"] == "SessionStart":
            assert "pool size is 20" in done.stdout
            assert done.stderr == said
    assert fifo.is_fifo()


def test_a_fifo_where_a_watchers_mark_goes_does_not_hold_up_a_search(
    memory_root: Path,
) -> None:
    # Before: a FIFO at .index/<slug>.watch held `memhooks search` in open() for good
    # (and a prompt's hook until its deadline) once the index had gone 10 s without a
    # full check: asking whether a session process watches the files opened the mark
    # to lock it, and a FIFO's open waits for a writer. Asked here directly, as the
    # wait for the index to age would be a test of the clock.
    _ok("write", "--to", "memory", "--text", "- pool size is 20")
    _ok("search", "pool")  # the index and its folder
    fifo = memory_root / ".index" / f"{SLUG}.watch"
    os.mkfifo(fifo)
    code = (
        "import sys; from pathlib import Path; from memhooks.memory import Store; "
        "from memhooks.memory.index_file import watched; "
        "print(watched(Store(Path(sys.argv[1]), sys.argv[2])))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(memory_root), SLUG],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "False\n", "")


def test_doctor_names_a_note_that_is_not_utf8(memory_root: Path, project: Path) -> None:
    # Before: a note copied from an old Windows folder (Latin-1) was searched by its
    # plain words only: "crème brûlée" never found it, and nothing said why (search
    # and read show its accents as U+FFFD). Its bytes stay as they are.
    where = ("--project", str(project))
    done = run_cli("write", "--to", "note", "--name", "pool", "--text", "x", *where)
    assert done.returncode == 0, done.stderr
    notes = memory_root / "projects" / slug_for(str(project)) / "notes"
    latin = b"# Desserts\r\nCaf\xe9 recipe\r\ncr\xe8me br\xfbl\xe9e\r\n"
    (notes / "dessert.md").write_bytes(latin)
    done = run_cli("doctor", *where)
    rel = f"projects/{slug_for(str(project))}/notes/dessert.md"
    assert (
        f"warn: {rel}:2: not UTF-8 (Latin-1?): its words with accents are never "
        "found; save it as UTF-8\n"
    ) in done.stdout
    assert "pool.md" not in done.stdout
    assert (notes / "dessert.md").read_bytes() == latin


def test_doctor_names_a_sync_tools_conflict_copy(
    memory_root: Path, project: Path
) -> None:
    # Before: a root synced by Dropbox or Syncthing between two machines got a conflict
    # copy of MEMORY.md, which doctor told the person to move out of the root (the
    # other machine's rules, never injected, then left for good), and conflict copies
    # of a note, searched beside it without a word while the two drifted apart.
    where = ("--project", str(project))
    done = run_cli("write", "--to", "note", "--name", "pool", "--text", "x", *where)
    assert done.returncode == 0, done.stderr
    notes = memory_root / "projects" / slug_for(str(project)) / "notes"
    copies = {
        memory_root / "MEMORY (conflicted copy 2026-12-01).md": "MEMORY.md",
        notes / "pool (Ana's conflicted copy 2026-12-01).md": "pool.md",
        notes / "pool.sync-conflict-20261201-101010-ABCDEFG.md": "pool.md",
    }
    for path in copies:
        path.write_bytes(b"- pool size is 40\n")
    done = run_cli("doctor", *where)
    assert done.returncode == 1
    for path, of in copies.items():
        rel = path.relative_to(memory_root).as_posix()
        assert (
            f"fix: {rel}: a sync tool's copy of {of}, which two machines changed: "
            f"merge it into {of}, then delete it\n"
        ) in done.stdout
    assert "move it out of the root" not in done.stdout
    assert all(p.read_bytes() == b"- pool size is 40\n" for p in copies)


def test_doctor_leaves_an_editors_backups_be(memory_root: Path, project: Path) -> None:
    # Before: Emacs's backup and autosave of a note (pool.md~, #pool.md#) were "not
    # named NAME.md: ... rename it": renamed, each became a second copy of the note.
    where = ("--project", str(project))
    done = run_cli("write", "--to", "note", "--name", "pool", "--text", "x", *where)
    assert done.returncode == 0, done.stderr
    notes = memory_root / "projects" / slug_for(str(project)) / "notes"
    for name in ("pool.md~", "#pool.md#"):
        (notes / name).write_bytes(b"x\n")
    (memory_root / "MEMORY.md~").write_bytes(b"- a rule\n")
    done = run_cli("doctor", *where)
    said = "an editor's backup: never searched or injected (it may stay)"
    rel = f"projects/{slug_for(str(project))}/notes"
    for shown in (f"{rel}/pool.md~", f"{rel}/#pool.md#", "MEMORY.md~"):
        assert f"warn: {shown}: {said}\n" in done.stdout
    assert "rename it" not in done.stdout and "move it out" not in done.stdout


def test_doctor_leaves_an_editors_lock_be(memory_root: Path, project: Path) -> None:
    # Emacs locks a file it has unsaved changes to with a symlink `.#NAME` to a target
    # that names no file. Before: "fix: .#MEMORY.md cannot be read (No such file or
    # directory): never searched or injected; remove it", which undoes Emacs's guard
    # against two people editing the file at once.
    where = ("--project", str(project))
    done = run_cli("write", "--to", "note", "--name", "pool", "--text", "x", *where)
    assert done.returncode == 0, done.stderr
    notes = memory_root / "projects" / slug_for(str(project)) / "notes"
    locks = [memory_root / ".#MEMORY.md", notes / ".#pool.md"]
    for lock in locks:
        lock.symlink_to("ana@laptop.4242:1764900000")
    done = run_cli("doctor", *where)
    assert ".#" not in done.stdout, done.stdout
    assert all(lock.is_symlink() for lock in locks)


_NO_LOCKS = """
import errno, fcntl, sys
def flock(*_):
    raise OSError(errno.ENOLCK, "No locks available")
fcntl.flock = flock  # as on NFS mounted nolock: the kernel refuses every flock
from memhooks.hooks.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


def test_a_file_system_without_locks_is_one_line_not_a_traceback(
    memory_root: Path,
) -> None:
    # Before: on a root where flock fails (NFS mounted nolock, some FUSE file systems)
    # every write, edit and forget ended in "internal error" and a 20-line traceback
    # (exit 3).
    _ok("write", "--to", "memory", "--text", "- deploys need two approvals")
    mine = memory_root / "MEMORY.md"
    for args in (
        ("write", "--to", "memory", "--text", "- one approval"),
        ("edit", "MEMORY.md", "--old", "two", "--new", "one"),
        ("forget", "MEMORY.md", "--line", "two"),
    ):
        done = subprocess.run(
            [sys.executable, "-c", _NO_LOCKS, *args, "--slug", SLUG],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert (done.returncode, done.stdout) == (1, ""), args
        assert done.stderr == (
            f"memhooks: error: cannot write {memory_root / '.memhooks.lock'}: "
            "cannot lock it: No locks available\n"
        ), args
    assert mine.read_bytes() == b"- deploys need two approvals\n"


def test_hooks_on_a_file_system_without_locks_still_inject_and_answer(
    memory_root: Path, project: Path
) -> None:
    # Before: where lockf fails too (NFS mounted nolock), every hook, SessionStart
    # first, answered "OSError: [Errno 37] No locks available; no context": the
    # session's own lock, meant to be skipped where there is none, failed the event.
    _ok("write", "--to", "memory", "--text", "- deploys need two approvals")
    code = _NO_LOCKS.replace("fcntl.flock = flock", "fcntl.flock = fcntl.lockf = flock")
    payload = {"session_id": "s", "cwd": str(project), "source": "startup"}
    done = subprocess.run(
        [sys.executable, "-c", code, "hook"],
        input=json.dumps({**payload, "hook_event_name": "SessionStart"}),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        env={**os.environ, "MEMHOOKS_SESSION_PROCESS": "0"},
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert "deploys need two approvals" in done.stdout

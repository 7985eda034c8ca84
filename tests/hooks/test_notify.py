"""The watch a forked session process starts with: the project's folders alone, and what
it does when that is not enough (a folder created later, another project)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from typing import TYPE_CHECKING

from memhooks.hooks.first import catch_up
from memhooks.hooks.notify import FolderWatch, folders_changed, relative, rust_notify
from memhooks.hooks.runner import Sessions
from memhooks.memory import Store
from tests.processes import session_processes

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


def _until(watch: FolderWatch, want: set[str], timeout: float = 5.0) -> set[str]:
    """What `watch` reports until `want` is all there (or `timeout` passes)."""
    got: set[str] = set()
    deadline = time.monotonic() + timeout
    while not want <= got and time.monotonic() < deadline:
        got |= watch.drain()
        time.sleep(0.02)
    return got


def _files(store: Store) -> dict[str, str]:
    base = f"projects/{store.slug}"
    return {
        "memory": "MEMORY.md",
        "scratchpad": f"{base}/SCRATCHPAD.md",
        "log": f"{base}/daily/2026-01-05.md",
        "note": f"{base}/notes/kafka.md",
    }


def _filled(root: Path, project: Path) -> Store:
    store = Store.for_project(root, project)
    store.write_memory("- Run make test before pushing.")
    store.write_note("kafka", "Kafka consumer settings.")
    rels = _files(store)
    for rel in (rels["scratchpad"], rels["log"]):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("started\n")
    return store


def test_rust_half_loads_without_the_watchfiles_package() -> None:
    """Its package imports anyio and a process runner: more than the whole watch costs."""
    code = (
        "import sys\n"
        "from memhooks.hooks.notify import rust_notify\n"
        "cls = rust_notify()\n"
        "alone = sorted(m for m in ('watchfiles', 'anyio') if m in sys.modules)\n"
        "from watchfiles import Change\n"  # the package, imported later, shares it
        "from watchfiles._rust_notify import RustNotify\n"
        "print(alone, cls is RustNotify, Change.added.value)\n"
    )
    out = subprocess.run(
        [sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["[]", "True", "1"]
    assert rust_notify().__name__ == "RustNotify"


def test_every_kind_of_memory_file_is_reported(
    memory_root: Path, project: Path
) -> None:
    store = _filled(memory_root, project)
    watch = FolderWatch(memory_root, store.slug)
    try:
        assert watch.whole and watch.covers(store.slug)
        rels = _files(store)
        for rel in rels.values():
            with open(memory_root / rel, "a") as f:  # in place: no folder changes
                f.write("zanzibar\n")
        store.write_note("lag", "Consumer lag per partition.")  # created by a rename
        want = {*rels.values(), f"projects/{store.slug}/notes/lag.md"}
        assert _until(watch, want) == want
        assert watch.whole and not watch.covers("elsewhere-0123abcd")
    finally:
        watch.close()


def test_a_folder_missing_or_replaced_is_not_covered(
    memory_root: Path, project: Path
) -> None:
    store = Store.for_project(memory_root, project)
    store.write_memory("- Run make test before pushing.")  # no project folder yet
    early = FolderWatch(memory_root, store.slug)
    assert not early.whole
    early.close()
    store.write_note("kafka", "Kafka consumer settings.")
    (memory_root / "projects" / store.slug / "daily").mkdir()
    watch = FolderWatch(memory_root, store.slug)
    try:
        assert watch.covers(store.slug)
        notes = memory_root / "projects" / store.slug / "notes"
        shutil.rmtree(notes)  # a checkout of the memory root replacing the folder
        notes.mkdir()
        deadline = time.monotonic() + 5
        while watch.whole and time.monotonic() < deadline:
            watch.drain()
            time.sleep(0.02)
        assert not watch.covers(store.slug)
    finally:
        watch.close()


def _started(
    root: Path, project: Path
) -> tuple[Sessions, FolderWatch, Callable[[str], list[str]]]:
    """A session process before its first answer (`hooks.first.start`), and a search."""
    sessions = Sessions(root, keep=True)
    view = sessions.view(str(project))
    watch = FolderWatch(root, view.store.slug)
    view.read_in_background()

    def search(query: str) -> list[str]:
        return [h.rel.rsplit("/", 1)[1] for h in view.search(query).hits]

    return sessions, watch, search


def test_a_note_in_a_folder_made_after_the_watch_is_found_by_the_first_answer(
    memory_root: Path, project: Path, walks: list[int]
) -> None:
    """A new project has no notes folder yet: the first note creates it, after the watch
    began and the files were listed, and nothing reports the note itself."""
    store = Store.for_project(memory_root, project)
    store.write_memory("- Run make test before pushing.")
    (memory_root / "projects" / store.slug / "daily").mkdir(parents=True)
    sessions, watch, search = _started(memory_root, project)
    try:
        store.write_note("kafka", "The lag alert threshold is zanzibar.")
        walks.clear()
        catch_up(watch, sessions)  # what happens before each early request
        assert search("zanzibar threshold") == ["kafka.md"]
        assert walks == [1]  # listed afresh: the watch alone could not tell
    finally:
        watch.close()


def test_a_name_the_watch_cannot_decode_leaves_the_first_answers_searching(
    memory_root: Path, project: Path
) -> None:
    # Seen with the real Claude Code (2.1.332, test_editor_saves.py): a note named in
    # Latin-1 (caf\xe9.md) read by the block of the session /clear started: watchfiles
    # gave up ("Unable to decode path"), the exception ended the forked session process
    # before it served, and its socket stayed in the runtime folder after /exit.
    store = _filled(memory_root, project)
    sessions, watch, search = _started(memory_root, project)
    try:
        bad = os.path.join(os.fsencode(memory_root / "projects" / store.slug), b"notes")
        with open(os.path.join(bad, b"caf\xe9.md"), "wb") as f:
            f.write(b"pastry order\n")
        store.write_note("lag", "The lag alert threshold is zanzibar.")
        time.sleep(0.1)
        catch_up(watch, sessions)  # the events name the file: the watch gives up
        assert search("zanzibar threshold") == ["lag.md"]  # found by a listing
        assert not watch.covers(store.slug)
    finally:
        watch.close()


def test_a_project_wholly_watched_is_not_listed_again(
    memory_root: Path, project: Path, walks: list[int]
) -> None:
    store = _filled(memory_root, project)
    sessions, watch, search = _started(memory_root, project)
    try:
        with open(memory_root / _files(store)["note"], "a") as f:
            f.write("The lag alert threshold is zanzibar.\n")
        walks.clear()
        deadline = time.monotonic() + 5
        found: list[str] = []
        while not found and time.monotonic() < deadline:
            time.sleep(0.02)  # until the edit reaches the watcher's thread
            catch_up(watch, sessions)
            found = search("zanzibar threshold")
        assert found == ["kafka.md"]
        assert walks == []
    finally:
        watch.close()


def test_another_projects_view_catches_up_with_the_disk(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    """The first request may come from another project: its folders are not watched
    until the session process hands over to a recursive watch."""
    _filled(memory_root, project)
    sessions, watch, _ = _started(memory_root, project)
    other = tmp_path / "billing"
    (other / ".git").mkdir(parents=True)
    theirs = Store.for_project(memory_root, other)
    theirs.write_note("invoices", "Invoices are sent on the first.")
    view = sessions.view(str(other))
    try:
        assert view.search("invoices").hits
        path = memory_root / "projects" / theirs.slug / "notes" / "invoices.md"
        path.write_text("Invoices moved to the billing service: zanzibar.\n")
        catch_up(watch, sessions)
        assert [h.rel for h in view.search("zanzibar").hits] == [
            f"projects/{theirs.slug}/notes/invoices.md"
        ]
    finally:
        watch.close()


def test_a_first_note_written_right_after_session_start_is_found(
    memory_root: Path, project: Path
) -> None:
    """Through the hook commands: the session process starts watching a project with no
    notes folder, and the first prompt still finds the note that created it."""
    store = Store.for_project(memory_root, project)
    store.write_memory("- Run make test before pushing.")

    def hook(event: str, **extra: object) -> subprocess.CompletedProcess[str]:
        payload = {
            "session_id": "new-1",
            "cwd": str(project),
            "hook_event_name": event,
            **extra,
        }
        return subprocess.run(
            [sys.executable, "-m", "memhooks.hooks", "hook"],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env={**os.environ, "MEMHOOKS_SESSION_PROCESS": "1"},
            timeout=30,
            check=False,
        )

    assert "Run make test" in hook("SessionStart", source="startup").stdout
    store.write_note("kafka", "The lag alert threshold is zanzibar.")
    time.sleep(0.3)  # the watcher's debounce
    reply = hook("UserPromptSubmit", prompt="what is the zanzibar threshold?")
    assert reply.returncode == 0, reply.stderr
    assert "lag alert threshold is zanzibar" in reply.stdout, reply.stdout
    hook("SessionEnd", reason="other")
    deadline = time.monotonic() + 10
    while session_processes(memory_root) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not session_processes(memory_root)


def test_a_file_of_a_project_folder_linked_in_the_root_is_named_by_its_project(
    tmp_path: Path,
) -> None:
    # A project's memory kept in another folder of the root and linked in: the watcher
    # names an edit there by the link's path or by its target's, whichever it met
    # first. Before, both came out as "vault/notes/pump.md", a file of no project, and a
    # session process never saw the note written mid-session.
    root = tmp_path / "root"
    (root / "vault" / "notes").mkdir(parents=True)
    (root / "projects").mkdir()
    (root / "projects" / "shop-0123abcd").symlink_to("../vault")
    (root / "projects" / "out-0123abcd").symlink_to(tmp_path)  # outside: refused
    want = "projects/shop-0123abcd/notes/pump.md"
    for path in (
        root / "vault" / "notes" / "pump.md",
        root / "projects" / "shop-0123abcd" / "notes" / "pump.md",
    ):
        got = relative({(1, str(path))}, os.path.realpath(root))
        assert want in got and not any(r.startswith("projects/out") for r in got)


def test_a_note_that_is_a_link_is_named_by_its_own_name(tmp_path: Path) -> None:
    # `ln -sf gull.md puffin.md` mid-session: the watcher names puffin.md, which was
    # resolved to gull.md, so puffin.md kept its old text in the session's index
    # (2026-12-06, test_editor_saves.py).
    notes = tmp_path / "projects" / "shop-0123abcd" / "notes"
    notes.mkdir(parents=True)
    (notes / "gull.md").write_text("gull\n")
    (notes / "puffin.md").symlink_to("gull.md")
    got = relative({(1, str(notes / "puffin.md"))}, os.path.realpath(tmp_path))
    assert got == {"projects/shop-0123abcd/notes/puffin.md"}


def test_a_folder_of_memory_files_moved_whole_is_told(tmp_path: Path) -> None:
    # `mv notes elsewhere` is reported as the folder alone, no file of it.
    base = os.path.realpath(tmp_path)
    project = tmp_path / "projects" / "shop-0123abcd"
    for rel in ("projects", project, project / "notes", project / "daily"):
        assert folders_changed({(3, str(tmp_path / rel))}, base), rel
    for other in (
        project / "notes" / "pump.md",
        project / "notes" / "sedK9e5N9",  # `sed -i`'s temp file
        project / "notes" / "drafts",
        tmp_path / ".git" / "objects",
        tmp_path / "MEMORY.md",
    ):
        assert not folders_changed({(1, str(other))}, base), other


def test_memory_md_and_a_scratchpad_linked_in_are_named_when_their_target_changes(
    tmp_path: Path,
) -> None:
    # MEMORY.md kept in another folder of the root and linked in (memhooks writes
    # through the link): the watcher names the file written, never MEMORY.md, and a
    # rule changed mid-session was told to no prompt (2026-12-06, test_editor_saves.py).
    shared = tmp_path / "shared"
    project = tmp_path / "projects" / "shop-0123abcd"
    shared.mkdir()
    project.mkdir(parents=True)
    (shared / "rules.md").write_text("- rule\n")
    (shared / "pad.md").write_text("- [ ] item\n")
    (tmp_path / "MEMORY.md").symlink_to("shared/rules.md")
    (project / "SCRATCHPAD.md").symlink_to("../../shared/pad.md")
    base = os.path.realpath(tmp_path)
    got = relative({(2, str(shared / "rules.md")), (2, str(shared / "pad.md"))}, base)
    assert got == {
        "shared/rules.md",
        "shared/pad.md",
        "MEMORY.md",
        "projects/shop-0123abcd/SCRATCHPAD.md",
    }

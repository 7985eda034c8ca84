"""A forked session process's listing: from its hook's walk while a request waits, then
from a walk of its own (`hooks.listing`, `hooks.first`)."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from typing import TYPE_CHECKING

from memhooks.hooks.first import Started, answer_first, start
from memhooks.hooks.listing import Listing, walk
from memhooks.hooks.runner import Sessions
from memhooks.hooks.wire import request
from memhooks.memory import Store

if TYPE_CHECKING:
    from pathlib import Path


def _settled(root: Path, project: Path) -> Store:
    """A project whose files and folders all changed an hour ago."""
    store = Store.for_project(root, project)
    store.write_memory("- Run make test before pushing.")
    store.write_note("kafka", "Kafka consumer settings.")
    store.write_note("payments", "The Stripe webhook secret lives in vault.")
    hour_ago = time.time() - 3600
    for path in [root, *root.rglob("*")]:
        os.utime(path, (hour_ago, hour_ago))
    return store


def _names(listing: Listing) -> dict[str, int]:
    return {f.rel.split("/")[-1]: f.size for f in listing.files()}


def test_a_listing_starts_from_the_hooks_walk_and_finishes_with_its_own(
    memory_root: Path, project: Path, walks: list[int]
) -> None:
    """Until it finishes, an edit in place since the hook's walk is not in it (the window
    the first prompt sent at once accepts); `finish` finds it."""
    store = _settled(memory_root, project)
    seed = walk(store)
    note = memory_root / "projects" / store.slug / "notes" / "kafka.md"
    with open(note, "a") as f:  # in place: no folder's time changes
        f.write("The lag alert threshold is zanzibar.\n")
    walks.clear()
    listing = Listing(store, seed)
    assert not listing.complete and walks == []
    before = _names(listing)["kafka.md"]
    assert listing.finish() == [f"projects/{store.slug}/notes/kafka.md"]
    assert listing.complete and walks == [1]
    assert _names(listing)["kafka.md"] == note.stat().st_size > before
    assert listing.finish() == [] and walks == [1]


def test_a_request_arriving_stops_the_listing_part_way(
    memory_root: Path, project: Path
) -> None:
    """The files are listed while no request waits; one that comes is answered first."""
    store = _settled(memory_root, project)
    for i in range(600):  # a few looks for a request
        (memory_root / "projects" / store.slug / "notes" / f"n{i}.md").write_text("x")
    seed = walk(store)
    note = memory_root / "projects" / store.slug / "notes" / "kafka.md"
    with open(note, "a") as f:
        f.write("The lag alert threshold is zanzibar.\n")
    listing = Listing(store, seed)
    looks: list[int] = []

    def waiting() -> bool:
        looks.append(1)
        return len(looks) > 1  # a request, once the listing has begun

    assert listing.finish(waiting) == [] and not listing.complete
    assert len(looks) == 2 and _names(listing)["kafka.md"] < note.stat().st_size
    assert listing.finish() == [f"projects/{store.slug}/notes/kafka.md"]


def test_a_file_created_or_deleted_since_the_walk_is_listed_afresh(
    memory_root: Path, project: Path
) -> None:
    store = _settled(memory_root, project)
    seed = walk(store)
    store.write_note("lag", "Consumer lag is measured per partition.")
    listing = Listing(store, seed)
    assert listing.complete and "lag.md" in _names(listing)
    seed = walk(store)
    (memory_root / "projects" / store.slug / "notes" / "payments.md").unlink()
    listing = Listing(store, seed)
    assert listing.complete and "payments.md" not in _names(listing)


def test_a_folder_changed_just_before_the_walk_is_compared_by_name(
    memory_root: Path, project: Path
) -> None:
    """A file created in the same tick of the file system's clock as the change before
    the walk leaves its folder's time as it was: its names tell."""
    store = Store.for_project(memory_root, project)
    store.write_note("kafka", "Kafka consumer settings.")
    notes = memory_root / "projects" / store.slug / "notes"
    seed = walk(store)  # the notes folder changed a moment ago
    assert not Listing(store, seed).complete  # the same names: the walk serves
    stamp = notes.stat().st_mtime_ns
    store.write_note("lag", "Consumer lag is measured per partition.")
    os.utime(notes, ns=(stamp, stamp))  # that tick
    listing = Listing(store, seed)
    assert listing.complete and "lag.md" in _names(listing)


def test_a_paused_listing_goes_on_from_where_it_stopped(
    memory_root: Path, project: Path
) -> None:
    """Requests that come one after another still let it finish (each pause keeps what
    was listed), and an edit the watcher reports meanwhile is kept as it is now."""
    store = _settled(memory_root, project)
    notes = memory_root / "projects" / store.slug / "notes"
    for i in range(600):
        (notes / f"n{i}.md").write_text("x")
    listing = Listing(store, walk(store))
    assert listing.finish(lambda: True) == [] and not listing.complete
    for i in range(600):  # some listed before the pause, some not yet
        (notes / f"n{i}.md").write_text("edited")
    listing.update(f"projects/{store.slug}/notes/n{i}.md" for i in range(600))
    for _ in range(3):
        listing.finish(lambda: True)
    assert listing.complete
    sizes = _names(listing)
    assert all(sizes[f"n{i}.md"] == len("edited") for i in range(600))


def _first(
    root: Path, project: Path, *, sent_before: bool, probed: bool = False
) -> tuple[list[str], str | None]:
    """What a session process did before its first answer, in order, and the answer's
    kind; `probed`: a liveness probe (connect, hang up) came first."""
    path = str(root / f"{sent_before}{probed}.sock")
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen()
    if probed:
        with socket.socket(socket.AF_UNIX) as probe:
            probe.connect(path)
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "kafka consumer settings",
    }
    raw = request("claude-code", json.dumps(payload).encode())
    assert raw is not None

    def send() -> None:
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(path)
            client.sendall(raw)
            client.shutdown(socket.SHUT_WR)
            client.recv(65536)

    done: list[str] = []
    sender = threading.Thread(target=send)
    if sent_before:
        sender.start()
        time.sleep(0.2)  # connected: the request waits
    try:
        kind = answer_first(
            server,
            Sessions(root, keep=True),
            None,
            lambda: done.append("changes"),
            lambda waiting: _noted(done, "waiting" if waiting() else "idle"),
        )
        if not sent_before:
            sender.start()
            kind = kind or answer_first(
                server, Sessions(root, keep=True), None, lambda: done.append("changes")
            )
    finally:
        sender.join(10)
        server.close()
    return done, kind


def _noted(done: list[str], what: str) -> bool:
    done.append(what)
    return what == "idle"  # listed whole unless a request came


def test_the_files_are_listed_only_while_no_request_waits(
    memory_root: Path, project: Path
) -> None:
    _settled(memory_root, project)
    done, kind = _first(memory_root, project, sent_before=True)
    assert (done, kind) == (["waiting", "changes"], "pre-prompt")
    done, kind = _first(memory_root, project, sent_before=False)
    assert (done, kind) == (["idle", "changes"], "pre-prompt")
    # A probe is no request: the listing goes on once it has hung up.
    done, kind = _first(memory_root, project, sent_before=False, probed=True)
    assert (done, kind) == (["waiting", "idle", "changes"], "pre-prompt")


def _started(
    root: Path, project: Path, events: list[dict[str, str]]
) -> tuple[Started, list[bytes]]:
    """What a forked session process's start did with `events`, all sent (in order)
    before it began, and what each client got back."""
    path = str(root / "start.sock")
    clients = []
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(path)
        server.listen()
        for event in events:
            payload = {"session_id": "s", "cwd": str(project), **event}
            raw = request("claude-code", json.dumps(payload).encode())
            assert raw is not None
            client = socket.socket(socket.AF_UNIX)
            client.connect(path)  # queued: it waits to be accepted
            client.sendall(raw)
            client.shutdown(socket.SHUT_WR)
            clients.append(client)
        started = start(server, root, None, str(project), None)
    replies = []
    for client in clients:
        with client:
            client.settimeout(10)
            try:
                replies.append(client.recv(65536))
            except ConnectionResetError:  # never accepted: the process left first
                replies.append(b"")
    started.watcher.close()
    if started.recursive is not None:
        started.recursive.close()
    return started, replies


def _prompt(text: str) -> dict[str, str]:
    return {"hook_event_name": "UserPromptSubmit", "prompt": text}


def test_prompts_that_come_while_it_starts_are_answered_before_its_event_loop(
    memory_root: Path, project: Path
) -> None:
    """The prompts after the first, while the process makes its event loop ready (the
    listing finished, its modules loaded, the whole root watched: ~0.3 s at ten thousand
    notes), are answered between those steps, not after all of them."""
    _settled(memory_root, project)
    events = [_prompt("kafka consumer settings"), _prompt("stripe webhook secret")]
    started, replies = _started(memory_root, project, events)
    assert started.answered == "pre-prompt" and started.recursive is not None
    assert b"kafka.md" in replies[0] and b"payments.md" in replies[1]


def test_a_session_end_while_it_starts_ends_it_there(
    memory_root: Path, project: Path
) -> None:
    """A session that ends while its process starts: the rest of the start is left
    undone, and the process leaves without an event loop."""
    _settled(memory_root, project)
    end = {"hook_event_name": "SessionEnd", "reason": "other"}
    events = [_prompt("kafka consumer settings"), end, _prompt("stripe webhook")]
    started, replies = _started(memory_root, project, events)
    assert started.answered == "session-end" and started.recursive is None
    assert b"kafka.md" in replies[0] and replies[2] == b""  # never answered

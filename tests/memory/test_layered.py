"""The on-disk index (memory.segment) plus the files changed since it was written
(memory.layered) rank exactly as an index of every file read afresh, whatever changed."""

from __future__ import annotations

import contextlib
import os
import random
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

from memhooks.memory import Store, keytable, search, search_docs, today
from memhooks.memory import changes as changes_mod
from memhooks.memory import layered as layered_mod
from memhooks.memory.errors import CorruptSegment
from memhooks.memory.layered import open_index
from memhooks.memory.render import to_json
from memhooks.memory.scope import Found, Scope
from memhooks.memory.searching import search_index
from memhooks.memory.segment import Bytes, Segment, encode
from tests.memory.test_index import SLUG, WORDS, _random_root

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from pathlib import Path


def _answer(result: object) -> object:
    return to_json(result, 1_000_000)  # type: ignore[arg-type]


#: Weights for `WORDS` as a language uses its words (Zipf: the r-th by 1/r).
_ZIPF = [1 / r for r in range(1, len(WORDS) + 1)]


def _notes(
    memory_root: Path, rng: random.Random, count: int, words: Callable[[], list[str]]
) -> Store:
    """`count` notes of `words()`, four words a line, under random names."""
    folder = memory_root / "projects" / SLUG / "notes"
    folder.mkdir(parents=True)
    for n in range(count):
        drawn = words()
        text = "\n".join(" ".join(drawn[i : i + 4]) for i in range(0, len(drawn), 4))
        (folder / f"{rng.choice(WORDS)}-{n}.md").write_text(text + "\n")
    return Store(memory_root, SLUG)


def _bump(path: Path, rng: random.Random) -> None:
    # A modification time the index cannot have seen (file systems stamp coarsely).
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + rng.randint(1, 10**9)))


def _write(path: Path, text: str, *, rename: bool) -> None:
    # In place, as most programs write; or as memhooks and some editors do: a new file
    # renamed over the old one.
    if not rename:
        path.write_text(text)
        return
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _edit(store: Store, rng: random.Random, *, rename: bool = False) -> None:
    """Change, delete, add and forget a few files, as a person or agent would."""
    root = store.root
    files = sorted((root / "projects" / SLUG).rglob("*.md"))
    for path in rng.sample(files, k=min(len(files), rng.randint(1, 4))):
        action = rng.choice(["rewrite", "append", "delete"])
        if action == "delete":
            path.unlink()
            continue
        text = path.read_text() if action == "append" else ""
        _write(path, text + " ".join(rng.choices(WORDS, k=5)) + "\n", rename=rename)
        _bump(path, rng)
    for n in range(rng.randint(0, 3)):
        store.write_note(
            f"new-{rng.choice(WORDS)}-{n}", " ".join(rng.choices(WORDS, k=6))
        )
    notes = sorted((root / "projects" / SLUG / "notes").glob("*.md"))
    if notes and rng.random() < 0.5:
        victim = rng.choice(notes)
        text = "forgotten: 2026-11-30 — stale\n" + victim.read_text()
        _write(victim, text, rename=rename)
        _bump(victim, rng)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("rename", [False, True], ids=["in-place", "renamed"])
def test_index_file_and_changes_rank_as_a_fresh_read(
    memory_root: Path,
    seed: int,
    rename: bool,
    trusting: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Writes in place are seen by a full check; files created, deleted or renamed over
    # (memhooks' own writes) at once, from the folders' modification times.
    if not rename:
        monkeypatch.setattr(layered_mod, "FULL_CHECK_NS", -1)
    rng = random.Random(seed)
    store = _random_root(memory_root, rng)
    search(store, "deploy")  # builds the index file
    assert (memory_root / ".index" / f"{SLUG}.mhix").is_file()
    _edit(store, rng, rename=rename)
    docs = store.corpus()
    session = open_index(store, docs=docs)  # a session process opens it the same way
    for _ in range(6):
        query = " ".join(rng.choices(WORDS, k=rng.randint(1, 4)))
        fresh = _answer(search_docs(docs.values(), query))
        assert _answer(search(store, query)) == fresh, query
        assert _answer(search_index(session, query)) == fresh, query
    # ... and keeps doing so as the session patches it per edited file
    _edit(store, rng)
    now = store.corpus()
    for rel in docs.keys() | now.keys():
        if rel not in now:
            session.remove(rel)
        elif docs.get(rel) != now[rel]:
            session.add(now[rel])
    for _ in range(6):
        query = " ".join(rng.choices(WORDS, k=rng.randint(1, 4)))
        assert _answer(search_index(session, query)) == _answer(
            search_docs(now.values(), query)
        ), query


@pytest.mark.parametrize("seed", range(3))
def test_a_common_word_ranks_as_a_fresh_read_past_the_hit_limit(
    memory_root: Path, seed: int, trusting: None
) -> None:
    # A word in nearly every file, more files than any output shows (rank.MAX_HITS), and
    # many equal scores at the cut: the index file ranks them as reading every file does.
    rng = random.Random(seed)
    store = _notes(
        memory_root,
        rng,
        260,
        lambda: ["common", *rng.choices(WORDS, _ZIPF, k=rng.randint(0, 12))],
    )
    search(store, "common")  # builds the index file
    _edit(store, rng, rename=True)
    docs = store.corpus()
    session = open_index(store, docs=docs)
    rare = WORDS[-6:]
    for query in ["common", f"common {rare[0]} {rare[1]}", f"{WORDS[0]} common"]:
        fresh = _answer(search_docs(docs.values(), query))
        assert _answer(search(store, query)) == fresh, query
        assert _answer(search_index(session, query)) == fresh, query


def test_a_search_stats_every_file_only_when_a_folder_changed_or_time_passed(
    memory_root: Path, trusting: None, monkeypatch: pytest.MonkeyPatch, walks: list[int]
) -> None:
    monkeypatch.setattr(layered_mod, "FULL_CHECK_NS", 10**12)  # however slow the test
    rng = random.Random(3)
    store = _random_root(memory_root, rng)
    search(store, "deploy")  # builds the index file, then checks every file
    walks.clear()
    assert search(store, "deploy").hits
    assert walks == []  # nothing changed: four folders stat'ed, no file
    store.write_note("zeta-note", "zeta deploy")  # a rename into notes/
    assert [h.rel for h in search(store, "zeta").hits] == [
        f"projects/{SLUG}/notes/zeta-note.md"
    ]
    assert walks == [1]
    assert search(store, "zeta").hits
    assert walks == [1]  # what the check found is trusted until a folder changes
    path = memory_root / "projects" / SLUG / "notes" / "zeta-note.md"
    path.write_text("omega\n")  # in place: its folder keeps its time
    _bump(path, rng)
    monkeypatch.setattr(layered_mod, "FULL_CHECK_NS", 0)  # ... until the time is up
    assert [h.rel for h in search(store, "omega").hits] == [
        f"projects/{SLUG}/notes/zeta-note.md"
    ]
    # its name still says zeta, its text no longer does
    assert [h.filename_only for h in search(store, "zeta").hits] == [True]
    assert walks == [1, 1, 1]


@pytest.mark.parametrize("target", ["MEMORY.md", "scratchpad", "today"])
def test_a_line_a_person_appends_in_place_is_found_at_once(
    memory_root: Path,
    trusting: None,
    monkeypatch: pytest.MonkeyPatch,
    walks: list[int],
    target: str,
) -> None:
    # `echo "- kafka is on 9092" >> MEMORY.md` leaves its folder's time as it was. Before:
    # a search within 10 s of the last full check said "kafka(0) … No matches".
    monkeypatch.setattr(layered_mod, "FULL_CHECK_NS", 10**12)  # however slow the test
    store = _random_root(memory_root, random.Random(5))
    store.write_memory("- deploy on Fridays only")
    store.write_scratchpad("- [ ] rotate the deploy keys")
    store.append_daily("deploy", "deployed the api")
    search(store, "deploy")  # builds the index file, then checks every file
    walks.clear()
    assert search(store, "deploy").hits and walks == []  # trusted: no file stat'ed
    rel = {"MEMORY.md": "MEMORY.md", "scratchpad": "scratchpad", "today": None}[target]
    path = store.path(store.locate(rel or f"daily/{today()}").rel)
    with path.open("a", encoding="utf-8") as f:
        f.write("- [ ] kafka broker moved to 9093\n")
    _bump(path, random.Random(6))
    assert [h.rel for h in search(store, "kafka").hits] == [
        store.locate(rel or f"daily/{today()}").rel
    ]


#: A session process's watch of the scope, in a process of its own: "changed" on stdin
#: is its watcher reporting a change; it vouches until stdin closes.
WATCHER = """
import sys
from memhooks.memory import Store
from memhooks.memory.index_file import Watch
watch = Watch(Store(sys.argv[1], sys.argv[2]))
print("watching", flush=True)
for line in sys.stdin:
    watch.changed()
    print("changed", flush=True)
"""


@contextlib.contextmanager
def _watching(memory_root: Path) -> Iterator[subprocess.Popen[str]]:
    """`WATCHER` started, once it watches; it stops vouching on the way out."""
    watcher = subprocess.Popen(
        [sys.executable, "-c", WATCHER, str(memory_root), SLUG],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert watcher.stdin and watcher.stdout
    try:
        assert watcher.stdout.readline() == "watching\n"
        yield watcher
    finally:
        watcher.stdin.close()
        watcher.wait(timeout=10)
        watcher.stdout.close()


def test_a_watcher_vouches_for_what_a_search_found_until_it_reports_a_change(
    memory_root: Path, trusting: None, monkeypatch: pytest.MonkeyPatch, walks: list[int]
) -> None:
    """The model running `memhooks search` minutes apart in a session: the session
    process's watcher saw no change, so no search stats every file again."""
    store = _random_root(memory_root, random.Random(5))
    search(store, "deploy")  # builds the index file
    walks.clear()
    search(store, "deploy")
    assert walks == []  # a check made a moment ago is trusted ...
    monkeypatch.setattr(layered_mod, "FULL_CHECK_NS", 0)  # ... until its time is up
    search(store, "deploy")
    assert walks == [1]  # no watcher: a full check per search
    with _watching(memory_root) as watcher:
        assert watcher.stdin and watcher.stdout
        monkeypatch.setattr(layered_mod, "FULL_CHECK_NS", 10**12)
        search(store, "deploy")
        assert walks == [1, 1]  # found before the watch began: not trusted, even recent
        monkeypatch.setattr(layered_mod, "FULL_CHECK_NS", 0)
        assert search(store, "deploy").hits
        assert search(store, "deploy").hits
        assert walks == [1, 1]  # vouched for: no file stat'ed
        rel = f"projects/{SLUG}/notes/omega-note.md"
        path = memory_root / rel
        path.write_text("omega\n")  # created: its folder's time tells at once
        assert [h.rel for h in search(store, "omega").hits] == [rel]
        assert walks == [1, 1, 1]
        path.write_text("psi\n")  # in place: only the watcher can tell
        _bump(path, random.Random(1))
        watcher.stdin.write("changed\n")
        watcher.stdin.flush()
        assert watcher.stdout.readline() == "changed\n"
        assert [h.rel for h in search(store, "psi").hits] == [rel]
        assert walks == [1, 1, 1, 1]
    search(store, "deploy")
    assert walks == [1, 1, 1, 1, 1]  # nobody watches: a full check again


def test_files_written_just_before_the_build_are_not_read_on_every_search_it_vouches_for(
    memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `git pull` of many notes, a `memhooks search` at once (it builds the index file),
    an agent's session open: every later search read every one of those notes again
    (about a second instead of 60 ms at 10,000 notes) while the session lasted."""
    monkeypatch.setattr(layered_mod, "RACY_NS", 2_000_000_000)
    store = Store(memory_root, SLUG)
    for n in range(changes_mod.REBUILD_MIN * 2):
        store.write_note(f"n{n}", f"alpha {n}")
    search(store, "alpha")  # the index file of the notes as they were
    read: list[int] = []
    scan = Scope.scan

    def counted(self: Scope, keep: object, files: Iterable[Found]) -> object:
        files = list(files)
        read.append(len(files))
        return scan(self, keep, files)  # type: ignore[arg-type]

    monkeypatch.setattr(Scope, "scan", counted)
    with _watching(memory_root):
        now = time.time_ns()
        for path in (memory_root / "projects" / SLUG / "notes").iterdir():
            os.utime(path, ns=(now, now))  # the pull: all written this very moment
        for rel in store.folders():  # ... in folders whose times tell nothing new
            if (memory_root / rel).is_dir():
                os.utime(memory_root / rel, ns=(now - 10**10, now - 10**10))
        first = _answer(search(store, "alpha"))  # builds the index file anew
        assert read[-1] == changes_mod.REBUILD_MIN * 2  # too new to trust
        time.sleep(2.1)
        assert _answer(search(store, "alpha")) == first  # built anew once more
        assert _answer(search(store, "alpha")) == first
        assert read[-1] == 0


#: Another process building the scope's index file: it holds the ``.building`` lock from
#: "held" on, and writes the file and lets go when a line comes on stdin.
BUILDER = """
import os, sys
from memhooks.memory import Store
from memhooks.memory.index_file import building
from memhooks.memory.layered import open_index
store = Store(sys.argv[1], sys.argv[2])
with building(store) as ours:
    print("held" if ours else "not ours", flush=True)
    sys.stdin.readline()
    open_index(store)
    print(os.stat(sys.argv[3]).st_ino, flush=True)
"""


def _builder(memory_root: Path, path: Path) -> subprocess.Popen[str]:
    """`BUILDER` started, once it holds the lock."""
    builder = subprocess.Popen(
        [sys.executable, "-c", BUILDER, str(memory_root), SLUG, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert builder.stdin and builder.stdout
    assert builder.stdout.readline() == "held\n"
    return builder


def test_a_search_waits_for_the_index_file_another_process_is_building(
    memory_root: Path,
) -> None:
    """A session process builds the index file it finds missing, and so does a one-shot
    search the model runs meanwhile: two builds at once, both cores busy for as long
    (seconds at ten thousand notes). The search waits for the other build and reads
    the file it wrote."""
    import threading

    store = _random_root(memory_root, random.Random(5))
    path = memory_root / ".index" / f"{SLUG}.mhix"
    builder = _builder(memory_root, path)
    assert builder.stdin and builder.stdout
    found: list[object] = []
    searching = threading.Thread(target=lambda: found.append(search(store, "deploy")))
    try:
        searching.start()
        searching.join(timeout=3)  # long enough to build this root several times over
        assert searching.is_alive()
        assert not path.exists()  # the search built none of its own
        builder.stdin.write("build\n")
        builder.stdin.flush()
        built = int(builder.stdout.readline())
        searching.join(timeout=60)
        assert not searching.is_alive()
    finally:
        builder.stdin.close()
        builder.wait(timeout=60)
        builder.stdout.close()
    assert path.stat().st_ino == built  # read, not written again
    expected = search_docs(store.corpus().values(), "deploy")
    assert [_answer(r) for r in found] == [_answer(expected)]


def test_a_search_builds_the_index_file_when_another_build_holds_on_too_long(
    memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-shot search stopped with ^Z while it builds holds the lock for good: the
    next search builds the file itself after `index_file.WAIT_MOST`."""
    from memhooks.memory import index_file

    monkeypatch.setattr(index_file, "WAIT_MOST", 0.3)
    store = _random_root(memory_root, random.Random(5))
    path = memory_root / ".index" / f"{SLUG}.mhix"
    builder = _builder(memory_root, path)
    assert builder.stdin and builder.stdout
    try:
        found = search(store, "deploy")
        assert path.is_file()
    finally:
        builder.kill()
        builder.wait(timeout=60)
        builder.stdin.close()
        builder.stdout.close()
    expected = search_docs(store.corpus().values(), "deploy")
    assert _answer(found) == _answer(expected)


@pytest.mark.parametrize(
    "note", [b"", b"MHSEEN1 x", b"\xff\xfe", b"MHSEEN1 1 2 3\n9 9\n"]
)
def test_a_damaged_note_beside_the_index_changes_no_answer(
    memory_root: Path, trusting: None, note: bytes
) -> None:
    rng = random.Random(5)
    store = _random_root(memory_root, rng)
    queries = [" ".join(rng.choices(WORDS, k=3)) for _ in range(3)]
    expected = [_answer(search_docs(store.corpus().values(), q)) for q in queries]
    search(store, queries[0])
    (memory_root / ".index" / f"{SLUG}.seen").write_bytes(note)
    assert [_answer(search(store, q)) for q in queries] == expected


def test_many_changes_rebuild_the_file_few_do_not(
    memory_root: Path, trusting: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(changes_mod, "REBUILD_MIN", 3)
    monkeypatch.setattr(changes_mod, "REBUILD_SHARE", 0.0)
    store = Store(memory_root, SLUG)
    for n in range(10):
        store.write_note(f"n{n}", f"alpha {n}")
    index_file = memory_root / ".index" / f"{SLUG}.mhix"
    search(store, "alpha")
    built = index_file.stat().st_mtime_ns
    store.write_note("n0", "beta", mode="overwrite")
    assert [h.rel for h in search(store, "beta").hits] == [
        f"projects/{SLUG}/notes/n0.md"
    ]
    assert index_file.stat().st_mtime_ns == built  # one change: read, not rebuilt
    for n in range(1, 5):
        store.write_note(f"n{n}", "beta", mode="overwrite")
    assert len(search(store, "beta").hits) == 5
    assert index_file.stat().st_mtime_ns != built


def test_a_file_rewritten_just_after_the_build_is_read_again(memory_root: Path) -> None:
    # Same size, same modification time (a coarse clock): only its age tells.
    store = Store(memory_root, SLUG)
    store.write_note("n", "alpha")
    path = memory_root / "projects" / SLUG / "notes" / "n.md"
    search(store, "alpha")
    stamp = path.stat().st_mtime_ns
    path.write_text(path.read_text().replace("alpha", "gamma"))
    os.utime(path, ns=(stamp, stamp))
    assert [h.rel for h in search(store, "gamma").hits] == [
        f"projects/{SLUG}/notes/n.md"
    ]
    assert search(store, "alpha").hits == ()


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[: len(b) // 2],
        lambda b: b[:-1],
        lambda b: b"",
        lambda b: b"\0" * len(b),
        lambda b: bytes(reversed(b)),
        lambda b: b[:40] + b"\xff" * 64 + b[104:],
    ],
)
def test_a_damaged_index_file_changes_no_answer(
    memory_root: Path, trusting: None, damage: object
) -> None:
    rng = random.Random(7)
    store = _random_root(memory_root, rng)
    queries = [" ".join(rng.choices(WORDS, k=3)) for _ in range(5)]
    expected = [_answer(search_docs(store.corpus().values(), q)) for q in queries]
    search(store, queries[0])
    index_file = memory_root / ".index" / f"{SLUG}.mhix"
    index_file.write_bytes(damage(index_file.read_bytes()))  # type: ignore[operator]
    assert [_answer(search(store, q)) for q in queries] == expected
    Segment(Bytes(index_file.read_bytes()))  # rebuilt whole, or never trusted again


def test_a_damaged_block_of_a_key_table_is_caught_when_a_word_falls_in_it(
    memory_root: Path, trusting: None
) -> None:
    # A search reads the fence of each run of words and the block each of its keys falls
    # in, not the whole table: damage there is caught by the block's CRC-32 when a word
    # is looked up, and the file is built anew.
    store = _random_root(memory_root, random.Random(11))
    expected = {w: _answer(search_docs(store.corpus().values(), w)) for w in WORDS}
    search(store, WORDS[0])
    index_file = memory_root / ".index" / f"{SLUG}.mhix"
    data = bytearray(index_file.read_bytes())
    n, name_bytes = keytable._RUN.unpack_from(data, 0)[:2]  # the first run: of words
    names = keytable._RUN.size + 16 * (n + 1) - 4
    data[names : names + name_bytes] = data[names : names + name_bytes].upper()
    index_file.write_bytes(bytes(data))
    assert {w: _answer(search(store, w)) for w in WORDS} == expected
    assert index_file.read_bytes() != bytes(data)  # built anew


def test_segment_refuses_what_it_did_not_write() -> None:
    for junk in (b"", b"MHIX", b"x" * 100, bytes(range(256)) * 3):
        with pytest.raises(CorruptSegment):
            Segment(Bytes(junk))
    whole = b"".join(encode([], 0))
    assert len(Segment(Bytes(whole))) == 0


def test_an_unwritable_index_folder_still_answers(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_note("n", "alpha beta")
    (memory_root / ".index").write_text("not a folder")
    hits = search(store, "alpha").hits
    assert [h.rel for h in hits] == [f"projects/{SLUG}/notes/n.md"]


def test_the_index_folder_is_private_and_ignored_by_git(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_note("n", "alpha")
    search(store, "alpha")
    folder = memory_root / ".index"
    assert folder.stat().st_mode & 0o077 == 0
    assert (folder / ".gitignore").read_text() == "*\n"


def test_files_written_just_before_the_build_are_trusted_after_one_more_build(
    memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # They are read on every search while a new build would not trust them either
    # (younger than RACY_NS), then one build makes them trusted.
    monkeypatch.setattr(layered_mod, "RACY_NS", 1_000_000_000)
    store = Store(memory_root, SLUG)
    for n in range(changes_mod.REBUILD_MIN * 2):
        store.write_note(f"n{n}", f"alpha {n}")
    now = time.time_ns()
    for path in (memory_root / "projects" / SLUG / "notes").iterdir():
        os.utime(path, ns=(now, now))  # all written this very moment
    index_file = memory_root / ".index" / f"{SLUG}.mhix"
    first = _answer(search(store, "alpha"))
    built = index_file.stat().st_mtime_ns
    assert _answer(search(store, "alpha")) == first
    assert index_file.stat().st_mtime_ns == built
    time.sleep(1.1)
    assert _answer(search(store, "alpha")) == first
    rebuilt = index_file.stat().st_mtime_ns
    assert rebuilt != built
    assert _answer(search(store, "alpha")) == first
    assert index_file.stat().st_mtime_ns == rebuilt


@pytest.mark.parametrize("seed", range(4))
def test_questions_rank_in_a_session_as_a_fresh_read(
    memory_root: Path, seed: int, trusting: None
) -> None:
    # Frame words and the time a question asks (memory.question) change the weights and
    # the daily logs' factors: a session's columns must give the same ranking.
    rng = random.Random(seed)
    store = _random_root(memory_root, rng)
    search(store, "deploy")  # builds the index file
    docs = store.corpus()
    session = open_index(store, docs=docs)
    for shape in (
        "what did we {} with {}",
        "latest {} {}",
        "when did we first {} {}",
        "is {} still {}",
        "which {} does {} use",
        "{} {}",
    ):
        query = shape.format(*rng.choices(WORDS, k=2))
        fresh = _answer(search_docs(docs.values(), query))
        assert _answer(search(store, query)) == fresh, query
        assert _answer(search_index(session, query)) == fresh, query


@pytest.mark.parametrize("seed", range(3))
def test_a_session_finds_the_first_hits_of_a_long_prompt_as_a_fresh_read(
    memory_root: Path, seed: int, trusting: None
) -> None:
    # Auto-search looks at a prompt's first hits only (`limit`); a prompt holds several
    # words found in most files, so a session scores every file at once (topk.DENSE_KEYS)
    # or reads its columns from the top: either way the first hits are those of a
    # ranking of every file, in the same order.
    rng = random.Random(seed)
    usual = ["common", "usual", "often", "plain"]
    rare = ["zebra", "quokka", "narwhal", "axolotl", "okapi", "tapir"]

    def words() -> list[str]:
        out = [
            *rng.sample(usual, rng.randint(1, 4)),
            *rng.choices(WORDS, _ZIPF, k=rng.randint(0, 12)),
            *(rng.sample(rare, 1) if rng.random() < 0.05 else []),
        ]
        rng.shuffle(out)
        return out

    store = _notes(memory_root, rng, 300, words)
    search(store, "common")  # builds the index file
    docs = store.corpus()
    session = open_index(store, docs=docs)
    for query, limit in [
        (" ".join([*usual, rare[seed]]), 5),
        (" ".join([*usual[:3], rare[seed + 1], WORDS[seed]]), 20),
        (" ".join([*usual[:2], rare[seed + 2], rare[seed + 3]]), 3),
    ]:
        fresh = search_docs(docs.values(), query)
        got = search_index(session, query, limit=limit)
        assert _answer(got)["results"] == _answer(fresh)["results"][:limit], query  # type: ignore[index]

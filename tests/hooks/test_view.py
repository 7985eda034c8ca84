"""A session's view of the corpus (hooks.view) answers as a search that reads the files."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest

from memhooks.hooks.view import View
from memhooks.memory import Store, search_docs, segment
from memhooks.memory.segment import Bytes, Segment
from tests.memory.test_index import SLUG, WORDS, _random_root
from tests.memory.test_layered import _answer

if TYPE_CHECKING:
    from pathlib import Path


def test_a_session_whose_index_file_is_damaged_answers_and_reopens_it(
    memory_root: Path, trusting: None
) -> None:

    rng = random.Random(3)
    _random_root(memory_root, rng)
    view = View.open(memory_root, memory_root, indexed=True)
    view.store = Store(memory_root, SLUG)
    view.index()
    index_file = memory_root / ".index" / f"{SLUG}.mhix"
    data = bytearray(index_file.read_bytes())
    table = segment._FOOTER.unpack_from(data, len(data) - segment._FOOTER.size)[6]
    # The last run's postings, just before the document table (the key tables are read
    # when the file is opened; postings when a search asks, and a CRC tells then).
    data[table - 40 : table] = bytes(b ^ 0xFF for b in data[table - 40 : table])
    index_file.write_bytes(bytes(data))  # in place: the session's descriptor sees it
    docs = view.corpus()
    for word in WORDS:
        assert _answer(view.search(word)) == _answer(
            search_docs(docs.values(), word)
        ), word
    Segment(Bytes(index_file.read_bytes()))  # dropped and built anew


def test_a_hook_builds_the_block_a_whole_corpus_gives(tmp_path: Path) -> None:
    """The SessionStart hook reads only what the block can show; the block is the same."""
    from memhooks.memory import today
    from memhooks.memory.inject import render_shares, sections

    project = tmp_path / "shop"
    project.mkdir()
    store = Store.for_project(tmp_path / "root", project)
    store.write_memory("- Run make test before pushing.")
    store.write_scratchpad("- [ ] ship the CSV export")
    rng = random.Random(5)
    for i in range(400):  # far more notes than a block's index can list
        words = " ".join(rng.choice(WORDS) for _ in range(8))
        store.write_note(f"n{rng.randrange(10**6):06d}-{i}", f"{words}\nmore {i}")
    logs = store.root / "projects" / store.slug / "daily"
    logs.mkdir(parents=True, exist_ok=True)
    for day in ("2026-11-28", "2026-11-29", "2026-11-30"):
        (logs / f"{day}.md").write_text(f"# {day}\n- did {day}\n")
    # The newest log holds nothing: the block shows the two before it.
    (logs / "2026-12-01.md").write_text("\n")
    every = store.corpus()
    newest_all = max(d.mtime_ns for d in every.values())
    for budget in (600, 4000, 9000):
        hook = View.open(tmp_path / "root", project)
        session = View.open(tmp_path / "root", project, indexed=True)
        (few, newest), (kept, newest_kept) = (
            hook.block_corpus(budget, today()),
            session.block_corpus(budget, today()),
        )
        assert len(few) < len(every) and newest == newest_all == newest_kept
        assert kept == few  # a session process reads no more than a hook
        assert (
            render_shares(sections(few, today()), budget)[0]
            == render_shares(sections(every, today()), budget)[0]
        )


def test_a_session_still_reading_answers_from_its_listing_and_what_it_is_told(
    tmp_path: Path, walks: list[int]
) -> None:
    """Until the corpus is read, a session process compares the index file with the files
    it listed once its watcher was up, patched per reported file: edits in place,
    new notes and deletions all count, and no prompt stats every file again."""
    import time

    hour_ago = time.time() - 3600  # older than a build's racy window: trusted
    view, store, notes = _indexed(
        tmp_path,
        {
            "kafka": "Kafka consumer settings.",
            "payments": "The Stripe webhook secret lives in vault.",
        },
        hour_ago,
    )
    walks.clear()  # from here on
    with open(notes / "kafka.md", "a") as f:
        f.write("The lag alert threshold is zanzibar.\n")
    store.write_note("lag", "Consumer lag is measured per partition.")
    (notes / "payments.md").unlink()
    view.refresh(  # what the watcher reports
        [f"projects/{store.slug}/notes/{n}.md" for n in ("kafka", "lag", "payments")]
    )
    assert not view.loaded()
    assert [h.rel for h in view.search("zanzibar threshold").hits] == [
        f"projects/{store.slug}/notes/kafka.md"
    ]
    assert {h.rel.rsplit("/", 1)[1] for h in view.search("lag").hits} == {
        "kafka.md",
        "lag.md",
    }
    assert view.search("stripe webhook").hits == ()
    news = view.prompt_docs(int(hour_ago * 1e9) + 10**9)
    assert sorted(r.rsplit("/", 1)[1] for r in news) == ["kafka.md", "lag.md"]
    assert walks == []


def _empty_project(tmp_path: Path) -> tuple[Path, Store, Path]:
    """A project with its notes folder, and nothing in it yet."""
    project = tmp_path / "shop"
    project.mkdir()
    store = Store.for_project(tmp_path / "root", project)
    notes = store.root / "projects" / store.slug / "notes"
    notes.mkdir(parents=True)
    return project, store, notes


def test_a_session_at_many_notes_holds_the_texts_it_shows_not_every_note(
    tmp_path: Path,
) -> None:
    """A session process's memory stays bounded as notes grow: after its block, prompts'
    searches with their snippets, and an edit, the note texts it holds are the few it
    showed (and the one edited), not one per note; it ranks as reading every file does."""
    import gc
    import os
    import time

    from memhooks.hooks.ondisk import KEPT
    from memhooks.memory.corpus import Doc

    project, store, notes = _empty_project(tmp_path)
    rng = random.Random(17)
    count = 3 * KEPT
    for i in range(count):
        lines = [" ".join(rng.choices(WORDS, k=8)) for _ in range(4)]
        (notes / f"n{i:04d}.md").write_text("\n".join(lines) + f"\nnote {i}\n")
    store.write_memory("- Run make test before pushing.")
    # Written an hour ago: a file changed just before the index was built is read
    # again rather than trusted (`memory.layered.RACY_NS`).
    an_hour_ago = time.time() - 3600
    for path in [*notes.iterdir(), store.root / "MEMORY.md"]:
        os.utime(path, (an_hour_ago, an_hour_ago))
    session = View.open(tmp_path / "root", project, indexed=True)
    session.block_corpus(9000, "2026-12-01")
    session.index()
    docs = session.prompt_docs(1)
    for word in WORDS[:8]:
        result = session.search(word, limit=20)
        for hit in result.hits:
            assert docs[hit.rel].rel == hit.rel  # what auto-search reads of a hit
        for hit in result.hits[:5]:
            assert hit.lines  # a snippet rendered from the note's text
        every = search_docs(store.corpus().values(), word)
        assert [h.rel for h in result.hits] == [h.rel for h in every.hits[:20]], word
    (notes / "n0003.md").write_text("an edited note about zebra\n")
    session.refresh([f"projects/{store.slug}/notes/n0003.md"])
    assert [h.rel for h in session.search("zebra").hits] == [
        f"projects/{store.slug}/notes/n0003.md"
    ]
    del result, every, hit
    gc.collect()
    held = [o for o in gc.get_objects() if isinstance(o, Doc)]
    assert len(docs) == count + 1
    assert 0 < len(held) <= KEPT + 8 * 20 < count


def test_auto_search_in_a_session_reads_no_note_it_does_not_show(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Auto-search shows hits, not how many lines hold each term: its search in a session
    ranks as a counted one does, and reads no note until a snippet is shown, even for a
    CJK phrase that many notes hold in part (counting its lines reads each of them)."""
    import os
    import time

    project, _, notes = _empty_project(tmp_path)
    rng = random.Random(23)
    for i in range(200):
        words = " ".join(rng.choices(WORDS, k=8))
        cjk = "\n部署飛坏了" if i % 4 == 0 else ""
        (notes / f"n{i:04d}.md").write_text(f"{words}{cjk}\n")
    an_hour_ago = time.time() - 3600
    for path in notes.iterdir():
        os.utime(path, (an_hour_ago, an_hour_ago))
    session = View.open(tmp_path / "root", project, indexed=True)
    session.index()
    read: list[str] = []
    plain = session.store.read_listed

    def counting(rel: str) -> object:
        read.append(rel)
        return plain(rel)

    monkeypatch.setattr(session.store, "read_listed", counting)
    quick = session.search("deploy 飛坏厹痄", limit=20, counted=False)
    assert read == [] and quick.terms == () and quick.partial == ()
    assert quick.hits[0].lines and read == [quick.hits[0].rel]  # a snippet shown
    counted = session.search("deploy 飛坏厹痄", limit=20)
    assert counted.partial and len(read) >= 50  # each note holding a bigram
    assert [h.rel for h in quick.hits] == [h.rel for h in counted.hits]


def _opened(tmp_path: Path) -> tuple[View, Store, Path]:
    """A session process's view that opened its index file before its first prompt."""
    import time

    notes = {
        "kafka": "Kafka consumer settings: the lag alert fires at 500.",
        "payments": "The Stripe webhook secret lives in vault.",
        "deploy": "Deploy with the blue green script; kafka restarts last.",
    }
    return _indexed(tmp_path, notes, time.time() - 3600)


def _indexed(
    tmp_path: Path, notes: dict[str, str], written_at: float
) -> tuple[View, Store, Path]:
    """A session process's view (its watcher up, its corpus still being read) of a
    project whose `notes` were written at `written_at` (an hour ago: older than a
    build's racy window, trusted) and are in its index file; and its notes folder."""
    import os

    from memhooks.memory import search

    project = tmp_path / "shop"
    project.mkdir()
    store = Store.for_project(tmp_path / "root", project)
    for name, text in notes.items():
        store.write_note(name, text)
    folder = store.root / "projects" / store.slug / "notes"
    for path in folder.iterdir():
        os.utime(path, (written_at, written_at))
    search(store, "kafka")  # builds the index file
    view = View.open(store.root, project, indexed=True)
    view.read_in_background()
    return view, store, folder


def test_a_session_opens_its_index_file_once_before_its_first_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, walks: list[int]
) -> None:
    """Every prompt until the corpus is read used to open the index file and compare it
    with the listing again (65-120 ms at ten thousand notes); opened early, it is kept
    current from what the watcher reports, and ranks as the files on disk do."""
    from memhooks.memory import index_file

    view, store, notes = _opened(tmp_path)
    opened: list[int] = []
    segment_of = index_file.open_segment

    def counted(s: Store) -> Segment | None:
        opened.append(1)
        return segment_of(s)

    monkeypatch.setattr(index_file, "open_segment", counted)
    walks.clear()
    assert view.open_early() and view.loaded()
    assert not view.open_early()  # once
    with open(notes / "kafka.md", "a") as f:  # edited in place after the walk
        f.write("The partition count is zanzibar.\n")
    store.write_note("lag", "Consumer lag is measured per partition.")
    (notes / "payments.md").unlink()
    view.refresh(  # what the watcher reports
        [f"projects/{store.slug}/notes/{n}.md" for n in ("kafka", "lag", "payments")]
    )
    docs = store.corpus()
    for query in ("zanzibar partition", "kafka", "stripe webhook", "lag consumer"):
        assert _answer(view.search(query)) == _answer(
            search_docs(docs.values(), query)
        ), query
    assert (opened, walks) == ([1], [])


def test_a_search_leaves_a_common_words_scores_to_be_made_between_events(
    tmp_path: Path,
) -> None:
    """A key's kept scores (`memory.topk`) cost more to make than one ranking: a
    search ranks from the postings while a key in many files has none, and the session
    process makes them between events (`build_column`); the same answers."""
    view, store, _ = _opened(tmp_path)
    assert view.open_early()
    first = _answer(view.search("kafka lag"))
    columns = view.index().columns
    assert columns is not None and columns.scored == 0  # none used
    assert view.columns_wanted() and view.build_column()  # one made, another wanted
    assert not view.build_column() and not view.columns_wanted()
    assert _answer(view.search("kafka lag")) == first
    assert columns.scored > 0  # the kept scores found the best
    assert first == _answer(search_docs(store.corpus().values(), "kafka lag"))


def test_a_session_with_nothing_to_open_reads_its_corpus_later(
    tmp_path: Path,
) -> None:
    """No index file yet (building one takes seconds at ten thousand notes), or a
    ranking that reads every note: nothing is read before the first prompt."""
    view, store, _ = _opened(tmp_path)
    (store.root / ".index" / f"{store.slug}.mhix").unlink()
    assert not view.open_early() and not view.loaded()
    baseline = View.open(store.root, tmp_path / "shop", indexed=True)
    baseline.config = baseline.config._replace(
        search=baseline.config.search._replace(ranking="baseline")
    )
    baseline.read_in_background()
    assert not baseline.open_early() and not baseline.loaded()


def test_a_session_building_its_index_file_never_keeps_a_prompt_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No index file yet: the session process builds it (8 s at ten thousand notes)
    while prompts come. A small project's files are read for the prompt's words, a
    large one's prompt gets no hits; neither builds it, nor waits for the build."""
    import threading

    from memhooks.hooks import view as view_module
    from memhooks.memory import layered
    from memhooks.memory.index_file import drop_index, has_index

    view, store, _ = _opened(tmp_path)
    drop_index(store)
    building, release = threading.Event(), threading.Event()
    real_build = layered._build

    def slow_build(store: Store, now: int) -> bool:
        building.set()
        release.wait(30)
        return real_build(store, now)

    monkeypatch.setattr(layered, "_build", slow_build)
    warm = threading.Thread(target=view.index)  # what `serve.Process._warm` runs
    warm.start()
    try:
        assert building.wait(10)
        assert view.prompt_docs(0) is not None  # no wait for the build
        got = _answer(view.search("kafka lag"))
        assert got == _answer(search_docs(store.corpus().values(), "kafka lag"))
        monkeypatch.setattr(view_module, "SCAN_MAX", 2)  # three notes: a large project
        assert view.search("kafka lag").hits == ()
        assert not has_index(store)
    finally:
        release.set()
        warm.join(30)
    assert has_index(store) and view.search("kafka lag").hits


@pytest.mark.parametrize("meanwhile", ["deleted", "deleted-then-another-created"])
def test_a_hit_whose_note_went_before_its_snippet_was_made_shows_no_lines(
    tmp_path: Path, meanwhile: str
) -> None:
    """A prompt is searched under the lock the watcher patches the index under; its
    hits' snippets are made after, for those shown. A note created during the session
    and deleted meanwhile (a soak: one every 20 prompts) failed the prompt with
    "AssertionError: postings never name a removed document"; with another note created
    in between (one holding a word of the prompt), the hit showed that note's text under
    the deleted one's name."""
    import threading

    view, store, folder = _opened(tmp_path)
    view.index()
    kiwi = folder / "kiwi.md"
    kiwi.write_text("Kiwi tart: kiwi and cream on shortcrust.\n")
    rel = kiwi.relative_to(store.root).as_posix()
    view.refresh([rel])  # in the index in memory: created after its file
    [hit] = [h for h in view.search("kiwi tart").hits if h.rel == rel]

    def watcher() -> None:  # what the watcher's thread re-reads meanwhile
        kiwi.unlink()
        view.refresh([rel])
        if meanwhile == "deleted-then-another-created":
            (folder / "plum.md").write_text("Plum tart, baked in August.\n")
            view.refresh([f"{rel.rsplit('/', 1)[0]}/plum.md"])

    thread = threading.Thread(target=watcher)
    thread.start()
    thread.join()
    assert hit.lines == ()


def test_a_note_created_while_a_session_opens_its_index_is_found(
    tmp_path: Path,
) -> None:
    """A session process opens its index after its first answer (`serve._warm`): seconds
    when it builds the index file at ten thousand notes, up to 30 s when it waits for
    another process's build. A note the watcher reported meanwhile went to the corpus
    only, and no prompt of the session ever found it."""
    import os
    import threading

    from memhooks.memory import index_file

    project, store, notes = _empty_project(tmp_path)
    store.write_note("payments", "The Stripe webhook secret lives in vault.")
    view = View.open(store.root, project, indexed=True)
    view.read_in_background()
    lock = store.root / ".index" / f"{store.slug}.building"

    def waiting() -> bool:  # the index's opening waits for the build below
        held = [
            os.path.realpath(f"/proc/self/fd/{fd}")
            for fd in os.listdir("/proc/self/fd")
        ]
        return held.count(str(lock)) > 1

    with index_file.building(store) as ours:  # another process's build
        assert ours
        warm = threading.Thread(target=view.index)  # `serve._warm`'s
        warm.start()
        while warm.is_alive() and not waiting():
            warm.join(0.01)
        assert waiting()
        kiwi = notes / "kiwi.md"
        kiwi.write_text("Kiwi tart: kiwi and cream on shortcrust.\n")
        view.refresh([kiwi.relative_to(store.root).as_posix()])  # the watcher's
    warm.join()
    view.catch_up()  # `serve._warm`'s, once the index is open
    view.warming = False
    assert [h.rel.rsplit("/", 1)[1] for h in view.search("kiwi tart").hits] == [
        "kiwi.md"
    ]

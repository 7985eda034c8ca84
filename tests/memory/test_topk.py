"""A session's ranking from its kept columns (memory.topk) is the ranking of every file,
and a long prompt of common words scores few files to find its first hits."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest

from memhooks.memory import Store, lanes, search, search_docs
from memhooks.memory import column as column_module
from memhooks.memory.bounds import _lanes
from memhooks.memory.column import column
from memhooks.memory.layered import open_index
from memhooks.memory.rank import BM25
from memhooks.memory.searching import search_index
from memhooks.memory.topk import Columns, _Found
from memhooks.memory.typed import query_terms
from tests.memory.test_index import SLUG, WORDS
from tests.memory.test_layered import _ZIPF, _answer, _notes

if TYPE_CHECKING:
    from pathlib import Path

    from memhooks.memory.corpus import Doc
    from memhooks.memory.layered_index import Layered

USUAL = ["common", "usual", "often", "plain", "daily", "basic"]
RARE = ["zebra", "quokka", "narwhal", "axolotl", "okapi", "tapir", "dugong"]


def _root(memory_root: Path, rng: random.Random, count: int) -> None:
    # Notes of common words (each in many files, some in the name too), Zipf words and
    # now and then a rare one; daily logs and MEMORY.md, which recency raises.
    def words() -> list[str]:
        out = [
            *rng.sample(USUAL, rng.randint(0, len(USUAL))),
            *rng.choices(WORDS, _ZIPF, k=rng.randint(0, 14)),
            *(rng.sample(RARE, 1) if rng.random() < 0.06 else []),
        ]
        rng.shuffle(out)
        return out or ["empty"]

    store = _notes(memory_root, rng, count, words)
    daily = memory_root / "projects" / SLUG / "daily"
    daily.mkdir()
    for d in range(1, 12):
        body = "\n".join(" ".join(words()) for _ in range(3))
        (daily / f"2026-02-{d:02d}.md").write_text(f"### 09:00 — log\n{body}\n")
    for n in range(6):  # common words in file names: they count as if repeated
        store.write_note(
            f"{rng.choice(USUAL)}-{rng.choice(USUAL)}-{n}", " ".join(words())
        )
    store.write_memory(" ".join(rng.sample(USUAL, 3)))


def _session(store: Store) -> tuple[dict[str, Doc], Layered]:
    """A session's index of `store` (its index file built first), and the corpus."""
    search(store, "common")
    docs = store.corpus()
    return docs, open_index(store, docs=docs)


def _ranked(session: Layered, query: str, limit: int) -> object:
    """A session's answer once it has made the columns `query` lacked (a session
    process makes them between events), the same as its answer before."""
    before = _answer(search_index(session, query, limit=limit))
    assert isinstance(session.columns, Columns)
    while session.columns.build():
        pass
    after = _answer(search_index(session, query, limit=limit))
    assert after == before, query
    return after


def _prompt(rng: random.Random) -> str:
    return " ".join(
        [
            *rng.sample(USUAL, rng.randint(1, len(USUAL))),
            *rng.sample(RARE, rng.randint(0, 2)),
            *rng.choices(WORDS, _ZIPF, k=rng.randint(0, 3)),
        ]
    )


@pytest.mark.parametrize("named", [False, True], ids=["plain", "named"])
@pytest.mark.parametrize("seed", range(6))
def test_the_first_hits_of_any_prompt_are_those_of_a_full_ranking(
    memory_root: Path, seed: int, named: bool, trusting: None
) -> None:
    # Named: a capitalised word mid-prompt is a name (`memory.names`), and the files
    # without it drop, which the kept columns cannot know: the session scores it in full.
    rng = random.Random(seed)
    _root(memory_root, rng, 250)
    store = Store(memory_root, SLUG)
    docs, session = _session(store)
    for _ in range(12):
        query, limit = _prompt(rng), rng.choice([1, 3, 5, 20, 40])
        if named:
            query += f" {rng.choice(RARE).capitalize()}"
        fresh = _answer(search_docs(docs.values(), query))
        got = _ranked(session, query, limit)
        assert got["results"] == fresh["results"][:limit], query  # type: ignore[index]
        assert got["files_matched"] == fresh["files_matched"], query  # type: ignore[index]


def test_a_long_prompt_of_common_words_scores_few_files(
    memory_root: Path, trusting: None
) -> None:
    # Six words each in about half the files, two rare ones: every file matches, and
    # the first 20 are found by scoring a few of them, not all.
    rng = random.Random(7)
    _root(memory_root, rng, 600)
    store = Store(memory_root, SLUG)
    docs, session = _session(store)
    assert isinstance(session.columns, Columns)
    query = " ".join([*USUAL, "zebra", "okapi"])
    fresh = _answer(search_docs(docs.values(), query))
    got = _ranked(session, query, 20)
    assert got["results"] == fresh["results"][:20]  # type: ignore[index]
    matched = fresh["files_matched"]  # type: ignore[index]
    assert isinstance(matched, int) and matched > 500
    assert session.columns.scored < matched / 4, (session.columns.scored, matched)


@pytest.mark.parametrize("seed", range(4))
def test_every_documents_bound_is_at_least_its_score(
    memory_root: Path, seed: int, trusting: None
) -> None:
    # The lanes' sum bounds each document's whole score, what its name alone adds
    # included (but for those recency raises, which are scored first).
    rng = random.Random(seed)
    _root(memory_root, rng, 200)
    store = Store(memory_root, SLUG)
    for n in range(30):  # named by a rare word their text does not hold
        body = " ".join([*rng.sample(USUAL, 2), *rng.choices(WORDS, _ZIPF, k=6)])
        store.write_note(f"{RARE[n % len(RARE)]}-{n}", body)
    _, session = _session(store)
    n = len(session.sizes)
    for _ in range(10):
        query = f"{_prompt(rng)} {rng.choice(RARE)} {rng.choice(WORDS)}"
        qkeys = list(dict.fromkeys(k for t in query_terms(query) for k in t.keys))
        bm25 = BM25(session.sizes, session.avg_size)
        cols = [column(session, k, bm25, {}) for k in qkeys]
        found = _Found(session, cols, bm25)
        found.admit(range(n))
        total = sum(_lanes(c, n, bm25)[0] for c in cols).to_bytes(2 * n, "little")
        raised = bm25.places(session)
        # Some hold a key in their name alone.
        assert any(not c.score(i) for c in cols for i in c.named), query
        scores = found.sums.score
        for i in scores.keys() - raised.keys():
            bound = int.from_bytes(total[2 * i : 2 * i + 2], "little")
            assert bound >= scores[i] * lanes.SCALE - 1e-6, (query, i)


def test_files_a_long_prompt_names_are_not_all_scored(
    memory_root: Path, trusting: None
) -> None:
    # A third of the files are named by a word of the prompt: their names raise them,
    # but a bound of what a name adds finds the first 20 without scoring each of them.
    rng = random.Random(5)
    _root(memory_root, rng, 400)
    store = Store(memory_root, SLUG)
    for n in range(200):
        body = " ".join(rng.choices(WORDS, _ZIPF, k=12))
        store.write_note(f"{rng.choice(USUAL)}-named-{n}", body)
    docs, session = _session(store)
    assert isinstance(session.columns, Columns)
    query = " ".join([*USUAL, "zebra", "okapi"])
    fresh = _answer(search_docs(docs.values(), query))
    for limit in (1, 5, 20):
        got = _ranked(session, query, limit)
        assert got["results"] == fresh["results"][:limit]  # type: ignore[index]
        matched = fresh["files_matched"]  # type: ignore[index]
        assert isinstance(matched, int) and matched > 550
        assert session.columns.scored < matched / 8, (session.columns.scored, matched)


def test_keys_whose_columns_a_new_one_dropped_are_made_between_events(
    memory_root: Path, trusting: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Past `MAX_BYTES` a column drops the others: a search that makes one (a key in few
    # files) then lacks those, ranks from the postings and leaves them to be made again.
    rng = random.Random(3)
    _root(memory_root, rng, 250)
    store = Store(memory_root, SLUG)
    docs, session = _session(store)
    _ranked(session, "common usual", 20)
    monkeypatch.setattr(column_module, "MAX_BYTES", 1)
    query = "common usual zebra"
    got = _answer(search_index(session, query, limit=20))
    assert isinstance(session.columns, Columns) and session.columns.wanted
    fresh = _answer(search_docs(docs.values(), query))
    assert got["results"] == fresh["results"][:20]  # type: ignore[index]

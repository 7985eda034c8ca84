"""A session's ranking from its kept columns (memory.topk) is the ranking of every file,
and a long prompt of common words scores few files to find its first hits."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest

from memhooks.memory import Store, search, search_docs
from memhooks.memory.layered import open_index
from memhooks.memory.searching import search_index
from memhooks.memory.topk import Columns
from tests.memory.test_index import SLUG, WORDS
from tests.memory.test_layered import _ZIPF, _answer, _notes

if TYPE_CHECKING:
    from pathlib import Path

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


def _prompt(rng: random.Random) -> str:
    return " ".join(
        [
            *rng.sample(USUAL, rng.randint(1, len(USUAL))),
            *rng.sample(RARE, rng.randint(0, 2)),
            *rng.choices(WORDS, _ZIPF, k=rng.randint(0, 3)),
        ]
    )


@pytest.mark.parametrize("seed", range(6))
def test_the_first_hits_of_any_prompt_are_those_of_a_full_ranking(
    memory_root: Path, seed: int, trusting: None
) -> None:
    rng = random.Random(seed)
    _root(memory_root, rng, 250)
    store = Store(memory_root, SLUG)
    search(store, "common")  # builds the index file
    docs = store.corpus()
    session = open_index(store, docs=docs)
    for _ in range(12):
        query, limit = _prompt(rng), rng.choice([1, 3, 5, 20, 40])
        fresh = _answer(search_docs(docs.values(), query))
        got = _answer(search_index(session, query, limit=limit))
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
    search(store, "common")
    docs = store.corpus()
    session = open_index(store, docs=docs)
    assert isinstance(session.columns, Columns)
    query = " ".join([*USUAL, "zebra", "okapi"])
    fresh = _answer(search_docs(docs.values(), query))
    got = _answer(search_index(session, query, limit=20))
    assert got["results"] == fresh["results"][:20]  # type: ignore[index]
    matched = fresh["files_matched"]  # type: ignore[index]
    assert isinstance(matched, int) and matched > 500
    assert session.columns.scored < matched / 4, (session.columns.scored, matched)

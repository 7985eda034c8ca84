"""The index may speed up finding candidates, never change ranking (docs/design.md): the one-shot
scan, a full index and a session's patched index give the same answer."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest

from memhooks.memory import Store, search, search_docs, slug_for
from memhooks.memory.index import Index
from memhooks.memory.render import to_json
from memhooks.memory.searching import search_index

if TYPE_CHECKING:
    from pathlib import Path

SLUG = "proj-0123abcd"
WORDS = [
    "deploy",
    "deploys",
    "deployed",
    "deploying",
    "retry",
    "retries",
    "retried",
    "cache",
    "caching",
    "strictPort",
    "default_pool_size",
    "Redis",
    "redis",
    "REDIS",
    "port",
    "ports",
    "conflict",
    "pgbouncer",
    "部署",
    "部署腳本",
    "腳本",
    "稅",
    "消費稅",
    "ＡＰＩ",
    "API",
    "api",
    "ｶﾀｶﾅ",
    "カタカナ",
    "the",
    "a",
    "of",
    "straße",
    "strasse",
    "hop",
    "hoping",
    "running",
    "run",
]


def _random_root(root: Path, rng: random.Random) -> Store:
    store = Store(root, SLUG)
    for n in range(rng.randint(3, 25)):
        kind = rng.choice(["note", "note", "daily"])
        lines = [
            " ".join(rng.choices(WORDS, k=rng.randint(1, 8)))
            for _ in range(rng.randint(1, 6))
        ]
        if kind == "note":
            aliases = ", ".join(rng.choices(WORDS, k=2)) if rng.random() < 0.3 else None
            store.write_note(
                f"{rng.choice(WORDS)}-{n}", "\n".join(lines), aliases=aliases
            )
        else:
            path = root / f"projects/{SLUG}/daily/2026-01-{n + 1:02d}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("### 09:00 — log\n" + "\n".join(lines) + "\n")
    if rng.random() < 0.5:
        store.write_memory(" ".join(rng.choices(WORDS, k=6)))
    return store


def _answer(result: object) -> dict[str, object]:
    data = to_json(result, 1_000_000)  # type: ignore[arg-type]
    return data


@pytest.mark.parametrize("seed", range(25))
def test_scan_full_and_patched_index_agree(memory_root: Path, seed: int) -> None:
    rng = random.Random(seed)
    store = _random_root(memory_root, rng)
    docs = store.corpus()
    patched = Index(list(docs.values())[: len(docs) // 2])
    for doc in list(docs.values())[len(docs) // 2 :]:
        patched.add(doc)
    victim = rng.choice(list(docs.values()))
    patched.remove(victim.rel)
    patched.add(victim)
    for _ in range(8):
        query = " ".join(rng.choices(WORDS, k=rng.randint(1, 4)))
        full = _answer(search_docs(docs.values(), query))
        # one-shot: scan + prefilter; corpus in memory + prefilter; session: patched index
        assert _answer(search(store, query)) == full, query
        assert _answer(search(store, query, docs=docs)) == full, query
        assert _answer(search_index(patched, query)) == full, query


def test_removed_and_edited_files_leave_the_index(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_note("a", "alpha beta")
    store.write_note("b", "beta gamma")
    index = Index(store.corpus().values())
    assert [h.rel.rsplit("/", 1)[1] for h in search_index(index, "alpha").hits] == [
        "a.md"
    ]
    index.remove(f"projects/{SLUG}/notes/a.md")
    assert search_index(index, "alpha").hits == ()
    store.write_note("b", "alpha now", mode="overwrite")
    doc = store.corpus()[f"projects/{SLUG}/notes/b.md"]
    index.add(doc)
    assert [h.rel.rsplit("/", 1)[1] for h in search_index(index, "alpha").hits] == [
        "b.md"
    ]
    assert search_index(index, "gamma").hits == ()
    assert index.count == 1


@pytest.mark.parametrize("seed", range(30))
def test_analysis_counts_each_key_as_its_lines_hold_it(seed: int) -> None:
    # `analyze` counts runs in C and looks each distinct run's keys up once; the counts
    # must be those of tokenizing line by line: a key's occurrences, and the lines that
    # hold it once however many runs give it (`Redis` and `redis`, `portPort`, a CJK run
    # repeating a pair), and a line repeated counts as often as it occurs.
    from collections import Counter

    from memhooks.memory.corpus import make_doc
    from memhooks.memory.index import analyze
    from memhooks.memory.paths import Located
    from memhooks.memory.terms import cjk_chars, filed_keys

    rng = random.Random(seed)
    words = [
        *WORDS,
        "portPort",
        "哈哈哈",
        "x-y_z",
        "ﬁle",
        "Ünïcode",
        "naïve",
        "CaféBar",
    ]
    rows = [" ".join(rng.choices(words, k=rng.randint(0, 8))) for _ in range(12)]
    rows += rng.choices(rows, k=rng.randint(0, 12))  # a log repeats its lines
    rng.shuffle(rows)
    text = "\n".join(rows)
    if seed % 2:
        text = text.encode("ascii", "ignore").decode()  # the all-ASCII path
    tf: Counter[str] = Counter()
    lines: Counter[str] = Counter()
    for line in text.split("\n"):
        ks = [*filed_keys(line), *cjk_chars(line)]
        tf.update(ks)
        lines.update(set(ks))
    got = analyze(make_doc(Located("note", "notes/a.md", "a"), text))
    assert (dict(got.tf), dict(got.lines)) == (dict(tf), dict(lines))


#: Text of every script and kind of term the index files keys for.
KEYS_PROBE = (
    "Our office moved to Łódź; the café in Málaga, Ørsted, Đức, Ærø, Tromsø.\n"
    "deploys deployed deployment getUserName snake_case node.js it's %s c++ C# .env #123\n"
    "база данных Базы; Ευρωπαϊκή ένωση; हिन्दी भाषा; مرحبا بالعالم; שלום עולם\n"
    "数据库迁移 データベース 데이터베이스 ภาษาไทย 🚀 ✓ → --cap -> straße ﬁle Ⅻ ½"
)
#: What the index file holds of `KEYS_PROBE` (`count_keys`, `punctuated`), by its VERSION.
KEYS_OF_VERSION = {
    10: "97717db6b6618a57",
    11: "658e654533b509e9",
    12: "658e654533b509e9",  # the same keys; each run of words fenced
    13: "658e654533b509e9",  # the same keys; punctuated strings sorted by their marks
    14: "658e654533b509e9",  # the same keys; a person's <private> blocks not filed
    15: "658e654533b509e9",  # the same keys; private blocks nested, or opened by a
    # forgotten line
}


def test_what_an_index_file_holds_changes_with_its_version() -> None:
    # 6e4cce7 filed plain keys for letters with no decomposition ("lodz" finds "Łódź")
    # and kept VERSION 10: an index file an older memhooks had built was trusted, and
    # "lodz" found nothing in it until the file was deleted. Keys that change need a
    # new VERSION (memory/segment.py), and a new line here.
    from memhooks.memory import segment
    from memhooks.memory.digests import blake2b
    from memhooks.memory.index import count_keys
    from memhooks.memory.punctuated import punctuated

    tf, lines = count_keys(KEYS_PROBE)
    held = (
        sorted(tf.items()),
        sorted(lines.items()),
        sorted(punctuated(KEYS_PROBE).items()),
    )
    digest = blake2b(repr(held).encode()).hexdigest()[:16]
    assert KEYS_OF_VERSION.get(segment.VERSION) == digest, (segment.VERSION, digest)


def test_index_files_of_projects_gone_for_a_month_are_removed(
    memory_root: Path, project: Path
) -> None:
    # Months of use: every project renamed or deleted by hand left its index file in
    # .index for good (1.6 MB for one project of the root of tests/longuse.py). Writing
    # an index file now removes those of projects gone a month; a watch mark (a session
    # process may hold it) and a newer one stay.
    import os
    import time

    from tests.conftest import run_cli

    here = run_cli(
        "write", "--to", "note", "--name", "pool", "--text", "pool 20", cwd=project
    )
    assert here.returncode == 0, here.stderr
    index = memory_root / ".index"
    index.mkdir()
    month = time.time() - 31 * 24 * 3600
    names = ["gone-0123abcd.mhix", "gone-0123abcd.seen", "gone-0123abcd.watch"]
    names += ["gone-0123abcd.building"]
    names += ["renamed-4567cdef.mhix", "moved-89abcdef.mhix"]
    for name in names:
        (index / name).write_bytes(b"MHIX old")
        if not name.startswith("moved"):
            os.utime(index / name, (month, month))
    kept = memory_root / "projects" / "renamed-4567cdef"  # its folder is back
    kept.mkdir(parents=True)

    found = run_cli("search", "pool", cwd=project)  # writes this project's index file

    assert found.returncode == 0, found.stderr
    assert sorted(os.listdir(index)) == sorted(
        [
            ".gitignore",
            f"{slug_for(str(project))}.building",  # the lock a build takes, kept
            f"{slug_for(str(project))}.mhix",
            f"{slug_for(str(project))}.seen",
        ]
        + ["gone-0123abcd.watch", "renamed-4567cdef.mhix", "moved-89abcdef.mhix"]
    )

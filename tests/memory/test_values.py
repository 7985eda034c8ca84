"""What kind of value a question asks for, and what a value of each kind looks like."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from memhooks.memory import Store
from memhooks.memory.index import Index
from memhooks.memory.question import read
from memhooks.memory.terms import keys
from memhooks.memory.values import SHAPES, SHARE, credit

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize(
    ("query", "asks"),
    [
        ("which django version are we on now", {("version", None)}),
        ("最新的固件版本是多少", {("version", None)}),
        ("how big are the OTA slots these days", {("size", None)}),
        ("most recent memory limit for the scheduler pod", {("size", None)}),
        ("how many nodes do we have in the field now", {("count", "node")}),
        # What is counted is the first word after "many" that is no frame word.
        ("how many of the stores are we ingesting now", {("count", "store")}),
        # ... and the first plural, when there is one: these count shards, not emulators.
        ("how many emulator shards does CI use nowadays", {("count", "shard")}),
        # A count is also asked for by "<what> count" and "number of <what>".
        ("gateway count currently", {("count", "gateway")}),
        ("number of replicas in prod now", {("count", "replica")}),
        # "count" alone counts nothing named.
        ("what count did the dedupe job report last time", set()),
        ("what time do the dashboards need to be ready by now", {("clock", None)}),
        ("how long does the invoice run take these days", {("span", None)}),
        ("最近一次 invoice run 跑了多久", {("span", None)}),
        ("current watchdog timeout on the nodes", {("span", None)}),
        ("what was the original uplink interval", {("span", None)}),
        ("原始数据现在保留多久", {("span", None)}),
        ("how often does the catalog sync run now", {("span", None)}),
        # "when" asks for a date, which a log's name tells ...
        ("when did we first notice the ingest-worker memory leak", {("date", None)}),
        ("第一次 R8 导致 release 崩溃是什么时候", {("date", None)}),
        # ... and no kind: a leak is no size, "last time" and "first time" ask when, not
        # what time, and "long" alone is no length of time.
        ("the ingest-worker memory leak: did it come back?", set()),
        ("last time I tried the release script, what broke?", set()),
        ("the long-running migration: where did I leave it?", set()),
    ],
)
def test_a_question_names_the_kind_of_value_it_asks_for(
    query: str, asks: set[tuple[str, str | None]]
) -> None:
    assert {(a.kind, a.counted) for a in read(query).asks} == asks


@pytest.mark.parametrize(
    ("kind", "line", "value"),
    [
        ("version", "- Django 5.1.7 -> 5.2.2 (LTS)", "5.1.7"),
        ("version", "rustc v1.82 in rust-toolchain.toml", "v1.82"),
        ("version", "scheduler at 2.5Gi, cpu 1.5x, 99.5% up, 10.5 GB free", None),
        ("size", "binary 184 KB; 384 KB slots", "184 KB"),
        ("size", "set `limits.memory: 2.5Gi`", "2.5Gi"),
        ("size", "maxmemory 4gb -> 6gb", "4gb"),
        ("size", "ran 4 jobs in 12 min", None),
        ("clock", "SLA moves from 06:30 to 07:30", "06:30"),
        ("clock", "standup at 9am", "9am"),
        ("clock", "Django 5.2.2", None),
        ("span", "invoice run took 41 min", "41 min"),
        ("span", "timeout 30s -> 90s", "30s"),
        ("span", "384 KB slots", None),
    ],
)
def test_a_value_of_each_kind(kind: str, line: str, value: str | None) -> None:
    found = SHAPES[kind].search(line)
    assert (found.group(0) if found else None) == value


def test_a_file_whose_name_holds_the_word_is_not_credited_again(tmp_path: Path) -> None:
    # The note's name says "version": BM25 weighs that already (`memory.rank`), so only
    # the log, which states a version and never the word, earns the credit.
    slug = "myapp-1a2b3c4d"
    for rel, text in {
        "notes/django-version.md": "Django 5.1.7 on every service",
        "daily/2026-03-01.md": "- Django 5.1.7 -> 5.2.2 (LTS)",
    }.items():
        path = tmp_path / "projects" / slug / rel
        path.parent.mkdir(parents=True)
        path.write_text(text + "\n", encoding="utf-8")
    index = Index(Store(tmp_path, slug).corpus().values())
    score = dict.fromkeys(range(index.count), 1.0)
    query = "which django version are we on now"
    reading = read(query)
    subject = {k for k in keys(query) if k not in reading.subjectless}
    idf = dict.fromkeys(keys(query), 1.0)
    stating = credit(index, score, reading.asks, subject, idf, {}, "latest")
    note = index.id_of(f"projects/{slug}/notes/django-version.md")
    log = index.id_of(f"projects/{slug}/daily/2026-03-01.md")
    assert note is not None and log is not None
    assert score[note] == 1.0
    assert score[log] == 1.0 + SHARE
    # Both state a version beside django, credited or not (`memory.timeline.lead`).
    assert stating == {note, log}


@pytest.mark.parametrize(
    ("line", "states"),
    [
        # A change is one value: the subject stands beside the old one.
        ("- db backup retention 7 -> 21 days", True),
        ("- db backup retention 7 → 21 days", True),
        ("- db backup retention 21 days", True),
        # ... and must still stand beside it.
        ("- backup restore tested, fine; log retention 7 -> 21 days", False),
    ],
)
def test_a_value_changed_by_an_arrow_stands_beside_the_words_before_the_old_one(
    tmp_path: Path, line: str, states: bool
) -> None:
    slug = "myapp-1a2b3c4d"
    path = tmp_path / "projects" / slug / "daily" / "2026-03-01.md"
    path.parent.mkdir(parents=True)
    path.write_text(line + "\n", encoding="utf-8")
    index = Index(Store(tmp_path, slug).corpus().values())
    query = "backup retention these days"
    reading = read(query)
    subject = {k for k in keys(query) if k not in reading.subjectless}
    score = dict.fromkeys(range(index.count), 1.0)
    stating = credit(index, score, reading.asks, subject, {}, {}, "latest")
    assert bool(stating) is states

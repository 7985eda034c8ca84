"""What kind of value a question asks for, and what a value of each kind looks like."""

from __future__ import annotations

import pytest

from memhooks.memory.question import read
from memhooks.memory.values import SHAPES


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
        ("what time do the dashboards need to be ready by now", {("clock", None)}),
        ("how long does the invoice run take these days", {("span", None)}),
        ("最近一次 invoice run 跑了多久", {("span", None)}),
        ("current watchdog timeout on the nodes", {("span", None)}),
        # No kind: a leak is no size, "last time" and "first time" ask when, not what
        # time, and "long" alone is no length of time.
        ("when did we first notice the ingest-worker memory leak", set()),
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

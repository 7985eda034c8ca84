"""Scoring search against labelled queries: recall@k, MRR, silent misses, the report."""

from __future__ import annotations

import json

import pytest

from memhooks.memory.errors import MemoryStoreError, QueriesFileError
from memhooks.memory.evaluate import (
    Query,
    evaluate,
    parse_ks,
    parse_queries,
    render,
    to_json,
)
from memhooks.memory.results import Hit, SearchResult


def _q(qid: str, expect: str, category: str = "exact", query: str = "q") -> Query:
    return Query(qid, query, "p-00000000", (expect,), category)


def _result(
    paths: list[str], counts: tuple[tuple[str, int], ...] = (("q", 1),)
) -> SearchResult:
    return SearchResult(counts, tuple(Hit(p, ("q",), False, "", 1) for p in paths))


def test_parse_queries_reads_every_field() -> None:
    line = {
        "id": "d1",
        "query": "x y",
        "project": "p-00000000",
        "expect": ["a.md"],
        "category": "cjk",
    }
    text = (
        json.dumps(line) + "\n\n" + json.dumps({**line, "id": "d2", "note": "extra ok"})
    )
    qs = parse_queries(text)
    assert qs[0] == Query("d1", "x y", "p-00000000", ("a.md",), "cjk")
    assert [q.id for q in qs] == ["d1", "d2"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("{not json", "q.jsonl:1: ", id="bad-json"),
        pytest.param(
            '{"id": "d1", "query": "x", "project": "p"}',
            "q.jsonl:1: expect: ",
            id="missing-field",
        ),
        pytest.param(
            '{"id": "d1", "query": "x", "project": "p", "expect": []}',
            "q.jsonl:1: expect: ",
            id="empty-expect",
        ),
        pytest.param("\n\n", "q.jsonl: no queries", id="empty-file"),
        pytest.param(
            '{"id": "d1", "query": "x", "project": "p", "expect": ["a.md"]}\n'
            '{"id": "d1", "query": "y", "project": "p", "expect": ["b.md"]}',
            "q.jsonl:2: id 'd1' is also on line 1",
            id="duplicate-id",
        ),
        pytest.param(
            '{"id": "d1", "query": "x", "project": "p", "expect": ["../a.md"]}',
            "q.jsonl:1: expect: '../a.md' is not a path inside the memory root",
            id="expect-outside",
        ),
        pytest.param(
            '{"id": "d1", "query": "x", "project": "p", "expect": ["/tmp/a.md"]}',
            "q.jsonl:1: expect: '/tmp/a.md' is not",
            id="expect-absolute",
        ),
    ],
)
def test_parse_queries_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(QueriesFileError) as e:
        parse_queries(text, "q.jsonl")
    assert isinstance(e.value, MemoryStoreError)
    assert str(e.value).startswith(message)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("text", "ks"),
    [
        pytest.param("1,5,10", (1, 5, 10), id="usual"),
        pytest.param("10, 1,1", (1, 10), id="sorted-dedup"),
    ],
)
def test_parse_ks(text: str, ks: tuple[int, ...]) -> None:
    assert parse_ks(text) == ks


@pytest.mark.parametrize(
    "text", [pytest.param("0", id="zero"), pytest.param("a,b", id="words")]
)
def test_parse_ks_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="--k wants positive integers"):
        parse_ks(text)


def test_recall_mrr_and_categories() -> None:
    queries = [
        _q("a", "x.md", "exact"),  # rank 1
        _q("b", "x.md", "exact"),  # rank 3
        _q("c", "x.md", "cjk"),  # not returned
    ]
    runs = {
        "a": _result(["x.md", "y.md"]),
        "b": _result(["y.md", "z.md", "x.md"]),
        "c": _result(["y.md"]),
    }
    report = evaluate(queries, lambda q: runs[q.id], (1, 3))
    assert report.overall.recall == {1: 1 / 3, 3: 2 / 3}
    assert report.overall.mrr == pytest.approx((1 + 1 / 3) / 3)
    assert report.by_category["exact"].recall == {1: 0.5, 3: 1.0}
    assert report.by_category["cjk"].queries == 1
    assert [m.query.id for m in report.misses] == ["c"]


@pytest.mark.parametrize(
    ("result", "silent"),
    [
        pytest.param(_result(["y.md"]), 1, id="files-shown-no-zero-is-silent"),
        pytest.param(
            _result(["y.md"], (("q", 1), ("r", 0))), 0, id="a-zero-term-is-a-sign"
        ),
        pytest.param(_result([], (("q", 0),)), 0, id="no-files-is-a-sign"),
    ],
)
def test_silent_misses(result: SearchResult, silent: int) -> None:
    report = evaluate([_q("a", "x.md")], lambda q: result, (5,))
    assert len(report.misses) == 1
    assert report.silent_misses == silent


def test_a_hit_is_never_a_silent_miss() -> None:
    report = evaluate([_q("a", "x.md")], lambda q: _result(["x.md"]), (1,))
    assert report.misses == () and report.silent_misses == 0


def test_json_shape() -> None:
    queries = [_q("a", "x.md", "exact", "alpha"), _q("b", "x.md", "cjk", "月結")]
    runs = {"a": _result(["x.md"]), "b": _result([f"{i}.md" for i in range(8)])}
    data = to_json(evaluate(queries, lambda q: runs[q.id], (1, 5, 10)))
    assert data == {
        "queries": 2,
        "recall": {"1": 0.5, "5": 0.5, "10": 0.5},
        "mrr": 0.5,
        "silent_misses": 1,
        "by_category": {
            "exact": {"queries": 1, "recall": {"1": 1.0, "5": 1.0, "10": 1.0}},
            "cjk": {"queries": 1, "recall": {"1": 0.0, "5": 0.0, "10": 0.0}},
        },
        "misses": [
            {
                "id": "b",
                "query": "月結",
                "expect": ["x.md"],
                "got": [f"{i}.md" for i in range(5)],
            }
        ],
    }


def test_text_report_lists_table_overall_and_misses() -> None:
    queries = [_q("a", "x.md", "exact", "alpha"), _q("b", "x.md", "cjk", "月結")]
    runs = {"a": _result(["x.md"]), "b": _result(["y.md", "z.md"])}
    text = render(evaluate(queries, lambda q: runs[q.id], (1, 5)))
    lines = text.splitlines()
    assert lines[0].split() == ["category", "n", "R@1", "R@5", "MRR"]
    assert lines[1].split() == ["exact", "1", "1.00", "1.00", "1.00"]
    assert lines[2].split() == ["cjk", "1", "0.00", "0.00", "0.00"]
    assert lines[4].split() == ["overall", "2", "0.50", "0.50", "0.50"]
    assert "misses (nothing expected in the top 5): 1, silent: 1" in text
    assert "b  cjk  月結\n  expected: x.md\n  got: y.md, z.md\n" in text

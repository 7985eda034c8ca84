"""Scoring search against ground truth (docs/design.md): recall@k, MRR and silent misses. Pure.

The queries file is JSON Lines, one ``{"id", "query", "project", "expect", "category"}``
per line (``../eval/dev/README.md``). The caller runs each query through the real search
and hands back its `SearchResult`; this module only parses, counts and formats, so the
numbers describe exactly what ``memhooks search`` returns.

A query *hits* at k when any expected path is among the first k files. It is a *miss*
when none is within the largest k asked for, and a *silent* miss when, on top of that,
the output gave no sign of trouble: files were shown and no typed term reported 0 (a
term shown as ``(0, N partial)`` reported 0: the phrase as typed is nowhere).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memhooks.memory.errors import QueriesFileError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from memhooks.memory.results import SearchResult

#: How many returned paths a miss lists.
MISS_SHOWN = 5


class _QueryLine(BaseModel):
    # Unknown keys are allowed: a labelled set may carry notes for people.
    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    query: str
    project: str
    expect: list[str] = Field(min_length=1)
    category: str = "uncategorised"


@dataclass(frozen=True)
class Query:
    """One labelled query."""

    id: str
    query: str
    project: str  #: slug under projects/, the current project while it runs
    expect: tuple[str, ...]  #: root-relative paths that answer it
    category: str


@dataclass(frozen=True)
class Outcome:
    """What search returned for one query."""

    query: Query
    got: tuple[str, ...]  #: every returned path, best first
    rank: int  #: 1-based rank of the first expected path; 0 if none was returned
    silent: bool  #: no term reported 0 and files were shown


@dataclass(frozen=True)
class Scores:
    """Recall@k and MRR over a group of queries."""

    queries: int
    recall: dict[int, float]
    mrr: float


@dataclass(frozen=True)
class Report:
    """The whole evaluation."""

    ks: tuple[int, ...]
    overall: Scores
    by_category: dict[str, Scores]  #: in order of first appearance
    outcomes: tuple[Outcome, ...]

    @property
    def misses(self) -> tuple[Outcome, ...]:
        """Queries with no expected path within the largest k."""
        return tuple(o for o in self.outcomes if not _hit(o, max(self.ks)))

    @property
    def silent_misses(self) -> int:
        """Misses whose output showed files and no term with count 0."""
        return sum(o.silent for o in self.misses)


def parse_queries(text: str, source: str = "queries.jsonl") -> list[Query]:
    """Parse a JSON Lines queries file (blank lines are skipped).

    Args:
        text: the file's text.
        source: its name, for error messages.

    Returns:
        The queries in file order.

    Raises:
        QueriesFileError: a line is not JSON, lacks a field, repeats an id or expects a
            path outside the root; the message names the line.
    """
    out: list[Query] = []
    lines: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            q = _QueryLine.model_validate_json(line)
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise QueriesFileError(
                source, n, f"{where}: {err['msg']}" if where else err["msg"]
            ) from None
        if q.id in lines:
            # Counted twice, it would weigh twice in every figure.
            raise QueriesFileError(
                source, n, f"id {q.id!r} is also on line {lines[q.id]}"
            )
        for rel in q.expect:
            if rel.startswith("/") or ".." in rel.split("/"):
                # Search returns only paths inside the root: a sure miss.
                raise QueriesFileError(
                    source, n, f"expect: {rel!r} is not a path inside the memory root"
                )
        lines[q.id] = n
        out.append(Query(q.id, q.query, q.project, tuple(q.expect), q.category))
    if not out:
        raise QueriesFileError(source, 0, "no queries")
    return out


def parse_ks(text: str) -> tuple[int, ...]:
    """``"1,5,10"`` → ``(1, 5, 10)``: sorted, de-duplicated, each at least 1.

    Raises:
        ValueError: not a comma-separated list of positive integers.
    """
    try:
        ks = sorted({int(p) for p in text.split(",") if p.strip()})
    except ValueError:
        raise ValueError(
            f"--k wants positive integers like 1,5,10, not {text!r}"
        ) from None
    if not ks or ks[0] < 1:
        raise ValueError(f"--k wants positive integers like 1,5,10, not {text!r}")
    return tuple(ks)


def outcome(query: Query, result: SearchResult) -> Outcome:
    """Score one query's search result.

    Args:
        query: the labelled query.
        result: what search returned for it.

    Returns:
        The ranked paths, the rank of the first expected one and whether a miss would be silent.
    """
    got = tuple(h.rel for h in result.hits)
    expect = set(query.expect)
    rank = next((i for i, rel in enumerate(got, 1) if rel in expect), 0)
    silent = bool(got) and not result.zero_terms()
    return Outcome(query, got, rank, silent)


def evaluate(
    queries: Iterable[Query],
    run: Callable[[Query], SearchResult],
    ks: Sequence[int] = (1, 5, 10),
) -> Report:
    """Run every query and score the results.

    Args:
        queries: the labelled queries.
        run: searches for one query in its project (the caller's real search path).
        ks: the cut-offs for recall@k.

    Returns:
        Overall and per-category scores, and every outcome.
    """
    kt = tuple(sorted(set(ks)))
    outcomes = tuple(outcome(q, run(q)) for q in queries)
    groups: dict[str, list[Outcome]] = {}
    for o in outcomes:
        groups.setdefault(o.query.category, []).append(o)
    return Report(
        kt,
        _scores(outcomes, kt),
        {c: _scores(g, kt) for c, g in groups.items()},
        outcomes,
    )


def _hit(o: Outcome, k: int) -> bool:
    return 0 < o.rank <= k


def _scores(outcomes: Sequence[Outcome], ks: Sequence[int]) -> Scores:
    n = len(outcomes)
    recall = {k: sum(_hit(o, k) for o in outcomes) / n for k in ks}
    mrr = sum(1 / o.rank for o in outcomes if o.rank) / n
    return Scores(n, recall, mrr)


def to_json(report: Report) -> dict[str, object]:
    """The report as the ``memhooks eval --json`` object."""
    return {
        "queries": report.overall.queries,
        "recall": _recall_json(report.overall),
        "mrr": round(report.overall.mrr, 4),
        "silent_misses": report.silent_misses,
        "by_category": {
            c: {"queries": s.queries, "recall": _recall_json(s)}
            for c, s in report.by_category.items()
        },
        "misses": [
            {
                "id": o.query.id,
                "query": o.query.query,
                "expect": list(o.query.expect),
                "got": list(o.got[:MISS_SHOWN]),
            }
            for o in report.misses
        ],
    }


def _recall_json(s: Scores) -> dict[str, float]:
    return {str(k): round(r, 4) for k, r in s.recall.items()}


def render(report: Report) -> str:
    """The human report: a table per category, the overall line, then every miss."""
    head = ["category", "n", *(f"R@{k}" for k in report.ks), "MRR"]
    rows = [
        [c, str(s.queries), *(f"{s.recall[k]:.2f}" for k in report.ks), f"{s.mrr:.2f}"]
        for c, s in report.by_category.items()
    ]
    o = report.overall
    rows.append(
        [
            "overall",
            str(o.queries),
            *(f"{o.recall[k]:.2f}" for k in report.ks),
            f"{o.mrr:.2f}",
        ]
    )
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    fmt = [
        r[0].ljust(widths[0])
        + "".join("  " + v.rjust(w) for v, w in zip(r[1:], widths[1:], strict=True))
        for r in [head, *rows]
    ]
    misses = report.misses
    lines = [*fmt[:-1], "-" * len(fmt[0]), fmt[-1], ""]
    lines.append(
        f"misses (nothing expected in the top {max(report.ks)}): {len(misses)}, "
        f"silent: {report.silent_misses} (files shown, no term reported 0)"
    )
    for m in misses:
        q = m.query
        where = (
            f"expected first at rank {m.rank}" if m.rank else "expected not returned"
        )
        lines += [
            "",
            f"{q.id}  {q.category}  {q.query}",
            f"  expected: {', '.join(q.expect)}",
            f"  got: {', '.join(m.got[:MISS_SHOWN]) or '(nothing)'}",
            f"  {where}{'; silent' if m.silent else ''}",
        ]
    return "\n".join(lines)

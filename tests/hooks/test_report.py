"""`memhooks report`: sessions from the activity record, misses, log growth."""

from __future__ import annotations

from memhooks.hooks.report import render_table, section_totals, sessions


def _facts() -> list[dict[str, object]]:
    share = [
        ["MEMORY.md", 100, 100, "whole"],
        ["Daily log 2026-12-01 (today)", 9, 5, "truncated"],
    ]
    return [
        {
            "t": 1.0,
            "s": "a",
            "ev": "block",
            "bytes": 900,
            "shares": share,
            "whole": ["MEMORY.md"],
        },
        {"t": 2.0, "s": "a", "ev": "surfaced", "rels": ["notes/x.md"]},
        {
            "t": 3.0,
            "s": "a",
            "ev": "looked",
            "reads": ["notes/x.md", "notes/y.md", "MEMORY.md"],
        },
        {"t": 4.0, "s": "a", "ev": "end", "log": "d", "log_bytes": 1000},
        {"t": 5.0, "s": "b", "ev": "wrote", "title": "session end", "bytes": 300},
        {"t": 6.0, "s": "b", "ev": "end", "log": "d", "log_bytes": 1300},
        {"t": 7.0, "s": "c", "ev": "end", "log": "d", "log_bytes": 1300},
    ]


def test_misses_are_reads_neither_surfaced_nor_whole_in_the_block() -> None:
    a, b, c = sessions(_facts(), 10)
    assert a.misses == ["notes/y.md"]
    assert (a.log_growth, b.log_growth, c.log_growth) == (1000, 300, 0)
    assert b.wrote == [{"title": "session end", "bytes": 300}]


def test_a_session_ended_twice_keeps_its_growth() -> None:
    # Gemini CLI runs its SessionEnd hook more than once on `/quit`: each notes an end.
    twice = [
        {"t": 1.0, "s": "a", "ev": "end", "log": "d", "log_bytes": 100},
        {"t": 2.0, "s": "b", "ev": "end", "log": "d", "log_bytes": 400},
        {"t": 3.0, "s": "b", "ev": "end", "log": "d", "log_bytes": 400},
        {"t": 4.0, "s": "c", "ev": "end", "log": "d", "log_bytes": 450},
    ]
    a, b, c = sessions(twice, 10)
    assert (a.log_growth, b.log_growth, c.log_growth) == (100, 300, 50)


def test_last_n_sessions() -> None:
    assert [s.session for s in sessions(_facts(), 2)] == ["b", "c"]
    assert sessions(_facts(), 0) == []


def test_sections_fold_dates_and_the_table_names_misses() -> None:
    ss = sessions(_facts(), 10)
    assert section_totals(ss) == [
        {
            "section": "MEMORY.md",
            "whole": 1,
            "truncated": 0,
            "omitted": 0,
            "mean_bytes": 100,
        },
        {
            "section": "Daily log (newest)",
            "whole": 0,
            "truncated": 1,
            "omitted": 0,
            "mean_bytes": 5,
        },
    ]
    table = render_table("shop-1", ss)
    assert "Live misses (1)" in table and "a  notes/y.md" in table
    assert render_table("shop-1", []).startswith("memhooks report: no sessions")


def test_a_damaged_time_is_shown_as_none() -> None:
    # One bad line (1e20, NaN) made `report` exit 3 until the file was edited by hand.
    for t in (1e20, float("nan"), -1e20):
        facts = [{"t": t, "s": "x", "ev": "block", "bytes": 10}, *_facts()]
        found = sessions(facts, 10)
        assert [s.started for s in found if s.session == "x"] == [""]
        assert "x" in render_table("p-0123abcd", found)


def test_the_title_counts_one_session_as_one() -> None:
    # Before: "memhooks report: last 1 sessions of shop-1, oldest first".
    one = sessions(_facts(), 1)
    assert render_table("shop-1", one).startswith(
        "memhooks report: the last session of shop-1\n"
    )
    assert render_table("shop-1", sessions(_facts(), 10)).startswith(
        "memhooks report: last 3 sessions of shop-1, oldest first\n"
    )

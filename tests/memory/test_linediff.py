"""The lines removed and added between two texts, as the change notice tells them."""

from __future__ import annotations

from memhooks.memory.linediff import LineDiff, line_diff


def test_a_replaced_rule_is_one_line_removed_and_one_added() -> None:
    old = "# Rules\n- always use npm\n- keep commits small"
    new = "# Rules\n- use pnpm, never npm\n- keep commits small"
    assert line_diff(old, new) == LineDiff(
        1, 1, "-- always use npm\n+- use pnpm, never npm"
    )


def test_unchanged_lines_are_not_repeated_and_hunks_keep_their_order() -> None:
    old = "a\nb\nc\nd\ne"
    new = "a\nB\nc\nd\ne\nf"
    diff = line_diff(old, new)
    assert diff.text == "-b\n+B\n+f"
    assert (diff.removed, diff.added) == (1, 2)


def test_no_change_and_blank_lines_only_say_nothing() -> None:
    assert line_diff("a\nb", "a\nb") == LineDiff(0, 0, "")
    assert line_diff("a\nb", "a\n\n  \nb") == LineDiff(0, 0, "")


def test_a_line_moved_is_removed_where_it_was_and_added_where_it_is() -> None:
    diff = line_diff("x\ny\nz", "y\nz\nx")
    assert diff.text == "-x\n+x"

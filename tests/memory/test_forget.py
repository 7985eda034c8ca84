"""Forget, supersede, restore: legible marks in the files, invisible to search and the block."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhooks.memory import Store, build_block, search_docs
from memhooks.memory.errors import ForgetError
from memhooks.memory.forget import (
    forget_line,
    forget_note,
    restore_line,
    restore_note,
    supersede_note,
)
from memhooks.memory.inject import first_line
from memhooks.memory.note_format import forgotten_lines, superseded_by, visible
from memhooks.memory.render import render_text
from memhooks.memory.superseded import mark_superseded

if TYPE_CHECKING:
    from pathlib import Path

SLUG = "proj-0123abcd"
DAY = "2026-11-30"


def test_forgotten_line_keeps_its_text_date_and_reason() -> None:
    text = "- Use uv.\n- Deploy with fabric.\n"

    new, original = forget_line(text, "fabric", date=DAY, reason="moved to ansible")

    assert original == "- Deploy with fabric."
    assert new == (
        "- Use uv.\n"
        "<!-- forgotten 2026-11-30 — moved to ansible -->~~- Deploy with fabric.~~\n"
    )
    assert forgotten_lines(new)[0].reason == "moved to ansible"
    assert visible("memory", new) == "- Use uv.\n"
    assert restore_line(new, None) == (text, "- Deploy with fabric.")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("a\nb target\nc", id="no-final-newline"),
        pytest.param("a\r\nb target\r\nc\r\n", id="crlf"),
        pytest.param("\ufeffb target\n", id="bom"),
        pytest.param("a\n  b target ~~x~~  \n\n", id="spaces-and-tildes"),
        pytest.param("a\nb target <!-- c -->\n", id="comment-inside"),
    ],
)
def test_restore_is_byte_identical(text: str) -> None:
    forgotten, _ = forget_line(text, "target", date=DAY, reason="r")
    assert "target" not in (visible("daily", forgotten) or "")
    assert restore_line(forgotten, "target")[0] == text


@pytest.mark.parametrize(
    ("marked", "text"),
    [
        pytest.param(
            "<!-- forgotten 2026-01-01 -->~~\ufeffx~~\n",
            "\ufeffx\n",
            id="line-before-bom",
        ),
        pytest.param(
            "forgotten: 2026-01-01\n\ufeffx\n", "\ufeffx\n", id="note-before-bom"
        ),
        pytest.param("forgotten: 2026-01-01\nx\r\n", "x\r\n", id="lf-header-crlf-note"),
        pytest.param(
            "forgotten: 2026-01-01\n---\na: b\n---\nx\n",
            "---\na: b\n---\nx\n",
            id="note-above-front-matter",
        ),
    ],
)
def test_marks_written_before_the_fix_still_restore(marked: str, text: str) -> None:
    # A mark used to go before a byte-order mark, and a note's header to end in "\n" alone.
    line = "<!--" in marked
    assert (restore_line(marked, None) if line else restore_note(marked))[0] == text


@given(
    lines=st.lists(
        st.text(alphabet=st.characters(exclude_characters="\n")), min_size=1
    ),
    pick=st.integers(min_value=0),
    reason=st.text(),
)
def test_forget_then_restore_is_identity(
    lines: list[str], pick: int, reason: str
) -> None:
    text = "\n".join(lines)
    live = [
        i + 1
        for i, ln in enumerate(lines)
        if ln.strip() and not ln.startswith("<!-- forgotten ")
    ]
    if not live:
        return
    n = live[pick % len(live)]

    forgotten, _ = forget_line(text, n, date=DAY, reason=reason)

    assert forgotten.count("\n") == text.count("\n")
    assert restore_line(forgotten, n)[0] == text


@pytest.mark.parametrize(
    ("select", "message"),
    [
        pytest.param("nowhere", "no line holds 'nowhere'", id="missing"),
        pytest.param("rule", "2 lines hold 'rule' (must be unique)", id="ambiguous"),
        pytest.param(2, "line 2 is blank", id="blank"),
        pytest.param(9, "line 9 is not in the file (4 lines)", id="out-of-range"),
        pytest.param(4, "line 4 is already forgotten", id="already"),
    ],
)
def test_forget_refuses_what_it_cannot_name(select: int | str, message: str) -> None:
    text = "rule one\n\nrule two\n<!-- forgotten 2026-01-01 -->~~old~~\n"
    with pytest.raises(
        ForgetError, match=message.replace("(", r"\(").replace(")", r"\)")
    ):
        forget_line(text, select, date=DAY, rel="MEMORY.md")


def test_a_line_past_a_one_line_file_is_counted_in_the_singular() -> None:
    with pytest.raises(ForgetError, match=r"line 9 is not in the file \(1 line\)$"):
        forget_line("only rule\n", 9, date=DAY, rel="MEMORY.md")


def test_reason_cannot_end_the_comment() -> None:
    new, _ = forget_line("x\n", "x", date=DAY, reason="a --> b\nc -- d")
    assert new == "<!-- forgotten 2026-11-30 — a -> b c – d -->~~x~~\n"
    assert restore_line(new, None)[0] == "x\n"


def test_forgotten_note_is_invisible_and_restores() -> None:
    text = "aliases: pool, pgbouncer\nPool size is 20.\n"

    new = forget_note(text, date=DAY, reason="per service now")

    assert new.startswith("forgotten: 2026-11-30 — per service now\naliases:")
    assert visible("note", new) is None
    assert visible("memory", new) == new  # only notes are forgotten whole
    assert restore_note(new) == (text, "forgotten")
    with pytest.raises(ForgetError, match="already forgotten"):
        forget_note(new, date=DAY)


@pytest.mark.parametrize(
    ("text", "at"),
    [
        pytest.param("aliases: a, b\nbody\n", 1, id="below-aliases"),
        pytest.param("body\n", 0, id="first-line"),
        pytest.param("aliases: a", 0, id="aliases-without-newline"),
    ],
)
def test_supersede_marks_header_and_restores(text: str, at: int) -> None:
    new = supersede_note(text, "v2", date=DAY, reason="rewritten")

    lines = new.split("\n")
    assert lines[at] == "superseded-by: notes/v2.md (2026-11-30) — rewritten"
    assert superseded_by(lines) == ("v2", DAY, "rewritten")
    assert visible("note", new) == new  # still searchable
    assert restore_note(new) == (text, "superseded")
    with pytest.raises(ForgetError, match="already superseded by notes/v2.md"):
        supersede_note(new, "v3", date=DAY)


def test_store_hides_forgotten_lines_and_notes(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_memory("- Deploy with fabric.\n- Prefer small commits.")
    store.write_note("pool", "Pool size is 20.")
    store.rewrite(
        "MEMORY.md", lambda t: forget_line(t, "fabric", date=DAY, reason="old")[0]
    )
    store.rewrite("notes/pool", lambda t: forget_note(t, date=DAY))

    docs = store.corpus()
    block = build_block(docs, DAY)

    assert "fabric" not in block and "Prefer small commits" in block
    assert "pool" not in block
    assert f"projects/{SLUG}/notes/pool.md" not in docs
    assert search_docs(docs.values(), "fabric pool").hits == ()
    assert "~~- Deploy with fabric.~~" in (memory_root / "MEMORY.md").read_text()


def test_store_hides_private_blocks_and_names_the_lines_of_the_file(
    memory_root: Path,
) -> None:
    # A person's <private> text is theirs: the block and search never show it, and a
    # hit's line numbers still name the file's lines (forgotten ones counted too).
    store = Store(memory_root, SLUG)
    store.write_memory(
        "- Deploy with fabric.\n<private>\nThe vault code is 4417.\n</private>\n"
        "- Lockers by the east door <private>(mine: 31)</private>.\n- Ship on Fridays."
    )
    store.rewrite(
        "MEMORY.md", lambda t: forget_line(t, "fabric", date=DAY, reason="old")[0]
    )
    docs = store.corpus()
    block = build_block(docs, DAY)

    assert "4417" not in block and "31" not in block and "private>" not in block
    assert "- Lockers by the east door ." in block and "Ship on Fridays" in block
    assert search_docs(docs.values(), "vault code").hits == ()
    (hit,) = search_docs(docs.values(), "lockers fridays").hits
    assert [ln.number for ln in hit.lines if ln.match] == [5, 6]
    assert (memory_root / "MEMORY.md").read_text().count("The vault code is 4417.") == 1


@pytest.mark.parametrize("opening", ["<private>", "- Door codes: <private>"])
def test_forgetting_the_line_that_opens_a_private_block_hides_the_block(
    memory_root: Path, opening: str
) -> None:
    # The block's tags are the file's as written: a forgotten line that opens one still
    # hides the lines up to its </private>. Before 2026-12-06 forgetting that line (by
    # its number, as search's gap shows it) put the private lines in the block and search.
    store = Store(memory_root, SLUG)
    store.write_memory(
        f"- Deploy with fabric.\n{opening}\nThe vault code is 4417.\n</private>\n"
        "- Ship on Fridays."
    )
    store.rewrite("MEMORY.md", lambda t: forget_line(t, 2, date=DAY, reason="old")[0])
    docs = store.corpus()

    assert "4417" not in build_block(docs, DAY)
    assert search_docs(docs.values(), "vault code").hits == ()
    (hit,) = search_docs(docs.values(), "fabric fridays").hits
    assert [ln.number for ln in hit.lines if ln.match] == [1, 5]


def test_superseded_note_ranks_below_its_successor(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    # The old note matches better (more terms): without the mark it would rank first.
    store.write_note("deploy", "aliases: release\nDeploy deploy with fabric.")
    store.write_note("deploy-v2", "Deploy with ansible.")
    store.rewrite(
        "notes/deploy",
        lambda t: supersede_note(t, "deploy-v2", date=DAY, reason="ansible now"),
    )
    docs = store.corpus()

    result = mark_superseded(search_docs(docs.values(), "deploy fabric"), docs)

    assert [h.rel.rsplit("/", 1)[1] for h in result.hits] == [
        "deploy-v2.md",
        "deploy.md",
    ]
    assert result.hits[1].snippet.startswith(
        "(superseded by notes/deploy-v2.md on 2026-11-30 — ansible now)\n"
    )
    assert "(superseded by" in render_text(result)
    index = build_block(docs, DAY)
    assert (
        "- notes/deploy.md — (superseded by notes/deploy-v2.md) Deploy deploy with fabric."
        in index
    )
    assert first_line(docs[f"projects/{SLUG}/notes/deploy.md"]) == (
        "Deploy deploy with fabric."
    )


def test_aliases_of_a_forgotten_note_are_updated_in_place(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_note("pool", "Pool size is 20.", aliases="pool")
    store.rewrite("notes/pool", lambda t: forget_note(t, date=DAY))

    store.write_note("pool", "More.", aliases="pgbouncer")

    text = (memory_root / "projects" / SLUG / "notes" / "pool.md").read_text()
    assert text.startswith("forgotten: 2026-11-30\naliases: pool, pgbouncer\n")
    assert text.count("aliases:") == 1


OBSIDIAN = "---\ntitle: Pool\ntags: [db]\n---\nPool size is 20.\n"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(OBSIDIAN, id="lf"),
        pytest.param(OBSIDIAN.replace("\n", "\r\n"), id="crlf"),
        pytest.param("\ufeff" + OBSIDIAN, id="bom"),
        pytest.param(OBSIDIAN.rstrip("\n"), id="no-final-newline"),
        pytest.param(OBSIDIAN.replace("tags", "x" * 5000 + "\ntags"), id="long"),
    ],
)
def test_a_forgotten_note_keeps_its_front_matter_first(text: str) -> None:
    # Obsidian and every YAML reader see front matter only on the first line: the mark
    # used to go above it.
    new = forget_note(text, date=DAY, reason="old")

    lines = [ln.removeprefix("\ufeff").rstrip("\r") for ln in new.split("\n")]
    closing = lines.index("---", 1)
    assert lines[0] == "---"
    assert lines[closing + 1] == "forgotten: 2026-11-30 — old"
    assert visible("note", new) is None
    assert restore_note(new) == (text, "forgotten")


def test_a_superseded_note_keeps_its_front_matter_first() -> None:
    new = supersede_note(OBSIDIAN, "v2", date=DAY)

    assert new.startswith("---\ntitle: Pool\ntags: [db]\n---\nsuperseded-by: notes/v2")
    assert superseded_by(new.split("\n")) == ("v2", DAY, "")
    assert restore_note(new) == (OBSIDIAN, "superseded")


def test_marks_below_front_matter_are_read_by_search_and_the_block(
    memory_root: Path,
) -> None:
    store = Store(memory_root, SLUG)
    store.write_note("pool", "Pool size is 20.")
    store.write_note("deploy", "Deploy with fabric.")
    notes = memory_root / "projects" / SLUG / "notes"
    (notes / "pool.md").write_text(OBSIDIAN)
    (notes / "deploy.md").write_text("---\ntags: [ops]\n---\nDeploy with fabric.\n")
    store.rewrite("notes/pool", lambda t: forget_note(t, date=DAY))
    store.rewrite("notes/deploy", lambda t: supersede_note(t, "v2", date=DAY))

    docs = store.corpus()
    block = build_block(docs, DAY)

    assert f"projects/{SLUG}/notes/pool.md" not in docs
    assert search_docs(docs.values(), "pool").hits == ()
    assert "notes/pool.md" not in block
    assert (
        "- notes/deploy.md — (superseded by notes/v2.md) Deploy with fabric." in block
    )

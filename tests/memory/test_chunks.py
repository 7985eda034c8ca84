"""Chunks for the semantic index: they follow the Markdown, and their digests track edits."""

from __future__ import annotations

import itertools

import pytest

from memhooks.memory.chunks import MAX_CHARS, MAX_EMBED, chunks, embed_text
from memhooks.memory.corpus import make_doc
from memhooks.memory.paths import Located

DAILY = """# 2026-03-01

### 10:05 — pgbouncer in stg
- prepared statements broke after the switch

### 13:20 — pool sizing
- settled on `default_pool_size = 20`
"""

NOTE = """aliases: pooler, max connections

# DB connection pooling

Topology: API → pgbouncer → Postgres.

## Settings
    pool_mode = transaction

## Fix
Set `statement_cache_size` to 0.
"""


def _daily(text: str = DAILY):
    return make_doc(
        Located("daily", "projects/p-0123abcd/daily/2026-03-01.md", "2026-03-01"), text
    )


def _note(text: str = NOTE, name: str = "db-pool"):
    return make_doc(Located("note", f"projects/p-0123abcd/notes/{name}.md", name), text)


def test_a_daily_log_gives_one_chunk_per_entry() -> None:
    got = chunks(_daily())
    assert [c.text.splitlines()[0] for c in got] == [
        "2026-03-01",  # the date heading joins the first entry
        "13 20 — pool sizing",  # between word characters, ":" is a space
    ]
    assert [(c.start, c.end) for c in got] == [(0, 5), (5, 7)]
    assert "settled on default pool size 20" in got[1].text
    assert [c.id for c in got] == [f"{_daily().rel}#0", f"{_daily().rel}#1"]


def test_a_note_gives_one_chunk_per_section_each_labelled() -> None:
    _title, *got = chunks(_note())
    assert len(got) == 3
    for c in got:
        # The note's name, its aliases and its title say what every section is about.
        assert c.text.startswith("db pool — pooler, max connections\n")
        assert "DB connection pooling" in c.text
    assert "Fix\nSet statement cache size to 0." in got[2].text


def test_a_titled_file_also_gets_its_title_alone() -> None:
    # A short summary in its writer's words, not blurred by the passage around it.
    first, *rest = chunks(_note())
    assert (first.start, first.end, first.text) == (2, 3, "DB connection pooling")
    assert first.id.endswith("#0")
    assert first.digest not in {c.digest for c in rest}
    # Not for a daily log (its title is a date), nor when the title is all there is.
    assert all(c.text != "2026-03-01" for c in chunks(_daily()))
    assert [c.text for c in chunks(_note("# Only a title\n", "t"))] == [
        "t\nOnly a title"
    ]


def test_headings_inside_code_fences_do_not_split() -> None:
    text = "# Deploy\n\nRun it:\n```bash\n# not a heading\nmake deploy\n```\n"
    _title, only = chunks(_note(text, "deploy"))
    assert "not a heading" in only.text


def test_a_long_section_is_packed_into_pieces() -> None:
    text = "# Big\n" + "\n".join(f"- line {i} " + "x" * 60 for i in range(40))
    _title, *got = chunks(_note(text, "big"))
    assert len(got) > 1
    assert all(len(c.text) < MAX_CHARS + 200 for c in got)
    assert got[0].start == 0 and got[-1].end == 41
    assert all(a.end == b.start for a, b in itertools.pairwise(got))


def test_a_line_of_a_megabyte_gives_the_encoder_its_beginning() -> None:
    # A pasted log or minified JSON: one line, which packing by lines cannot split.
    line = " ".join(f"word{i}" for i in range(150_000))
    text = f"# Paste\n\n## Log\n{line}\nafter it\n"
    got = chunks(_note(text, "paste"))
    # Before: a chunk of 1 MB, 20 s and 3.2 GB of RSS in the encoder.
    assert len(line) > 1_000_000 and max(len(c.text) for c in got) == MAX_EMBED
    long = next(c for c in got if len(c.text) == MAX_EMBED)
    assert long.text.startswith("paste\nPaste\nword0 word1 ")
    assert (long.start, long.end) == (3, 4)  # its line as before: shown, numbered
    assert got[-1].text == "paste\nPaste\nafter it"  # and the next line its own


def test_an_empty_file_has_no_chunks() -> None:
    assert chunks(_daily("")) == []
    assert chunks(_daily("# 2026-03-01\n\n")) == [] or len(chunks(_daily("# x\n"))) <= 1


def test_editing_one_section_changes_only_its_digest() -> None:
    before = chunks(_note())
    after = chunks(
        _note(NOTE.replace("Set `statement_cache_size` to 0.", "Set it to 1."))
    )
    assert [a.digest == b.digest for a, b in zip(before, after, strict=True)] == [
        True,  # the title
        True,
        True,
        False,
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("set `default_pool_size`", "set default pool size", id="snake"),
        pytest.param("`strictPort: true`", "strict Port: true", id="camel"),
        pytest.param("**bold** and ## head", "bold and head", id="markup"),
        pytest.param("see notes/db.md", "see notes db md", id="path"),
        pytest.param("退款 規則", "退款 規則", id="cjk"),
    ],
)
def test_embed_text(text: str, expected: str) -> None:
    assert embed_text(text) == expected

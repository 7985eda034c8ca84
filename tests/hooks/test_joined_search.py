"""`memhooks search` for a term of words joined by punctuation (``in-memory``,
``pre-commit``, ``fraud_gbt``), run as a person runs it: a file holding the term as
typed ranks above the files holding only some of its words, and each file's label says
what it holds (memory/joined.py, memory/typed.py's `whole_of` and `parts_held`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tests.conftest import run_cli

if TYPE_CHECKING:
    from pathlib import Path

SLUG = "proj-0123abcd"
NOTES = f"projects/{SLUG}/notes"


def _write(*args: str) -> None:
    proc = run_cli("write", "--slug", SLUG, *args)
    assert proc.returncode == 0, proc.stderr


def _labels(query: str) -> list[tuple[str, list[str]]]:
    # (path, matched) of each file shown, best first, from `memhooks search --json`.
    proc = run_cli("search", "--slug", SLUG, "--json", "--", query)
    assert proc.returncode == 0, proc.stderr
    page = json.loads(proc.stdout)
    return [(r["path"], r["matched"]) for r in page["results"]]


def test_a_hyphenated_term_as_typed_comes_first_and_labels_say_what_matched(
    memory_root: Path,
) -> None:
    # The walk-through that found it: MEMORY.md holds "in" (its name says memory), one
    # note says in-memory, one Memory, one in.
    _write("--to", "memory", "--text", "- Notes live in docs.")
    _write("--to", "note", "--name", "cache", "--text", "The cache is in-memory only.")
    _write("--to", "note", "--name", "deploy", "--text", "Deploy runs in CI on main.")
    _write("--to", "note", "--name", "mem", "--text", "Memory limit is 2 GB.")
    # Twice: the first search writes the index file, the second reads the term from
    # the strings with punctuation that file keeps.
    for _ in range(2):
        got = dict(_labels("in-memory"))
        assert next(iter(got)) == f"{NOTES}/cache.md"
        assert got == {
            f"{NOTES}/cache.md": ["in-memory"],
            "MEMORY.md": ["in", "memory"],
            f"{NOTES}/mem.md": ["memory"],
            f"{NOTES}/deploy.md": ["in"],
        }
    text = run_cli("search", "--slug", SLUG, "in-memory").stdout
    assert text.startswith("Searched 1 term: in-memory(1) across 4 files.")
    assert text.count("[matched: in-memory]") == 1


def test_a_note_named_for_part_of_the_term_is_labelled_by_that_part(
    memory_root: Path,
) -> None:
    # "commit" in the name and five times in the text, against one line that says
    # pre-commit: the word alone, however often, does not decide.
    _write(
        "--to",
        "note",
        "--name",
        "commit",
        "--text",
        "Commit small. Commit often. A commit says why. Sign each commit. Squash a commit.",
    )
    _write("--to", "note", "--name", "lint", "--text", "The pre-commit hook runs ruff.")
    got = _labels("pre-commit")
    assert got == [
        (f"{NOTES}/lint.md", ["pre-commit"]),
        (f"{NOTES}/commit.md", ["commit"]),
    ]


def test_an_identifier_is_labelled_by_what_a_file_holds_of_it(
    memory_root: Path,
) -> None:
    _write("--to", "note", "--name", "model", "--text", "fraud_gbt v14 is champion.")
    _write("--to", "note", "--name", "tables", "--text", "fraud.scored_auths: 30 days.")
    got = dict(_labels("fraud_gbt"))
    assert got == {f"{NOTES}/model.md": ["fraud_gbt"], f"{NOTES}/tables.md": ["fraud"]}


def test_a_term_with_no_join_keeps_its_label(memory_root: Path) -> None:
    # One word, a literal, a CJK phrase: labelled by the term as before.
    _write(
        "--to", "note", "--name", "a", "--text", "Redis runs on c++ builds: 部署腳本."
    )
    got = dict(_labels("redis c++ 部署"))
    assert got == {f"{NOTES}/a.md": ["redis", "c++", "部署"]}

"""Repeated lines: dropped from appends (whitespace and case), listed when near (punctuation)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from memhooks.memory import Store
from memhooks.memory.duplicates import Occurrence, drop_repeats, find_duplicates

if TYPE_CHECKING:
    from pathlib import Path

SLUG = "proj-0123abcd"


@pytest.mark.parametrize(
    ("current", "text", "kept", "dropped"),
    [
        pytest.param(
            "- Use uv.\n", "- USE   uv.\n- New.", "- New.", ["- USE   uv."], id="case"
        ),
        pytest.param("", "a line\na  LINE", "a line", ["a  LINE"], id="within-text"),
        pytest.param(
            "}\n```\n",
            "```\nreturn x\n}\n```",
            "```\nreturn x\n}\n```",
            [],
            id="code-and-punctuation-kept",
        ),
        pytest.param(
            "npm test\n",
            "```sh\nnpm test\n```\nnpm test",
            "```sh\nnpm test\n```",
            ["npm test"],
            id="only-outside-fences",
        ),
        pytest.param("x\n\n", "\n\ny", "\n\ny", [], id="blank-lines-kept"),
    ],
)
def test_drop_repeats(current: str, text: str, kept: str, dropped: list[str]) -> None:
    assert drop_repeats(current, text) == (kept, dropped)


def test_note_append_drops_lines_already_there(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_note("pool", "Pool size is 20.\nUse pgbouncer.")

    result = store.write_note("pool", "pool size IS 20.\nRestart it after deploys.")

    assert result.dropped == ("pool size IS 20.",)
    text = (memory_root / "projects" / SLUG / "notes" / "pool.md").read_text()
    assert text == "Pool size is 20.\nUse pgbouncer.\n\nRestart it after deploys.\n"


def test_all_repeats_write_nothing(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_memory("- Prefer small commits.")
    before = (memory_root / "MEMORY.md").read_bytes()

    result = store.write_memory("- prefer small COMMITS.")

    assert result.dropped == ("- prefer small COMMITS.",)
    assert (memory_root / "MEMORY.md").read_bytes() == before


def test_find_duplicates_ignores_punctuation_and_skips_marks() -> None:
    files = {
        "MEMORY.md": "- Prefer small, reviewable commits.\n## Notes\n",
        "projects/p-0123abcd/notes/a.md": (
            "aliases: prefer small reviewable commits\n"
            "Prefer small reviewable commits!\n"
            "## Notes\n"
            "<!-- forgotten 2026-01-01 -->~~Prefer small, reviewable commits.~~\n"
            "```\nprefer small reviewable commits\n```\n"
        ),
    }

    groups = find_duplicates(files)

    assert groups == [
        (
            Occurrence("MEMORY.md", 1, "- Prefer small, reviewable commits."),
            Occurrence(
                "projects/p-0123abcd/notes/a.md", 2, "Prefer small reviewable commits!"
            ),
        )
    ]


def test_find_duplicates_skips_the_yaml_front_matter_of_notes() -> None:
    # Notes brought from Obsidian share their front matter's lines ("tags: [infra]"):
    # `status --duplicates` told to forget all but one, which would break the others.
    front = "---\ntitle: {}\ntags: [infra, k8s]\n---\n"
    files = {
        f"projects/p-0123abcd/notes/{n}.md": front.format(n) + "tags: [infra, k8s]\n"
        for n in ("a", "b")
    }

    groups = find_duplicates(files)

    assert groups == [
        tuple(
            Occurrence(f"projects/p-0123abcd/notes/{n}.md", 5, "tags: [infra, k8s]")
            for n in ("a", "b")
        )
    ]

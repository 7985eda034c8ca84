"""`memhooks search --budget N` bounds everything it prints, whatever is typed: a real
command, real files.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from memhooks.memory import Store, slug_for
from tests.conftest import run_cli

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.timeout(120)
@pytest.mark.parametrize("budget", [1000])
def test_a_query_of_100000_words_prints_within_the_budget(
    memory_root: Path, project: Path, budget: int
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    words = [f"w{i}" for i in range(100_000)]
    store.write_memory("- rule: " + " ".join(words[:3000:7]))
    for i in range(5):
        store.write_note(f"note-{i}", " ".join(words[i : 4000 : 3 + i]))
    args = ("search", *words, "--budget", str(budget), "--project", str(project))
    text = run_cli(*args, timeout=100)
    assert text.returncode == 0, text.stderr
    # Before: the summary line listed every term, ~1 MB (--json: 5 MB).
    assert len(text.stdout.encode()) <= budget + 1  # and its newline
    summary = text.stdout.splitlines()[0]
    assert summary.startswith("Searched 100000 terms: w0(")
    assert "more terms]" in summary and summary.endswith("by relevance.")
    assert "MEMORY.md" in text.stdout or "note-" in text.stdout
    as_json = run_cli(*args, "--json", timeout=100)
    assert as_json.returncode == 0, as_json.stderr
    assert len(as_json.stdout.encode()) <= budget
    page = json.loads(as_json.stdout)
    assert page["terms_omitted"] == 100_000 - len(page["terms"]) > 0
    assert page["shown"] == len(page["results"]) >= 1
    assert page["shown"] + page["omitted"] == page["files_matched"] == 6


@pytest.mark.parametrize("budget", [256, 300, 400])
def test_the_smallest_budgets_hold_too(
    memory_root: Path, project: Path, budget: int
) -> None:
    # Under a few hundred bytes a JSON page with one result does not fit: it gives the
    # counts alone rather than going over.
    store = Store(memory_root, slug_for(str(project)))
    for i in range(3):
        store.write_note(f"n{i}", f"redis port line {i} with some more words")
    args = (
        "search",
        "redis",
        "port",
        "--budget",
        str(budget),
        "--project",
        str(project),
    )
    text = run_cli(*args)
    assert text.returncode == 0, text.stderr
    assert len(text.stdout.encode()) <= budget + 1
    as_json = run_cli(*args, "--json")
    assert len(as_json.stdout.encode()) <= budget
    page = json.loads(as_json.stdout)
    assert page["shown"] + page["omitted"] == page["files_matched"] == 3


@pytest.mark.parametrize(
    ("command", "flag", "value", "code"),
    [
        ("search", "--budget", "255", 2),
        ("search", "--budget", "-5", 2),
        ("inject", "--budget", "511", 1),
        ("read", "--cap", "30", 1),
    ],
)
def test_a_budget_too_small_to_hold_anything_is_refused(
    memory_root: Path, project: Path, command: str, flag: str, value: str, code: int
) -> None:
    # As config.toml refuses it: below the frame nothing at all would be printed.
    Store(memory_root, slug_for(str(project))).write_note("n", "redis")
    target = (
        ["notes/n"] if command == "read" else ["redis"] if command == "search" else []
    )
    proc = run_cli(command, *target, flag, value, "--project", str(project))
    assert (proc.returncode, proc.stdout) == (code, "")
    assert (
        proc.stderr.count("\n") == 1
        and f"argument {flag}: {value} bytes" in proc.stderr
    )

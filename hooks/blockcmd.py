"""`memhooks inject` and `memhooks status`: the block a session starts with, as a person
sees it, and what the harnesses' hook replies hold of it (`HARNESS_CONTEXT_LIMIT`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from memhooks.hooks.commands import open_store
from memhooks.hooks.constants import EXIT_OK, HARNESS_CONTEXT_LIMIT
from memhooks.hooks.harnesscheck import Finding
from memhooks.hooks.mcp_config import usage_line
from memhooks.hooks.modelshell import model_prog
from memhooks.memory import ConfigError, Store, build_block, parse_config, today
from memhooks.memory.constants import MEMORY_FILE, SCRATCHPAD_FILE
from memhooks.memory.corpus import newest_dailies
from memhooks.memory.errors import MemoryStoreError
from memhooks.memory.inject import render, render_shares, sections
from memhooks.memory.paths import project_rel
from memhooks.memory.text import nbytes

if TYPE_CHECKING:
    from memhooks.hooks.commands import Where


def cmd_inject(where: Where, out: TextIO, *, budget: int | None = None) -> int:
    store, config = open_store(where, must_exist=True)
    usage = usage_line(where.project or Path.cwd())
    # The index of notes names the `memhooks` the tools line does (`model_prog`).
    parts = sections(store.corpus(), today(), model_prog(None))
    block = render(parts, budget or config.inject.budget, usage)
    if block:
        out.write(block + "\n")
    return EXIT_OK


def cmd_status(where: Where, out: TextIO) -> int:
    store, config = open_store(where, must_exist=True)
    docs = store.corpus()
    block = build_block(docs, today(), config.inject.budget)
    lines = [
        f"root:    {store.root}",
        f"project: {store.slug}",
        f"files:   {len(docs)}",
    ]
    # A log a day for months: the two the block reads, and one line for the others.
    day = today()
    shown = {id(d) for d in newest_dailies(docs, 2, day)}
    older = {
        r: d
        for r, d in docs.items()
        if d.kind == "daily" and id(d) not in shown and d.key <= day  # not a typo's
    }
    fold = sorted(older) if len(older) > 1 else []
    for rel, d in sorted(docs.items()):
        if fold and rel in older:
            if rel == fold[0]:
                size = sum(nbytes(o.text) for o in older.values())
                folder, last = rel.rsplit("/", 1)[0], older[fold[-1]].key
                lines.append(
                    f"  {size:>8} B  {len(fold)} older logs in {folder}/, {d.key} … {last}"
                )
            continue
        lines.append(f"  {nbytes(d.text):>8} B  {rel}")
    sections = [ln[3:] for ln in block.splitlines() if ln.startswith("## ")]
    marks = [ln for ln in block.splitlines() if ln.startswith("…[")]
    lines.append(f"block:   {nbytes(block)} of {config.inject.budget} bytes")
    lines += [f"  section: {s}" for s in sections]
    lines += [f"  {m}" for m in marks]
    if nbytes(block) > HARNESS_CONTEXT_LIMIT:  # what the harnesses' hook replies hold
        cut = build_block(docs, today(), HARNESS_CONTEXT_LIMIT)
        said = [f": {m}" for m in cut.splitlines() if m.startswith("…[")][:1]
        lines.append(
            f"harness: Claude Code, Codex and Gemini CLI get {nbytes(cut)} bytes of it "
            f"(at most {HARNESS_CONTEXT_LIMIT}){''.join(said)}"
        )
    out.write("\n".join(lines) + "\n")
    return EXIT_OK


def check_block(root: Path, project: Path, config_text: str | None) -> list[Finding]:
    """`memhooks doctor`: a warning when the block the harnesses get in this project
    cuts MEMORY.md, though it is shorter than the budget and their replies (else
    `doctor.check_root` says so), or the open items: the sections share the block, and
    as the logs and items grow over months, what was added last, at the end of each,
    never reaches the model."""
    try:
        budget = min(parse_config(config_text).inject.budget, HARNESS_CONTEXT_LIMIT)
        store = Store.for_project(root, project)
        docs = store.corpus()
    except (ConfigError, MemoryStoreError, OSError):
        return []  # doctor says why elsewhere
    memory = docs.get(MEMORY_FILE)
    whole = memory is None or nbytes(memory.text) > budget  # or check_root's to say
    get = "Claude Code, Codex and Gemini CLI get"
    said = []
    for s in render_shares(sections(docs, today()), budget)[1]:
        if s.state == "whole":
            continue
        if s.title == MEMORY_FILE and memory is not None and not whole:
            said.append(f"{MEMORY_FILE}: {get} {s.used} of its {nbytes(memory.text)} "
                        "bytes in the block here (the open items and logs take the "
                        "rest): its last lines never reach the model; move detail into "
                        "notes")  # fmt: skip
        elif s.title.startswith("Scratchpad"):
            said.append(f"{project_rel(store.slug)}/{SCRATCHPAD_FILE}: {get} {s.used} "
                        f"of the {s.need} bytes of its open items in the block here: "
                        "the last ones never reach the model; tick off what is done "
                        "(memhooks edit scratchpad --old '[ ] …' --new '[x] …')")  # fmt: skip
    return [Finding("warn", line) for line in said]


__all__ = ["check_block", "cmd_inject", "cmd_status"]

"""A Codex CLI subagent's hooks, sent under its parent's session (Codex CLI 0.171.0:
`agent_id`, and its own rollout as `transcript_path`; tests/e2e/test_subagent.py drives
the real one): its task is not the person's prompt, and nothing of the session is its."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from memhooks.memory import Store, slug_for
from tests.hooks.test_hook import claude, context_of, hook

if TYPE_CHECKING:
    from pathlib import Path

ASKED = "Where is the stripe webhook secret stored?"
TASK = "Find where the stripe webhook secret is stored and report back."


def _codex(event: str, project: Path, **fields: object) -> tuple[int, str, str]:
    return hook(claude(event, project, **fields), "--harness", "codex")


def test_a_subagents_prompt_is_not_the_sessions(
    memory_root: Path, project: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- Prefer small commits.")
    store.write_note("payments", "# Payments\nThe stripe webhook secret is in vault.")
    _codex("SessionStart", project, source="startup")
    store.write_memory("- Prefer small commits.\n- Tag each release.")
    sub = {"agent_id": "019a-sub", "agent_type": "default"}
    code, out, err = _codex("UserPromptSubmit", project, prompt=TASK, **sub)
    assert (code, out) == (0, ""), err
    # What the subagent's prompt would have found and been told is the person's.
    code, out, _ = _codex("UserPromptSubmit", project, prompt=ASKED)
    told = context_of(out, "UserPromptSubmit")
    assert "notes/payments.md" in told and "+- Tag each release." in told
    assert _codex("SessionEnd", project)[0] == 0
    log = store.root / "projects" / store.slug / "daily" / f"{date.today()}.md"
    text = log.read_text()
    assert ASKED in text and TASK not in text
    # A subagent's hook after its parent's session ended leaves nothing behind.
    assert _codex("UserPromptSubmit", project, prompt=TASK, **sub)[:2] == (0, "")
    assert not [p for p in (memory_root / ".sessions").glob("*") if p.suffix != ""]

"""A daily log's snippet with the entries a session has seen cut out (`hooks.unseen`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from memhooks.hooks.autosearch import judge_log
from memhooks.hooks.records import entries, entry_id
from memhooks.hooks.unseen import cut_seen
from memhooks.memory import Store, slug_for
from memhooks.memory.corpus import Doc
from memhooks.memory.lines import windows
from memhooks.memory.results import Hit
from tests.conftest import run_cli

if TYPE_CHECKING:
    from pathlib import Path

LOG = (
    "### 09:00 — session end\n**Prompts**\n- Say hello in the first chat.\n\n"
    "**Last assistant message**\n> Mock reply 1.\n\n"
    "### 09:05 — session end\n**Prompts**\n- Say hello in the second chat.\n\n"
    "**Last assistant message**\n> Mock reply 3.\n"
)
PROMPT = "Say goodbye in the first chat."


def _hit(doc: Doc, centres: list[int]) -> Hit:
    return Hit(doc.rel, ("say", "first", "chat"), False, windows(doc, centres))


def _doc() -> Doc:
    return Doc("projects/p/daily/2026-12-07.md", "daily", "2026-12-07", LOG)


def test_a_window_on_the_news_shows_no_line_of_the_record_before_it() -> None:
    # Both prompts' lines are centres: one window from the first record into the second.
    doc = _doc()
    first, second = (entry_id(e.text) for e in entries(LOG))
    judged = judge_log(LOG, ["say", "first", "chat"], PROMPT, 2)
    assert judged is not None
    hit = _hit(doc, [2, 9])
    assert "first chat" in hit.snippet and "second chat" in hit.snippet
    cut = cut_seen(hit, doc, judged, [first])
    assert "second chat" in cut.snippet and "Mock reply 3" in cut.snippet
    assert "first chat" not in cut.snippet and "Mock reply 1" not in cut.snippet
    assert judged.shown(cut) == [second]  # what the session has seen now
    assert cut_seen(hit, doc, judged, []) is hit
    assert cut_seen(hit, doc, judged, ["unknown"]).snippet == hit.snippet


def test_a_window_placed_on_an_entry_seen_is_placed_again_on_the_others() -> None:
    # The first record's line alone placed the snippet: cut out, nothing that matches
    # is left of that window, and the second record's matching line gets one.
    text = LOG + "".join(f"\nA remark of a person, number {i}.\n" for i in range(6))
    doc = Doc("projects/p/daily/2026-12-07.md", "daily", "2026-12-07", text)
    first = entry_id(entries(text)[0].text)
    judged = judge_log(text, ["say", "first", "chat"], PROMPT, 2)
    assert judged is not None
    cut = cut_seen(_hit(doc, [2]), doc, judged, [first])
    assert "- Say hello in the second chat." in cut.snippet
    assert "first chat" not in cut.snippet
    assert any(ln.match and "second chat" in ln.text for ln in cut.lines)


def _context(project: Path, prompt: str, session: str) -> str:
    payload = {
        "session_id": session,
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }
    proc = run_cli("hook", input=json.dumps(payload))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.strip()
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""


def test_an_entry_shown_before_is_not_shown_again_beside_the_news(
    memory_root: Path, project: Path
) -> None:
    """The entry an earlier prompt's snippet showed sits just above the one that answers
    the next prompt: the next snippet shows that one alone."""
    store = Store(memory_root, slug_for(str(project)))
    store.append_daily("decision", "Billing invoices are sent on Mondays.")
    assert "sent on Mondays" in _context(
        project, "When are billing invoices sent?", "s"
    )
    store.append_daily("decision", "Billing refunds are sent on Fridays.")
    told = _context(project, "When are billing refunds sent?", "s")
    assert "refunds are sent on Fridays" in told, told
    assert "Mondays" not in told, told
    # Another session has seen neither: both are shown to it.
    both = _context(project, "When are billing refunds sent?", "t")
    assert "Mondays" in both and "Fridays" in both, both

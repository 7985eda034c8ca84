"""Issue #15: what the hooks write on their own never crowds out what people wrote.

Thirty real-shaped Claude Code sessions ask the same question, run /compact (a
several-KB <analysis> before the <summary>) and end; then three sessions add nothing.
Each runs in a real `memhooks session` process.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING

import pytest

from memhooks.hooks import records
from memhooks.memory import Store, slug_for
from tests.conftest import run_cli
from tests.promises.replay import SessionProcess, Transcript, context

if TYPE_CHECKING:
    from pathlib import Path

QUESTION = "How do we deploy the billing service to staging?"
RULES = [
    "- Never push to main directly; open a pull request.",
    "- Run `make check` before every commit.",
    "- Billing amounts are integer cents, never floats.",
]
ITEMS = [
    "- [ ] migrate the invoices table to bigint",
    "- [ ] rotate the staging TLS cert",
]
NOTE = (
    "# Deploying billing\n"
    "Billing deploys to staging with `make deploy-staging`, from a clean main checkout.\n"
    "The staging service runs behind the blue/green switch; check /healthz afterwards.\n"
)
ANSWER = "Run `make deploy-staging` from a clean main checkout, then check /healthz."
SESSIONS = 30


def _analysis(i: int) -> str:
    thoughts = (
        f"Session {i}: chronologically, the user asked how billing reaches staging. "
        "I looked at the Makefile, ran the deploy target and read the health check. "
    )
    return "<analysis>\n" + thoughts * 30 + "\n</analysis>"


def _summary(i: int) -> str:
    return (
        f"1. Primary Request and Intent: deploy billing to staging (replay session {i}).\n"
        f"2. Key Technical Concepts: blue/green switch, health check, marker-{i:02d}-kept.\n"
        f"3. Files and Code Sections: deploy/staging-{i % 3}.yaml was adjusted.\n"
        "4. Errors and fixes: none.\n"
        "5. Pending Tasks: none.\n"
        + "6. Current Work: verified the deploy and the health check. "
        * 8
    )


def _session(project: Path, tmp_path: Path, i: int, *, compact: bool) -> list[str]:
    """One session; returns the context of each reply that carried one."""
    sid = f"replay-{i:02d}"
    path = tmp_path / "claude" / f"{sid}.jsonl"
    path.parent.mkdir(exist_ok=True)
    t = Transcript(path, sid, project)
    s = SessionProcess(project, sid, path)
    seen = [context(s.send("SessionStart", source="startup", model="claude-sonnet-5"))]
    t.prompt(QUESTION)
    seen.append(context(s.send("UserPromptSubmit", prompt=QUESTION)))
    t.tool("Bash", {"command": "make deploy-staging"}, "deployed billing@staging")
    t.tool(
        "Edit",
        {
            "file_path": f"{project}/deploy/staging-{i % 3}.yaml",
            "old_string": "a",
            "new_string": "b",
        },
        "ok",
    )
    t.answer(ANSWER)
    if compact:
        t.slash("compact")
        seen.append(context(s.send("UserPromptSubmit", prompt="/compact")))
        seen.append(
            context(s.send("PreCompact", trigger="manual", custom_instructions=""))
        )
        t.compacted(_summary(i))
        seen.append(context(s.send("SessionStart", source="compact")))
        raw = f"{_analysis(i)}\n\n<summary>\n{_summary(i)}\n</summary>"
        seen.append(
            context(s.send("PostCompact", trigger="manual", compact_summary=raw))
        )
    t.slash("exit")
    seen.append(context(s.send("SessionEnd", reason="prompt_input_exit")))
    err = s.finish()
    assert s.proc.returncode == 0, err
    return seen


def _first_hit(ctx: str) -> str:
    lines = ctx.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("Related memory"))
    return lines[at + 1].split("  ", 1)[0]


@pytest.mark.timeout(900)
def test_thirty_compacted_sessions_leave_peoples_memory_in_charge(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("\n".join(RULES))
    store.write_scratchpad("\n".join([*ITEMS, "- [x] set up CI"]))
    store.write_note("deploy-billing", NOTE)
    store.append_daily("decision", "We keep staging deploys manual until Q3.")
    log = memory_root / f"projects/{store.slug}/daily/{dt.date.today():%Y-%m-%d}.md"
    note = f"projects/{store.slug}/notes/deploy-billing.md"
    person = log.read_text()

    for i in range(SESSIONS):
        seen = _session(project, tmp_path, i, compact=True)
        # The person's note answers the question, ahead of the hooks' own records.
        assert _first_hit(seen[1]) == note, (i, seen[1])
        # The block re-injected after compaction still holds what people wrote.
        reinjected = seen[4]
        assert all(rule in reinjected for rule in RULES), (i, reinjected)
    text = log.read_text()
    assert len(text.encode()) < 40 * 1024, len(text.encode())
    # Every compaction's <summary> is on record; none of its <analysis>.
    for i in range(SESSIONS):
        assert f"marker-{i:02d}-kept" in text, i
    assert "chronologically, the user asked" not in text
    assert (
        "Please continue the conversation" not in text
    )  # words to the model, not notes
    # The person's entry keeps every byte; no record holds a prompt twice, or a command.
    assert person.strip() in text
    entries = records.entries(text)
    for entry in entries:
        if entry.automatic:
            prompts = records.items([entry]).prompts
            assert len({records.key(p) for p in prompts}) == len(prompts), entry.text
            assert not any(records.is_slash_command(p) for p in prompts), entry.text
    assert sum(QUESTION in e.text for e in entries if e.automatic) == 1

    # Sessions that add nothing (the same question, the same answer) write nothing.
    before = log.read_bytes()
    for i in range(SESSIONS, SESSIONS + 3):
        _session(project, tmp_path, i % 3, compact=False)
    assert log.read_bytes() == before

    # A new session: every rule and every open item in its block, the note first.
    start = run_cli(
        "hook", input=json.dumps(_payload(project, "SessionStart", source="startup"))
    )
    block = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    for line in [*RULES, *ITEMS]:
        assert line in block, line
    assert "set up CI" not in block
    ask = run_cli(
        "hook", input=json.dumps(_payload(project, "UserPromptSubmit", prompt=QUESTION))
    )
    hit = json.loads(ask.stdout)["hookSpecificOutput"]["additionalContext"]
    assert _first_hit(hit) == note


def _payload(project: Path, event: str, **fields: object) -> dict[str, object]:
    return {
        "session_id": "fresh",
        "cwd": str(project),
        "hook_event_name": event,
        **fields,
    }

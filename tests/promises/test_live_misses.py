"""Issue #15: a memory file the model had to go looking for is a live miss, and it shows.

A real-shaped Claude Code session through `memhooks hook` processes: auto-search surfaces
one note, the model then reads another note (a `Read` tool call), searches through MCP
and reads a third file with `memhooks read`. `memhooks report` names the misses.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from memhooks.memory import Store, slug_for
from tests.conftest import run_cli
from tests.promises.replay import Transcript, context

if TYPE_CHECKING:
    from pathlib import Path


def _hook(project: Path, path: Path, event: str, **fields: object) -> str:
    payload = {
        "session_id": "miss-1",
        "transcript_path": str(path),
        "cwd": str(project),
        "hook_event_name": event,
        **fields,
    }
    proc = run_cli("hook", input=json.dumps(payload), cwd=project)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return context(json.loads(proc.stdout)) if proc.stdout.strip() else ""


def test_report_shows_shares_hits_and_the_live_misses(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- Always run `make check` first.")
    store.write_note(
        "stripe", "# Stripe\nThe stripe webhook secret lives in vault kv/shop/stripe."
    )
    store.write_note("redis", "# Redis\nLocal redis listens on port 6380.")
    store.write_note("ports", "# Ports\nThe dev proxy takes 8443.")
    notes = f"projects/{store.slug}/notes"
    path = tmp_path / "s.jsonl"
    t = Transcript(path, "miss-1", project)

    assert "make check" in _hook(project, path, "SessionStart", source="startup")
    question = "Where is the stripe webhook secret kept?"
    t.prompt(question)
    hit = _hook(project, path, "UserPromptSubmit", prompt=question)
    assert f"{notes}/stripe.md" in hit and "redis" not in hit
    # The model went looking on its own: a file Read, an MCP search, a memhooks read.
    t.tool("Read", {"file_path": str(memory_root / notes / "redis.md")}, "Local redis…")
    t.tool("mcp__memhooks__memory_search", {"query": "proxy port"}, "notes/ports.md")
    t.tool("Bash", {"command": "memhooks read notes/ports && echo done"}, "8443")
    t.tool("Read", {"file_path": str(memory_root / notes / "stripe.md")}, "vault")
    t.tool("Read", {"file_path": str(project / "app.py")}, "print()")
    t.answer("The secret is in vault at kv/shop/stripe; redis is on 6380.")
    t.slash("exit")
    _hook(project, path, "SessionEnd", reason="prompt_input_exit")

    proc = run_cli("report", "--json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    (session,) = report["sessions"]
    assert session["surfaced"] == [f"{notes}/stripe.md"]
    assert sorted(session["read"]) == [
        f"{notes}/ports.md",
        f"{notes}/redis.md",
        f"{notes}/stripe.md",
    ]
    assert session["searched"] == ["proxy port"]
    missed = sorted(m["file"] for m in report["misses"])
    assert missed == [f"{notes}/ports.md", f"{notes}/redis.md"]
    assert {m["session"] for m in report["misses"]} == {session["session"]}
    shares = {s["title"]: s for s in session["shares"]}
    assert shares["MEMORY.md"]["state"] == "whole"
    assert session["block_bytes"] > 0 and session["log_bytes"] > 0
    assert [w["title"] for w in session["wrote"]] == ["session end"]

    table = run_cli("report", "--sessions", "5", cwd=project)
    assert table.returncode == 0, table.stderr
    out = table.stdout
    assert "Live misses (2)" in out
    assert f"{notes}/redis.md" in out.split("Live misses", 1)[1]
    assert "MEMORY.md" in out.split("Block by section", 1)[1]
    assert f"{notes}/stripe.md" in out.split("Surfaced by auto-search", 1)[1]
    # Before: "--sessions 0" (or -1) said "no sessions recorded for ... yet", exit 0.
    for n in ("0", "-1"):
        bad = run_cli("report", "--sessions", n, cwd=project)
        assert (bad.returncode, bad.stdout) == (1, "")
        assert f"argument --sessions: {n} sessions: give 1 or more" in bad.stderr

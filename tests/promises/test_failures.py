"""A write the disk refuses, or a root that cannot be written, loses nothing and still
answers: real session processes, real files.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from typing import TYPE_CHECKING

import pytest

from memhooks.memory import Store, slug_for
from tests.conftest import run_cli
from tests.hooks.test_session import Session

if TYPE_CHECKING:
    from pathlib import Path
    from subprocess import CompletedProcess


def _transcript(path: Path, *prompts: str) -> None:
    with path.open("a", encoding="utf-8") as f:
        for text in prompts:
            message = {"role": "user", "content": text}
            f.write(json.dumps({"type": "user", "message": message}) + "\n")


def test_a_flush_the_disk_refuses_is_retried_whole_by_the_next_one(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- rule")
    transcript = tmp_path / "t.jsonl"
    _transcript(transcript, "rename the billing module to invoicing")
    today = dt.datetime.now().astimezone().strftime("%Y-%m-%d")
    log = memory_root / "projects" / store.slug / "daily" / f"{today}.md"
    log.mkdir(parents=True)  # the log's path is unusable: every write to it fails
    event = {"session_id": "s", "cwd": str(project), "transcript_path": str(transcript)}
    with Session(memory_root) as s:
        s.send(event="session-start", id=1, **event)
        s.send(event="pre-prompt", prompt="migrate the ledger tables", id=2, **event)
        failed = s.send(event="pre-compaction", id=3, **event)
        assert failed["ok"] is False and "daily" in str(failed["error"])
        log.rmdir()  # the disk recovers
        _transcript(transcript, "then update the API docs")
        flushed = s.send(event="pre-compaction", id=4, **event)
        assert flushed["ok"] is True, flushed
    text = log.read_text()
    # The part the failed flush read is in the log, with what came after it.
    assert "rename the billing module to invoicing" in text
    assert "then update the API docs" in text


def test_a_root_where_state_cannot_be_saved_still_injects(
    memory_root: Path, project: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- always run the linter before committing")
    # A file where the state folder goes: every state write fails, as on a read-only
    # root (permissions would not stop a test run as root).
    (memory_root / ".sessions").write_text("not a folder")
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    done = run_cli("hook", input=json.dumps(payload))
    assert done.returncode == 0
    assert "always run the linter" in done.stdout
    assert len(done.stderr.splitlines()) == 1, done.stderr


def test_a_typo_in_the_config_keeps_memory_on_and_names_the_key(
    memory_root: Path, project: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- always run the linter before committing")
    (memory_root / "config.toml").write_text("[inject]\nbudgett = 100\n")
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    done = run_cli("hook", input=json.dumps(payload))
    assert done.returncode == 0
    assert "always run the linter" in done.stdout  # the defaults serve
    assert done.stderr.splitlines() == [
        (
            f"memhooks: {memory_root / 'config.toml'}: inject.budgett: unknown key "
            "(did you mean inject.budget?); using the defaults for it"
        )
    ]


@pytest.mark.parametrize(
    ("setting", "named"),
    [
        # Quoted, as memhooks took it until a740e8e: after an upgrade, the hooks used the
        # defaults for every key, and auto-search came back on.
        pytest.param('\n[inject]\nbudget = "8192"\n', "inject.budget", id="older"),
        # A key of a newer memhooks, after a downgrade.
        pytest.param("wait_ms = 300\n", "auto_search.wait_ms", id="newer"),
    ],
)
def test_a_bad_key_in_the_config_costs_only_itself(
    memory_root: Path, project: Path, setting: str, named: str
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- always run the linter before committing")
    store.write_note("linter", "The linter is ruff, run by make lint.")
    (memory_root / "config.toml").write_text(
        "[auto_search]\nenabled = false\n" + setting
    )

    def hook(event: str, **fields: object) -> CompletedProcess[str]:
        payload = {"session_id": "s", "cwd": str(project), "hook_event_name": event}
        done = run_cli("hook", input=json.dumps({**payload, **fields}))
        assert done.returncode == 0, done.stderr
        return done

    started = hook("SessionStart", source="startup")
    asked = hook("UserPromptSubmit", prompt="which linter do we run?")

    assert "always run the linter" in started.stdout
    assert asked.stdout == ""  # auto_search.enabled = false still holds
    [line] = asked.stderr.splitlines()
    assert line.startswith(f"memhooks: {memory_root / 'config.toml'}: {named}: ")
    assert line.endswith("; using the defaults for it")


def test_the_change_notice_keeps_to_the_auto_search_budget(
    memory_root: Path, project: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- rule")

    def hook(event: str, **fields: object) -> str:
        payload = {"session_id": "s", "cwd": str(project), "hook_event_name": event}
        done = run_cli("hook", input=json.dumps({**payload, **fields}))
        assert done.returncode == 0, done.stderr
        return done.stdout

    hook("SessionStart", source="startup")
    for i in range(300):  # a person's sync tool or a git pull edits many notes at once
        store.write_note(f"note-with-a-rather-long-name-{i:03}", "text")
    out = hook("UserPromptSubmit", prompt="anything at all")
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "Memory changed on disk" in context
    assert "more." in context  # the names that fit, then a count
    assert len(context.encode()) <= 2048  # the auto-search budget (config default)


def test_fifos_wherever_memhooks_reads_are_refused_not_waited_for(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- always run the linter before committing")
    base = memory_root / "projects" / store.slug
    today = dt.datetime.now().astimezone().strftime("%Y-%m-%d")
    (base / "daily").mkdir(parents=True)
    (memory_root / ".index").mkdir()
    for fifo in (
        memory_root / "config.toml",
        memory_root / ".index" / f"{store.slug}.mhix",
        base / "daily" / f"{today}.md",
        base / "notes" / "pipe.md",
    ):
        fifo.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(fifo)
    transcript = tmp_path / "t.jsonl"
    _transcript(transcript, "rename the billing module")
    event = {"session_id": "s", "cwd": str(project), "transcript_path": str(transcript)}
    for name, fields in (
        ("SessionStart", {"source": "startup"}),
        ("UserPromptSubmit", {"prompt": "linter before committing"}),
        ("PreCompact", {"trigger": "auto"}),
    ):
        # A hang raises TimeoutExpired here; each hook answers with what it can.
        payload = {**event, **fields, "hook_event_name": name}
        done = run_cli("hook", input=json.dumps(payload))
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert "not a regular file" in done.stderr or not done.stderr, done.stderr
        if name == "SessionStart":
            assert "always run the linter" in done.stdout
    # A command names the file it cannot use, as for a typo in it (search exits 2 for
    # an error, as grep does).
    searched = run_cli("search", "linter", "--project", str(project))
    assert (searched.returncode, searched.stderr) == (
        2,
        "memhooks: error: cannot read config.toml: not a regular file\n",
    )
    (memory_root / "config.toml").unlink()
    searched = run_cli("search", "linter", "--project", str(project))
    assert searched.returncode == 0 and "MEMORY.md" in searched.stdout

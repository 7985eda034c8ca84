"""A memory write by a command the model ran in its session (`memhooks write`, `forget`
in its shell) is the session's own, no news at its next prompt; a person's save after it
is told alone (`hooks/session_writes.py`). Real hook commands and real `memhooks write`
commands, both run by this test process, which is so the harness they descend from
(tests/e2e/test_shell_writes.py drives the three real CLIs)."""

from __future__ import annotations

import json
import subprocess
from typing import TYPE_CHECKING

from memhooks.hooks import session_writes, spawn
from memhooks.hooks.state import holding, state_rel, wrote_rel
from tests.conftest import run_cli, run_cli_as_person
from tests.hooks.test_hook import claude, compact, context_of, hook, store_for

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

RULE = "- Name every migration after a bird (rule ZEBRA-42)."
MODEL = "- Deploys need the office VPN (rule HERON-5)."
PERSON = "- Tag each release after a river (rule OTTER-7)."
BUILT = "Memory changed on disk since this session's block was built: "
HELLO = "Say hello."


def _start(memory_root: Path, project: Path, session: str = "sess-1") -> Path:
    store_for(memory_root, project).write_memory(RULE)
    event = claude("SessionStart", project, source="startup") | {"session_id": session}
    code, out, err = hook(event)
    assert code == 0, err
    assert RULE in context_of(out, "SessionStart")
    return memory_root / "MEMORY.md"


def _ask(project: Path, session: str = "sess-1") -> str:
    event = claude("UserPromptSubmit", project, prompt=HELLO) | {"session_id": session}
    code, out, err = hook(event)
    assert (code, err) == (0, ""), err
    return context_of(out, "UserPromptSubmit") if out else ""


def _model_saves(project: Path, text: str = MODEL) -> None:
    # The model's shell runs it: a child of the harness, as this test runs the hooks.
    done = run_cli("write", "--to", "memory", "--text", text, cwd=project)
    assert (done.returncode, done.stdout, done.stderr) == (0, "wrote MEMORY.md\n", "")


def _append(path: Path, line: str) -> None:
    path.write_text(path.read_text() + line + "\n")


def test_the_models_own_write_is_not_told_a_persons_after_it_is_alone(
    memory_root: Path, project: Path
) -> None:
    memory = _start(memory_root, project)
    _model_saves(project)
    assert _ask(project) == ""  # its own line: no news
    _model_saves(project, "- Lint the heron configs too (rule HERON-10).")
    _append(memory, PERSON)  # a person's save after the model's, before the prompt
    told = _ask(project)
    assert f"{BUILT}MEMORY.md.\n" in told and f"\n+{PERSON}\n</memory>" in told
    assert "HERON" not in told  # the model's lines are not told with the person's
    assert not (memory_root / wrote_rel("sess-1")).exists()  # taken with the prompt


def test_a_persons_edit_before_the_models_write_is_told_with_it(
    memory_root: Path, project: Path
) -> None:
    """A person's save the session was not told of yet, then the model's write: the
    model never saw the person's line, so the file is told as before, both lines."""
    memory = _start(memory_root, project)
    _append(memory, PERSON)
    _model_saves(project)
    told = _ask(project)
    assert f"\n+{PERSON}\n" in told and f"\n+{MODEL}\n" in told


def test_a_forget_the_model_ran_is_not_told(memory_root: Path, project: Path) -> None:
    memory = _start(memory_root, project)
    _model_saves(project)
    assert _ask(project) == ""
    done = run_cli("forget", "MEMORY.md", "--line", "office VPN", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "forgotten" in memory.read_text()
    assert _ask(project) == ""


def test_only_the_session_whose_harness_runs_the_command(
    memory_root: Path, project: Path
) -> None:
    """Two sessions in one project; the other's harness (here a `sleep`) is no
    ancestor of the write: that session is told the model's line, this one not."""
    _start(memory_root, project)
    _start(memory_root, project, "sess-2")
    other = memory_root / state_rel("sess-2")
    with subprocess.Popen(["sleep", "30"]) as sleep:
        try:
            data = json.loads(other.read_bytes())
            other.write_text(json.dumps(data | {"harness": sleep.pid}))
            _model_saves(project)
            assert f"\n+{MODEL}\n" in _ask(project, "sess-2")
            assert _ask(project) == ""
        finally:
            sleep.kill()


def test_the_write_goes_on_when_the_session_is_busy_or_its_files_damaged(
    memory_root: Path, project: Path
) -> None:
    """Its session's lock held past `LOCK_WAIT` (a flush), or a damaged record: the
    write is done and says what it always says; the line is told, as before."""
    memory = _start(memory_root, project)
    digest = state_rel("sess-1").rsplit("/", 1)[1].removesuffix(".json")
    store = store_for(memory_root, project)
    with holding(store, digest, wait=None):
        _model_saves(project)
    assert f"\n+{MODEL}\n" in _ask(project)
    (memory_root / wrote_rel("sess-1")).write_text("{not json")
    _model_saves(project, PERSON)  # the record, unreadable, is written anew
    assert _ask(project) == ""
    (memory_root / wrote_rel("sess-1")).unlink(missing_ok=True)
    (memory_root / wrote_rel("sess-1")).mkdir()  # the record cannot be written
    _model_saves(project, "- A second rule.")
    (memory_root / state_rel("sess-1")).write_text("{not json")
    _model_saves(project, "- A third rule.")
    assert memory.read_text().endswith("- A third rule.\n")


def test_without_proc_no_session_is_found(
    memory_root: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not Linux (no /proc to read the ancestors from): a clean no-op."""
    _start(memory_root, project)
    monkeypatch.setattr(spawn, "_stat", lambda pid: None)
    assert spawn.ancestors() == []
    store = store_for(memory_root, project)
    with session_writes.recording(store, lambda: "MEMORY.md"):
        store.write_memory(MODEL)
    assert not (memory_root / wrote_rel("sess-1")).exists()


def test_a_persons_memhooks_write_in_a_terminal_is_told(
    memory_root: Path, project: Path
) -> None:
    """The same command typed in a person's own terminal, under no harness: news."""
    _start(memory_root, project)
    done = run_cli_as_person("write", "--to", "memory", "--text", PERSON, cwd=project)
    assert (done.returncode, done.stdout) == (0, "wrote MEMORY.md\n"), done.stderr
    assert f"\n+{PERSON}\n</memory>" in _ask(project)


def test_of_two_sessions_on_one_harness_the_one_that_last_took_a_prompt(
    memory_root: Path, project: Path
) -> None:
    """Codex CLI's `/new` starts a session beside the one before in the same process,
    which ends only at `/quit`: the write is the session whose prompt began the turn."""
    _start(memory_root, project)
    _start(memory_root, project, "sess-2")
    assert _ask(project) == ""  # sess-1's prompt: its state saved last
    _model_saves(project)
    assert _ask(project) == ""
    assert f"\n+{MODEL}\n" in _ask(project, "sess-2")


def test_a_block_built_after_the_write_outdates_its_record(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    """The model's write, a person's line, then a compaction's block, which shows both:
    a later change is told from that block, not from the model's text (the person's
    line is not told again)."""
    memory = memory_root / "MEMORY.md"
    store_for(memory_root, project).write_memory(RULE)
    transcript = tmp_path / "t.jsonl"
    said = {"role": "user", "content": "Fix the kestrel build"}
    transcript.write_text(json.dumps({"type": "user", "message": said}) + "\n")
    at = {"transcript_path": str(transcript)}
    assert hook(claude("SessionStart", project, source="startup") | at)[0] == 0
    _model_saves(project)
    _append(memory, PERSON)
    compact(project, transcript)
    code, out, err = hook(claude("SessionStart", project, source="compact") | at)
    assert code == 0, err
    assert PERSON in context_of(out, "SessionStart")
    _append(memory, "- A later rule.")
    told = _ask(project)
    assert "\n+- A later rule.\n" in told and PERSON not in told


def test_under_codex_the_thread_the_command_names_is_the_session(
    memory_root: Path, project: Path
) -> None:
    """Codex CLI gives the model's commands `CODEX_THREAD_ID`, its hooks' session id:
    that session's, whichever took the last prompt; a thread no session is (a spawned
    subagent's) records nothing."""
    _start(memory_root, project)
    _start(memory_root, project, "sess-2")
    assert _ask(project) == ""  # sess-1's state saved last
    thread = {"CODEX_THREAD_ID": "sess-2"}
    done = run_cli("write", "--to", "memory", "--text", MODEL, cwd=project, env=thread)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert _ask(project, "sess-2") == ""
    assert f"\n+{MODEL}\n" in _ask(project)
    agent = {"CODEX_THREAD_ID": "a-subagents-thread"}
    done = run_cli("write", "--to", "memory", "--text", PERSON, cwd=project, env=agent)
    assert done.returncode == 0, done.stderr
    assert f"\n+{PERSON}\n" in _ask(project, "sess-2")

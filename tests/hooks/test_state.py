"""Session state files: those of sessions that never ended are swept, never a live one's."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import time
from typing import TYPE_CHECKING

from memhooks.hooks.state import state_rel
from memhooks.memory import Store, slug_for
from tests.conftest import run_cli

if TYPE_CHECKING:
    from pathlib import Path

DAY = 24 * 3600

# A harness that runs `memhooks session`, sends it a session start and a prompt, kills
# it with SIGKILL (no session end, nothing written at its exit) and exits itself.
_KILLED = """
import json, os, signal, subprocess, sys
root, cwd = sys.argv[1:]
p = subprocess.Popen(
    [sys.executable, "-m", "memhooks.hooks", "session", "--root", root],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
)
for event in ("session-start", "pre-prompt"):
    line = {"event": event, "session_id": "ci", "cwd": cwd, "prompt": "deploy the pump"}
    p.stdin.write(json.dumps(line) + "\\n")
    p.stdin.flush()
    p.stdout.readline()
os.kill(p.pid, signal.SIGKILL)
p.wait()
"""


def _start(root: Path, project: Path, session_id: str) -> None:
    event = {"hook_event_name": "SessionStart", "session_id": session_id}
    event |= {"cwd": str(project), "source": "startup"}
    done = run_cli("hook", "--root", str(root), input=json.dumps(event))
    assert (done.returncode, done.stderr) == (0, ""), done.stderr


def _state(root: Path, name: str, harness: int, age: float) -> Path:
    path = root / state_rel(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"slug": "x", "harness": harness} if harness else {}))
    os.utime(path, (time.time() - age, time.time() - age))
    return path


def test_the_state_of_a_session_that_never_ended_is_swept_at_the_next_start(
    memory_root: Path, project: Path
) -> None:
    # Before: a session killed with SIGKILL left its state (and the prompts it held)
    # in .sessions/ for good, though the README says it goes at the session's end; a
    # later session of the same id (a CI script's "ci") took those prompts for its own.
    subprocess.run(
        [sys.executable, "-c", _KILLED, str(memory_root), str(project)],
        check=True,
        timeout=60,
    )
    killed = memory_root / state_rel("ci")
    assert "deploy the pump" in killed.read_text()
    _start(memory_root, project, "other")
    assert killed.exists()  # days may pass between two prompts of a session
    os.utime(killed, (time.time() - 8 * DAY, time.time() - 8 * DAY))

    _start(memory_root, project, "other")

    assert not killed.exists()
    assert (memory_root / state_rel("other")).exists()
    # Until 2026-12-06 its prompt went with it: it is recorded in the log of the day
    # the session last ran, as its session end would have (once: not by a later sweep).
    day = dt.date.fromtimestamp(time.time() - 8 * DAY)
    (log,) = memory_root.glob(f"projects/*/daily/{day}.md")
    assert "— session end\n**Prompts**\n- deploy the pump" in log.read_text()


def test_a_session_end_that_could_not_write_loses_no_prompt(
    memory_root: Path, project: Path
) -> None:
    # Attacked on purpose (2026-12-06): a session end on a full disk (or a log it may
    # not write) wrote no record and said nothing (its session process had answered
    # the hook already); its state kept the prompt until a sweep removed it, unread.
    def hook(event: str, session: str, **fields: object) -> None:
        payload = {"session_id": session, "cwd": str(project), "hook_event_name": event}
        done = run_cli("hook", input=json.dumps({**payload, **fields}))
        assert done.returncode == 0, done.stderr

    hook("UserPromptSubmit", "full", prompt="rotate the billing keys")
    folder = memory_root / "projects" / slug_for(str(project))
    (folder / "daily").mkdir(parents=True)
    (folder / "daily").rename(folder / "daily-aside")
    (folder / "daily").write_text("a file where the folder was: no log can be written")
    hook("SessionEnd", "full", reason="other")
    state = memory_root / state_rel("full")
    held = json.loads(state.read_text())
    assert "rotate the billing keys" in held["prompts"]
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    state.write_text(
        json.dumps(held | {"harness": int(gone.stdout)})
    )  # its harness exited
    os.utime(state, (time.time() - 8 * DAY, time.time() - 8 * DAY))
    event = {"hook_event_name": "SessionStart", "session_id": "next"}
    done = run_cli("hook", input=json.dumps(event | {"cwd": str(project)}))
    (said,) = done.stderr.splitlines()  # still unwritable: said, and kept for later
    assert done.returncode == 0 and "prompts of an ended session not recorded" in said
    assert state.exists()
    (folder / "daily").unlink()
    (folder / "daily-aside").rename(folder / "daily")
    _start(memory_root, project, "later")
    assert not state.exists()
    logs = "".join(f.read_text() for f in folder.glob("daily/*.md"))
    assert logs.count("- rotate the billing keys") == 1, logs


def test_a_live_harness_keeps_its_sessions_state_however_old(
    memory_root: Path, project: Path
) -> None:
    live = _state(memory_root, "live", os.getpid(), 40 * DAY)  # this test lives
    recent = _state(memory_root, "recent", 0, 8 * DAY)  # no harness noted: a month
    unowned = _state(memory_root, "unowned", 0, 31 * DAY)
    damaged = _state(memory_root, "damaged", 0, 31 * DAY)
    damaged.write_text("{")
    os.utime(damaged, (time.time() - 31 * DAY, time.time() - 31 * DAY))

    _start(memory_root, project, "other")

    assert live.exists() and recent.exists()
    assert not unowned.exists() and not damaged.exists()


def test_a_session_start_notes_the_harness_that_runs_it(
    memory_root: Path, project: Path
) -> None:
    _start(memory_root, project, "s")
    state = json.loads((memory_root / state_rel("s")).read_text())
    assert state["harness"] == os.getpid()  # this test ran the hook, as a harness does


def test_a_state_a_newer_memhooks_wrote_is_read_after_a_downgrade(
    memory_root: Path, project: Path
) -> None:
    # A release adds fields to the state file and keeps its version; a person goes back
    # to this one mid-session. Before, the whole state was 'damaged': the note shown a
    # prompt ago came again, and the next flush started from the transcript's top.
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- run the linter before committing")
    store.write_note("linter", "The linter is ruff, run by make lint.")
    _start(memory_root, project, "s1")

    def prompt() -> subprocess.CompletedProcess[str]:
        event = {"hook_event_name": "UserPromptSubmit", "session_id": "s1"}
        event |= {"cwd": str(project), "prompt": "which linter do we run?"}
        return run_cli("hook", "--root", str(memory_root), input=json.dumps(event))

    first = prompt()
    assert "notes/linter.md" in first.stdout, first.stderr
    path = memory_root / state_rel("s1")
    newer = json.loads(path.read_text()) | {"recall_budget": 3, "seen_tools": ["x"]}
    path.write_text(json.dumps(newer))

    again = prompt()

    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
    assert "recall_budget" not in path.read_text()  # what this release knows, kept
    # A state whose fields mean something else (another version) is not trusted.
    path.write_text(json.dumps(json.loads(path.read_text()) | {"version": 3}))
    other = prompt()
    assert "notes/linter.md" in other.stdout
    assert other.stderr == (
        "memhooks: ignoring session state: another memhooks wrote it (version 3); "
        "the session starts afresh\n"
    )


#: The fields of the state file 2026-12-04's memhooks (12563e3) wrote, all of them.
OLDER_FIELDS = (
    "version",
    "slug",
    "injected",
    "noticed_at",
    "own",
    "surfaced",
    "seen_entries",
    "transcript_path",
    "transcript_offset",
    "prompts",
    "flushed_summaries",
    "compaction_at",
    "block_at",
    "block_source",
)


def test_a_state_an_older_memhooks_wrote_is_read_after_an_upgrade(
    memory_root: Path, project: Path
) -> None:
    # A session open across `pip install -U` from 12563e3, its session process gone (its
    # idle timeout): this release reads on the state the older one wrote, which lacks
    # every field added since. Seen with the real Claude Code, Codex and Gemini TUIs
    # (/scratch/h64c/FINDINGS.md); here as hook subprocesses.
    store = Store(memory_root, slug_for(str(project)))
    note = (
        memory_root
        / store.write_note("linter", "The linter is ruff, run by make lint.").rel
    )
    # Its modification time older than its name, as an atomic save across a clock tick
    # leaves it (the temp file written, then renamed), or `cp -p` and `git checkout`.
    day_ago = time.time_ns() - 24 * 3600 * 10**9
    os.utime(note, ns=(day_ago, day_ago))
    _start(memory_root, project, "s1")

    def hook_of(name: str, **fields: str) -> subprocess.CompletedProcess[str]:
        event = {"hook_event_name": name, "session_id": "s1", "cwd": str(project)}
        return run_cli(
            "hook", "--root", str(memory_root), input=json.dumps(event | fields)
        )

    first = hook_of("UserPromptSubmit", prompt="which linter do we run?")
    assert "notes/linter.md" in first.stdout, first.stderr
    path = memory_root / state_rel("s1")
    state = json.loads(path.read_text())
    path.write_text(json.dumps({k: state[k] for k in OLDER_FIELDS}))

    again = hook_of("UserPromptSubmit", prompt="and is the linter run by make")
    ended = hook_of("SessionEnd", reason="other")

    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
    assert (ended.returncode, ended.stderr) == (0, "")
    (log,) = memory_root.glob("projects/*/daily/*.md")
    text = log.read_text()
    assert text.count("- which linter do we run?\n") == 1, text
    assert text.count("- and is the linter run by make\n") == 1, text

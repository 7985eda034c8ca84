"""One session run by two harness processes at once: a headless resume (`claude -p
--continue`, `gemini --resume latest -p`) of the conversation a TUI has open, under its
session id. The headless run's end is its own; the TUI's session goes on.

Each harness here is a real process that runs real hook commands as its children, as a
harness does; tests/e2e/test_together.py drives the real CLIs through the same.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

from memhooks.hooks.state import state_rel
from memhooks.memory import Store, slug_for
from tests.processes import session_processes

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

#: A stand-in harness: runs `memhooks hook ARGS` for each payload line it reads, and
#: writes back each hook's exit code, stdout and stderr as one JSON line.
_HARNESS = """
import json, subprocess, sys
for line in sys.stdin:
    done = subprocess.run(
        [sys.executable, "-m", "memhooks.hooks", "hook", *sys.argv[1:]],
        input=line, capture_output=True, text=True,
    )
    print(json.dumps([done.returncode, done.stdout, done.stderr]), flush=True)
"""

RULE = "Deploys go out on Fridays only."


class Harness:
    """A harness process running hooks of one session, until `quit`."""

    def __init__(self, *args: str, fast: bool) -> None:
        env = {**os.environ, "MEMHOOKS_SESSION_PROCESS": "1" if fast else "0"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _HARNESS, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def hook(self, payload: dict[str, object]) -> str:
        """What the hook printed; it exited 0 and said nothing on stderr."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(payload) + "\n")
        self.proc.stdin.flush()
        code, out, err = json.loads(self.proc.stdout.readline())
        assert (code, err) == (0, ""), (code, err)
        return str(out)

    def quit(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)
        self.proc.stdout.close()


@pytest.fixture
def harness() -> Iterator[Callable[..., Harness]]:
    """Starts harnesses (`Harness`'s arguments); those a failed test left are quit."""
    started: list[Harness] = []

    def start(*args: str, fast: bool) -> Harness:
        started.append(Harness(*args, fast=fast))
        return started[-1]

    yield start
    for h in started:
        h.quit()


@pytest.fixture
def project(tmp_path: Path, memory_root: Path) -> Path:
    p = tmp_path / "shop"
    (p / ".git").mkdir(parents=True)
    Store(memory_root, slug_for(str(p))).write_memory(f"- {RULE}")
    return p


def _claude(
    project: Path, transcript: Path, event: str, **fields: object
) -> dict[str, object]:
    if event == "UserPromptSubmit":  # Claude Code writes the prompt, then runs the hook
        line = {
            "type": "user",
            "message": {"role": "user", "content": fields["prompt"]},
        }
        with transcript.open("a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")
    return {
        "session_id": "s-1",
        "cwd": str(project),
        "transcript_path": str(transcript),
        "hook_event_name": event,
        **fields,
    }


@pytest.fixture
def claude(project: Path, tmp_path: Path) -> Callable[..., dict[str, object]]:
    """Claude Code's payload of an event of session s-1 (`_claude`), its transcript in
    the test's folder."""
    return functools.partial(_claude, project, tmp_path / "t.jsonl")


def _state_kept(root: Path) -> bool:
    return (root / state_rel("s-1")).exists()


def _wait(predicate: Callable[[], bool]) -> bool:
    """Whether `predicate` holds within 10 s."""
    deadline = time.monotonic() + 10
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.05)
    return predicate()


def _ended(root: Path) -> bool:
    """Whether the session ended, within 10 s: a session process answers a session end
    at once and writes its record after."""
    return _wait(lambda: not _state_kept(root))


def _log(root: Path) -> str:
    return "".join(p.read_text() for p in root.rglob("daily/*.md"))


@pytest.mark.parametrize("fast", [True, False], ids=["session-process", "one-shot"])
def test_a_headless_resume_ends_only_itself_and_each_prompt_is_recorded_once(
    memory_root: Path,
    claude: Callable[..., dict[str, object]],
    harness: Callable[..., Harness],
    fast: bool,
) -> None:
    tui = harness(fast=fast)
    assert RULE in tui.hook(claude("SessionStart", source="startup"))
    tui.hook(claude("UserPromptSubmit", prompt="pelican deploy window"))
    serving = session_processes(memory_root)
    assert len(serving) == (1 if fast else 0)
    headless = harness(fast=fast)  # `claude -p --continue`, beside the TUI
    headless.hook(claude("SessionStart", source="resume"))
    headless.hook(claude("UserPromptSubmit", prompt="heron queue drain"))
    headless.hook(claude("SessionEnd", reason="other"))
    headless.quit()
    # A session process answers a session end at once and writes its record after;
    # what it would do after the record (end the session, leave) is done within a
    # second.
    assert _wait(lambda: "heron queue drain" in _log(memory_root))
    time.sleep(1)
    assert _state_kept(memory_root)
    assert session_processes(memory_root) == serving
    # The TUI's session goes on as it was: no block again with its next prompt.
    assert RULE not in tui.hook(claude("UserPromptSubmit", prompt="osprey cache"))
    tui.hook(claude("SessionEnd", reason="prompt_input_exit"))
    assert _ended(memory_root)
    log = _log(memory_root)
    for prompt in ("pelican deploy window", "heron queue drain", "osprey cache"):
        assert log.count(prompt) == 1, log
    assert log.count("— session end") == 2, log


def _chat(chat: Path, *texts: str) -> None:
    with chat.open("a", encoding="utf-8") as f:
        for text in texts:
            said = {"id": text, "type": "user", "content": [{"text": text}]}
            f.write(json.dumps(said) + "\n")


def _gemini(
    project: Path, chat: Path, name: str, **fields: object
) -> dict[str, object]:
    if not chat.exists():
        chat.write_text(json.dumps({"sessionId": "s-1", "projectHash": "x"}) + "\n")
    if name == "BeforeAgent":
        _chat(chat, str(fields["prompt"]))
    return {
        "session_id": "s-1",
        "transcript_path": str(chat),
        "cwd": str(project),
        "hook_event_name": name,
        "timestamp": "2026-12-05T13:25:00.000Z",
        **fields,
    }


@pytest.mark.parametrize("prompted_first", [False, True], ids=["start", "prompt"])
def test_gemini_resumed_beside_its_tui_gets_the_block_and_the_tui_not_again(
    memory_root: Path,
    project: Path,
    tmp_path: Path,
    harness: Callable[..., Harness],
    prompted_first: bool,
) -> None:
    # Gemini CLI sends a resumed conversation's turns without the SessionStart context
    # they had: the headless run's model never saw the TUI's block. Its TUI takes a
    # prompt before its SessionStart hook returns (0.61.0): a prompt from a harness
    # process the session did not know yet went with no block.
    event = functools.partial(_gemini, project, tmp_path / "chat.jsonl")
    tui = harness("--harness", "gemini", fast=True)
    assert RULE in tui.hook(event("SessionStart", source="startup"))
    assert RULE not in tui.hook(event("BeforeAgent", prompt="pelican"))
    resumed = harness("--harness", "gemini", fast=True)
    sent = {
        "start": functools.partial(event, "SessionStart", source="resume"),
        "prompt": functools.partial(event, "BeforeAgent", prompt="heron"),
    }
    for name in ("prompt", "start") if prompted_first else ("start", "prompt"):
        assert (RULE in resumed.hook(sent[name]())) == (name == "prompt"), name
    assert RULE not in resumed.hook(event("BeforeAgent", prompt="kestrel"))
    resumed.hook(event("SessionEnd", reason="exit"))
    resumed.quit()
    assert RULE not in tui.hook(event("BeforeAgent", prompt="osprey"))
    tui.hook(event("SessionEnd", reason="exit"))
    assert _ended(memory_root)


def test_a_gemini_prompt_before_its_session_start_gets_the_block_once(
    memory_root: Path, project: Path, tmp_path: Path, harness: Callable[..., Harness]
) -> None:
    # The same in a new Gemini TUI: the block came with the prompt, then again with the
    # session start that came after it (two blocks in every request after).
    event = functools.partial(_gemini, project, tmp_path / "chat.jsonl")
    tui = harness("--harness", "gemini", fast=True)
    assert RULE in tui.hook(event("BeforeAgent", prompt="pelican"))
    assert RULE not in tui.hook(event("SessionStart", source="startup"))
    assert RULE not in tui.hook(event("BeforeAgent", prompt="heron"))
    tui.hook(event("SessionEnd", reason="exit"))
    assert _ended(memory_root)
    log = _log(memory_root)
    assert log.count("pelican") == log.count("heron") == 1, log


@pytest.mark.parametrize("fast", [True, False], ids=["session-process", "one-shot"])
def test_the_session_goes_on_with_the_resume_when_the_tui_ends_first(
    memory_root: Path,
    claude: Callable[..., dict[str, object]],
    harness: Callable[..., Harness],
    fast: bool,
) -> None:
    # The session process watched the harness process whose hook forked it, and left
    # when that one exited, while the other still ran the session.
    tui, headless = harness(fast=fast), harness(fast=fast)
    tui.hook(claude("SessionStart", source="startup"))
    tui.hook(claude("UserPromptSubmit", prompt="pelican"))
    serving = session_processes(memory_root)
    headless.hook(claude("SessionStart", source="resume"))
    tui.hook(claude("SessionEnd", reason="prompt_input_exit"))
    tui.quit()
    time.sleep(1.5)  # a session process checks on its harness every 0.5 s
    assert _state_kept(memory_root)
    assert session_processes(memory_root) == serving
    assert RULE not in headless.hook(claude("UserPromptSubmit", prompt="kestrel"))
    headless.hook(claude("SessionEnd", reason="other"))
    assert _ended(memory_root)
    assert _wait(lambda: not session_processes(memory_root))


@pytest.mark.parametrize("fast", [True, False], ids=["session-process", "one-shot"])
def test_a_session_end_sent_again_by_the_one_that_ended_leaves_the_session_on(
    memory_root: Path,
    claude: Callable[..., dict[str, object]],
    harness: Callable[..., Harness],
    fast: bool,
) -> None:
    # Gemini CLI 0.61.0 runs its SessionEnd hook three times on /quit. The second ended
    # the session for the TUI still open beside it: its state removed, its session
    # process stopped.
    tui, resumed = harness(fast=fast), harness(fast=fast)
    tui.hook(claude("SessionStart", source="startup"))
    serving = session_processes(memory_root)
    resumed.hook(claude("SessionStart", source="resume"))
    resumed.hook(claude("UserPromptSubmit", prompt="heron queue drain"))
    for _ in range(3):
        resumed.hook(claude("SessionEnd", reason="exit"))
    assert _wait(lambda: "heron queue drain" in _log(memory_root))
    time.sleep(1)
    assert _state_kept(memory_root)
    assert session_processes(memory_root) == serving
    assert RULE not in tui.hook(claude("UserPromptSubmit", prompt="osprey cache"))
    tui.hook(claude("SessionEnd", reason="exit"))
    assert _ended(memory_root)
    log = _log(memory_root)
    assert log.count("osprey cache") == log.count("heron queue drain") == 1, log


def test_a_tui_killed_after_a_headless_resume_ended_still_gets_its_session_end(
    memory_root: Path,
    claude: Callable[..., dict[str, object]],
    harness: Callable[..., Harness],
) -> None:
    # The session process writes the session end a killed harness never sent, unless
    # another process had run hooks for it (taken for a wrapper of the session start's
    # hook: `timeout`, `uv run`). The headless resume that had ended counted as one: the
    # TUI's last prompts were never recorded, and its state stayed.
    tui = harness(fast=True)
    tui.hook(claude("SessionStart", source="startup"))
    tui.hook(claude("UserPromptSubmit", prompt="pelican"))
    headless = harness(fast=True)
    headless.hook(claude("SessionStart", source="resume"))
    headless.hook(claude("UserPromptSubmit", prompt="heron"))
    headless.hook(claude("SessionEnd", reason="other"))
    headless.quit()
    tui.hook(claude("UserPromptSubmit", prompt="osprey"))
    tui.proc.kill()
    tui.proc.wait(timeout=5)  # reaped: a zombie still looks alive
    assert _ended(memory_root)
    assert _wait(lambda: not session_processes(memory_root))
    log = _log(memory_root)
    assert [log.count(p) for p in ("pelican", "heron", "osprey")] == [1, 1, 1], log


@pytest.mark.parametrize("compressing", ["tui", "resumed"])
def test_only_the_gemini_process_that_compressed_gets_the_block_back(
    memory_root: Path,
    project: Path,
    tmp_path: Path,
    harness: Callable[..., Harness],
    compressing: str,
) -> None:
    # /compress in one of two Gemini TUIs on a session (gemini, then gemini --resume
    # latest): the block came back with the next prompt of either, the other's model
    # then holding two, and the one that compressed none.
    chat = tmp_path / "chat.jsonl"
    event = functools.partial(_gemini, project, chat)
    tuis = {
        "tui": harness("--harness", "gemini", fast=True),
        "resumed": harness("--harness", "gemini", fast=True),
    }
    tuis["tui"].hook(event("SessionStart", source="startup"))
    tuis["resumed"].hook(event("SessionStart", source="resume"))
    for i, tui in enumerate(tuis.values()):
        tui.hook(event("BeforeAgent", prompt=f"pelican {i}"))
        tui.hook(event("PreCompress", trigger="auto"))  # before every prompt
    one, other = tuis[compressing], tuis["resumed" if compressing == "tui" else "tui"]
    one.hook(event("PreCompress", trigger="manual"))  # /compress
    snapshot = {"type": "user", "content": [{"text": "<state_snapshot>x"}]}
    with chat.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"$set": {"messages": [snapshot]}}) + "\n")
    assert RULE not in other.hook(event("BeforeAgent", prompt="osprey"))
    other.hook(event("PreCompress", trigger="auto"))
    assert RULE in one.hook(event("BeforeAgent", prompt="heron"))
    one.hook(event("PreCompress", trigger="auto"))
    assert RULE not in one.hook(event("BeforeAgent", prompt="kestrel"))
    for tui in tuis.values():
        tui.hook(event("SessionEnd", reason="exit"))
    assert _ended(memory_root)
    log = _log(memory_root)
    assert all(log.count(p) == 1 for p in ("osprey", "heron", "kestrel")), log

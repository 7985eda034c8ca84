"""A Codex CLI TUI's conversation left for a new one (`/new`, `/clear`), with no
SessionEnd until the TUI quits: ended as the new one starts, when the same TUI process
starts it (`hooks/left.py`).

Each harness here is a real process that runs real hook commands as its children, with
a terminal (a pty) on its stdin as a TUI has, or none as Codex's app-server daemon;
tests/e2e/test_new_conversation.py drives the real CLI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

from memhooks.hooks import left
from memhooks.hooks.events import Event
from memhooks.hooks.state import SessionState, state_rel
from memhooks.memory import Store, slug_for

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

#: A stand-in harness: runs `memhooks hook --harness codex` for each payload line it
#: reads from the descriptor its first argument names, and writes back each hook's exit
#: code, stdout and stderr as one JSON line.
_HARNESS = """
import json, os, subprocess, sys
for line in os.fdopen(int(sys.argv[1])):
    done = subprocess.run(
        [sys.executable, "-m", "memhooks.hooks", "hook", "--harness", "codex"],
        input=line, capture_output=True, text=True,
    )
    print(json.dumps([done.returncode, done.stdout, done.stderr]), flush=True)
"""

RULE = "Deploys go out on Fridays only."


class Harness:
    """A Codex process running hooks, with a terminal on its stdin (`tui`) or none."""

    def __init__(self, *, tui: bool, fast: bool, daemon: str = "") -> None:
        env = {**os.environ, "MEMHOOKS_SESSION_PROCESS": "1" if fast else "0"}
        # `daemon`: the $CODEX_HOME of a stand-in for Codex's app-server daemon.
        argv = ["app-server", "--managed-daemon"] if daemon else []
        env.update({"CODEX_HOME": daemon} if daemon else {})
        read, self._write = os.pipe()
        self._pty = os.openpty() if tui else None
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _HARNESS, str(read), *argv],
            stdin=self._pty[1] if self._pty else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            pass_fds=(read,),
        )
        os.close(read)

    def hook(self, payload: dict[str, object]) -> str:
        """What the hook printed; it exited 0 and said nothing on stderr."""
        assert self.proc.stdout is not None
        os.write(self._write, (json.dumps(payload) + "\n").encode())
        code, out, err = json.loads(self.proc.stdout.readline())
        assert (code, err) == (0, ""), (code, err)
        return str(out)

    def quit(self) -> None:
        if self._write >= 0:
            os.close(self._write)
            self._write = -1
        self.proc.wait(timeout=30)
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        for fd in self._pty or ():
            os.close(fd)
        self._pty = None


@pytest.fixture
def harness() -> Iterator[Callable[..., Harness]]:
    """Starts harnesses (`Harness`'s arguments); those a failed test left are quit."""
    started: list[Harness] = []

    def start(*, tui: bool, fast: bool = True, daemon: str = "") -> Harness:
        started.append(Harness(tui=tui, fast=fast, daemon=daemon))
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


def _codex(
    project: Path, session: str, event: str, **fields: object
) -> dict[str, object]:
    return {
        "session_id": session,
        "cwd": str(project),
        "hook_event_name": event,
        "model": "mock-model",
        **fields,
    }


def _log(root: Path) -> str:
    return "".join(p.read_text() for p in root.rglob("daily/*.md"))


def _gone(root: Path, session: str) -> bool:
    deadline = time.monotonic() + 10
    while (root / state_rel(session)).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not (root / state_rel(session)).exists()


@pytest.mark.parametrize("source", ["startup", "clear"])
@pytest.mark.parametrize("fast", [True, False], ids=["session-process", "one-shot"])
def test_a_start_in_the_same_tui_ends_the_conversation_left_first(
    memory_root: Path,
    project: Path,
    harness: Callable[..., Harness],
    source: str,
    fast: bool,
) -> None:
    tui = harness(tui=True, fast=fast)
    tui.hook(_codex(project, "a", "SessionStart", source="startup"))
    tui.hook(_codex(project, "a", "UserPromptSubmit", prompt="pelican deploy window"))
    block = tui.hook(_codex(project, "b", "SessionStart", source=source))
    assert "- pelican deploy window" in block  # the record of the one left
    assert _log(memory_root).count("— session end") == 1
    assert _gone(memory_root, "a")
    tui.hook(_codex(project, "b", "UserPromptSubmit", prompt="heron queue drain"))
    # `/quit`: Codex ends every conversation the TUI held.
    tui.hook(_codex(project, "a", "SessionEnd", reason="other"))
    tui.hook(_codex(project, "b", "SessionEnd", reason="other"))
    assert _gone(memory_root, "b")
    log = _log(memory_root)
    for prompt in ("pelican deploy window", "heron queue drain"):
        assert log.count(prompt) == 1, log
    assert log.count("— session end") == 2, log


def test_another_tui_or_an_app_server_leaves_the_conversation_open(
    memory_root: Path, project: Path, harness: Callable[..., Harness]
) -> None:
    """A start from another TUI process, or from a process with no terminal (Codex's
    app-server daemon runs several TUIs' hooks under one process id), ends nothing."""
    one, daemon = harness(tui=True), harness(tui=False)
    one.hook(_codex(project, "a", "SessionStart", source="startup"))
    one.hook(_codex(project, "a", "UserPromptSubmit", prompt="pelican deploy window"))
    daemon.hook(_codex(project, "c", "SessionStart", source="startup"))
    daemon.hook(_codex(project, "c", "UserPromptSubmit", prompt="osprey cache"))
    daemon.hook(_codex(project, "d", "SessionStart", source="startup"))
    two = harness(tui=True)
    two.hook(_codex(project, "b", "SessionStart", source="startup"))
    assert "— session end" not in _log(memory_root)
    for session in "acdb":
        assert (memory_root / state_rel(session)).exists()
    for session, h in (("a", one), ("c", daemon), ("d", daemon), ("b", two)):
        h.hook(_codex(project, session, "SessionEnd", reason="other"))
        assert _gone(memory_root, session)
    log = _log(memory_root)
    assert log.count("pelican deploy window") == log.count("osprey cache") == 1, log


def test_a_resume_ends_the_other_a_subagent_start_nothing(tmp_path: Path) -> None:
    start = Event(
        kind="session-start",
        harness="codex",
        name="SessionStart",
        session_id="b",
        caller=os.getpid(),
    )
    root = tmp_path / "root"
    (root / ".sessions").mkdir(parents=True)
    st = SessionState(harness=os.getpid(), session_id="a")
    (root / state_rel("a")).write_bytes(st.to_json())
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(left, "tui", lambda pid: True)
        assert [e.session_id for e in left.ends(start._replace(source="clear"), root)]
        resumed = left.ends(start._replace(source="resume"), root)
        assert [e.session_id for e in resumed] == ["a"]  # Codex's `/resume`
        assert left.ends(start._replace(source="fork"), root) == []
        assert left.ends(start._replace(source="compact"), root) == []
        assert left.ends(start._replace(source="clear", agent="x"), root) == []
        assert (
            left.ends(start._replace(source="clear", harness="claude-code"), root) == []
        )


def test_the_first_prompt_of_a_fork_ends_the_conversation_it_left(
    tmp_path: Path,
) -> None:
    """Codex's `/fork` sends no event: the fork is met first at its prompt, a session
    with no state, and the conversation its TUI left is ended there; a prompt of a
    session with a state, or of a subagent, ends nothing."""
    prompt = Event(
        kind="pre-prompt",
        harness="codex",
        name="UserPromptSubmit",
        session_id="b",
        caller=os.getpid(),
        prompt="hello",
    )
    root = tmp_path / "root"
    (root / ".sessions").mkdir(parents=True)
    st = SessionState(harness=os.getpid(), session_id="a")
    (root / state_rel("a")).write_bytes(st.to_json())
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(left, "tui", lambda pid: True)
        assert [e.session_id for e in left.ends(prompt, root)] == ["a"]
        assert left.ends(prompt._replace(agent="x"), root) == []
        assert left.ends(prompt._replace(session_id="a"), root) == []
        (root / state_rel("b")).write_bytes(SessionState(session_id="b").to_json())
        assert left.ends(prompt, root) == []
        mp.setattr(left, "tui", lambda pid: False)
        (root / state_rel("b")).unlink()
        assert left.ends(prompt, root) == []


def test_an_app_server_is_no_tui() -> None:
    """Codex's app-server daemon (`codex app-server --listen … --managed-daemon`), even
    with a terminal on its stdin, and any process with none."""
    leader, follower = os.openpty()
    try:
        for argv, stdin in (
            (["sleep", "30"], follower),
            (["sh", "-c", "sleep 30", "app-server"], follower),
            (["sleep", "30"], subprocess.DEVNULL),
        ):
            proc = subprocess.Popen(argv, stdin=stdin)
            try:
                time.sleep(0.1)
                want = stdin == follower and "app-server" not in argv
                assert left.tui(proc.pid) is want, argv
            finally:
                proc.kill()
                proc.wait()
    finally:
        os.close(leader)
        os.close(follower)
    assert left.tui(0) is False


def _tui_process(env: dict[str, str], stdin: int) -> subprocess.Popen[bytes]:
    """A stand-in for a Codex TUI: a process named `codex`, a terminal on its stdin."""
    return subprocess.Popen(
        ["codex", "-c", "import time; time.sleep(30)"],
        executable=sys.executable,
        stdin=stdin,
        env=env,
    )


@pytest.fixture
def pty() -> Iterator[int]:
    leader, follower = os.openpty()
    yield follower
    os.close(leader)
    os.close(follower)


def test_a_daemon_with_one_tui_on_it_is_that_tuis(tmp_path: Path, pty: int) -> None:
    """Codex's app-server daemon of a $CODEX_HOME, and the TUIs that use it: those of
    that $CODEX_HOME, or of none with that home's .codex (through a link too). One: the
    daemon's start is that TUI's. None, or two: not told."""
    home = tmp_path / "home"
    codex_home = str(home / ".codex")
    daemon = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(30)", "app-server"]
        + ["--managed-daemon"],
        env={**os.environ, "CODEX_HOME": codex_home},
        stdin=subprocess.DEVNULL,
    )
    mine = {**os.environ, "CODEX_HOME": codex_home}
    other = {**os.environ, "CODEX_HOME": str(tmp_path / "other")}
    by_home = {k: v for k, v in os.environ.items() if k != "CODEX_HOME"}
    (tmp_path / "link").symlink_to(home)  # the same home, named through a link
    by_home["HOME"] = str(tmp_path / "link")
    started: list[subprocess.Popen[bytes]] = [daemon]
    try:
        time.sleep(0.1)
        assert left.sole_tui(daemon.pid) is False  # no TUI
        started.append(_tui_process(other, pty))
        started.append(_tui_process(mine, subprocess.DEVNULL))  # no terminal
        time.sleep(0.1)
        assert left.sole_tui(daemon.pid) is False
        started.append(_tui_process(mine, pty))
        time.sleep(0.1)
        assert left.sole_tui(daemon.pid) is True
        assert left.sole_tui(started[-1].pid) is False  # a TUI is no daemon
        started.append(_tui_process(by_home, pty))
        time.sleep(0.1)
        assert left.sole_tui(daemon.pid) is False  # two TUIs on it
    finally:
        for proc in started:
            proc.kill()
            proc.wait()


def test_a_start_from_the_daemon_of_one_tui_ends_what_it_runs(
    tmp_path: Path,
    memory_root: Path,
    project: Path,
    harness: Callable[..., Harness],
    pty: int,
) -> None:
    """`/new`, or `/quit` and a new TUI, under Codex's app-server daemon, with one TUI
    on it: the other conversations the daemon runs are ended at the start, their record
    in the new block; the SessionEnd the daemon sends later adds nothing."""
    codex_home = str(tmp_path / "codex")
    daemon = harness(tui=False, daemon=codex_home)
    daemon.hook(_codex(project, "a", "SessionStart", source="startup"))
    daemon.hook(_codex(project, "a", "UserPromptSubmit", prompt="pelican deploy"))
    tui = _tui_process({**os.environ, "CODEX_HOME": codex_home}, pty)
    try:
        time.sleep(0.1)
        block = daemon.hook(_codex(project, "b", "SessionStart", source="startup"))
    finally:
        tui.kill()
        tui.wait()
    assert "- pelican deploy" in block
    assert _gone(memory_root, "a")
    daemon.hook(_codex(project, "b", "UserPromptSubmit", prompt="heron queue"))
    daemon.hook(_codex(project, "a", "SessionEnd", reason="other"))
    daemon.hook(_codex(project, "b", "SessionEnd", reason="other"))
    assert _gone(memory_root, "b")
    log = _log(memory_root)
    assert log.count("pelican deploy") == log.count("heron queue") == 1, log
    assert log.count("— session end") == 2, log

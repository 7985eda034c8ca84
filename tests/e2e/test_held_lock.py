"""The store's lock held by another process while the three real CLIs run their hooks.

A person's `memhooks write` stopped with Ctrl-Z, or any writer stalled, holds
`.memhooks.lock` (flock) for as long as it likes. Each CLI's TUI in tmux: a prompt with
the lock free; then, the lock held by a `flock` process, a compaction (Claude Code's
`/compact`, Codex's forced auto-compaction, Gemini's `/compress`), a prompt, and the
session end, whose hook the harness kills past its timeout if it waits. Then the lock is
let go, and the next headless run of each CLI.
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import (
    QUIT,
    READY,
    TUI,
    headless,
    hook_results,
    setup_claude,
    setup_codex,
    setup_gemini,
)
from tests.e2e.memory_fixture import blocks_in, seed

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.e2e.sandbox import Leftovers, Sandbox
    from tests.e2e.tmux import Tmux

pytestmark = pytest.mark.timeout(900)

CLIS = ("claude", "codex", "gemini")
COMPACT_LIMIT = 2000
#: Holds the store's lock until killed, as a `memhooks write` stopped mid-write does.
HOLD = (
    "import fcntl, os, sys, time\n"
    "fd = os.open(sys.argv[1] + '/.memhooks.lock', os.O_RDWR | os.O_CREAT, 0o600)\n"
    "fcntl.flock(fd, fcntl.LOCK_EX)\n"
    "time.sleep(600)\n"
)
QUIET = {"anthropic": 100, "responses": 100, "gemini": 200_000}


def said(cli: str, what: str) -> str:
    return f"[{cli}] {what}"


@dataclass
class Held:
    sb: Sandbox
    hooks: Path
    prompts: list[str] = field(default_factory=list)
    #: The prompts typed after the compaction, by CLI.
    after: dict[str, str] = field(default_factory=dict)
    #: The CLIs whose TUI did not exit after its quit command.
    stuck: list[str] = field(default_factory=list)
    results_held: dict[Path, tuple[str, str]] = field(default_factory=dict)
    leftovers: Leftovers | None = None
    tmp_files: list[str] = field(default_factory=list)


def tui_session(sb: Sandbox, cli: str, env: dict[str, str], got: Held) -> Tmux:
    tmux: Tmux = sb.tmux(TUI[cli], env=env)
    tmux.wait_for(
        lambda: any(m in tmux.screen() for m in READY[cli]),
        timeout=90,
        what="input box",
    )
    got.prompts.append(said(cli, "Say hello with the lock free."))
    sb.ask(tmux, got.prompts[-1])
    return tmux


def held_part(sb: Sandbox, cli: str, tmux: Tmux, got: Held) -> None:
    if cli == "claude":
        tmux.command("/compact", "Compacted")
    elif cli == "codex":
        sb.script(usage={**QUIET, "responses": COMPACT_LIMIT * 4})
        got.prompts.append(said(cli, "Say hello before the compaction."))
        sb.ask(tmux, got.prompts[-1], timeout=120)
        sb.script(usage=QUIET)
    else:
        tmux.command("/compress", "compressed from")
    got.prompts.append(said(cli, "Say hello after the compaction."))
    got.after[cli] = got.prompts[-1]
    sb.ask(tmux, got.prompts[-1], timeout=120)
    tmux.type(QUIT[cli])
    try:
        tmux.wait_exit(timeout=120)
    except AssertionError:
        got.stuck.append(cli)


@pytest.fixture(scope="module")
def held(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> Iterator[Held]:
    with sandbox(tmp_path_factory.mktemp("held-lock"), cli_bins, netns) as sb:
        hooks = sb.base / "hooks"
        envs = {
            "claude": setup_claude(sb, capture=str(hooks / "claude")),
            "codex": setup_codex(
                sb, capture=str(hooks / "codex"), auto_compact=COMPACT_LIMIT
            ),
            "gemini": setup_gemini(sb, capture=str(hooks / "gemini")),
        }
        seed(sb)
        sb.script(usage=QUIET)
        got = Held(sb, hooks)
        for cli in CLIS:
            tmux = tui_session(sb, cli, envs[cli], got)
            holder = subprocess.Popen([sys.executable, "-c", HOLD, str(sb.root)])
            try:
                time.sleep(0.5)
                held_part(sb, cli, tmux, got)
            finally:
                holder.kill()
                holder.wait()
        got.results_held = hook_results(hooks)
        time.sleep(3)
        for cli in CLIS:
            prompt = said(cli, "Say hello with the lock let go.")
            done = sb.run(headless(cli, prompt), env=envs[cli])
            assert done.returncode == 0, done.stderr
            got.prompts.append(prompt)
        got.leftovers = sb.leftovers()
        got.tmp_files = [str(p) for p in sb.root.rglob("*.tmp")]
        yield got


def test_every_hook_exits_0_with_at_most_one_line(held: Held) -> None:
    said = held.results_held.values()
    assert len(said) > 20
    assert all(code == "0" and len(err.splitlines()) <= 1 for code, err in said)


def test_each_prompt_went_with_the_block_once(held: Held) -> None:
    # Before: the compaction's record waited for the lock past the post-compaction
    # event's deadline (8 s), and no CLI's model got its block back ("memhooks hook:
    # deadline exceeded; no context" from Claude Code's SessionStart(compact) and
    # PostCompact, Codex's the same, Gemini's BeforeAgent after `/compress`).
    sb = held.sb
    assert {p: blocks_in(sb.turn(p)) for p in held.prompts} == dict.fromkeys(
        held.prompts, 1
    )


def test_each_tui_quits_while_the_lock_is_held(held: Held) -> None:
    # Within `Tmux.wait_exit`'s time (h64b measured 0.6-1.3 s a quit): the session end's
    # hook waits for the lock half a second (`stale.SESSION_END_LOCK_WAIT`), not its
    # harness's timeout. No wall-clock bound here: a busy machine may take longer.
    assert held.stuck == []


def test_nothing_is_left_running_or_half_written(held: Held) -> None:
    assert held.leftovers is not None
    assert not held.leftovers.processes and not held.leftovers.sockets
    assert not held.tmp_files


def test_the_next_session_start_records_what_the_lock_held_up(held: Held) -> None:
    # Before: a session end that met the lock was abandoned at its deadline (1 s):
    # Claude Code's and Codex's prompts stayed in their state for the sweep a week
    # later, Gemini's were lost (its state gone, by our reading removed by its second
    # or third SessionEnd).
    daily = held.sb.daily()
    assert [p for p in held.prompts if daily.count(f"- {p}") != 1] == []


def test_no_session_state_is_left(held: Held) -> None:
    assert held.leftovers is not None and not held.leftovers.states

"""A SessionEnd hook the harness kills past its timeout, with the three real CLIs.

The capture wrapper holds each TUI's SessionEnd hook back for 30 s before memhooks runs
(`MEMHOOKS_E2E_HOLD`), past the 2 s that `memhooks install` gives it: the harness kills
it and quits. The session process, finding its harness gone, writes the record itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import (
    QUIT,
    READY,
    TUI,
    setup_claude,
    setup_codex,
    setup_gemini,
)
from tests.e2e.test_held_lock import CLIS, said

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.e2e.sandbox import Leftovers, Sandbox

pytestmark = pytest.mark.timeout(600)


@dataclass
class Killed:
    sb: Sandbox
    hooks: Path
    prompts: list[str] = field(default_factory=list)
    #: The CLIs whose TUI did not exit after its quit command.
    stuck: list[str] = field(default_factory=list)
    leftovers: dict[str, Leftovers] = field(default_factory=dict)


@pytest.fixture(scope="module")
def killed(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> Iterator[Killed]:
    with sandbox(tmp_path_factory.mktemp("killed-hook"), cli_bins, netns) as sb:
        hooks = sb.base / "hooks"
        got = Killed(sb, hooks)
        envs = {
            "claude": setup_claude(sb, capture=str(hooks / "claude")),
            "codex": setup_codex(sb, capture=str(hooks / "codex")),
            "gemini": setup_gemini(sb, capture=str(hooks / "gemini")),
        }
        for cli in CLIS:
            env = dict(envs[cli])
            env["MEMHOOKS_E2E_HOLD"] = "SessionEnd:none"  # no such event: 30 s
            tmux = sb.tmux(TUI[cli], env=env)
            marks = READY[cli]
            tmux.wait_for(lambda: any(m in tmux.screen() for m in marks), timeout=90)  # noqa: B023
            got.prompts.append(said(cli, "Say hello before the killed end."))
            sb.ask(tmux, got.prompts[-1])
            tmux.type(QUIT[cli])
            try:
                tmux.wait_exit(timeout=60)
            except AssertionError:
                got.stuck.append(cli)
            got.leftovers[cli] = sb.leftovers(grace=5)
        yield got


def test_each_harness_killed_its_session_end_hook(killed: Killed) -> None:
    for cli in CLIS:
        ends = list((killed.hooks / cli).glob("*-SessionEnd.json"))
        assert ends, cli
        # The wrapper saves the exit code once the hook ran: none did.
        assert not [p for p in ends if p.with_suffix(".rc").exists()], cli
    assert killed.stuck == []  # and each TUI quit all the same


def test_each_session_is_recorded_once_all_the_same(killed: Killed) -> None:
    daily = killed.sb.daily()
    assert [p for p in killed.prompts if daily.count(f"- {p}") != 1] == []


def test_nothing_is_left(killed: Killed) -> None:
    assert {c: bool(lo) for c, lo in killed.leftovers.items()} == dict.fromkeys(
        CLIS, False
    )

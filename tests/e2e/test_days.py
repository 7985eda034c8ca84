"""Time passing: a conversation resumed the next day with the real CLIs (`claude -p
--continue`, `codex exec resume --last`, `gemini --resume latest -p`).

A day passes for memhooks when its log of the first run is filed under yesterday's date:
today's log is then a new file, as it is for someone who comes back the morning after.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import capture_dir, sandbox
from tests.e2e.harnesses import codex_exec, setup_claude, setup_codex, setup_gemini
from tests.e2e.memory_fixture import blocks_in, seed

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from tests.e2e.sandbox import Sandbox

pytestmark = pytest.mark.timeout(300)

FIRST = "Start the osprey queue work."
#: Written by another session while the conversation was left: what the next prompt asks.
MOVED = "The osprey queue moved to port 9911 on the falcon host."
SECOND = "Which port does the osprey queue listen on now"


def a_day_passes(sb: Sandbox) -> str:
    """File today's log under yesterday's date (its bytes and an mtime a day old);
    returns that log's text."""
    today = date.today()
    yesterday = (today - timedelta(days=1)).isoformat()
    (log,) = sb.root.glob(f"projects/*/daily/{today.isoformat()}.md")
    moved = log.with_name(f"{yesterday}.md")
    log.rename(moved)
    day_ago = time.time() - 24 * 3600
    os.utime(moved, (day_ago, day_ago))
    return moved.read_text()


def records_of(log: str, prompt: str) -> int:
    """How many entries of a log hold `prompt` as one of their listed prompts."""
    return len(re.findall(rf"^- {re.escape(prompt)}$", log, flags=re.MULTILINE))


@dataclass
class NextDay:
    sb: Sandbox
    yesterday: str = ""
    today: str = ""


#: How each CLI is set up, runs a prompt, and resumes its last conversation with one.
CLIS: dict[str, tuple[Callable[[Sandbox], dict[str, str]], list[str], list[str]]] = {
    "claude": (setup_claude, ["claude", "-p"], ["claude", "-p", "--continue"]),
    "codex": (setup_codex, codex_exec(""), codex_exec("", "resume", "--last")),
    "gemini": (setup_gemini, ["gemini", "-p"], ["gemini", "--resume", "latest", "-p"]),
}


def _with(argv: list[str], prompt: str) -> list[str]:
    # `codex_exec` ends with the prompt: put this one there.
    return [*argv[:-1], prompt] if argv[-1] == "" else [*argv, prompt]


def first_run(sb: Sandbox, run: list[str], env: dict[str, str]) -> None:
    """The seeded project's first headless run, ended and recorded, nothing left."""
    seed(sb)
    done = sb.run(_with(run, FIRST), env=env)
    assert done.returncode == 0, done.stderr
    assert sb.entries("session end", at_least=1), "the first run left no record"
    assert not sb.leftovers(), "the first run left its session behind"


@pytest.fixture(scope="module", params=list(CLIS))
def next_day(
    request, tmp_path_factory, cli_bins: Path, netns: bool
) -> Iterator[NextDay]:
    """A run, a day passes, an entry written, the conversation resumed with a prompt."""
    setup, run, resume = CLIS[request.param]
    with sandbox(
        tmp_path_factory.mktemp(f"days-{request.param}"), cli_bins, netns
    ) as sb:
        env = setup(sb)
        first_run(sb, run, env)
        result = NextDay(sb, yesterday=a_day_passes(sb))
        sb.memhooks("write", "--to", "daily", "--title", "queue move", "--text", MOVED)
        done = sb.run(_with(resume, SECOND), env=env)
        assert done.returncode == 0, done.stderr
        assert sb.entries("session end", at_least=1), "the resumed run left no record"
        result.today = sb.daily()
        yield result


def test_next_day_continue_records_each_prompt_once(next_day: NextDay) -> None:
    assert records_of(next_day.yesterday, FIRST) == 1
    # The first run's prompt is in yesterday's log: today's record holds the new one only.
    assert records_of(next_day.today, FIRST) == 0, next_day.today
    assert records_of(next_day.today, SECOND) == 1, next_day.today


def test_next_day_continue_gets_no_second_block(next_day: NextDay) -> None:
    assert blocks_in(next_day.sb.turn(SECOND)) == 1


def test_next_day_continue_finds_what_was_written_meanwhile(next_day: NextDay) -> None:
    # The conversation's block is yesterday's: today's entry is news to its model.
    assert MOVED in next_day.sb.turn(SECOND).text


@pytest.fixture(scope="module")
def gemini_tui_next_day(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> Iterator[NextDay]:
    """Gemini's TUI: a prompt, `/quit`; a day passes; `gemini --resume latest`, a prompt,
    `/quit` (Gemini CLI runs its SessionEnd hook more than once on `/quit`)."""
    with sandbox(tmp_path_factory.mktemp("days-gemini-tui"), cli_bins, netns) as sb:
        env = setup_gemini(sb, capture=capture_dir("gemini"))
        seed(sb)
        for argv, prompt in (
            (["gemini"], FIRST),
            (["gemini", "--resume", "latest"], SECOND),
        ):
            began = time.strftime("%H:%M")
            tmux = sb.tmux(argv, env=env)
            tmux.wait_text("Type your message", timeout=60)
            sb.ask(tmux, prompt)
            tmux.type("/quit")
            tmux.wait_exit()
            assert sb.entries("session end", at_least=1), f"no record after {prompt!r}"
            assert not sb.leftovers(), f"{argv} left its session behind"
            if prompt == FIRST:
                result = NextDay(sb, yesterday=a_day_passes(sb))
                # Resumed in another minute than its chat began, as the next day is,
                # Gemini CLI names a new chat file in the start's event, and writes
                # the old one.
                tmux.wait_for(
                    lambda began=began: time.strftime("%H:%M") != began,
                    timeout=65,
                    what="the next minute",
                )
        result.today = sb.daily()
        yield result


def test_next_day_gemini_tui_records_each_prompt_once(
    gemini_tui_next_day: NextDay,
) -> None:
    days = gemini_tui_next_day
    assert records_of(days.yesterday, FIRST) == 1
    assert records_of(days.today, FIRST) == 0, days.today
    assert records_of(days.today, SECOND) == 1, days.today


#: Asked in the resumed conversation: words of its own record (FIRST), not all of them
#: (a record line made only of the prompt's words is an echo, never shown: `judge_log`).
AGAIN = "How far along is the osprey queue"


def older_activity(sb: Sandbox) -> None:
    """The activity file as a memhooks before 2026-12-06 wrote it: its `wrote` facts name
    no entry ids (12563e3's recorder.write noted rel, title and bytes only)."""
    for path in sb.root.glob(".activity/*.jsonl"):
        facts = [json.loads(line) for line in path.read_text().splitlines()]
        path.write_text(
            "".join(
                json.dumps({k: v for k, v in f.items() if k != "ids"}) + "\n"
                for f in facts
            )
        )


@pytest.mark.parametrize(
    ("cli", "older"),
    [("claude", True), ("codex", True), ("gemini", True), ("gemini", False)],
)
def test_a_resumed_conversation_is_not_shown_its_own_record(
    cli: str, older: bool, tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """A conversation resumed is not shown its own record (its prompts, which its model
    holds) by auto-search as related memory. `older`: it ended under a memhooks of
    before 2026-12-06 and is resumed after `pip install -U`; seen upgrading a venv from
    12563e3 to c63806d under Claude Code 2.1.332's `--continue`, Codex CLI 0.171.0's
    `resume --last` and Gemini CLI 0.61.0's `--resume latest`. Gemini's headless resume
    was shown it by this release's own records too (its first prompt, where the block
    comes back, kept no record of the session as seen)."""
    setup, run, resume = CLIS[cli]
    with sandbox(tmp_path_factory.mktemp(f"days-own-{cli}"), cli_bins, netns) as sb:
        env = setup(sb)
        first_run(sb, run, env)
        if older:
            older_activity(sb)
        done = sb.run(_with(resume, AGAIN), env=env)
        assert done.returncode == 0, done.stderr
        assert f"- {FIRST}" not in sb.turn(AGAIN).text

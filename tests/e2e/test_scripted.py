"""Headless runs a script makes: JSON output, streamed input, sessions named by id, forks,
a prompt piped on stdin, and no prompt at all (the three pinned CLIs)."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import setup_gemini
from tests.e2e.memory_fixture import blocks_in, seed

if TYPE_CHECKING:
    from pathlib import Path


pytestmark = pytest.mark.timeout(300)


def test_gemini_resumed_by_id_twice_finds_an_entry_written_between(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """A conversation resumed by id a second time replays a turn that brought a block:
    the block built at that resume is not sent, and an entry written to today's log
    before it must still reach the prompt that asks for it, through auto-search."""
    moved = "The osprey queue moved to port 9911 on the falcon host."
    asked = "Which port does the osprey queue listen on now"
    with sandbox(tmp_path_factory.mktemp("gemini-twice"), cli_bins, netns) as sb:
        env = setup_gemini(sb)
        seed(sb)
        sid = str(uuid.uuid4())
        for argv in (
            [
                "gemini",
                "--session-id",
                sid,
                "-o",
                "json",
                "-p",
                "Start the queue work.",
            ],
            ["gemini", "--resume", sid, "-o", "json", "-p", "Say hello again."],
            ["gemini", "--resume", sid, "-o", "json", "-p", asked],
        ):
            if asked in argv:
                sb.memhooks(
                    "write", "--to", "daily", "--title", "move", "--text", moved
                )
            done = sb.run(argv, env=env)
            assert done.returncode == 0, done.stderr
        got = sb.turn(asked)
        assert blocks_in(got) == 1
        assert moved in got.text

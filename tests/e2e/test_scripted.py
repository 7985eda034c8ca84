"""Headless runs a script makes: JSON output, streamed input, sessions named by id, forks,
a prompt piped on stdin, and no prompt at all (the three pinned CLIs)."""

from __future__ import annotations

import json
import subprocess
import uuid
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import codex_exec, setup_claude, setup_codex, setup_gemini
from tests.e2e.memory_fixture import ASK, FACT, blocks_in, seed
from tests.e2e.mockwire import side_call
from tests.e2e.test_days import a_day_passes, records_of

if TYPE_CHECKING:
    from pathlib import Path

    from tests.e2e.sandbox import Sandbox

pytestmark = pytest.mark.timeout(300)


def _piped(
    sb: Sandbox, argv: list[str], env: dict[str, str], stdin: str
) -> subprocess.CompletedProcess[str]:
    """`argv` run in the sandbox with `stdin` piped in, as `echo … | cli` would."""
    return subprocess.run(
        sb.in_namespace(argv),
        cwd=sb.project,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def test_gemini_with_no_prompt_fails_as_without_memhooks(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """`gemini -o json` with nothing on stdin (a script piping an empty diff): Gemini CLI
    exits 42, "No input provided", and asks no model. It puts a SessionStart hook's context
    before the input, though, and checks for input only after: memhooks' block became the
    whole prompt, the model answered it, and the run exited 0."""
    with sandbox(tmp_path_factory.mktemp("gemini-empty"), cli_bins, netns) as sb:
        env = setup_gemini(sb)
        seed(sb)
        argv = ["gemini", "-o", "json"]
        installed = _piped(sb, argv, env, "")
        asked = [r.text for r in sb.requests()]
        left = sb.leftovers()
        sb.memhooks("uninstall", "gemini", "--scope", "project")
        bare = _piped(sb, argv, env, "")
        assert bare.returncode == 42, bare.stderr  # Gemini's FATAL_INPUT_ERROR
        assert installed.returncode == bare.returncode, installed.stdout
        assert not asked, asked
        assert not left, left
        assert "No input provided" in installed.stderr


def _json_lines(out: str) -> list[dict[str, object]]:
    """The harness's stdout read as JSON lines: a line of anything else fails the test."""
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def _each_once(sb: Sandbox, prompts: list[str]) -> None:
    """One block and no more in every turn; the note's fact reached the model with the
    prompt that asks for it; each prompt in exactly one record; nothing left running."""
    turns = [r for r in sb.requests() if not side_call(r.body)]
    assert turns, "the mock model API saw no request"
    assert [blocks_in(r) for r in turns] == [1] * len(turns)
    assert FACT in sb.turn(ASK).text
    ends = sb.entries("session end", at_least=len(prompts))
    assert {p: sum(p in e for e in ends) for p in prompts} == dict.fromkeys(prompts, 1)
    assert sb.daily().count(ASK) == 1, sb.daily()
    left = sb.leftovers()
    assert not left.processes and not left.states, left
    # Claude Code's own socket stays (`cc-socks/`): only ours count.
    assert not [s for s in left.sockets if "cc-socks" not in s], left


def test_claude_streamed_prompts_then_resumed_and_forked_by_id(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """Two messages written to one `claude -p --input-format stream-json` over time, then
    `--resume <id>` and `--resume <id> --fork-session` (`--output-format json`)."""
    streamed = ["Say hello to the first streamed message.", ASK]
    resumed, forked = "Say hello again by id.", "Take the forked branch by id."
    with sandbox(tmp_path_factory.mktemp("claude-script"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        seed(sb)
        fmt = ["--output-format", "stream-json", "--verbose"]
        argv = ["claude", "-p", "--input-format", "stream-json", *fmt]
        proc = subprocess.Popen(
            sb.in_namespace(argv),
            cwd=sb.project,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdin is not None and proc.stdout is not None
        lines: list[dict[str, object]] = []
        for prompt in streamed:
            message = {"type": "user", "message": {"role": "user", "content": prompt}}
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            # A message written while a turn runs joins the next turn: wait for the result.
            while not lines or lines[-1].get("type") != "result":
                line = proc.stdout.readline()
                assert line, "Claude Code ended before its result"
                lines += _json_lines(line)
        out, err = proc.communicate(timeout=90)  # closes stdin: the script is done
        assert proc.returncode == 0, err
        lines += _json_lines(out)
        ids = {str(x["session_id"]) for x in lines if x.get("type") == "result"}
        assert len(ids) == 1, lines
        sid = ids.pop()
        for extra, prompt in (
            (["--resume", sid], resumed),
            (["--resume", sid, "--fork-session"], forked),
        ):
            done = sb.run(
                ["claude", "-p", *extra, "--output-format", "json", prompt], env=env
            )
            assert done.returncode == 0, done.stderr
            assert json.loads(done.stdout)["result"].startswith("Mock reply")
        _each_once(sb, [*streamed, resumed, forked])


def test_codex_exec_json_resumed_and_forked_by_id_and_piped(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """`codex exec --json`, `exec resume <id>`, `exec fork <id>`, and `exec -` with the
    prompt piped on stdin."""
    first, forked, piped = (
        "Say hello to codex first.",
        "Take the codex fork.",
        "Say hello from the pipe.",
    )
    with sandbox(tmp_path_factory.mktemp("codex-script"), cli_bins, netns) as sb:
        env = setup_codex(sb)
        seed(sb)
        done = sb.run(codex_exec(first, "--json"), env=env)
        assert done.returncode == 0, done.stderr
        started = [x for x in _json_lines(done.stdout) if x["type"] == "thread.started"]
        tid = str(started[0]["thread_id"])
        for argv, stdin in (
            (codex_exec(ASK, "--json", "resume", tid), ""),
            (codex_exec(forked, "--json", "fork", tid), ""),
            (codex_exec("-", "--json"), piped + "\n"),
        ):
            done = _piped(sb, argv, env, stdin)
            assert done.returncode == 0, done.stderr
            assert _json_lines(done.stdout)
        _each_once(sb, [first, ASK, forked, piped])


def test_gemini_json_by_session_id_resumed_by_id_and_piped(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """`gemini --session-id U -o json -p`, `--resume U -o stream-json -p`, and a prompt
    piped on stdin (`-o json`)."""
    first, piped = "Say hello to gemini first.", "Say hello from the gemini pipe."
    with sandbox(tmp_path_factory.mktemp("gemini-script"), cli_bins, netns) as sb:
        env = setup_gemini(sb)
        seed(sb)
        sid = str(uuid.uuid4())
        for argv, stdin in (
            (["gemini", "--session-id", sid, "-o", "json", "-p", first], ""),
            (["gemini", "--resume", sid, "-o", "stream-json", "-p", ASK], ""),
            (["gemini", "-o", "json"], piped + "\n"),
        ):
            done = _piped(sb, argv, env, stdin)
            assert done.returncode == 0, done.stderr
            assert (
                _json_lines(done.stdout)
                if "stream-json" in argv
                else json.loads(done.stdout)
            )
        _each_once(sb, [first, ASK, piped])


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


@pytest.mark.parametrize("cli", ["claude", "codex"])
def test_a_fork_the_next_day_records_only_its_own_prompts(
    cli: str, tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """A conversation forked by id the day after its run (`claude -p --resume <id>
    --fork-session`, `codex exec fork <id>`): the fork copies its turns, which went into
    that day's log with the run; today's log gets the fork's prompt alone."""
    first, forked = "Start the osprey queue work.", "Take the fork the next day."
    with sandbox(tmp_path_factory.mktemp(f"{cli}-fork-day"), cli_bins, netns) as sb:
        if cli == "claude":
            env = setup_claude(sb)
            seed(sb)
            done = sb.run(["claude", "-p", "--output-format", "json", first], env=env)
            fork = ["claude", "-p", "--resume", json.loads(done.stdout)["session_id"]]
            fork += ["--fork-session", forked]
        else:
            env = setup_codex(sb)
            seed(sb)
            done = sb.run(codex_exec(first, "--json"), env=env)
            started = [x for x in _json_lines(done.stdout) if "thread_id" in x]
            fork = codex_exec(forked, "--json", "fork", str(started[0]["thread_id"]))
        assert done.returncode == 0, done.stderr
        assert sb.entries("session end", at_least=1), "the run left no record"
        assert not sb.leftovers(), "the run left its session behind"
        yesterday = a_day_passes(sb)
        done = sb.run(fork, env=env)
        assert done.returncode == 0, done.stderr
        assert sb.entries("session end", at_least=1), "the fork left no record"
        assert records_of(yesterday, first) == 1
        assert records_of(sb.daily(), forked) == 1, sb.daily()
        assert records_of(sb.daily(), first) == 0, sb.daily()

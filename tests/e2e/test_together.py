"""Claude Code, Codex CLI and Gemini CLI open at once on one project and one memory root.

One sandbox, all three installed for the project (`memhooks install … --scope
project`); each harness in tmux and headless, interleaved: prompts in each, a note written
with `memhooks write` mid-run, a compaction in one while the others prompt, and the three
sessions ended one by one. Asserted from the outside: what each model request held, the
daily log, the session processes, what every hook did (the capture wrapper records each
hook's exit code and stderr) and `memhooks doctor`.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memhooks.hooks.spawn import PROCESS_NAME
from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import (
    codex_exec,
    hook_results,
    setup_claude,
    setup_codex,
    setup_gemini,
)
from tests.e2e.memory_fixture import FACT, blocks_in, seed
from tests.e2e.sandbox import MEMHOOKS

if TYPE_CHECKING:
    from collections.abc import Iterator

    from tests.e2e.sandbox import Leftovers, Sandbox
    from tests.e2e.tmux import Tmux

pytestmark = pytest.mark.timeout(420)

CLIS = ("claude", "codex", "gemini")
#: The harnesses whose TUIs open a session twice at once (Codex refuses it).
TWO = ("claude", "gemini")
#: Each harness's API on the mock (a request's path tells them apart).
API = {"claude": "/messages", "codex": "/responses", "gemini": "Content"}
#: Codex auto-compacts once a reply reports more tokens than this; Gemini's /compress
#: needs a history it finds big enough to be worth compressing.
COMPACT_LIMIT = 2000
BIG_HISTORY = 200_000
QUIET = {"anthropic": 100, "responses": 100, "gemini": BIG_HISTORY}
#: Bytes a person wrote in today's daily log before any session started.
HAND = "# My own notes\r\nCall the vendor about the kestrel\tlicence — é ✓\r\n\r\n"
#: An entry a person adds to the log while the sessions run.
HAND_LATER = "\n### 11:11 — my own entry\nAsk finance about the ledger ✓\n"
#: A note written with `memhooks write` while the three sessions are open.
HERON = "# Heron queue\nThe heron queue drains every 17 minutes (fact HERON-17)."
HERON_FACT = "drains every 17 minutes"
#: Said to Claude Code before its /compact: its flush logs it, the others must find it.
OSPREY = "Note for later: the osprey build cache lives in /srv/osprey-cache-88."
OSPREY_FACT = "/srv/osprey-cache-88"


def ask(cli: str, what: str) -> str:
    """A prompt of one harness: distinct from every other harness's."""
    return f"[{cli}] {what}"


STAGING = "Which port does the kestrel staging database use behind the wombat proxy."
HERON_Q = "How often does the heron queue drain."
OSPREY_Q = "Where does the osprey build cache live."


@dataclass
class Together:
    sb: Sandbox
    hand_path: Path
    #: Session-process pids per harness, seen while all three were open.
    serving: dict[str, set[int]] = field(default_factory=dict)
    #: After each quit: the pids of the three still alive.
    after_quit: dict[str, dict[str, set[int]]] = field(default_factory=dict)
    leftovers: Leftovers | None = None
    doctor: str = ""
    #: Every prompt typed or passed to a headless run, in order.
    prompts: list[str] = field(default_factory=list)

    def said(self, cli: str, what: str) -> str:
        """`ask(cli, what)`, kept in `prompts`."""
        self.prompts.append(ask(cli, what))
        return self.prompts[-1]


def _session_pids(sb: Sandbox) -> dict[str, set[int]]:
    """The live session processes of the sandbox, by harness (a session process is a
    fork of the hook that started it: it keeps the hook's `--harness NAME`)."""
    names = {"claude": b"claude-code", "codex": b"codex", "gemini": b"gemini"}
    root = f"MEMHOOKS_HOME={sb.root}".encode()
    out: dict[str, set[int]] = {c: set() for c in CLIS}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if comm != PROCESS_NAME or root not in environ or b"--harness" not in argv:
            continue
        harness = argv[argv.index(b"--harness") + 1]
        out.update({c: out[c] | {int(pid)} for c, n in names.items() if n == harness})
    return out


def _wait_ready(tmux: Tmux, marks: tuple[str, ...]) -> None:
    tmux.wait_for(
        lambda: any(m in tmux.screen() for m in marks), timeout=90, what="input box"
    )


def _headless(
    sb: Sandbox, cli: str, prompt: str, env: dict[str, str]
) -> subprocess.Popen[str]:
    argv = {
        "claude": ["claude", "-p", prompt],
        "codex": codex_exec(prompt),
        "gemini": ["gemini", "-p", prompt],
    }[cli]
    return subprocess.Popen(
        sb.in_namespace(argv),
        cwd=sb.project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _finish(proc: subprocess.Popen[str]) -> None:
    text, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, text


def _sent_at(payload: Path) -> int:
    """When the capture wrapper got a hook's payload (ns; its file's name)."""
    return int(payload.name.split("-")[0])


def _each_once_and_clean(sb: Sandbox, hooks: Path, prompts: list[str]) -> None:
    """Each of `prompts` went with one block and is in one record; nothing is left, and
    every hook the capture wrapper ran in `hooks` exited 0 with at most a line said."""
    assert all(blocks_in(sb.turn(p)) == 1 for p in prompts), prompts
    lines = sb.daily().splitlines()
    assert all(lines.count(f"- {p}") == 1 for p in prompts), sb.daily()
    assert not sb.leftovers(), sb.leftovers()
    said = hook_results(hooks).values()
    assert said and all(c == "0" and len(e.splitlines()) <= 1 for c, e in said)


def _wait_gone(sb: Sandbox, cli: str, pids: set[int]) -> None:
    """Until none of `pids` serves `cli` (a session process leaves within a second of
    its session's end), 10 s at most."""
    deadline = time.monotonic() + 10
    while _session_pids(sb)[cli] & pids and time.monotonic() < deadline:
        time.sleep(0.1)


@pytest.fixture(scope="module")
def together(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> Iterator[Together]:
    with sandbox(tmp_path_factory.mktemp("together"), cli_bins, netns) as sb:
        hooks = sb.base / "hooks"
        envs = {
            "claude": setup_claude(sb, capture=str(hooks / "claude")),
            "codex": setup_codex(
                sb, capture=str(hooks / "codex"), auto_compact=COMPACT_LIMIT
            ),
            "gemini": setup_gemini(sb, capture=str(hooks / "gemini")),
        }
        # What `memhooks doctor` asks of the root (private) and of Codex (the model's
        # commands may write it), done as it says.
        sb.root.chmod(0o700)
        with (sb.home / ".codex" / "config.toml").open("a") as f:
            f.write(f'\n[sandbox_workspace_write]\nwritable_roots = ["{sb.root}"]\n')
        seed(sb)
        (project,) = sb.root.glob("projects/*")
        hand_path = project / "daily" / f"{date.today().isoformat()}.md"
        hand_path.parent.mkdir(mode=0o700, exist_ok=True)
        hand_path.write_bytes(HAND.encode())
        hand_path.chmod(0o600)
        sb.script(usage=QUIET)
        got = Together(sb, hand_path)
        tui = {
            "claude": sb.tmux(["claude"], env=envs["claude"]),
            "codex": sb.tmux(
                ["codex", "--dangerously-bypass-hook-trust"], env=envs["codex"]
            ),
            "gemini": sb.tmux(["gemini"], env=envs["gemini"]),
        }
        _wait_ready(tui["claude"], ("? for shortcuts", "shift+tab to cycle"))
        _wait_ready(tui["codex"], ("? for shortcuts", "mock-model default"))
        _wait_ready(tui["gemini"], ("Type your message",))
        # A prompt in each, and one headless run of each alongside.
        for cli in CLIS:
            other = CLIS[(CLIS.index(cli) + 1) % 3]
            run = _headless(
                sb, other, got.said(other, "Say hello headless."), envs[other]
            )
            sb.ask(tui[cli], got.said(cli, STAGING))
            _finish(run)
        got.serving = _session_pids(sb)
        # A note written mid-run: every harness's next prompt must find it.
        sb.memhooks("write", "--to", "note", "--name", "heron", "--text", HERON)
        with hand_path.open("ab") as f:  # a person's entry, added as an editor saves
            f.write(HAND_LATER.encode())
        for cli in CLIS:
            sb.ask(tui[cli], got.said(cli, HERON_Q))
        run = _headless(
            sb, "codex", got.said("codex", "headless " + HERON_Q), envs["codex"]
        )
        _finish(run)
        # Claude Code's /compact while Codex prompts and `gemini -p` runs.
        sb.ask(tui["claude"], got.said("claude", OSPREY))
        run = _headless(
            sb, "gemini", got.said("gemini", "headless " + HERON_Q), envs["gemini"]
        )
        tui["claude"].type("/compact")
        sb.ask(tui["codex"], got.said("codex", "Say hello while Claude compacts."))
        tui["claude"].wait_text("Compacted", timeout=90)
        _finish(run)
        sb.entries("compaction summary", at_least=1)
        for cli in ("codex", "gemini"):
            sb.ask(tui[cli], got.said(cli, OSPREY_Q))
        # Codex's forced auto-compaction while Claude Code prompts.
        sb.script(usage={**QUIET, "responses": COMPACT_LIMIT * 4})
        sb.ask(tui["codex"], got.said("codex", "Say hello before the compaction."))
        sb.script(usage=QUIET)
        run = _headless(
            sb, "claude", got.said("claude", "headless " + OSPREY_Q), envs["claude"]
        )
        sb.ask(tui["codex"], got.said("codex", "Say hello after the compaction."))
        sb.ask(tui["claude"], got.said("claude", "Say hello while Codex compacts."))
        _finish(run)
        # Gemini's /compress while Claude Code prompts.
        tui["gemini"].type("/compress")
        sb.ask(tui["claude"], got.said("claude", "Say hello while Gemini compresses."))
        tui["gemini"].wait_text("compressed from", timeout=90)
        sb.ask(tui["gemini"], got.said("gemini", "Say hello after the compression."))
        # Each session ended in turn: Codex, then Gemini, then Claude Code.
        for cli, quit in (("codex", "/quit"), ("gemini", "/quit"), ("claude", "/exit")):
            tui[cli].type(quit)
            tui[cli].wait_exit(timeout=60)
            _wait_gone(sb, cli, got.serving[cli])
            got.after_quit[cli] = _session_pids(sb)
        got.leftovers = sb.leftovers()
        done = sb.run([str(MEMHOOKS), "doctor"], env=envs["claude"])
        got.doctor = done.stdout + done.stderr + f"\n(exit {done.returncode})"
        yield got


def test_each_request_holds_the_block_once(together: Together) -> None:
    sb = together.sb
    assert all(blocks_in(r) <= 1 for r in sb.requests())
    for prompt in together.prompts:
        turns = sb.turns(prompt)
        assert turns and all(blocks_in(r) == 1 for r in turns), prompt


def test_each_harness_finds_the_seeded_note(together: Together) -> None:
    for cli in CLIS:
        assert FACT in together.sb.turn(ask(cli, STAGING)).text, cli


def test_a_note_written_mid_run_is_found_by_every_harness(together: Together) -> None:
    for cli in CLIS:
        assert HERON_FACT in together.sb.turn(ask(cli, HERON_Q)).text, cli
    for cli in ("codex", "gemini"):
        got = together.sb.turn(ask(cli, "headless " + HERON_Q)).text
        assert HERON_FACT in got, cli


def test_one_harness_flush_is_found_by_the_others(together: Together) -> None:
    flushed = "\n".join(together.sb.entries("compaction summary"))
    assert OSPREY_FACT in flushed, together.sb.daily()
    for cli in ("codex", "gemini"):
        assert OSPREY_FACT in together.sb.turn(ask(cli, OSPREY_Q)).text, cli
    got = together.sb.turn(ask("claude", "headless " + OSPREY_Q)).text
    assert OSPREY_FACT in got


def test_the_daily_log_keeps_the_hand_written_bytes(together: Together) -> None:
    raw = together.hand_path.read_bytes()
    assert raw.startswith(HAND.encode()), raw[:200]
    assert raw.count(HAND_LATER.encode()) == 1, raw


def test_the_daily_log_holds_every_prompt_once_and_whole_lines(
    together: Together,
) -> None:
    daily = together.hand_path.read_text()
    lines = daily.splitlines()
    heads = [ln for ln in lines if "### " in ln]
    # Each heading at the start of a line, none inside another's line.
    assert all(re.fullmatch(r"### \d\d:\d\d — [^#]+", h) for h in heads), heads
    # Every prompt sent is in exactly one record (a session end or a flush).
    lost = [p for p in together.prompts if lines.count(f"- {p}") != 1]
    assert not lost, daily
    # 3 TUI sessions and 6 headless runs each ended once.
    assert len(together.sb.entries("session end")) == 9, daily
    # Each harness's flush holds the last answer before its compaction (Gemini's lost
    # it: a `gemini -p` beside its TUI made it rewrite its chat file).
    flushes = together.sb.entries("compaction summary")
    assert len(flushes) == 3, daily
    assert all("**Last assistant message**" in f for f in flushes), daily


def test_each_session_process_leaves_with_its_own_session(together: Together) -> None:
    serving = together.serving
    assert all(serving[c] for c in CLIS), serving
    order = ("codex", "gemini", "claude")
    for i, cli in enumerate(order):
        alive = together.after_quit[cli]
        assert not alive[cli] & serving[cli], (cli, alive)
        for other in order[i + 1 :]:
            assert serving[other] & alive[other], (cli, other, alive)


def test_nothing_is_left_running(together: Together) -> None:
    assert not together.leftovers, together.leftovers


def test_no_hook_failed_or_said_more_than_a_line(together: Together) -> None:
    results = hook_results(together.sb.base / "hooks")
    assert len(results) > 30, len(results)
    bad = [
        (rc.parent.name, rc.stem, code, said)
        for rc, (code, said) in results.items()
        if code != "0" or len(said.splitlines()) > 1
    ]
    assert not bad, bad


def test_doctor_reports_nothing_wrong(together: Together) -> None:
    # The tier runs Codex with --dangerously-bypass-hook-trust: the hooks were never
    # reviewed in its TUI, which doctor rightly says.
    review = "warn: Codex: Codex runs new hooks only after you review them"
    # And the tier's venv is on the CLIs' PATH only, as an activated venv is, not on a
    # login shell's: Codex's block names memhooks by its path (test_first_day.py).
    shell = "warn: Codex: the model's commands run in a login shell"
    lines = [
        ln for ln in together.doctor.splitlines() if not ln.startswith((review, shell))
    ]
    wrong = [ln for ln in lines if ln.startswith(("warn", "fix", "error", "fail"))]
    assert not wrong and "(exit 0)" in together.doctor, together.doctor


def test_all_three_were_driven(together: Together) -> None:
    for cli in CLIS:
        assert any(API[cli] in r.path for r in together.sb.requests()), cli


def test_a_headless_resume_of_an_open_session_leaves_that_session_running(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    # `claude -p --continue` and `gemini --resume latest -p` resume the conversation
    # the TUI has open, under its session id. Their session end must not end the TUI's
    # session (its process, its state: its next prompt would get the block again), and
    # Gemini's resumed run, whose model never saw the TUI's SessionStart context, needs
    # the block with its prompt (`hooks/shared_session.py`).
    with sandbox(tmp_path_factory.mktemp("together-resume"), cli_bins, netns) as sb:
        envs = {"claude": setup_claude(sb), "gemini": setup_gemini(sb)}
        seed(sb)
        tui = {cli: sb.tmux([cli], env=envs[cli]) for cli in envs}
        _wait_ready(tui["claude"], ("? for shortcuts", "shift+tab to cycle"))
        _wait_ready(tui["gemini"], ("Type your message",))
        for cli in envs:
            sb.ask(tui[cli], ask(cli, STAGING))
        serving = _session_pids(sb)
        for argv, env in (
            (["claude", "-p", "--continue", ask("claude", "resumed")], envs["claude"]),
            (
                ["gemini", "--resume", "latest", "-p", ask("gemini", "resumed")],
                envs["gemini"],
            ),
        ):
            done = sb.run(argv, env=env)
            assert done.returncode == 0, done.stderr
        for cli in envs:
            sb.ask(tui[cli], ask(cli, HERON_Q))
        alive = _session_pids(sb)
        for cli in envs:
            tui[cli].type("/exit" if cli == "claude" else "/quit")
            tui[cli].wait_exit(timeout=60)
        assert all(alive[c] & serving[c] for c in envs), (serving, alive)
        for cli in envs:
            assert blocks_in(sb.turn(ask(cli, "resumed"))) == 1, cli
            assert blocks_in(sb.turn(ask(cli, HERON_Q))) == 1, cli
        # Each prompt recorded once: the resumed run's end records what the TUI had
        # not flushed yet, the TUI's end what came after.
        lines = sb.daily().splitlines()
        prompts = [ask(c, w) for c in envs for w in (STAGING, "resumed", HERON_Q)]
        assert all(lines.count(f"- {p}") == 1 for p in prompts), sb.daily()
        assert len(sb.entries("session end", at_least=4)) == 4, sb.daily()
        assert not sb.leftovers(), sb.leftovers()


def test_two_tuis_on_one_session_each_keep_it_until_the_last_quits(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    # `claude --continue` and `gemini --resume latest` in a second terminal while the
    # first TUI is still open: two harness processes on one session id. Gemini's
    # /compress in the second; the first quits first. The session's state and session
    # process stay with the one left (`hooks/shared_session.py`), each model gets the
    # block once, and the one that compressed gets it back.
    with sandbox(tmp_path_factory.mktemp("together-two"), cli_bins, netns) as sb:
        hooks = sb.base / "hooks"
        envs = {
            "claude": setup_claude(sb, capture=str(hooks / "claude")),
            "gemini": setup_gemini(sb, capture=str(hooks / "gemini")),
        }
        seed(sb)
        sb.script(usage=QUIET)
        ready: dict[str, tuple[str, ...]] = {"gemini": ("Type your message",)}
        ready["claude"] = ("? for shortcuts", "shift+tab to cycle")
        again = {"claude": ["--continue"], "gemini": ["--resume", "latest"]}
        one = {cli: sb.tmux([cli], env=envs[cli]) for cli in TWO}
        two = {}
        for cli in TWO:
            _wait_ready(one[cli], ready[cli])
            sb.ask(one[cli], ask(cli, "first " + STAGING))
            two[cli] = sb.tmux([cli, *again[cli]], env=envs[cli])
        for cli in TWO:
            _wait_ready(two[cli], ready[cli])
            sb.ask(two[cli], ask(cli, "second " + STAGING))
        serving = _session_pids(sb)
        two["gemini"].type("/compress")
        two["gemini"].wait_text("compressed from", timeout=90)
        for cli in TWO:
            sb.ask(one[cli], ask(cli, "first " + HERON_Q))
            sb.ask(two[cli], ask(cli, "second " + HERON_Q))
        for cli in TWO:
            one[cli].type("/exit" if cli == "claude" else "/quit")
            one[cli].wait_exit(timeout=60)
        time.sleep(1.5)  # a session process checks on its harness every 0.5 s
        left = _session_pids(sb)
        for cli in TWO:
            sb.ask(two[cli], ask(cli, "second " + OSPREY_Q))
            two[cli].type("/exit" if cli == "claude" else "/quit")
            two[cli].wait_exit(timeout=60)
        assert all(serving[c] and left[c] == serving[c] for c in TWO), (serving, left)
        prompts = [
            ask(c, w + q)
            for c in TWO
            for w in ("first ", "second ")
            for q in (STAGING, HERON_Q)
        ] + [ask(c, "second " + OSPREY_Q) for c in TWO]
        _each_once_and_clean(sb, hooks, prompts)


@pytest.mark.parametrize("resumed", [True, False], ids=["beside", "fresh"])
def test_a_gemini_prompt_sent_before_its_session_start_is_done_gets_the_block(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None, resumed: bool
) -> None:
    # Gemini CLI 0.61.0 opens its input box before its SessionStart hook returns (it
    # awaits the hook after marking the TUI ready), so a prompt typed at once can reach
    # memhooks first. `gemini --resume latest` beside a TUI that runs the session: the
    # prompt came from a harness process the session did not know yet, and got no block.
    # Here the session start of the second TUI (`beside`), or of a first one (`fresh`),
    # is held back by the capture wrapper until the hook of a prompt typed at once is done.
    with sandbox(tmp_path_factory.mktemp("together-early"), cli_bins, netns) as sb:
        hooks = sb.base / "hooks"
        env = setup_gemini(sb, capture=str(hooks / "gemini"))
        seed(sb)
        sb.script(usage=QUIET)
        ready = ("Type your message",)
        tuis = []
        if resumed:
            tuis.append(sb.tmux(["gemini"], env=env))
            _wait_ready(tuis[0], ready)
            sb.ask(tuis[0], ask("gemini", "first " + STAGING))
        slow = env | {"MEMHOOKS_E2E_HOLD": "SessionStart:BeforeAgent"}
        argv = ["gemini", "--resume", "latest"] if resumed else ["gemini"]
        tuis.append(sb.tmux(argv, env=slow))
        _wait_ready(tuis[-1], ready)
        prompts = [ask("gemini", w + STAGING) for w in ("early ", "later ")]
        sb.ask(tuis[-1], prompts[0])
        tuis[-1].wait_for(  # the start done, then a prompt
            lambda: len(list(hooks.rglob("*-SessionStart.rc"))) >= len(tuis),
            what="the session start's hook to return",
        )
        sb.ask(tuis[-1], prompts[1])
        for tui in reversed(tuis):
            tui.type("/quit")
            tui.wait_exit(timeout=60)
        # The first prompt's hook ran while the session start's was held back.
        start = max(hooks.rglob("*-SessionStart.json"), key=_sent_at)
        (early,) = [
            _sent_at(p)
            for p in hooks.rglob("*-BeforeAgent.json")
            if prompts[0] in p.read_text()
        ]
        assert _sent_at(start) < early, (start, early)
        assert all(blocks_in(r) <= 1 for r in sb.requests())
        _each_once_and_clean(sb, hooks, prompts)

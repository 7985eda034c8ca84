"""Claude Code's subagents (its Agent tool): the model hands a task to a subagent, which
makes its own requests to the mock, in the foreground and in the background (Claude
Code 2.1.332's default), in `claude -p` and `claude -p --continue`.

Decided: a subagent's requests hold no memory block. Claude Code gives the hook contexts
to the main conversation only, and memhooks installs no SubagentStart hook: the subagent
works on a task the main model wrote, holding the block, and a block in each subagent's
requests would cost up to 9 KB a time for what its task already says."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import (
    codex_exec,
    hook_results,
    setup_claude,
    setup_codex,
    setup_gemini,
)
from tests.e2e.memory_fixture import RULE, blocks_in, seed
from tests.e2e.mockwire import SPAWNED, side_call
from tests.e2e.test_claude_code import hook_errors
from tests.e2e.test_codex import hook_errors as codex_errors
from tests.e2e.test_gemini import hook_errors as gemini_errors

if TYPE_CHECKING:
    from pathlib import Path

    from tests.e2e.modellog import Request
    from tests.e2e.sandbox import Sandbox
    from tests.e2e.tmux import Tmux

pytestmark = pytest.mark.timeout(240)

SURVEY = "Survey the kestrel repository with a helper agent."
AGAIN = "Survey it once more in the background."
TASK = "Count the markdown files in the kestrel repository and write the count down."
LATER = "List every file in the kestrel repository and write the list down."
#: What each subagent writes, and runs.
COUNTED, LISTED = "counted.txt", "listed.txt"
COUNT, LIST = "ls *.md", "ls -a"


def _subagent(request: Request) -> bool:
    # Claude Code 2.1.332 marks a subagent's requests in its billing line.
    return "cc_is_subagent=true" in str(request.body.get("system"))


def _run(sb: Sandbox) -> Path:
    env = setup_claude(sb)
    seed(sb)
    agent = {"description": "Survey repo", "subagent_type": "general-purpose"}
    fg = {**agent, "prompt": TASK, "run_in_background": False}

    def task(when: str, command: str, name: str) -> dict[str, object]:
        write = {"file_path": str(sb.project / name), "content": "1\n"}
        then = [{"tool": "Write", "args": write}]
        return {
            "when": when,
            "tool": "Bash",
            "args": {"command": command},
            "then": then,
        }

    sb.script(
        [
            {"when": SURVEY, "tool": "Agent", "args": fg},
            {"when": AGAIN, "tool": "Agent", "args": {**agent, "prompt": LATER}},
            task(TASK, COUNT, COUNTED),
            task(LATER, LIST, LISTED),
        ]
    )
    log = sb.base / "debug.log"
    allowed = ["--allowedTools", "Agent,Bash,Write", "--permission-mode", "acceptEdits"]
    for argv in (["-p", SURVEY], ["-p", "--continue", AGAIN]):
        done = sb.run(["claude", *argv, *allowed, "--debug-file", str(log)], env=env)
        assert done.returncode == 0, done.stderr
    return log


def test_a_subagent_gets_no_block_and_its_task_is_not_recorded_as_typed(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """Driven with the real Claude Code 2.1.332 (2026-12-06), and found as it should
    be: one block in each request of the main conversation, none in the subagent's;
    the person's two prompts each in one record, the subagent's task, its hand-back
    and the background agent's notice in none; no hook failed, nothing left."""
    with sandbox(tmp_path_factory.mktemp("subagent"), cli_bins, netns) as sb:
        log = _run(sb)
        turns = [r for r in sb.requests() if "messages" in (r.body or {})]
        subagent = [r for r in turns if _subagent(r)]
        assert len(subagent) >= 4, "the subagents made no requests of their own"
        assert all(blocks_in(r) == 0 for r in subagent)
        assert all(blocks_in(r) == 1 for r in turns if not _subagent(r))
        assert all((sb.project / f).read_text() == "1\n" for f in (COUNTED, LISTED))
        ended = sb.entries("session end", at_least=2)
        daily = sb.daily()
        assert len(ended) == 2 and daily.count(SURVEY) == 1 and daily.count(AGAIN) == 1
        assert TASK not in daily and LATER not in daily and "hand-back" not in daily
        assert "task-notification" not in daily
        assert not hook_errors(log.read_text())
        assert not sb.leftovers()


def test_what_a_subagent_wrote_and_ran_is_in_the_record(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """Found with the real Claude Code 2.1.332 (2026-12-06): the session-end record
    listed no file a subagent wrote and no command it ran, in the foreground or the
    background: Claude Code writes a subagent's turns to a transcript of its own
    (`<session>/subagents/agent-<id>.jsonl`), which memhooks never read."""
    with sandbox(tmp_path_factory.mktemp("subagent-files"), cli_bins, netns) as sb:
        _run(sb)
        first, second = sb.entries("session end", at_least=2)[:2]
        assert f"{COUNTED}`" in first and f"`{COUNT}`" in first
        assert f"{LISTED}`" in second and f"`{LIST}`" in second
        assert TASK not in first and LATER not in second


def test_a_rule_a_subagent_added_is_told_to_the_main_model(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """A subagent Reads and Edits MEMORY.md: the main model never saw its edit, so the
    resumed conversation is told the rule added, as a person's would be (the model's
    own edits are not: test_model_edits.py). Found so with the real Claude Code 2.1.332
    (2026-12-06)."""
    with sandbox(tmp_path_factory.mktemp("subagent-rule"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        seed(sb)
        memory = sb.root / "MEMORY.md"
        rule = "- Run the heron linter before each push (rule HERON-9)."
        asked, task, after = (
            "Have a helper agent record the heron rule.",
            "Add the heron linter rule to MEMORY.md.",
            "Say hello after the helper.",
        )
        edit = {"file_path": str(memory), "old_string": RULE}
        edit["new_string"] = f"{RULE}\n{rule}"
        agent: dict[str, object] = {"description": "Record rule", "prompt": task}
        agent |= {"subagent_type": "general-purpose", "run_in_background": False}
        sb.script(
            [
                {"when": asked, "tool": "Agent", "args": agent},
                {
                    "when": task,
                    "tool": "Read",
                    "args": {"file_path": str(memory)},
                    "then": [{"tool": "Edit", "args": edit}],
                },
            ]
        )
        allowed = ["--allowedTools", "Agent,Read,Edit", "--add-dir", str(sb.root)]
        allowed += ["--permission-mode", "acceptEdits"]
        for argv in (["-p", asked], ["-p", "--continue", after]):
            done = sb.run(["claude", *argv, *allowed], env=env)
            assert done.returncode == 0, done.stderr
        assert memory.read_text() == f"{RULE}\n{rule}\n"
        told = sb.turn(after).text.split(asked)[-1]
        assert f"+{rule}" in told
        (first, _) = sb.entries("session end", at_least=2)[:2]
        assert "MEMORY.md`" in first and task not in first


def test_a_codex_subagents_task_is_not_recorded_as_typed(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """Found with the real Codex CLI 0.171.0 (2026-12-06): a subagent the model spawns
    (`multi_agent_v1/spawn_agent`) runs the UserPromptSubmit hook with its task as the
    prompt, under the parent's session id (with `agent_id`, and its own rollout as
    `transcript_path`), and the session-end record listed that task among the person's
    prompts."""
    with sandbox(tmp_path_factory.mktemp("codex-subagent"), cli_bins, netns) as sb:
        env = setup_codex(sb)
        seed(sb)
        sb.script(
            [
                {"when": TASK, "tool": "exec_command", "args": {"cmd": COUNT}},
                {
                    "when": SURVEY,
                    "tool": "multi_agent_v1/spawn_agent",
                    "args": {"message": TASK},
                },
            ]
        )
        done = sb.run(codex_exec(SURVEY), env=env)
        assert done.returncode == 0, done.stderr
        (ended,) = sb.entries("session end", at_least=1)
        assert SURVEY in ended and TASK not in ended
        assert not sb.leftovers()


def _codex_patch(path: Path) -> dict[str, object]:
    # The call writing a file as a model without Codex's own apply_patch tool does.
    patch = (
        f"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: {path}\n+1\n"
        "*** End Patch\nEOF\n"
    )
    return {"tool": "exec_command", "args": {"cmd": patch}}


def test_what_a_codex_subagent_wrote_and_ran_is_in_the_record(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """Found with the real Codex CLI 0.171.0 (2026-12-06): the session-end record listed
    no file a subagent wrote and no command it ran, nor those of a subagent it spawned:
    each subagent's turns are in a rollout of its own (`rollout-…-<thread>.jsonl` in
    the session's sessions folder, its `session_meta` naming `parent_thread_id`),
    which the parent's rollout names only in its `spawn_agent` call
    (`receiver_thread_ids`). Each is listed once; the subagents' tasks and answers
    are not the person's prompts nor the last answer."""
    with sandbox(
        tmp_path_factory.mktemp("codex-subagent-files"), cli_bins, netns
    ) as sb:
        env = setup_codex(sb)
        # Codex offers a subagent no spawn_agent of its own unless told it may.
        config = sb.home / ".codex" / "config.toml"
        config.write_text(config.read_text() + "\n[agents]\nmax_depth = 2\n")
        seed(sb)
        wait = {"tool": "multi_agent_v1/wait_agent", "args": {"targets": [SPAWNED]}}
        spawn = "multi_agent_v1/spawn_agent"
        sb.script(
            [
                {
                    "when": TASK,
                    "tool": "exec_command",
                    "args": {"cmd": COUNT},
                    "then": [
                        {"tool": "exec_command", "args": {"cmd": COUNT}},
                        _codex_patch(sb.project / COUNTED),
                        {"tool": spawn, "args": {"message": LATER}},
                        wait,
                    ],
                    "reply": "Counted one markdown file.",
                },
                {
                    "when": LATER,
                    "tool": "exec_command",
                    "args": {"cmd": LIST},
                    "then": [_codex_patch(sb.project / LISTED)],
                    "reply": "Listed every file.",
                },
                {
                    "when": SURVEY,
                    "tool": spawn,
                    "args": {"message": TASK},
                    "then": [wait],
                },
            ]
        )
        bypass = "--dangerously-bypass-approvals-and-sandbox"
        done = sb.run(codex_exec(SURVEY, bypass), env=env)
        assert done.returncode == 0, done.stderr
        assert not codex_errors(done.stderr)
        assert all((sb.project / f).read_text() == "1\n" for f in (COUNTED, LISTED))
        (ended,) = sb.entries("session end", at_least=1)
        for listed in (f"{COUNTED}`", f"`{COUNT}`", f"{LISTED}`", f"`{LIST}`"):
            assert ended.count(listed) == 1, ended
        assert SURVEY in ended and TASK not in ended and LATER not in ended
        assert "Counted one" not in ended and "Listed every" not in ended
        assert not sb.leftovers()


def test_what_a_gemini_subagent_wrote_and_ran_is_in_the_record(
    tmp_path_factory, cli_bins: Path, netns: bool
) -> None:
    """Found with the real Gemini CLI 0.61.0 (2026-12-06): the session-end record listed
    no file a subagent wrote and no command it ran. Its model runs a subagent with
    `invoke_agent` (`generalist`, which has every tool, is on by default); the
    subagent's turns are in a chat file of its own, `chats/<session id>/<agentId>.jsonl`
    (`kind: "subagent"`), and the session's names it only by the call's `agentId` (its
    `resultDisplay` shows the subagent's recent calls, not as calls). The subagent's
    task and its answer are not the person's prompt nor the last answer."""
    with sandbox(tmp_path_factory.mktemp("gemini-subagent"), cli_bins, netns) as sb:
        env = setup_gemini(sb)
        seed(sb)
        write = {"file_path": str(sb.project / COUNTED), "content": "1\n"}
        answer = {"result": {"response": "Counted one markdown file."}}
        sb.script(
            [
                {
                    "when": TASK,
                    "tool": "run_shell_command",
                    "args": {"command": COUNT, "description": "count"},
                    "then": [
                        {"tool": "write_file", "args": write},
                        {"tool": "complete_task", "args": answer},
                    ],
                },
                {
                    "when": SURVEY,
                    "tool": "invoke_agent",
                    "args": {"agent_name": "generalist", "prompt": TASK},
                },
            ]
        )
        done = sb.run(["gemini", "-p", SURVEY, "--approval-mode", "yolo"], env=env)
        assert done.returncode == 0, done.stderr
        assert not gemini_errors(done.stderr)
        assert (sb.project / COUNTED).read_text() == "1\n"
        (ended,) = sb.entries("session end", at_least=1)
        assert ended.count(f"{COUNTED}`") == 1 and ended.count(f"`{COUNT}`") == 1
        assert SURVEY in ended and TASK not in ended and "Counted one" not in ended
        assert not sb.leftovers()


# --- the Codex and Gemini TUIs ------------------------------------------------------------

#: What the main model answers once the foreground subagent is done, and once it started
#: one in the background; what the background subagent runs first (it still works when
#: its parent's turn has ended).
SURVEYED, STARTED, SLOW = "Surveyed it.", "Started it.", "sleep 4"


def _codex_tui_rules(sb: Sandbox) -> list[dict[str, object]]:
    # SURVEY: a subagent the main model waits for; AGAIN: one it leaves working.
    spawn = "multi_agent_v1/spawn_agent"
    wait = {"tool": "multi_agent_v1/wait_agent", "args": {"targets": [SPAWNED]}}
    return [
        {
            "when": TASK,
            "tool": "exec_command",
            "args": {"cmd": COUNT},
            "then": [_codex_patch(sb.project / COUNTED)],
            "reply": "Counted one markdown file.",
        },
        {
            "when": LATER,
            "tool": "exec_command",
            "args": {"cmd": SLOW},
            "then": [
                _codex_patch(sb.project / LISTED),
                {"tool": "exec_command", "args": {"cmd": LIST}},
            ],
            "reply": "Listed every file.",
        },
        {
            "when": SURVEY,
            "tool": spawn,
            "args": {"message": TASK},
            "then": [wait],
            "reply": SURVEYED,
        },
        {"when": AGAIN, "tool": spawn, "args": {"message": LATER}, "reply": STARTED},
    ]


def _codex_tui(sb: Sandbox) -> tuple[Tmux, Path]:
    """The Codex TUI (approvals and sandbox off) on the seeded memory, its model
    scripted with `_codex_tui_rules`, and the folder its hooks are captured in."""
    hooks = sb.base / "hooks"
    env = setup_codex(sb, capture=str(hooks))
    seed(sb)
    sb.script(_codex_tui_rules(sb))
    bypass = "--dangerously-bypass-approvals-and-sandbox"
    tmux = sb.tmux(["codex", "--dangerously-bypass-hook-trust", bypass], env=env)
    tmux.wait_for(
        lambda: "? for shortcuts" in tmux.screen(), timeout=60, what="the input box"
    )
    return tmux, hooks


def _wait_notified(sb: Sandbox, tmux: Tmux) -> None:
    # Until the parent's rollout tells that the background subagent finished.
    def told(text: str) -> bool:
        return "<subagent_notification>" in text and "Listed every" in text

    rollouts = sb.home / ".codex" / "sessions"
    tmux.wait_for(
        lambda: any(told(p.read_text()) for p in rollouts.rglob("rollout-*.jsonl")),
        what="the parent told that the subagent finished",
    )


def _hooks_clean(hooks: Path) -> None:
    # Every hook the capture wrapper ran exited 0 and said nothing.
    said = hook_results(hooks)
    assert said and all(done == ("0", "") for done in said.values()), said


def _each_in_its_own(sb: Sandbox, first: str) -> None:
    # One block in each request of the main conversation (those holding the person's
    # `first` prompt), none in the subagents'.
    turns = [r for r in sb.requests() if r.body and not side_call(r.body)]
    main = [r for r in turns if r.count(first)]
    assert len(main) >= 3 and all(blocks_in(r) == 1 for r in main)
    assert len(turns) > len(main), "the subagents made no requests of their own"
    assert all(blocks_in(r) == 0 for r in turns if not r.count(first))


def test_what_a_codex_tui_subagent_wrote_and_ran_is_in_the_record(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """The Codex CLI 0.171.0 TUI (2026-12-06): a subagent the main model waits for, and
    one it leaves working in the background, which finishes after the turn ended and
    before `/quit` (Codex then adds a `<subagent_notification>` user message to the
    parent's rollout, for its next turn). The session-end record lists each one's file
    and command once, no task, answer or notification as a prompt; one block in each
    request of the main conversation, none in the subagents'."""
    with sandbox(tmp_path_factory.mktemp("codex-tui-subagent"), cli_bins, netns) as sb:
        tmux, hooks = _codex_tui(sb)
        sb.ask(tmux, SURVEY, reply=SURVEYED)
        sb.ask(tmux, AGAIN, reply=STARTED)
        tmux.wait_for(lambda: (sb.project / LISTED).exists(), what=LISTED)
        _wait_notified(sb, tmux)
        tmux.type("/quit")
        tmux.wait_exit()
        _both_recorded(sb, hooks, "Counted one", "Listed every", "subagent_notif")


def _both_recorded(sb: Sandbox, hooks: Path, *answers: str) -> None:
    """Both subagents' files and commands in the session-end record, each once; both
    prompts once, and neither task nor any of the subagents' `answers` in the log; one
    block in each request of the main conversation; every hook exited 0 and said
    nothing; nothing left running."""
    (ended,) = sb.entries("session end", at_least=1)
    for listed in (f"{COUNTED}`", f"`{COUNT}`", f"{LISTED}`", f"`{LIST}`"):
        assert ended.count(listed) == 1, ended
    daily = sb.daily()
    assert daily.count(SURVEY) == 1 and daily.count(AGAIN) == 1, daily
    for unsaid in (TASK, LATER, *answers):
        assert unsaid not in daily, daily
    _each_in_its_own(sb, SURVEY)
    _hooks_clean(hooks)
    assert not sb.leftovers()


def test_a_codex_subagent_working_through_a_compaction_is_in_the_next_record(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """Found with the Codex CLI 0.171.0 TUI (2026-12-06): the person runs `/compact`
    while a subagent works in the background, which writes its file and runs its
    command after the compaction's record. That record listed what it had run by then
    (`sleep 4`); the session end wrote no record at all, and the file and command were
    in none: the parent's rollout names a subagent at its spawn, before the flush, and
    again only in a `wait` for it or in the `<subagent_notification>` message Codex
    adds once it finished, which memhooks did not read. Now the session-end record
    lists them, and what the compaction's listed is not listed again."""
    with sandbox(tmp_path_factory.mktemp("codex-tui-compact"), cli_bins, netns) as sb:
        tmux, hooks = _codex_tui(sb)
        sb.ask(tmux, AGAIN, reply=STARTED)
        tmux.type("/compact")
        (flushed,) = sb.entries("compaction summary", at_least=1)
        assert not (sb.project / LISTED).exists(), "the subagent was done too soon"
        tmux.wait_for(lambda: (sb.project / LISTED).exists(), what=LISTED)
        _wait_notified(sb, tmux)
        tmux.type("/quit")
        tmux.wait_exit()
        (ended,) = sb.entries("session end", at_least=1)
        assert AGAIN in flushed and LISTED not in flushed
        assert ended.count(f"{LISTED}`") == 1 and ended.count(f"`{LIST}`") == 1, ended
        daily = sb.daily()
        assert daily.count(f"`{SLOW}`") == 1, daily
        assert LATER not in daily and "Listed every" not in daily
        _hooks_clean(hooks)
        assert not sb.leftovers()


def test_what_a_gemini_tui_subagent_wrote_and_ran_is_in_the_record(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """The Gemini CLI 0.61.0 TUI (2026-12-06): two prompts, each running a subagent
    (`invoke_agent`, `generalist`) that runs a command and writes a file, then `/quit`.
    The session-end record lists each file and command once, no task or answer as a
    prompt; one block in each request of the main conversation, none in the
    subagents'; every hook exited 0 and said nothing; nothing left running."""
    with sandbox(tmp_path_factory.mktemp("gemini-tui-subagent"), cli_bins, netns) as sb:
        hooks = sb.base / "hooks"
        env = setup_gemini(sb, capture=str(hooks))
        seed(sb)

        def rules(
            asked: str, task: str, command: str, name: str
        ) -> list[dict[str, object]]:
            write = {"file_path": str(sb.project / name), "content": "1\n"}
            answer = {"result": {"response": f"Did {name}."}}
            run = {"agent_name": "generalist", "prompt": task}
            return [
                {
                    "when": task,
                    "tool": "run_shell_command",
                    "args": {"command": command, "description": command},
                    "then": [
                        {"tool": "write_file", "args": write},
                        {"tool": "complete_task", "args": answer},
                    ],
                },
                {"when": asked, "tool": "invoke_agent", "args": run, "reply": SURVEYED},
            ]

        sb.script(
            rules(SURVEY, TASK, COUNT, COUNTED) + rules(AGAIN, LATER, LIST, LISTED)
        )
        tmux = sb.tmux(["gemini", "--approval-mode", "yolo"], env=env)
        tmux.wait_text("Type your message", timeout=60)
        sb.ask(tmux, SURVEY, reply=SURVEYED)
        sb.ask(tmux, AGAIN, reply=SURVEYED)
        tmux.wait_text("Type your message")
        tmux.type("/quit")
        try:
            tmux.wait_exit(timeout=10)
        except AssertionError:  # the Enter taken by the commands' list as it opened
            tmux.keys("Enter")
            tmux.wait_exit()
        assert all((sb.project / f).read_text() == "1\n" for f in (COUNTED, LISTED))
        _both_recorded(sb, hooks, "Did ")


def test_a_codex_subagent_given_more_work_after_a_compaction_is_in_the_next_record(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> None:
    """Found with the Codex CLI 0.171.0 TUI (2026-12-06): a subagent spawned and waited
    for before `/compact` is given more work after it (`send_input`, then
    `wait_agent`). The session-end record listed the prompt and none of the file and
    command the subagent wrote and ran then: its spawn was before the compaction's
    record, and the `CollabAgentToolCall` items of `send_input` and `wait` that name it
    again were not read."""
    with sandbox(tmp_path_factory.mktemp("codex-tui-follow"), cli_bins, netns) as sb:
        tmux, hooks = _codex_tui(sb)
        sb.ask(tmux, SURVEY, reply=SURVEYED)
        tmux.type("/compact")
        sb.entries("compaction summary", at_least=1)
        # The subagent's thread id: its rollout's name ends with it.
        (agent,) = [
            p.stem[-36:]
            for p in (sb.home / ".codex" / "sessions").rglob("rollout-*.jsonl")
            if TASK in p.read_text() and SURVEY not in p.read_text()
        ]
        more, follow = "Give the helper more work.", "Also note the file sizes."
        send = {"target": agent, "message": follow}
        wait = {"tool": "multi_agent_v1/wait_agent", "args": {"targets": [agent]}}
        sb.script(
            [
                {
                    "when": follow,
                    "tool": "exec_command",
                    "args": {"cmd": "ls -l"},
                    "then": [_codex_patch(sb.project / "sizes.txt")],
                    "reply": "Noted the sizes.",
                },
                {
                    "when": more,
                    "tool": "multi_agent_v1/send_input",
                    "args": send,
                    "then": [wait],
                    "reply": "Gave it more.",
                },
                *_codex_tui_rules(sb),
            ]
        )
        sb.ask(tmux, more, reply="Gave it more.")
        tmux.type("/quit")
        tmux.wait_exit()
        assert (sb.project / "sizes.txt").exists()
        (ended,) = sb.entries("session end", at_least=1)
        assert "sizes.txt`" in ended and "`ls -l`" in ended, ended
        assert follow not in sb.daily()
        _hooks_clean(hooks)
        assert not sb.leftovers()

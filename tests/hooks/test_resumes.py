"""`hooks.resumes`: a conversation resumed the next day, as real hook subprocesses.

`claude -p --continue` and `codex exec resume --last` reuse the session id after the first
run's SessionEnd removed its state; a day passes when the first run's log is filed under
yesterday's date. tests/e2e/test_days.py drives the same with the real CLIs.
"""

from __future__ import annotations

import datetime as dt
import html
import json
from typing import TYPE_CHECKING

import pytest

from memhooks.hooks import activity, resumes
from memhooks.hooks.report import sessions
from memhooks.memory.inject import MEMORY_TITLE, NOTES_SHELL, Section, render
from memhooks.memory.toolsline import USAGE_SHELL
from tests.hooks.test_hook import (
    _transcript,
    _user,
    claude,
    context_of,
    hook,
    store_for,
)

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from pytest import MonkeyPatch

FIRST = "Start the osprey queue work."
MOVED = "The osprey queue moved to port 9911 on the falcon host."
SECOND = "Which port does the osprey queue listen on now"


def _started(memory_root: Path, project: Path, transcript: Path) -> str:
    """A run with its block and one prompt, going on; the transcript's path."""
    store_for(memory_root, project).write_memory("- rule")
    started = hook(claude("SessionStart", project, source="startup"))[1]
    block = context_of(started, "SessionStart")
    _transcript(
        transcript,
        [
            {"type": "attachment", "content": f"SessionStart hook context: {block}"},
            _user(FIRST),
        ],
    )
    path = str(transcript)
    hook(claude("UserPromptSubmit", project, prompt=FIRST, transcript_path=path))
    return path


def _first_run(memory_root: Path, project: Path, transcript: Path) -> Path:
    """A run with its block and one prompt, ended; its log filed under yesterday's date."""
    path = _started(memory_root, project, transcript)
    ended = claude("SessionEnd", project, reason="other", transcript_path=path)
    assert hook(ended)[0] == 0
    (log,) = memory_root.glob("projects/*/daily/*.md")
    yesterday = dt.date.fromisoformat(log.stem) - dt.timedelta(days=1)
    return log.rename(log.with_name(f"{yesterday}.md"))


def _resume(project: Path, transcript: Path) -> str:
    """The conversation resumed (`claude -p --continue`): no second block; its path."""
    path = str(transcript)
    resumed = claude("SessionStart", project, source="resume", transcript_path=path)
    assert hook(resumed)[1] == ""
    return path


def test_the_next_days_record_holds_only_the_resumed_runs_prompts(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    yesterday = _first_run(memory_root, project, transcript)
    path = _resume(project, transcript)
    _transcript(transcript, [_user(SECOND)])
    hook(claude("UserPromptSubmit", project, prompt=SECOND, transcript_path=path))
    hook(claude("SessionEnd", project, reason="other", transcript_path=path))
    (today,) = set(memory_root.glob("projects/*/daily/*.md")) - {yesterday}
    assert f"- {FIRST}\n" in yesterday.read_text()
    # The first prompt was recorded yesterday: today's log was no guard against a second.
    assert f"- {FIRST}\n" not in today.read_text()
    assert f"- {SECOND}\n" in today.read_text()


def test_a_session_end_sent_again_the_next_day_records_nothing(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # Gemini CLI runs its SessionEnd hook more than once on `/quit`: one that comes
    # after the first, here past midnight, finds the session's state gone.
    transcript = tmp_path / "t.jsonl"
    yesterday = _first_run(memory_root, project, transcript)
    ended = claude(
        "SessionEnd", project, reason="exit", transcript_path=str(transcript)
    )
    assert hook(ended)[0] == 0
    assert list(memory_root.glob("projects/*/daily/*.md")) == [yesterday]


def test_a_run_that_never_ended_is_recorded_when_resumed(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # The machine went off mid-session (no SessionEnd, no session process left to
    # write it), and its state was swept since: its prompts were never recorded.
    transcript = tmp_path / "t.jsonl"
    path = _started(memory_root, project, transcript)
    for state in (memory_root / ".sessions").glob("*.json"):
        state.unlink()
    resumed = claude("SessionStart", project, source="resume", transcript_path=path)
    assert hook(resumed)[1] == ""
    _transcript(transcript, [_user(SECOND)])
    hook(claude("UserPromptSubmit", project, prompt=SECOND, transcript_path=path))
    hook(claude("SessionEnd", project, reason="other", transcript_path=path))
    (log,) = memory_root.glob("projects/*/daily/*.md")
    assert f"- {FIRST}\n- {SECOND}\n" in log.read_text()


def test_a_resumed_conversation_is_shown_what_was_written_since_its_block(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    _first_run(memory_root, project, transcript)
    store_for(memory_root, project).append_daily("queue move", MOVED)
    path = _resume(project, transcript)
    asked = hook(
        claude("UserPromptSubmit", project, prompt=SECOND, transcript_path=path)
    )
    # The block the conversation holds is yesterday's: today's entry is news to it.
    assert MOVED in context_of(asked[1], "UserPromptSubmit")
    # Asked again, it is not shown twice.
    again = hook(
        claude("UserPromptSubmit", project, prompt=SECOND, transcript_path=path)
    )
    assert MOVED not in again[1]


def test_what_the_resumed_conversation_holds_is_not_shown_again(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    yesterday = _first_run(memory_root, project, transcript)
    path = _resume(project, transcript)
    asked = hook(
        claude("UserPromptSubmit", project, prompt="which rule", transcript_path=path)
    )
    assert "- rule" not in asked[1]
    assert yesterday.exists()


def test_a_rule_edited_while_the_conversation_was_left_is_told_once_when_it_resumes(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # The conversation holds the block with "- rule"; a person edits MEMORY.md and the
    # scratchpad before `--continue`: no second block comes, so the notice tells what
    # changed, private text left out; resumed again, the conversation holds the notice.
    transcript = tmp_path / "t.jsonl"
    store = store_for(memory_root, project)
    store.write_scratchpad("- [ ] move the osprey queue\n- [ ] retire the falcon host")
    _first_run(memory_root, project, transcript)
    (memory_root / "MEMORY.md").write_text(
        "- rule, revised\n<private>\n- the vault code is 4471\n</private>\n"
    )
    pad = next(memory_root.glob("projects/*/SCRATCHPAD.md"))
    pad.write_text(pad.read_text().replace("- [ ] move", "- [x] move") + "- [ ] Q3\n")
    path = str(transcript)
    resumed = claude("SessionStart", project, source="resume", transcript_path=path)
    told = context_of(hook(resumed)[1], "SessionStart")
    assert told.count("## MEMORY.md") == 0, "a block again"
    assert "-- rule\n+- rule, revised\n" in told, told
    assert "-- [ ] move the osprey queue\n+- [ ] Q3" in told, told
    assert "4471" not in told and "<private>" not in told
    hook(claude("SessionEnd", project, reason="other", transcript_path=path))
    _transcript(
        transcript,
        [{"type": "attachment", "content": f"SessionStart hook context: {told}"}],
    )
    assert _resume(project, transcript) == path  # nothing told a second time


def test_a_conflict_pulled_while_the_conversation_was_left_is_told_as_one(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # A pull left MEMORY.md in conflict before `--continue`: the notice gave both sides
    # as lines added, the other machine's rule read as a new one, with no word.
    transcript = tmp_path / "t.jsonl"
    _first_run(memory_root, project, transcript)
    conflict = (
        "- rule\n<<<<<<< HEAD\n- port 9911\n=======\n- port 9912\n>>>>>>> 1a2b3c4\n"
    )
    (memory_root / "MEMORY.md").write_text(conflict)
    path = str(transcript)
    resumed = claude("SessionStart", project, source="resume", transcript_path=path)
    told = context_of(hook(resumed)[1], "SessionStart").split("\n")
    assert (
        told[1]
        == "Memory changed on disk since this session's block was built: MEMORY.md."
    )
    assert told[2].startswith("MEMORY.md (from line 2) holds both sides of a git merge")
    assert "+- port 9912" in told


def test_the_last_open_item_closed_while_the_conversation_was_left_is_told(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # The new block has no scratchpad section: no open item is "held" by any text.
    transcript = tmp_path / "t.jsonl"
    store_for(memory_root, project).write_scratchpad("- [ ] move the osprey queue")
    _first_run(memory_root, project, transcript)
    pad = next(memory_root.glob("projects/*/SCRATCHPAD.md"))
    pad.write_text(pad.read_text().replace("- [ ] move", "- [x] move"))
    path = str(transcript)
    resumed = claude("SessionStart", project, source="resume", transcript_path=path)
    told = context_of(hook(resumed)[1], "SessionStart")
    assert "-- [ ] move the osprey queue\n</memory>" in told, told


def test_a_note_removed_while_the_conversation_was_left_is_told_removed(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # The conversation's block names the note in its index; the block built at the
    # resume does not, the note being gone: the model would read a file that is not.
    transcript = tmp_path / "t.jsonl"
    store_for(memory_root, project).write_note("falcon-host", "The falcon host.")
    _first_run(memory_root, project, transcript)
    (note,) = memory_root.glob("projects/*/notes/falcon-host.md")
    note.unlink()
    path = _resume(project, transcript)
    asked = hook(claude("UserPromptSubmit", project, prompt="hi", transcript_path=path))
    told = context_of(asked[1], "UserPromptSubmit")
    assert "notes/falcon-host.md (removed)" in told, told


def test_notes_written_or_renamed_while_the_conversation_was_left_are_named(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # The conversation's block lists falcon-host; one note is written and that one
    # renamed with its mtime kept (`mv`): the resume names both new names, the first
    # prompt the old one removed, and a second resume nothing.
    transcript = tmp_path / "t.jsonl"
    store = store_for(memory_root, project)
    store.write_note("falcon-host", "The falcon host.")
    _first_run(memory_root, project, transcript)
    store.write_note("kite-queue", "The kite queue.")
    (note,) = memory_root.glob("projects/*/notes/falcon-host.md")
    note.rename(note.with_name("hawk-host.md"))
    path = str(transcript)
    resumed = claude("SessionStart", project, source="resume", transcript_path=path)
    told = context_of(hook(resumed)[1], "SessionStart")
    assert "notes/hawk-host.md, " in told and "notes/kite-queue.md." in told, told
    assert "falcon" not in told and "## MEMORY.md" not in told, told
    asked = hook(claude("UserPromptSubmit", project, prompt="hi", transcript_path=path))
    gone = context_of(asked[1], "UserPromptSubmit")
    assert "notes/falcon-host.md (removed)" in gone and "kite" not in gone, gone
    hook(claude("SessionEnd", project, reason="other", transcript_path=path))
    _transcript(
        transcript,
        [
            {"type": "attachment", "content": f"SessionStart hook context: {told}"},
            {"type": "attachment", "content": f"UserPromptSubmit hook context: {gone}"},
        ],
    )
    assert _resume(project, transcript) == path  # nothing named a second time


def test_no_note_is_named_new_when_the_blocks_index_of_notes_was_cut(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # A small budget cut the conversation's index of notes; raised since, the block
    # built now lists them all: the ones its index did not reach are not new.
    store = store_for(memory_root, project)
    for i in range(30):
        store.write_note(
            f"tern-{i:02}", f"Tern colony {i}, counted at dawn by the pier."
        )
    (memory_root / "config.toml").write_text("[inject]\nbudget = 600\n")
    transcript = tmp_path / "t.jsonl"
    _first_run(memory_root, project, transcript)
    assert "[section truncated: Notes" in transcript.read_text()  # the index was cut
    (memory_root / "config.toml").write_text("[inject]\nbudget = 9000\n")
    assert _resume(project, transcript) == str(transcript)


@pytest.mark.parametrize(
    "prog", ["memhooks", "/home/ann/.venv/bin/memhooks", "'/home/ann/my env/memhooks'"]
)
def test_a_blocks_sections_are_found_whatever_command_its_index_of_notes_names(
    prog: str,
) -> None:
    # The index's title names the command the tools line does (`modelshell.model_prog`):
    # plain, as every block before 2026-12-07 did, or this install's path, quoted when
    # it holds a space. MEMORY.md's section ends at that title, and the index is found.
    parts = [
        Section(MEMORY_TITLE, "- rule", "memory"),
        Section(NOTES_SHELL.format(prog=prog), "- notes/kite.md — Kite", "notes"),
    ]
    block = render(parts, 9000, USAGE_SHELL.format(prog=prog))
    assert resumes._whole(block, resumes._TOLD["memory"]) == "- rule"
    assert resumes._whole(block, resumes._NOTES) == "- notes/kite.md — Kite"
    omitted = block.replace("- notes/kite.md — Kite", "").replace(
        f"## {parts[1].title}\n", f"…[section omitted: {parts[1].title}]"
    )
    assert resumes._whole(omitted, resumes._NOTES) is None


@pytest.mark.parametrize("held", ["plain", "path"])
def test_a_rule_edited_is_told_alone_when_the_block_names_memhooks_by_its_path(
    memory_root: Path,
    project: Path,
    tmp_path: Path,
    monkeypatch: MonkeyPatch,
    held: str,
) -> None:
    # Found 2026-12-06 (d143222, reverted in 3c90f33): with the index of notes titled
    # by the path of memhooks, as where the model's shell finds no `memhooks`, a resumed
    # conversation's MEMORY.md section ran on into the index: its lines were told
    # removed from MEMORY.md and its notes named as new. Held: a block that named it by
    # its path, or plain (an older memhooks wrote it); now the path, either way.
    transcript = tmp_path / "t.jsonl"
    store_for(memory_root, project).write_note("falcon-host", "The falcon host.")
    if held == "path":
        monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no `memhooks` on it
    _first_run(memory_root, project, transcript)
    plain = "(read with `memhooks read notes/NAME`)" in transcript.read_text()
    assert plain == (held == "plain")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    (memory_root / "MEMORY.md").write_text("- rule, revised\n")
    path = str(transcript)
    resumed = claude("SessionStart", project, source="resume", transcript_path=path)
    told = context_of(hook(resumed)[1], "SessionStart")
    assert "\n-- rule\n+- rule, revised\n</memory>" in told, told
    assert "falcon" not in told and "Notes" not in told, told


# --- Gemini CLI's `/chat resume <tag>`: no hook event, another history in the chat file


def test_the_report_counts_the_block_the_resumed_conversation_holds(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # The block built at a resume, to compare with the one the conversation holds, is
    # not sent: `memhooks report` counted it as the conversation's block, the logs
    # written since among its sections.
    transcript = tmp_path / "t.jsonl"
    _first_run(memory_root, project, transcript)
    store = store_for(memory_root, project)
    store.append_daily("queue move", MOVED)
    _resume(project, transcript)
    facts = activity.read(store.root, store.slug)
    (sent,) = [f for f in facts if f["ev"] == "block"]
    (session,) = sessions(facts, 10)
    assert session.block_bytes == sent["bytes"]
    assert [s["title"] for s in session.shares] == ["MEMORY.md"]


def test_a_resumed_conversation_is_not_shown_its_own_record(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # Claude Code's and Codex's `/resume` in the TUI end a conversation and resume it
    # minutes later: the record its end wrote holds its own prompts, which its model
    # holds; auto-search showed it back to it as related memory.
    transcript = tmp_path / "t.jsonl"
    path = _started(memory_root, project, transcript)
    hook(claude("SessionEnd", project, reason="resume", transcript_path=path))
    (log,) = memory_root.glob("projects/*/daily/*.md")
    assert f"- {FIRST}\n" in log.read_text()
    _resume(project, transcript)
    again = "Is the osprey queue work done"
    asked = hook(
        claude("UserPromptSubmit", project, prompt=again, transcript_path=path)
    )
    assert f"- {FIRST}" not in asked[1]


def test_a_conversation_recorded_by_an_older_memhooks_is_not_shown_its_own_record(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # Before 2026-12-06 the `wrote` fact named no entry ids ({"t", "s", "ev": "wrote",
    # "rel", "title", "bytes"}, as 12563e3's recorder.write noted it). A conversation
    # ended under that release and resumed after `pip install -U` was shown its own
    # record by auto-search (seen with the real Claude Code 2.1.332: `claude --continue`
    # after upgrading from 12563e3; /scratch/h64c/FINDINGS.md).
    transcript = tmp_path / "t.jsonl"
    path = _started(memory_root, project, transcript)
    hook(claude("SessionEnd", project, reason="other", transcript_path=path))
    store = store_for(memory_root, project)
    facts = activity.activity_path(memory_root, store.slug)
    old = [
        {k: v for k, v in json.loads(line).items() if k != "ids"}
        for line in facts.read_text().splitlines()
    ]
    assert any(f["ev"] == "wrote" for f in old)
    facts.write_text("".join(json.dumps(f, ensure_ascii=False) + "\n" for f in old))
    _resume(project, transcript)
    again = "Is the osprey queue work done"
    asked = hook(
        claude("UserPromptSubmit", project, prompt=again, transcript_path=path)
    )
    assert f"- {FIRST}" not in asked[1]


def test_a_codex_fork_met_first_at_its_prompt_is_told_the_change_since_its_block(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # Codex CLI's `/fork` in its TUI sends no SessionStart: the fork's first prompt
    # comes under a new id, and its rollout's first line names the thread it forked
    # from, whose rollout holds the block (the shape Codex CLI 0.171.0 wrote).
    store_for(memory_root, project).write_memory("- old rule")
    started = hook(claude("SessionStart", project, source="startup"), *_CODEX)
    block = context_of(started[1], "SessionStart")
    day = tmp_path / "sessions" / "2026" / "12" / "06"
    day.mkdir(parents=True)
    thread = "01a24a60-191b-7cc0-9f18-3ed462d8fe81"
    base = day / f"rollout-2026-12-06T08-02-21-{thread}.jsonl"
    said = {"type": "message", "role": "developer", "content": [{"text": block}]}
    base.write_text(
        json.dumps({"type": "session_meta", "payload": {"id": thread}})
        + "\n"
        + json.dumps({"type": "response_item", "payload": said})
        + "\n"
    )
    fork = day / "rollout-2026-12-06T08-02-23-01a24a60-2131.jsonl"
    meta = {
        "id": "01a24a60-2131",
        "forked_from_id": thread,
        "history_base": {"thread_id": thread, "end_byte_offset": base.stat().st_size},
    }
    fork.write_text(json.dumps({"type": "session_meta", "payload": meta}) + "\n")
    (memory_root / "MEMORY.md").write_text("- new rule\n")
    told = []
    for prompt in ("Say hello in the fork.", "Say hello once more."):
        asked = claude(
            "UserPromptSubmit",
            project,
            session_id="01a24a60-2131",
            prompt=prompt,
            transcript_path=str(fork),
        )
        code, out, err = hook(asked, *_CODEX)
        assert code == 0, err
        told.append(out)
    assert "-- old rule\n+- new rule\n" in context_of(told[0], "UserPromptSubmit")
    assert "old rule" not in told[1]


_CODEX = ("--harness", "codex")


def _gemini(
    event: str, project: Path, chat: Path, session: str = "g-1", **fields: object
) -> str:
    """Run the hook for a Gemini CLI event of `session`; its context ("" for none)."""
    payload = {
        "session_id": session,
        "transcript_path": str(chat),
        "cwd": str(project),
        "hook_event_name": event,
        "timestamp": "2026-12-06T02:24:32.000Z",
        **fields,
    }
    code, out, err = hook(payload, "--harness", "gemini")
    assert code == 0 and not err, err
    return context_of(out, event) if out else ""


def _chat(chat: Path, *lines: Mapping[str, object]) -> None:
    # As Gemini CLI writes them: compact JSON, one per line, its context escaped.
    with chat.open("a") as f:
        f.writelines(json.dumps(x, separators=(",", ":")) + "\n" for x in lines)


def _said(context: str) -> dict[str, str]:
    return {"text": f"<hook_context>{html.escape(context, quote=False)}</hook_context>"}


def _message(rid: str, kind: str, *parts: dict[str, str]) -> dict[str, object]:
    return {"id": rid, "type": kind, "content": list(parts)}


#: Gemini's first user message: the workspace's description.
WORKSPACE = {"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}
HEADER = {"sessionId": "g-1", "projectHash": "h", "startTime": "t", "kind": "main"}


def _checkpoint_loaded(chat: Path, block: str, first: str) -> None:
    """`/chat resume`: the checkpoint's turns written again, then set as the history; its
    first user message holds the workspace, the SessionStart block and the first prompt."""
    turns = [
        _message("c1", "user", WORKSPACE, _said(block), {"text": first}),
        _message("c2", "gemini", {"text": "Mock reply 2."}),
    ]
    _chat(chat, *turns, {"$set": {"messages": turns, "lastUpdated": "t"}})


def test_a_gemini_checkpoint_resumed_after_clear_gets_no_second_block(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # `/clear` starts another session with SessionStart(clear), whose context Gemini
    # drops: the block waits for the next prompt, unless the history holds one, as a
    # checkpoint resumed since does (one saved in the session before).
    store_for(memory_root, project).write_memory("- Rule MARMOT-9.")
    chat = tmp_path / "chat.jsonl"
    block = _gemini(
        "SessionStart", project, tmp_path / "0.jsonl", "g-0", source="startup"
    )
    for session in ("g-1", "g-2"):
        assert _gemini("SessionStart", project, chat, session, source="clear") == ""
    _chat(chat, HEADER, {"$set": {"messages": [_message("w", "user", WORKSPACE)]}})
    cleared = _gemini("BeforeAgent", project, chat, "g-2", prompt="Say hi.")
    assert "## MEMORY.md\n- Rule MARMOT-9." in cleared  # with nothing loaded: the block
    _checkpoint_loaded(chat, block, FIRST)
    asked = _gemini("BeforeAgent", project, chat, prompt="Say hello.")
    assert "## MEMORY.md" not in asked, asked


def test_a_gemini_checkpoint_resumed_is_told_a_change_its_turns_missed(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # A prompt, the rule replaced, a prompt told so, then `/chat resume` of a checkpoint
    # saved before: its history holds the old rule and not the notice.
    store_for(memory_root, project).write_memory("- Rule MARMOT-9.")
    chat = tmp_path / "chat.jsonl"
    block = _gemini("SessionStart", project, chat, source="startup")
    _chat(chat, HEADER, _message("b", "user", _said(block)))

    def ask(prompt: str) -> str:
        context = _gemini("BeforeAgent", project, chat, prompt=prompt)
        _gemini("PreCompress", project, chat, trigger="auto")
        said = [_said(context)] if context else []
        _chat(chat, _message(prompt, "user", {"text": prompt}, *said))
        return context

    assert ask(FIRST) == ""
    (memory_root / "MEMORY.md").write_text("- Rule OSPREY-3.\n")
    told = "-- Rule MARMOT-9.\n+- Rule OSPREY-3.\n"
    assert told in ask(SECOND)
    _checkpoint_loaded(chat, block, FIRST)
    again = ask("Say hello.")
    assert told in again and "## MEMORY.md" not in again, again
    assert ask("Say hello again.") == ""


def test_a_gemini_resume_whose_replay_holds_a_block_is_shown_what_was_written_since(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # `gemini --resume` of a conversation whose first prompt brought the block (an
    # earlier resume's, a headless run's): the block built at this resume is not sent,
    # so an entry written since is news to the model, for auto-search to find.
    store_for(memory_root, project).write_memory("- Rule MARMOT-9.")
    chat = tmp_path / "chat.jsonl"
    assert _gemini("SessionStart", project, chat, source="resume") == ""
    first = _gemini("BeforeAgent", project, chat, prompt=FIRST)
    assert "## MEMORY.md\n- Rule MARMOT-9." in first
    asked = _message("a", "user", {"text": FIRST}, _said(first))
    _chat(chat, HEADER, asked, _message("b", "gemini", {"text": "Mock reply 1."}))
    assert _gemini("SessionEnd", project, chat, reason="exit") == ""
    store_for(memory_root, project).append_daily("queue move", MOVED)
    assert _gemini("SessionStart", project, chat, source="resume") == ""
    again = _gemini("BeforeAgent", project, chat, prompt=SECOND)
    assert "## MEMORY.md" not in again, again  # the replayed turn holds the block
    assert MOVED in again


def _at(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).isoformat(timespec="milliseconds")


def test_a_fork_the_next_day_records_only_its_own_prompts(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # `claude -p --resume <id> --fork-session`: a new session id, its transcript written
    # after its first turn, starting with a copy of the turns forked (their own times),
    # which went into yesterday's log with their run.
    _first_run(memory_root, project, tmp_path / "t.jsonl")
    fork = tmp_path / "fork.jsonl"
    forked = "Take the fork the next day."

    def run(event: str, **fields: object) -> None:
        payload = claude(event, project, transcript_path=str(fork), **fields)
        assert hook({**payload, "session_id": "fork-1"})[0] == 0

    run("SessionStart", source="fork")
    run("UserPromptSubmit", prompt=forked)
    copied = [json.loads(x) for x in (tmp_path / "t.jsonl").read_text().splitlines()]
    an_hour_ago = _at(dt.datetime.now() - dt.timedelta(hours=1))
    _transcript(fork, [{**x, "timestamp": an_hour_ago} for x in copied])
    _transcript(fork, [{**_user(forked), "timestamp": _at(dt.datetime.now())}])
    run("SessionEnd", reason="other")
    (log,) = memory_root.glob(f"projects/*/daily/{dt.date.today()}.md")
    assert forked in log.read_text() and FIRST not in log.read_text(), log.read_text()

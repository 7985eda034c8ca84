"""`memhooks hook`: Claude Code-style one-shot hook commands, as real subprocesses."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from memhooks.memory import Store, slug_for
from memhooks.memory.inject import NOTHING_YET, WRAPPER_CLOSE, WRAPPER_OPEN
from memhooks.memory.toolsline import USAGE
from tests.conftest import children_cpu_seconds, run_cli
from tests.hooks.test_transcript import TASK_NOTIFICATION, TASK_TURN

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path


#: `memhooks hook` as Claude Code runs it, for tests that need the process itself.
CLAUDE_HOOK = [
    sys.executable,
    "-m",
    "memhooks.hooks",
    "hook",
    "--harness",
    "claude-code",
]


def store_for(memory_root: Path, project: Path) -> Store:
    return Store(memory_root, slug_for(str(project)))


def hook(payload: Mapping[str, object] | str, *args: str) -> tuple[int, str, str]:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    proc = run_cli("hook", *args, input=text)
    return proc.returncode, proc.stdout, proc.stderr


def claude(event: str, project: Path, **fields: object) -> dict[str, object]:
    return {
        "session_id": "sess-1",
        "transcript_path": fields.pop("transcript_path", None),
        "cwd": str(project),
        "hook_event_name": event,
        **fields,
    }


def compact(project: Path, transcript: Path, trigger: str = "auto") -> None:
    """A compaction as Claude Code makes one: PreCompact, then PostCompact once done."""
    for event in ("PreCompact", "PostCompact"):
        code, out, err = hook(
            claude(event, project, trigger=trigger, transcript_path=str(transcript))
        )
        assert (code, out) == (0, ""), err


def context_of(stdout: str, event: str) -> str:
    reply = json.loads(stdout)
    assert set(reply) == {"hookSpecificOutput"}
    assert reply["hookSpecificOutput"]["hookEventName"] == event
    return str(reply["hookSpecificOutput"]["additionalContext"])


def test_session_start_injects_the_block(memory_root: Path, project: Path) -> None:
    store_for(memory_root, project).write_memory(
        "- Always run the linter before committing."
    )
    code, out, err = hook(claude("SessionStart", project, source="startup"))
    assert code == 0, err
    ctx = context_of(out, "SessionStart")
    assert ctx.startswith("<memory note=") and "Always run the linter" in ctx


def test_a_note_file_named_in_latin1_leaves_the_block_whole(
    memory_root: Path, project: Path
) -> None:
    # Before: with one note saved as caf\xe9.md, the SessionStart hook of a UTF-8 locale
    # (a strict stdout) said "UnicodeEncodeError ...; no context": no memory at all.
    store = store_for(memory_root, project)
    store.write_memory("- Always run the linter before committing.")
    store.write_note("ok", "kiwi")
    notes = memory_root / "projects" / store.slug / "notes"
    (notes / os.fsdecode(b"caf\xe9.md")).write_text("kiwi tart\n")
    proc = run_cli(
        "hook",
        input=json.dumps(claude("SessionStart", project, source="startup")),
        env={"PYTHONIOENCODING": "utf-8:strict"},
    )
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    ctx = context_of(proc.stdout, "SessionStart")
    assert "Always run the linter" in ctx and "notes/caf\ufffd.md" in ctx


def test_huge_memory_stays_under_claude_codes_cap(
    memory_root: Path, project: Path
) -> None:
    store_for(memory_root, project).write_memory(
        "\n".join(f"- rule {i} " + "x" * 90 for i in range(2000))
    )
    assert (memory_root / "MEMORY.md").stat().st_size > 200_000
    code, out, _ = hook(claude("SessionStart", project, source="startup"))
    assert code == 0
    assert len(out.rstrip("\n")) < 10_000
    assert "…[section truncated: MEMORY.md]" in context_of(out, "SessionStart")


def test_empty_memory_gets_one_line_and_the_tools(project: Path) -> None:
    # With nothing saved, the first session is still told how to save (found by a
    # new user's `claude -p "remember that deploys need a VPN"`: no block, no tools).
    code, out, _ = hook(claude("SessionStart", project, source="startup"))
    want = f"{WRAPPER_OPEN}\n{NOTHING_YET}\n{WRAPPER_CLOSE}\n{USAGE}"
    assert (code, context_of(out, "SessionStart")) == (0, want)


def test_prompt_surfaces_a_note_once(memory_root: Path, project: Path) -> None:
    store = store_for(memory_root, project)
    store.write_memory("- Prefer small commits.")
    store.write_note(
        "payments",
        "# Payments\nThe Stripe webhook secret lives in vault at kv/shop/stripe.",
    )
    hook(claude("SessionStart", project, source="startup"))
    prompt = claude(
        "UserPromptSubmit", project, prompt="Where is the stripe webhook secret stored?"
    )
    code, out, _ = hook(prompt)
    assert code == 0
    ctx = context_of(out, "UserPromptSubmit")
    assert f"projects/{store.slug}/notes/payments.md" in ctx
    assert "kv/shop/stripe" in ctx
    assert len(ctx.encode()) <= 2048
    assert hook(prompt)[:2] == (0, "")  # already surfaced in this session
    store.edit("notes/payments", "kv/shop/stripe", "kv/shop/stripe-v2")
    code, out, _ = hook(
        prompt
    )  # changed since: surfaced again, and the change is named
    ctx = context_of(out, "UserPromptSubmit")
    assert "kv/shop/stripe-v2" in ctx and "Memory changed on disk" in ctx


def test_a_note_removed_by_hand_is_named_once(memory_root: Path, project: Path) -> None:
    # Seen with the real Claude Code: a note shown, then moved away by hand (`mv`): the
    # model held the old note's text, and no notice said that it was gone.
    store = store_for(memory_root, project)
    store.write_memory("- Prefer small commits.")
    store.write_note("payments", "# Payments\nThe webhook secret is at kv/shop/stripe.")
    hook(claude("SessionStart", project, source="startup"))
    ask = claude("UserPromptSubmit", project, prompt="Where is the webhook secret?")
    assert "kv/shop/stripe" in context_of(hook(ask)[1], "UserPromptSubmit")
    notes = f"projects/{store.slug}/notes"
    (memory_root / notes / "payments.md").rename(memory_root / notes / "billing.md")
    ctx = context_of(hook(ask)[1], "UserPromptSubmit")
    built = "Memory changed on disk since this session's block was built: "
    assert f"{built}{notes}/billing.md, {notes}/payments.md (removed).\n" in ctx
    (memory_root / notes / "billing.md").unlink()  # shown under its new name: gone too
    store.write_note("other", "# Other\nNothing about it.")
    ctx = context_of(hook(ask)[1], "UserPromptSubmit")
    assert f"{built}{notes}/other.md, {notes}/billing.md (removed)." in ctx
    (memory_root / "MEMORY.md").unlink()
    ctx = context_of(hook(ask)[1], "UserPromptSubmit")
    assert ctx.endswith(f"{built}MEMORY.md (removed).\n</memory>"), ctx
    assert hook(ask)[:2] == (0, "")  # told once


def test_a_notes_folder_moved_away_and_back_is_named_both_times(
    memory_root: Path, project: Path
) -> None:
    # Seen with the real Claude Code (2.1.332, test_editor_saves.py): the notes told
    # removed when their folder was moved away were never told back: a folder moved
    # back keeps its files' times, and its names are those it had.
    store = store_for(memory_root, project)
    store.write_memory("- Prefer small commits.")
    store.write_note("heron", "# Heron\nShips signed tarballs.")
    hook(claude("SessionStart", project, source="startup"))
    notes = memory_root / "projects" / store.slug / "notes"
    away = memory_root.parent / "notes-away"
    notes.rename(away)
    ask = claude("UserPromptSubmit", project, prompt="Say hello.")
    built = "Memory changed on disk since this session's block was built: "
    heron = f"projects/{store.slug}/notes/heron.md"
    assert f"{built}{heron} (removed).\n" in context_of(
        hook(ask)[1], "UserPromptSubmit"
    )
    away.rename(notes)
    assert f"{built}{heron}.\n" in context_of(hook(ask)[1], "UserPromptSubmit")
    assert hook(ask)[:2] == (0, "")  # told once
    notes.rename(away)  # away again: told again
    assert f"{heron} (removed)" in context_of(hook(ask)[1], "UserPromptSubmit")


def test_a_note_renamed_or_copied_in_by_hand_is_named(
    memory_root: Path, project: Path
) -> None:
    # Seen with the real Claude Code (2.1.332, its TUI): a note the block's index listed,
    # renamed with `mv` mid-session. `mv` (and `git mv`, `cp -p`, `rsync -a`) keeps the
    # file's modification time, so the next prompt's notice named neither the new name
    # nor the old one, gone, which the model's block still listed.
    store = store_for(memory_root, project)
    store.write_memory("- Prefer small commits.")
    store.write_note("cormorant", "# Cormorant\nThe batch job restarts at 04:10.")
    store.write_note("heron", "# Heron\nShips signed tarballs.")
    start = hook(claude("SessionStart", project, source="startup"))[1]
    assert "notes/cormorant.md — Cormorant" in context_of(start, "SessionStart")
    notes = f"projects/{store.slug}/notes"
    (memory_root / notes / "cormorant.md").rename(memory_root / notes / "ibis-jobs.md")
    ask = claude("UserPromptSubmit", project, prompt="Say hello.")
    code, out, err = hook(ask)
    assert code == 0, err
    built = "Memory changed on disk since this session's block was built: "
    assert (
        f"{built}{notes}/ibis-jobs.md, {notes}/cormorant.md (removed).\n"
        in context_of(out, "UserPromptSubmit")
    )
    assert hook(ask)[:2] == (0, "")  # told once
    elsewhere = project.parent / "grebe.md"
    elsewhere.write_text("# Grebe\nListens on port 9911.\n")
    os.utime(elsewhere, ns=(1_000_000_000, 1_000_000_000))  # an old file, as rsync -a
    shutil.copy2(elsewhere, memory_root / notes / "grebe.md")
    ctx = context_of(hook(ask)[1], "UserPromptSubmit")
    assert f"{built}{notes}/grebe.md.\n" in ctx
    # A note replaced by a link to an older one (`ln -sf`): its text is the target's.
    (memory_root / notes / "heron.md").unlink()
    (memory_root / notes / "heron.md").symlink_to("grebe.md")
    ctx = context_of(hook(ask)[1], "UserPromptSubmit")
    assert f"{built}{notes}/heron.md.\n" in ctx


def test_gemini_resume_reads_a_chat_file_with_a_lone_surrogate(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # JSON may spell half a surrogate pair (\ud800): a replayed message holding one is
    # read, and the resumed session's first prompt still gets the block.
    store_for(memory_root, project).write_memory("- Rule MARMOT-9.")
    chat = tmp_path / "chat.jsonl"
    text = "broken \\ud800 text and notes/x.md  [matched: x]"
    chat.write_text(
        f'{{"id": "a", "type": "user", "content": [{{"text": "{text}"}}]}}\n'
    )
    event = {
        "session_id": "g-1",
        "transcript_path": str(chat),
        "cwd": str(project),
        "hook_event_name": "BeforeAgent",
        "prompt": "What is the rule?",
    }
    code, out, err = hook(event, "--harness", "gemini")
    assert code == 0 and "MARMOT-9" in out, err


def test_prompt_without_significant_terms_gets_nothing(
    memory_root: Path, project: Path
) -> None:
    store_for(memory_root, project).write_note("a", "what is this about")
    hook(claude("SessionStart", project, source="startup"))
    assert hook(claude("UserPromptSubmit", project, prompt="what is this?"))[:2] == (
        0,
        "",
    )


def test_auto_search_can_be_switched_off(memory_root: Path, project: Path) -> None:
    store_for(memory_root, project).write_note(
        "payments", "stripe webhook secret in vault"
    )
    (memory_root / "config.toml").write_text("[auto_search]\nenabled = false\n")
    assert hook(claude("UserPromptSubmit", project, prompt="stripe webhook secret"))[
        :2
    ] == (0, "")


def _transcript(path: Path, lines: list[dict[str, object]]) -> None:
    with path.open("a", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")


def _user(text: str) -> dict[str, object]:
    return {
        "type": "user",
        "uuid": text[:8],
        "message": {"role": "user", "content": text},
    }


def _edit(path: str, tool: str = "Edit") -> dict[str, object]:
    return {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "text", "text": f"Editing {path}"},
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": tool,
                    "input": {"file_path": path},
                },
            ],
        },
    }


def _bash(cmd: str) -> dict[str, object]:
    return {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "t2",
                    "name": "Bash",
                    "input": {"command": cmd},
                }
            ],
        },
    }


def test_pre_compact_flushes_the_transcript_incrementally(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    store = store_for(memory_root, project)
    store.write_memory("- rule")
    transcript = tmp_path / "t.jsonl"
    _transcript(
        transcript,
        [
            _user("Fix the rounding bug in invoices"),
            _edit("/src/invoice.py"),
            _bash("pytest -q tests/test_invoice.py"),
            {"type": "garbage"},
            _user("now the CSV export"),
        ],
    )
    hook(
        claude(
            "SessionStart", project, source="startup", transcript_path=str(transcript)
        )
    )
    compact(project, transcript)
    log = memory_root / f"projects/{store.slug}/daily/{dt.date.today():%Y-%m-%d}.md"
    first = log.read_text()
    assert "— compaction summary" in first
    for expected in (
        "Fix the rounding bug in invoices",
        "now the CSV export",
        "/src/invoice.py",
        "pytest -q",
    ):
        assert expected in first
    _transcript(
        transcript,
        [_user("add a test for the export"), _edit("/src/export.py", "Write")],
    )
    compact(project, transcript)
    second = log.read_text()[len(first) :]
    assert second.count("— compaction summary") == 1
    assert "add a test for the export" in second and "/src/export.py" in second
    assert "rounding bug" not in second and "/src/invoice.py" not in second
    _, out, _ = hook(
        claude(
            "SessionStart", project, source="compact", transcript_path=str(transcript)
        )
    )
    ctx = context_of(out, "SessionStart")
    assert "add a test for the export" in ctx and "compaction summary" in ctx


@pytest.mark.parametrize("first", ["SessionStart", "PostCompact"])
def test_a_compaction_without_pre_compact_still_records_what_came_before(
    memory_root: Path, project: Path, tmp_path: Path, first: str
) -> None:
    # Some Claude Code builds skip PreCompact (docs: hooks-protocol); the confirmation
    # then read the transcript for the summary alone and moved past the prompts.
    store = store_for(memory_root, project)
    transcript = tmp_path / "t.jsonl"
    _transcript(
        transcript,
        [
            _user("rotate the staging keys before Friday"),
            _bash("kubectl rollout restart deploy/billing-api"),
            {"type": "system", "subtype": "compact_boundary", "uuid": "b1"},
            {
                "type": "user",
                "uuid": "c1",
                "isCompactSummary": True,
                "message": {
                    "role": "user",
                    "content": "This session is being continued from a previous "
                    "conversation.\n<summary>Keys to rotate.</summary>",
                },
            },
        ],
    )
    path = str(transcript)
    hook(claude("SessionStart", project, source="startup", transcript_path=path))
    start = claude("SessionStart", project, source="compact", transcript_path=path)
    post = claude(
        "PostCompact", project, trigger="auto", transcript_path=path,
        compact_summary="<summary>Keys to rotate.</summary>",
    )  # fmt: skip
    for event in (start, post) if first == "SessionStart" else (post, start):
        assert hook(event)[0] == 0
    hook(claude("SessionEnd", project, reason="other", transcript_path=path))
    log = next((memory_root / f"projects/{store.slug}/daily").glob("*.md")).read_text()
    assert "rotate the staging keys before Friday" in log
    assert "kubectl rollout restart deploy/billing-api" in log
    assert log.count("Keys to rotate.") == 1


def test_the_same_hook_run_twice_at_once_records_once(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # memhooks installed at project and user scope: Claude Code runs both at once. Ten
    # here: without the session's lock, two of three runs recorded the flush ten times.
    store = store_for(memory_root, project)
    transcript = tmp_path / "t.jsonl"
    _transcript(transcript, [_user("rotate the staging keys"), _bash("make keys")])
    for event in ("PreCompact", "PostCompact"):
        payload = json.dumps(
            claude(
                event, project, trigger="auto", transcript_path=str(transcript),
                compact_summary="<summary>Keys rotated.</summary>",
            )
        )  # fmt: skip
        procs = [
            subprocess.Popen(
                CLAUDE_HOOK,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            for _ in range(10)
        ]
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write(payload)
            proc.stdin.close()
        assert [proc.wait(timeout=60) for proc in procs] == [0] * 10
    log = next((memory_root / f"projects/{store.slug}/daily").glob("*.md")).read_text()
    assert log.count("rotate the staging keys") == 1
    assert log.count("Keys rotated.") == 1


def test_post_compact_records_the_summary_once(
    memory_root: Path, project: Path
) -> None:
    store = store_for(memory_root, project)
    payload = claude(
        "PostCompact",
        project,
        trigger="manual",
        compact_summary="We moved auth to the gateway.",
    )
    assert hook(payload)[:2] == (0, "")  # PostCompact cannot carry context
    assert hook(payload)[:2] == (0, "")
    log = next((memory_root / f"projects/{store.slug}/daily").glob("*.md")).read_text()
    assert log.count("We moved auth to the gateway.") == 1


def test_session_end_is_fast_and_cleans_up(memory_root: Path, project: Path) -> None:
    store_for(memory_root, project).write_memory("- rule")
    hook(claude("SessionStart", project, source="startup"))
    hook(claude("UserPromptSubmit", project, prompt="rename the billing module"))
    assert list((memory_root / ".sessions").glob("*.json"))
    cpu = children_cpu_seconds()
    code, out, err = hook(claude("SessionEnd", project, reason="prompt_input_exit"))
    cpu = children_cpu_seconds() - cpu
    assert (code, out) == (0, ""), err
    # The whole process, interpreter start included, in CPU seconds: a machine busy
    # with other work stretches the wall clock, not the work done.
    assert cpu < 1.5
    assert [p.name for p in (memory_root / ".sessions").iterdir()] == [".gitignore"]
    log = next((memory_root / "projects").glob("*/daily/*.md")).read_text()
    assert "— session end" in log and "rename the billing module" in log


def test_a_prompt_the_transcript_does_not_hold_yet_is_recorded(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # Claude Code writes a turn to its transcript after the turn; killed within it
    # (SIGKILL, e2e test_killed_session_keeps_its_record), the transcript holds only
    # its opening lines, and the session end recorded nothing of the prompt it saw.
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"type":"mode","mode":"normal","sessionId":"sess-1"}\n')
    path = str(transcript)
    hook(claude("SessionStart", project, source="startup", transcript_path=path))
    ask = "why is the staging database read-only"
    hook(claude("UserPromptSubmit", project, prompt=ask, transcript_path=path))
    code, _, err = hook(
        claude("SessionEnd", project, reason="other", transcript_path=path)
    )
    assert code == 0, err
    log = next((memory_root / "projects").glob("*/daily/*.md")).read_text()
    assert "— session end" in log and log.count(ask) == 1, log


def test_a_prompt_after_the_last_the_transcript_holds_is_recorded(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # Killed in its second turn, Claude Code's transcript held the first prompt and its
    # answer but not the second: the record held only the first, though the hook had seen
    # both. A prompt with a secret is kept redacted, as the transcript's is when recorded.
    transcript = tmp_path / "t.jsonl"
    first = "why is the staging database read-only password=hunter2hunter2"
    second = "then move the replica to the new volume"
    path = str(transcript)
    hook(claude("SessionStart", project, source="startup", transcript_path=path))
    hook(claude("UserPromptSubmit", project, prompt=first, transcript_path=path))
    _transcript(transcript, [_user(first), _bash("df -h /var/lib/postgresql")])
    hook(claude("UserPromptSubmit", project, prompt=second, transcript_path=path))
    code, _, err = hook(
        claude("SessionEnd", project, reason="other", transcript_path=path)
    )
    assert code == 0, err
    log = next((memory_root / "projects").glob("*/daily/*.md")).read_text()
    assert log.count("staging database read-only") == 1, log
    assert log.count(second) == 1 and "hunter2" not in log, log
    assert log.index("staging database") < log.index(second)


def test_a_subagents_task_notification_is_no_prompt(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # Claude Code 2.1.332, `claude -p "delegate please"`, the model calling Task: the
    # subagent's end came back as a turn of its own, with a UserPromptSubmit whose
    # prompt was the <task-notification>. It was auto-searched and recorded in the
    # session-end record as a prompt (XML, the task's output path and all).
    # Found by the notification's words: "redis" (the task's title) and "result" (a tag).
    store_for(memory_root, project).write_note(
        "redis",
        "# Failover\nSend the result of a redis failover to #ops.\nThen promote.",
    )
    transcript = tmp_path / "t.jsonl"
    path = str(transcript)
    hook(claude("SessionStart", project, source="startup", transcript_path=path))
    ask = "delegate please"
    hook(claude("UserPromptSubmit", project, prompt=ask, transcript_path=path))
    _transcript(transcript, [{**_user(ask), "promptSource": "sdk"}, TASK_TURN])
    code, out, err = hook(
        claude(
            "UserPromptSubmit", project, prompt=TASK_NOTIFICATION, transcript_path=path
        )
    )
    assert (code, out) == (0, ""), err
    hook(claude("SessionEnd", project, reason="other", transcript_path=path))
    log = next((memory_root / "projects").glob("*/daily/*.md")).read_text()
    assert log.count(ask) == 1 and "task-notification" not in log, log


def test_a_session_that_cds_into_a_nested_repository_keeps_its_memory(
    memory_root: Path, project: Path
) -> None:
    # Claude Code 2.1.332, after its Bash tool ran `cd vendor/lib` (a repository of
    # its own inside the project), sent that folder as `cwd` with the next prompt and
    # the session end: auto-search looked in vendor/lib's memory, and the session's
    # record, its earlier prompts too, went to a daily log of a project "lib".
    lib = project / "vendor" / "lib"
    (lib / ".git").mkdir(parents=True)
    store = store_for(memory_root, project)
    store.write_note("staging", "# Staging\nThe staging database listens on port 7431.")
    hook(claude("SessionStart", project, source="startup"))
    hook(claude("UserPromptSubmit", project, prompt="Go into the lib"))
    ask = "Which port does the staging database listen on"
    code, out, err = hook(claude("UserPromptSubmit", lib, prompt=ask))
    assert code == 0, err
    assert "port 7431" in context_of(out, "UserPromptSubmit")
    code, _, err = hook(claude("SessionEnd", lib, reason="prompt_input_exit"))
    assert code == 0, err
    (log,) = (memory_root / "projects").glob("*/daily/*.md")
    assert log.parent.parent.name == store.slug
    assert "Go into the lib" in log.read_text() and ask in log.read_text()


@pytest.mark.parametrize(
    "stdin",
    [
        pytest.param("", id="empty"),
        pytest.param("{not json", id="malformed"),
        pytest.param("[1, 2]", id="not-an-object"),
        pytest.param(
            '{"hook_event_name": "SomethingNew", "session_id": "x"}', id="unknown-event"
        ),
        pytest.param('{"event": "explode"}', id="unknown-generic-event"),
        pytest.param('{"hook_event_name": 7, "session_id": []}', id="wrong-types"),
        pytest.param(
            '{"hook_event_name": "PreCompact", "session_id": "x", "transcript_path": "/nope/t.jsonl"}',
            id="missing-transcript",
        ),
        pytest.param("\xff\xfe", id="invalid-utf8-ish"),
    ],
)
def test_bad_input_fails_open(stdin: str) -> None:
    code, out, err = hook(stdin)
    assert code == 0
    assert out == "" or json.loads(out)
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("stdin", "reason"),
    [
        ("garbage", "input is not JSON: Expecting value: line 1 column 1 (char 0)"),
        ('{"x": 1}', "payload has no hook_event_name"),
        # Before (2026-12-06): "TypeError: payload is a JSON NoneType, not an object",
        # and "payload has no hook_event_name" for one that was not a string.
        ("null", "payload is null, not a JSON object"),
        ("[1]", "payload is an array, not a JSON object"),
        ('"SessionStart"', "payload is a string, not a JSON object"),
        ('{"hook_event_name": 5}', "payload's hook_event_name is not a string"),
    ],
)
def test_input_that_is_no_event_is_said_in_words(stdin: str, reason: str) -> None:
    # Before: "memhooks hook: ValueError: input is not JSON: …": a class name where the
    # input, not memhooks, was at fault.
    code, out, err = hook(stdin, "--harness", "claude-code")
    assert (code, out, err) == (0, "", f"memhooks hook: {reason}; no context\n")


def test_a_long_failure_keeps_its_reason_at_the_end() -> None:
    # Before: cut to its first 300 characters, the line quoted the event name and lost
    # what was wrong with it ("expected one of session-start, ...").
    code, out, err = hook({"event": "x" * 2000}, "--harness", "generic")
    assert (code, out) == (0, "")
    (line,) = err.splitlines()
    assert line.startswith("memhooks hook: unknown event 'xxx")
    assert "bytes left out]…" in line
    assert line.endswith("post-compaction, session-end; no context")
    assert len(line.encode()) <= 500  # hookcmd.MAX_LINE


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("--harness", "claude"), id="unknown-harness"),
        pytest.param(("--hrness", "codex"), id="misspelled-flag"),
        pytest.param(("--root",), id="flag-without-value"),
    ],
)
def test_a_mistyped_hook_command_fails_open(
    project: Path, args: tuple[str, ...]
) -> None:
    # A typo in a settings file must not fail every prompt of the agent.
    code, out, err = hook(claude("UserPromptSubmit", project, prompt="hi"), *args)
    assert (code, out) == (0, "")
    assert err.startswith("memhooks hook: ") and err.endswith("; no context\n")
    assert err.count("\n") == 1


def _open_stdin_hook(payload: bytes) -> tuple[int, str, str]:
    # The hook, its payload written and stdin left open, as a harness that never closes
    # it would; the hook must answer anyway (at most after `STDIN_WAIT`).
    with subprocess.Popen(
        CLAUDE_HOOK,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdin and proc.stdout and proc.stderr
        proc.stdin.write(payload)
        proc.stdin.flush()
        try:
            code = proc.wait(timeout=60)  # stdin still open: no hang
        finally:
            proc.kill()
        out, err = proc.stdout.read(), proc.stderr.read()
    return code, out.decode(), err.decode()


def test_a_hook_answers_though_stdin_is_never_closed(
    memory_root: Path, project: Path
) -> None:
    store_for(memory_root, project).write_note("redis", "Redis runs on port 6380.")
    event = claude("UserPromptSubmit", project, prompt="which redis port?")
    code, out, err = _open_stdin_hook(json.dumps(event).encode())
    assert (code, err) == (0, "")
    assert "port 6380" in context_of(out, "UserPromptSubmit")
    code, out, err = _open_stdin_hook(b"")  # nothing at all
    assert (code, out) == (0, "")
    assert (
        err
        == "memhooks hook: stdin neither ended nor gave an event in 5 s; no context\n"
    )


def test_codex_and_gemini_dialects(memory_root: Path, project: Path) -> None:
    store_for(memory_root, project).write_memory("- rule for everyone")
    code, out, _ = hook(
        claude("SessionStart", project, source="startup", model="gpt-5"),
        "--harness",
        "codex",
    )
    assert "rule for everyone" in context_of(out, "SessionStart")
    gemini = {
        "session_id": "g",
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
        "timestamp": "2026-11-30T10:00:00Z",
    }
    code, out, _ = hook(gemini)
    assert "rule for everyone" in context_of(out, "SessionStart")
    code, out, _ = hook(
        {**gemini, "hook_event_name": "BeforeAgent", "prompt": "everyone rule"}
    )
    assert code == 0 and (out == "" or context_of(out, "BeforeAgent"))


def test_resume_does_not_inject_twice(memory_root: Path, project: Path) -> None:
    store_for(memory_root, project).write_memory("- rule")
    assert hook(claude("SessionStart", project, source="startup"))[1]
    assert hook(claude("SessionStart", project, source="resume"))[1] == ""
    assert hook(claude("SessionStart", project, source="clear"))[
        1
    ]  # a cleared context needs it again


@pytest.mark.parametrize(
    ("sources", "session_process"),
    [
        pytest.param(("startup", "startup"), "0", id="twice"),
        pytest.param(("startup", "startup", "startup"), "1", id="thrice-forking"),
        pytest.param(("resume", "startup"), "0", id="resume-racing-start"),
        pytest.param(("clear", "clear"), "0", id="clear-twice"),
    ],
)
def test_session_starts_at_once_inject_the_block_once(
    memory_root: Path,
    project: Path,
    tmp_path: Path,
    sources: tuple[str, ...],
    session_process: str,
) -> None:
    # Claude Code runs all matching hooks at once: memhooks configured at two scopes
    # (or a resume racing a start) gave the model the block twice.
    store_for(memory_root, project).write_memory("- rule for everyone")
    env = {**os.environ, "MEMHOOKS_SESSION_PROCESS": session_process}
    payloads = []
    for i, source in enumerate(sources):
        payloads.append(tmp_path / f"start-{i}.json")
        payloads[-1].write_text(
            json.dumps(claude("SessionStart", project, source=source))
        )
    # Each started with its event ready on stdin: the harness writes them at once.
    procs = []
    for path in payloads:
        with path.open("rb") as stdin:
            procs.append(
                subprocess.Popen(
                    CLAUDE_HOOK,
                    stdin=stdin,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    env=env,
                )
            )
    replies = [(*p.communicate(timeout=30), p.returncode) for p in procs]
    assert [(err, code) for _, err, code in replies] == [(b"", 0)] * len(sources)
    blocks = [out for out, _, _ in replies if out]
    assert len(blocks) == 1 and b"rule for everyone" in blocks[0], replies
    if sources[0] != "clear":  # a clear right after the start needs the block again
        assert (
            "rule for everyone"
            in hook(claude("SessionStart", project, source="clear"))[1]
        )
    hook(claude("SessionEnd", project, reason="other"))


def test_a_conversation_resumed_after_session_end_gets_no_second_block(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # `claude -p --continue` and `codex exec resume` reuse the session id after a
    # SessionEnd removed its state; the transcript still holds the first block.
    store_for(memory_root, project).write_memory("- rule")
    block = context_of(
        hook(claude("SessionStart", project, source="startup"))[1], "SessionStart"
    )
    transcript = tmp_path / "t.jsonl"
    record = {
        "type": "attachment",
        "content": f"SessionStart hook additional context: {block}",
    }
    transcript.write_text(json.dumps(record) + "\n")
    assert hook(claude("SessionEnd", project, reason="other"))[0] == 0
    resumed = claude(
        "SessionStart", project, source="resume", transcript_path=str(transcript)
    )
    assert hook(resumed)[1] == ""
    # A transcript that never saw a block (memhooks installed since): the block, once.
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"type": "user", "content": "hello"}) + "\n")
    fresh = {**resumed, "session_id": "sess-2", "transcript_path": str(other)}
    assert "- rule" in context_of(hook(fresh)[1], "SessionStart")
    assert hook(fresh)[1] == ""


def test_a_forked_claude_conversation_gets_no_second_block(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # `claude --resume ID --fork-session` (Claude Code 2.1.332): a new session id, and a
    # transcript it writes only after the first turn, holding a copy of the conversation
    # forked, its block too. The fork's SessionStart injected a second one.
    store_for(memory_root, project).write_memory("- rule")
    hook(claude("SessionStart", project, source="startup"))
    fork = claude(
        "SessionStart",
        project,
        source="fork",
        session_id="sess-fork",
        transcript_path=str(tmp_path / "sess-fork.jsonl"),  # not there yet
    )
    code, out, err = hook(fork)
    assert (code, out) == (0, ""), err
    # Where a fork's transcript is there and holds no block, it gets one.
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"type": "user", "content": "hello"}) + "\n")
    fresh = {**fork, "session_id": "sess-3", "transcript_path": str(other)}
    assert "- rule" in context_of(hook(fresh)[1], "SessionStart")


def test_install_twice_keeps_other_hooks(tmp_path: Path) -> None:
    proj = tmp_path / "app"
    (proj / ".claude").mkdir(parents=True)
    theirs = {
        "model": "opus",
        "hooks": {
            "SessionStart": [
                {
                    "matcher": "startup",
                    "hooks": [{"type": "command", "command": "echo hi", "timeout": 5}],
                }
            ],
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [{"type": "command", "command": "guard.sh"}],
                }
            ],
        },
    }
    settings = proj / ".claude" / "settings.json"
    settings.write_text(json.dumps(theirs))
    for _ in range(2):
        proc = run_cli(
            "install", "claude-code", "--scope", "project", "--project", str(proj)
        )
        assert proc.returncode == 0, proc.stderr
    data = json.loads(settings.read_text())
    assert data["model"] == "opus"
    assert data["hooks"]["PreToolUse"] == theirs["hooks"]["PreToolUse"]  # type: ignore[index]
    assert data["hooks"]["SessionStart"][0] == theirs["hooks"]["SessionStart"][0]  # type: ignore[index]
    for event in (
        "SessionStart",
        "UserPromptSubmit",
        "PreCompact",
        "PostCompact",
        "SessionEnd",
    ):
        ours = [
            h
            for g in data["hooks"][event]
            for h in g["hooks"]
            if " hook --harness claude-code" in h["command"]
        ]
        assert len(ours) == 1, event
    proc = run_cli(
        "uninstall", "claude-code", "--scope", "project", "--project", str(proj)
    )
    assert proc.returncode == 0
    assert json.loads(settings.read_text()) == theirs


def test_a_compaction_with_nothing_new_writes_nothing(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    store = store_for(memory_root, project)
    transcript = tmp_path / "t.jsonl"
    _transcript(transcript, [_user("fix the CSV export"), _bash("pytest -q")])
    compact(project, transcript, "manual")
    log = memory_root / f"projects/{store.slug}/daily/{dt.date.today():%Y-%m-%d}.md"
    first = log.read_text()
    assert first.count("— compaction summary") == 1
    # /compact again at once: Claude Code fires PreCompact, then answers "Not enough
    # messages to compact". The command is no prompt, and nothing else happened.
    _transcript(
        transcript,
        [
            _user(
                "<command-name>/compact</command-name>\n<command-args></command-args>"
            ),
            _user(
                "<local-command-stdout>Not enough messages to compact</local-command-stdout>"
            ),
        ],
    )
    assert hook(claude("UserPromptSubmit", project, prompt="/compact"))[:2] == (0, "")
    compact(project, transcript, "manual")
    _transcript(transcript, [_user("<command-name>/exit</command-name>")])
    end = claude(
        "SessionEnd",
        project,
        reason="prompt_input_exit",
        transcript_path=str(transcript),
    )
    assert hook(end)[0] == 0
    assert log.read_text() == first
    assert "/compact" not in first and "/exit" not in first


def test_a_log_dated_after_today_does_not_take_todays_place(
    memory_root: Path, project: Path
) -> None:
    # Before: a log named next year (a typo, a clock set wrong) was the block's "newest
    # log", ahead of MEMORY.md, and yesterday's log was left out, for a year.
    store = store_for(memory_root, project)
    store.write_memory("- Always run the linter before committing.")
    day = dt.date.today()
    logs = memory_root / "projects" / store.slug / "daily"
    logs.mkdir(parents=True)
    for when, text in [
        (day + dt.timedelta(days=365), "typed a year ahead"),
        (day, "done today"),
        (day - dt.timedelta(days=1), "done yesterday"),
    ]:
        (logs / f"{when}.md").write_text(f"### 09:00 — work\n{text}\n")
    code, out, err = hook(claude("SessionStart", project, source="startup"))
    assert code == 0, err
    printed = run_cli("inject", "--project", str(project))
    for block in (context_of(out, "SessionStart"), printed.stdout):
        titles = [ln for ln in block.splitlines() if ln.startswith("## ")]
        assert titles == [
            f"## Daily log {day} (today)",
            "## MEMORY.md",
            f"## Daily log {day - dt.timedelta(days=1)}",
        ]
        assert "typed a year ahead" not in block


def test_a_log_dated_after_today_is_shown_last_when_there_is_room(
    memory_root: Path, project: Path
) -> None:
    store = store_for(memory_root, project)
    store.append_daily("work", "done today")
    ahead = dt.date.today() + dt.timedelta(days=3)
    logs = memory_root / "projects" / store.slug / "daily"
    (logs / f"{ahead}.md").write_text("### 09:00 — plan\nwritten ahead\n")
    printed = run_cli("inject", "--project", str(project))
    titles = [ln for ln in printed.stdout.splitlines() if ln.startswith("## ")]
    assert titles == [
        f"## Daily log {dt.date.today()} (today)",
        f"## Daily log {ahead} (dated after today)",
    ]

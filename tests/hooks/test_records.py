"""What the hooks write on their own: new items only, the <summary> kept, condensing."""

from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING

import pytest

from memhooks.hooks import records
from memhooks.hooks.transcript import TranscriptDigest
from memhooks.memory import Store, paths, slug_for
from memhooks.memory.log_entries import quote
from tests.conftest import grown_rules_and_items, run_cli

if TYPE_CHECKING:
    from pathlib import Path

ANALYSIS = (
    "<analysis>\n" + "Let me think through every message. " * 100 + "\n</analysis>"
)
SUMMARY = "1. Primary request: move auth to the gateway.\n2. Files: gateway.py"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            f"{ANALYSIS}\n\n<summary>\n{SUMMARY}\n</summary>", SUMMARY, id="both"
        ),
        pytest.param(f"<summary>{SUMMARY}</summary>", SUMMARY, id="summary-only"),
        pytest.param(f"{ANALYSIS}\n{SUMMARY}", SUMMARY, id="analysis-then-plain"),
        pytest.param(
            f"<analysis>notes without end <summary>{SUMMARY}</summary>",
            SUMMARY,
            id="analysis-unclosed",
        ),
        pytest.param(f"{ANALYSIS}<summary>{SUMMARY}", SUMMARY, id="summary-unclosed"),
        pytest.param(
            f"< Analysis >x</ANALYSIS>\n<SUMMARY >{SUMMARY}</ summary>",
            SUMMARY,
            id="odd-case-and-spaces",
        ),
        pytest.param("<analysis>only working notes", "", id="analysis-only-unclosed"),
        pytest.param(SUMMARY, SUMMARY, id="no-tags"),
        pytest.param(
            "This session is being continued from a previous conversation that ran "
            "out of context. The summary below covers it.\n\nAnalysis:\nthinking\n\n"
            f"Summary:\n{SUMMARY}\n\nIf you need specific details from before "
            "compaction, read the full transcript at: /home/u/.claude/x.jsonl\n"
            "Please continue the conversation from where we left it off.",
            SUMMARY,
            id="transcript-copy",
        ),
        pytest.param(
            # Claude Code 2.1.332's copy (seen at SessionEnd after a `/compact`).
            "This session is being continued from a previous conversation that ran "
            "out of context. The summary below covers the earlier portion of the "
            "conversation.\n\n<system-reminder>\n<tools-used-before-summary>Bash, "
            "Write</tools-used-before-summary>\n</system-reminder>\nSummary:\n"
            f"{SUMMARY}\n\nIf you need specific details from before compaction (like "
            "exact code snippets), read the full transcript at: /home/u/.claude/x.jsonl"
            "\nContinue the conversation from where it left off without asking the "
            "user any further questions. Resume directly — do not acknowledge the "
            "summary. Pick up the last task as if the break never happened.\n\nThe "
            "messages after this summary are the most recent messages from before "
            "compaction, kept verbatim. The summary was written without seeing them.",
            SUMMARY,
            id="transcript-copy-2.1.332",
        ),
    ],
)
def test_summary_part_drops_the_analysis(raw: str, expected: str) -> None:
    assert records.summary_part(raw) == expected


@pytest.mark.parametrize(
    ("prompt", "command"),
    [
        ("/compact", True),
        ("/exit", True),
        ("  /model opus  ", True),
        ("/clear", True),
        ("/mcp:memhooks memory_search x", True),
        ("/src/app.py fails to import", False),
        ("why does /compact lose my notes?", False),
        ("/review\nand also look at the tests", False),
        ("fix the bug", False),
    ],
)
def test_slash_commands_are_not_prompts(prompt: str, command: bool) -> None:
    assert records.is_slash_command(prompt) is command


def test_news_collapses_repeats_and_drops_what_is_on_record() -> None:
    log = (
        "### 09:00 — session end\n**Prompts**\n- How do we deploy billing?\n\n"
        "**Files edited**\n- `/src/a.py`\n\n**Last assistant message**\n> Use make ship."
    )
    digest = TranscriptDigest(
        prompts=(
            "/compact",
            "how do we  deploy billing?",
            "new one",
            "New one",
            "/exit",
        ),
        files=("/src/a.py", "/src/b.py"),
        commands=("pytest", "pytest"),
        last_assistant="Use make ship.",
    )
    got = records.news(digest, records.on_record(log))
    assert got == TranscriptDigest(("new one",), ("/src/b.py",), ("pytest",))


def test_nothing_new_is_empty_even_with_an_answer() -> None:
    log = "### 09:00 — session end\n**Prompts**\n- the question\n"
    digest = TranscriptDigest(prompts=("the question", "/exit"), last_assistant="hi")
    assert records.news(digest, records.on_record(log)).is_empty()


def test_a_persons_entries_do_not_count_as_on_record() -> None:
    log = "### 09:00 — my notes\n**Prompts**\n- the question\n"
    digest = TranscriptDigest(prompts=("the question",))
    assert records.news(digest, records.on_record(log)).prompts == ("the question",)


def _day(store: Store, minute: int, title: str, body: str) -> None:
    store.append_daily(title, body, now=dt.datetime(2026, 3, 3, 9, minute).astimezone())


def test_condense_keeps_each_item_once_and_a_persons_entries_byte_for_byte(
    memory_root: Path,
) -> None:
    store = Store(memory_root, "proj-0123abcd")
    person = "We chose blue/green deploys.\n  indented   line, odd  spacing  \n"
    _day(store, 0, "decision", person)
    for i in range(6):
        digest = TranscriptDigest(
            prompts=("how do we deploy billing?", f"step {i % 3}"),
            files=(f"/src/f{i % 2}.py",),
            commands=("make ship",),
            last_assistant=f"answer {i}",
        )
        _day(store, i + 1, records.FLUSH, records.render(digest, records.FLUSH_MAX))
        _day(store, i + 1, records.HARNESS_SUMMARY, f"Summary number {i}: " + "s" * 900)
    _day(store, 30, "later note", "A person's later entry.")
    path = memory_root / "projects/proj-0123abcd/daily/2026-03-03.md"
    before = path.read_text()
    after = records.condense(before)
    persons = [e.text.rstrip("\n") for e in records.entries(before) if not e.automatic]
    kept = [e.text.rstrip("\n") for e in records.entries(after) if not e.automatic]
    assert kept == persons
    auto = [e for e in records.entries(after) if e.automatic]
    assert [e.title for e in auto] == [records.CONDENSED]
    body = auto[0].text
    assert body.count("how do we deploy billing?") == 1
    for item in ("step 0", "step 1", "step 2", "`/src/f0.py`", "`/src/f1.py`"):
        assert body.count(item) == 1, item
    assert body.count("`make ship`") == 1
    for i in range(6):
        assert f"Summary number {i}: sss" in body
    assert "> answer 5" in body and "answer 4" not in body
    assert len(after) < len(before) * 6 // 10
    # Condensing again changes nothing that matters: still one record, same items.
    again = records.condense(records.condense(after + "\n" + auto[0].text))
    assert [e.title for e in records.entries(again) if e.automatic] == [
        records.CONDENSED
    ]


def test_a_condensed_record_counts_the_records_it_merged() -> None:
    # Condensed again with one more record, it said "2 records": the 60 it had merged
    # counted as one.
    log = "".join(
        f"### 09:{i:02} — session end\n**Prompts**\n- q{i}\n\n" for i in range(5)
    )
    once = records.condense(log)
    assert "_5 records from 09:00 to 09:04, condensed" in once
    twice = records.condense(once + "\n### 09:30 — session end\n**Prompts**\n- q9\n")
    assert "_6 records from 09:00 to 09:30, condensed" in twice


def test_a_crlf_log_is_condensed_with_crlf_lines() -> None:
    # Before: the condensed record of a log a person keeps with CRLF line ends (written
    # on Windows) came in LF lines: one file of two conventions, where the store's
    # appends write CRLF to such a file.
    mine = "### 08:00 \u2014 mine\r\nkept as typed\r\n\r\n"
    log = mine + "".join(
        f"### 09:{i:02} \u2014 session end\r\n**Prompts**\r\n- q{i}\r\n\r\n"
        for i in range(3)
    )
    out = records.condense(log)
    assert out.startswith(mine) and "_3 records from 09:00 to 09:02" in out
    assert out.count("\n") == out.count("\r\n")


def test_condense_leaves_a_log_with_one_record_alone() -> None:
    log = "### 09:00 — mine\ntext\n\n### 09:01 — session end\n**Prompts**\n- q\n"
    assert records.condense(log) == log


def test_entries_join_back_byte_for_byte() -> None:
    log = "preamble\n### 09:00 — a\nx\n\n### 9:00 — not a heading\n### 10:00 — b\ny"
    parts = records.entries(log)
    assert "".join(e.text for e in parts) == log
    assert [(e.time, e.title) for e in parts] == [
        ("", ""),
        ("09:00", "a"),
        ("10:00", "b"),
    ]


def test_condensing_through_real_hooks_keeps_a_persons_adjacent_entries_byte_for_byte(
    memory_root: Path, project: Path
) -> None:
    # Before: the log's condensing put a blank line between two entries a person had
    # written one under the other ("...heading\r\n\n### 08:05 — next step").
    person = (
        "### 08:00 — my plan\r\nfirst line\r\n"
        "### 08:05 — next step\r\nno blank line above  \r\n\r\n"
    )
    auto = "".join(
        f"### 08:{10 + i % 50:02} — {records.SESSION_END}\n**Prompts**\n- q{i} "
        + "x" * 300
        + "\n\n"
        for i in range(80)
    )
    assert len(auto) > records.CONDENSE_AT
    log = memory_root / "projects" / slug_for(str(project)) / "daily"
    log.mkdir(parents=True)
    log /= f"{paths.today()}.md"
    log.write_bytes((person + auto).encode())
    for event, fields in (
        ("SessionStart", {"source": "startup"}),
        ("UserPromptSubmit", {"prompt": "where did we leave the plan?"}),
        ("SessionEnd", {"reason": "other"}),
    ):
        payload = {"session_id": "c1", "cwd": str(project), "hook_event_name": event}
        done = run_cli("hook", input=json.dumps({**payload, **fields}), cwd=project)
        assert done.returncode == 0 and done.stderr == "", done.stderr
    after = log.read_bytes().decode()
    assert records.CONDENSED in after and len(after) < len(auto)
    assert after.startswith(person + "### 08:10 — " + records.CONDENSED)


RECORD = (
    "### 10:00 — session end\n**Prompts**\n- fix the build\n\n"
    "**Commands**\n- `make test`\n\n**Last assistant message**\n> done\n"
)
LATER = RECORD.replace("10:00", "11:00").replace("fix the build", "deploy it")


@pytest.mark.parametrize(
    "typed",
    [
        pytest.param(
            "Decided with Ana: drop Redis for the cache.\n", id="line-right-after"
        ),
        pytest.param("\nDecided with Ana: drop Redis.\n\n", id="paragraph"),
        pytest.param("- decided with Ana: drop Redis\n", id="bullet-after-quote"),
        pytest.param("\n**Decision**\n- drop Redis\n", id="a-section-of-ones-own"),
    ],
)
def test_condensing_keeps_what_a_person_appended_under_a_record(typed: str) -> None:
    # `echo ... >> today's log` (README: a line appended in place is found at once) lands
    # under the last entry, a record: condensing dropped it with the record (seen with
    # the real Claude Code, the log past CONDENSE_AT).
    log = RECORD + typed + "\n" + LATER
    out = records.condense(log)
    assert "automatic records, condensed" in out
    assert typed.strip() in out
    assert "- fix the build" in out and "- deploy it" in out
    again = records.condense(out + "\n" + LATER.replace("11:00", "12:00"))
    assert typed.strip() in again


def test_a_line_appended_under_the_harnesss_summary_survives_condensing(
    memory_root: Path, project: Path
) -> None:
    # Attacked on purpose (2026-12-06): the harness's summary was free text, so a line
    # `echo … >>` put under it was read as the summary's, and condensing, which keeps a
    # summary's first 500 characters, dropped the line.
    def hook(event: str, **fields: object) -> None:
        payload = {"session_id": "c1", "cwd": str(project), "hook_event_name": event}
        done = run_cli("hook", input=json.dumps({**payload, **fields}), cwd=project)
        assert done.returncode == 0 and done.stderr == "", done.stderr

    steps = " ".join(f"step{i} done" for i in range(80))
    summary = f"<summary>We refactored the parser.\n\n{steps}</summary>"
    hook("PostCompact", trigger="manual", compact_summary=summary)
    (log,) = memory_root.glob("projects/*/daily/*.md")
    mine = "MY OWN NOTE: staging db rotates on fridays, ask Omar\n"
    with log.open("a") as f:
        f.write(mine)
    pasted = "padding line\n" * 2000
    wrote = run_cli(
        "write", "--to", "daily", "--title", "big paste", input=pasted, cwd=project
    )
    assert wrote.returncode == 0, wrote.stderr
    hook("UserPromptSubmit", prompt="now add tests for the lexer")
    hook("SessionEnd", reason="exit")
    after = log.read_text()
    assert records.CONDENSED in after and "We refactored the parser." in after
    assert after.count(mine) == 1, after[:2000]


@pytest.mark.parametrize(
    "typed",
    [
        pytest.param("Decided with Ana: drop Redis.\n", id="line-right-after"),
        pytest.param("\n> a quote of my own\n", id="quote-after-a-blank"),
    ],
)
def test_what_a_person_appended_under_a_summary_is_theirs(typed: str) -> None:
    summary = "### 10:00 — " + records.HARNESS_SUMMARY + "\n"
    summary += quote("Moved auth.\n\n- gateway.py\n> kept") + "\n"
    log = summary + typed + "\n" + LATER
    (first, *_) = records.entries(log)
    assert first.text.rstrip() == summary.rstrip()  # a blank line after it is its
    out = records.condense(log)
    assert typed.strip() in out and "Moved auth. - gateway.py > kept" in out
    # One written before summaries were quoted is read whole, as it was.
    legacy = "### 10:00 — " + records.HARNESS_SUMMARY + "\nMoved auth.\n" + typed
    assert records.entries(legacy + "\n" + LATER)[0].text.startswith(legacy)


def test_a_record_alone_is_one_entry() -> None:
    assert [e.title for e in records.entries(RECORD + "\n" + LATER)] == [
        "session end",
        "session end",
    ]


def test_a_days_records_never_push_the_persons_entry_out_of_the_block(
    project: Path,
) -> None:
    # Months in: MEMORY.md and the open items fill their shares of the 9,000 bytes a
    # Claude Code reply holds; a person's decision in this morning's log, then a session
    # of long prompts flushed at a compaction (a ~3 KB record, over the log's share).
    grown_rules_and_items(project, 150, 80)
    decision = "We chose pgbouncer with a pool of 20 (ZEBRA-7)."
    wrote = run_cli(
        "write", "--to", "daily", "--title", "decision", "--text", decision, cwd=project
    )
    assert wrote.returncode == 0, wrote.stderr

    def hook(event: str, session: str, **fields: object) -> str:
        payload = {"session_id": session, "cwd": str(project), "hook_event_name": event}
        done = run_cli(
            "hook", "--harness", "claude-code", input=json.dumps({**payload, **fields})
        )
        assert done.returncode == 0 and not done.stderr, done.stderr
        return done.stdout

    hook("SessionStart", "s1", source="startup")
    for i in range(16):
        prompt = f"Refactor invoice module {i} so that its retries back off" + (
            ", and log the request id, the customer and the attempt of each failure" * 2
        )
        hook("UserPromptSubmit", "s1", prompt=prompt)
    for event in ("PreCompact", "PostCompact"):
        hook(event, "s1", trigger="manual")
    hook("SessionEnd", "s1", reason="other")
    log = next((project.parent / "root" / "projects").glob("*/daily/*.md")).read_text()
    assert log.index(decision) < log.index(
        f"— {records.FLUSH}\n"
    )  # the record came after

    block = json.loads(hook("SessionStart", "s2", source="startup"))
    context = block["hookSpecificOutput"]["additionalContext"]
    assert "…[section truncated: Daily log" in context  # the log did not fit whole
    assert decision in context
    assert "Refactor invoice module 15" in context  # the record's newest lines, after
    assert (
        "- Rule 0:" in context and "finish the billing export of customer 0" in context
    )
    hook("SessionEnd", "s2", reason="other")


KEY = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + "Hxzqm4EVWauYIOJXzMZTiy9oEiPqfwyp0bVjkUlNDC3VmiE6jYYMIEQYqe9qbjyj\n" * 40
    + "-----END RSA PRIVATE KEY-----\n"
)


@pytest.mark.parametrize("transcript", [True, False], ids=["transcript", "state"])
def test_a_question_typed_after_a_paste_is_recorded(
    memory_root: Path, project: Path, tmp_path: Path, transcript: bool
) -> None:
    # Driven with the real Claude Code (2026-12-06): a 60 KB log pasted, then a question
    # typed after it; the record held the paste's head, and the question was nowhere.
    # The end of a prompt is now kept after its head, redacted from far enough back.
    paste = "".join(f"worker 3 heartbeat ok at tick {i}\n" for i in range(1800))
    question = "Which port does the wombat proxy use here?"
    prompt = (
        f'<pasted_content id="4e9d">{paste}{KEY}</pasted_content id="4e9d"> {question}'
    )
    fields: dict[str, object] = {}
    if transcript:
        path = tmp_path / "t.jsonl"
        path.write_text(json.dumps({"type": "user", "message": {"content": prompt}}))
        fields["transcript_path"] = str(path)
    for event, more in (
        ("UserPromptSubmit", {"prompt": prompt}),
        ("SessionEnd", {"reason": "other"}),
    ):
        payload = {"session_id": "p1", "cwd": str(project), "hook_event_name": event}
        done = run_cli("hook", input=json.dumps({**payload, **fields, **more}))
        assert done.returncode == 0 and done.stderr == "", done.stderr
    (log,) = memory_root.glob("projects/*/daily/*.md")
    text = log.read_text()
    assert question in text and "worker 3 heartbeat ok at tick 0" in text, text
    assert "Hxzqm4EVWauYIOJX" not in text

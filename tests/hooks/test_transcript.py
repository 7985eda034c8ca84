from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memhooks.hooks.record_body import render_digest
from memhooks.hooks.transcript import TranscriptDigest, parse_lines, read_transcript

if TYPE_CHECKING:
    from pathlib import Path

# --- builders for real-shaped lines (tests/data/harness/claude-code holds real ones) ---------------------


def _line(record: dict[str, Any] | bytes) -> bytes:
    if isinstance(record, bytes):
        return record + b"\n"
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def jsonl(*records: dict[str, Any] | bytes) -> bytes:
    return b"".join(_line(r) for r in records)


def user(content: object, **extra: object) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": "u",
        "parentUuid": None,
        "sessionId": "s",
        "timestamp": "2026-01-20T11:57:17.716Z",
        "isSidechain": False,
        "userType": "external",
        "message": {"role": "user", "content": content},
        **extra,
    }


def assistant(*blocks: dict[str, Any], **extra: object) -> dict[str, Any]:
    message = {"id": "msg_1", "role": "assistant", "model": "claude-x"}
    return {
        "type": "assistant",
        "uuid": "a",
        "isSidechain": False,
        "message": {**message, "content": list(blocks), **extra},
    }


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool(name: str, **tool_input: object) -> dict[str, Any]:
    return {"type": "tool_use", "id": "toolu_1", "name": name, "input": tool_input}


def tool_result(content: str) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": "toolu_1", "content": content}
    return user([block], toolUseResult={"stdout": content})


BOUNDARY = {
    "type": "system",
    "subtype": "compact_boundary",
    "content": "Conversation compacted",
    "parentUuid": None,
    "logicalParentUuid": "a",
    "uuid": "b1",
    "compactMetadata": {"trigger": "manual", "preTokens": 181725},
}
SUMMARY_TEXT = "This session is being continued from a previous conversation."
SUMMARY = user(SUMMARY_TEXT, isCompactSummary=True, isVisibleInTranscriptOnly=True)

SESSION = (
    {"type": "queue-operation", "operation": "dequeue", "sessionId": "s"},
    user("Fix the login bug"),
    assistant(
        {"type": "thinking", "thinking": "inverted check"},
        text("Looking."),
        tool("Bash", command="pytest -q"),
    ),
    tool_result("1 failed"),
    assistant(tool("Edit", file_path="src/login.py", old_string="a", new_string="b")),
    tool_result("ok"),
    assistant(tool("Write", file_path="tests/test_login.py", content="x")),
    assistant(tool("Bash", command="pytest -q")),
    assistant(tool("Bash", command="pytest -q")),
    user("Caveat: local commands below", isMeta=True),
    b"{not json at all",
    b"\xff\xfe garbage \x00",
    user("subagent prompt", isSidechain=True),
    {**assistant(tool("Write", file_path="/sidechain.py")), "isSidechain": True},
    BOUNDARY,
    SUMMARY,
    user("<command-name>/model</command-name>\n<command-args>opus</command-args>"),
    user("<local-command-stdout>Set model to opus</local-command-stdout>"),
    assistant(tool("Edit", file_path="src/login.py", old_string="b", new_string="c")),
    assistant(text("Fixed it.")),
    {"type": "summary", "summary": "Login bug", "leafUuid": "a"},
)
EXPECTED = TranscriptDigest(
    prompts=("Fix the login bug", "/model opus"),
    files=("src/login.py", "tests/test_login.py"),
    commands=("pytest -q",),
    last_assistant="Fixed it.",
    compact_summary=SUMMARY_TEXT,
)


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as f:
        f.write(data)


# --- parse_lines -----------------------------------------------------------------------


def test_parse_session() -> None:
    assert parse_lines(jsonl(*SESSION).splitlines()) == EXPECTED


def test_parse_accepts_str_lines_and_crlf() -> None:
    lines = [json.dumps(user("hello")) + "\r\n", "", "   "]
    assert parse_lines(lines).prompts == ("hello",)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        pytest.param("Fix it", ("Fix it",), id="string"),
        pytest.param([text("a"), text("b")], ("a\nb",), id="text-blocks"),
        pytest.param(
            [{"type": "image", "source": {}}, text("see pic")],
            ("see pic",),
            id="image-and-text",
        ),
        pytest.param([{"type": "image", "source": {}}], (), id="image-only"),
        pytest.param(
            "<command-message>model</command-message>\n"
            "<command-name>/model</command-name>\n<command-args>opus</command-args>",
            ("/model opus",),
            id="slash-command-args",
        ),
        pytest.param(
            "<command-name>/clear</command-name>\n<command-args></command-args>",
            ("/clear",),
            id="slash-command-no-args",
        ),
        pytest.param(
            "<command-name>review</command-name>", ("/review",), id="slash-added"
        ),
        pytest.param("<command-name> </command-name>", (), id="empty-command"),
        pytest.param("<command-message>x</command-message>", (), id="message-only"),
        pytest.param(
            "<local-command-stdout>ok</local-command-stdout>", (), id="local-stdout"
        ),
        pytest.param(
            "<local-command-caveat>Caveat</local-command-caveat>", (), id="caveat"
        ),
        pytest.param("<bash-input>ls -la</bash-input>", ("!ls -la",), id="bash-mode"),
        pytest.param("<bash-stdout>a.txt</bash-stdout>", (), id="bash-stdout"),
        pytest.param(
            [text("[Request interrupted by user for tool use]")], (), id="interrupted"
        ),
        pytest.param(
            "<system-reminder>SessionStart hook success</system-reminder>",
            (),
            id="reminder-only",
        ),
        pytest.param(
            "thanks<system-reminder>noise</system-reminder> a lot",
            ("thanks a lot",),
            id="reminder-stripped",
        ),
        pytest.param("go<system-reminder>unclosed", ("go",), id="reminder-unclosed"),
        pytest.param("   \n ", (), id="blank"),
    ],
)
def test_prompt_shapes(content: object, expected: tuple[str, ...]) -> None:
    assert parse_lines([_line(user(content))]).prompts == expected


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        pytest.param(user("meta", isMeta=True), (), id="is-meta"),
        pytest.param(user("sub", isSidechain=True), (), id="sidechain"),
        pytest.param(tool_result("output"), (), id="tool-result"),
        pytest.param(
            user([{"type": "tool_result", "content": "x"}, text("hm")]),
            (),
            id="tool-result-with-text",
        ),
        pytest.param(SUMMARY, (), id="compact-summary"),
        pytest.param(
            {
                "type": "attachment",
                "attachment": {"type": "queued_command", "prompt": "q"},
            },
            ("q",),
            id="queued-command",
        ),
        pytest.param(
            {"message": {"role": "user", "content": "no type key"}},
            ("no type key",),
            id="role-fallback",
        ),
    ],
)
def test_which_user_lines_are_prompts(
    record: dict[str, Any], expected: tuple[str, ...]
) -> None:
    assert parse_lines([_line(record)]).prompts == expected


# Claude Code 2.1.332, `claude -p` whose model called the Task tool: the subagent ran in
# the background and its end came back as a user turn nobody typed (from the real
# transcript, paths shortened).
TASK_NOTIFICATION = (
    "<task-notification>\n<task-id>a702d38af58a5e24c</task-id>\n"
    "<tool-use-id>toolu_mock1</tool-use-id>\n<output-file>/tmp/claude-0/-tmp-e2e-task/"
    "1a1c9779/tasks/a702d38af58a5e24c.output</output-file>\n<status>completed</status>\n"
    '<summary>Agent "look up redis" finished</summary>\n<result>Mock reply 3.</result>\n'
    "</task-notification>"
)
TASK_TURN = {
    "type": "user",
    "isSidechain": False,
    "message": {"role": "user", "content": TASK_NOTIFICATION},
    "origin": {"kind": "task-notification", "producer": "session-task"},
    "promptSource": "system",
    "turnOrigin": "task_notification",
}


@pytest.mark.parametrize(
    "record",
    [
        pytest.param(TASK_TURN, id="as-recorded"),
        pytest.param(
            {"type": "user", "message": {"role": "user", "content": TASK_NOTIFICATION}},
            id="text-alone",
        ),
        pytest.param(
            {
                "type": "attachment",
                "attachment": {"type": "queued_command", "prompt": TASK_NOTIFICATION},
            },
            id="queued",
        ),
    ],
)
def test_a_subagents_task_notification_is_no_prompt(record: dict[str, Any]) -> None:
    typed = {**user("delegate please"), "promptSource": "sdk"}
    digest = parse_lines([_line(typed), _line(record)])
    assert digest.prompts == ("delegate please",)


def test_assistant_last_text_block_wins() -> None:
    digest = parse_lines(
        jsonl(
            assistant(text("first"), text("second"), tool("Read", file_path="/x")),
            assistant(text("   ")),
            assistant({"type": "thinking", "thinking": "hidden"}),
            assistant(text("No response requested."), model="<synthetic>"),
            {**assistant(text("API Error: 500")), "isApiErrorMessage": True},
        ).splitlines()
    )
    assert digest.last_assistant == "second"
    assert digest.files == ()  # Read is not an edit


def test_assistant_string_content() -> None:
    record = {"type": "assistant", "message": {"role": "assistant", "content": "hi"}}
    assert parse_lines([_line(record)]).last_assistant == "hi"


def test_files_and_commands() -> None:
    digest = parse_lines(
        jsonl(
            assistant(tool("Write", file_path="a.py"), tool("Edit", file_path="b.py")),
            assistant(tool("MultiEdit", file_path="a.py", edits=[])),
            assistant(tool("NotebookEdit", notebook_path="n.ipynb", new_source="x")),
            assistant(tool("Edit", file_path="  ")),
            assistant(tool("Bash", command="ls"), tool("Bash", command="ls")),
            assistant(tool("Bash", command="pytest"), tool("Bash", command=" ls ")),
            assistant(tool("Bash", command="")),
        ).splitlines()
    )
    assert digest.files == ("a.py", "b.py", "n.ipynb")
    assert digest.commands == ("ls", "pytest", "ls")


def test_last_compact_summary_and_content_before_boundary_counts() -> None:
    digest = parse_lines(
        jsonl(
            user("before"),
            BOUNDARY,
            user("first summary", isCompactSummary=True),
            user("after"),
            BOUNDARY,
            user([text("second summary")], isCompactSummary=True),
        ).splitlines()
    )
    assert digest.prompts == ("before", "after")
    assert digest.compact_summary == "second summary"


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"not json", id="not-json"),
        pytest.param(b'{"type":"user","message":{"content":"cut', id="truncated"),
        pytest.param(b"[]", id="array"),
        pytest.param(b"null", id="null"),
        pytest.param(b"42", id="number"),
        pytest.param(b'"prompt"', id="string"),
        pytest.param(b"\xff\xfe\x00\x80", id="invalid-utf8"),
        pytest.param(b"[" * 100_000, id="deep-nesting"),
        pytest.param(b'{"n":' + b"9" * 5000 + b"}", id="huge-int"),
        pytest.param(b"\xef\xbb\xbf{}", id="bom"),
        pytest.param(_line({"type": "user"}), id="no-message"),
        pytest.param(_line({"type": "user", "message": 5}), id="message-int"),
        pytest.param(_line(user(5)), id="content-int"),
        pytest.param(_line(user(None)), id="content-null"),
        pytest.param(_line(user([1, "x", None, {"type": "video"}])), id="odd-blocks"),
        pytest.param(_line(user([{"type": "text", "text": 3}])), id="text-not-str"),
        pytest.param(_line({"type": ["user"], "message": "x"}), id="type-list"),
        pytest.param(_line({"type": "assistant", "message": "hi"}), id="msg-str"),
        pytest.param(_line(assistant({"type": "text"})), id="text-missing"),
        pytest.param(_line(assistant({"type": "tool_use"})), id="tool-bare"),
        pytest.param(_line(assistant(tool("Bash", command=["ls"]))), id="cmd-list"),
        pytest.param(
            _line(assistant({"type": "tool_use", "name": "Bash", "input": "ls"})),
            id="input-str",
        ),
        pytest.param(
            _line(assistant({"type": "tool_use", "name": ["Write"], "input": {}})),
            id="name-unhashable",
        ),
        pytest.param(_line(assistant(tool("Write", file_path=5))), id="path-int"),
        pytest.param(_line({"type": "attachment", "attachment": 3}), id="attachment"),
        pytest.param(
            _line({"type": "attachment", "attachment": {"type": "queued_command"}}),
            id="queued-no-prompt",
        ),
        pytest.param(_line(BOUNDARY), id="boundary"),
        pytest.param(_line({"type": "future-record", "x": {}}), id="unknown-type"),
    ],
)
def test_garbage_is_skipped(raw: bytes) -> None:
    assert parse_lines([raw]).is_empty()


def test_invalid_utf8_inside_prompt_is_replaced() -> None:
    raw = b'{"type":"user","message":{"role":"user","content":"caf\xc3 ok"}}'
    assert parse_lines([raw]).prompts == ("caf\ufffd ok",)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=200), max_size=10))
def test_arbitrary_bytes_never_raise(lines: list[bytes]) -> None:
    parse_lines(lines)


# Keys and strings from the real shapes, so random records reach the deep branches.
_WORDS = ["type", "message", "content", "text", "name", "input", "command", "file_path"]
_WORDS += ["user", "assistant", "tool_use", "tool_result", "Bash", "Write", "isMeta"]
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.sampled_from(_WORDS) | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(_WORDS), inner, max_size=5)
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(_JSON, st.sampled_from(["user", "assistant", "attachment", "system"]))
def test_arbitrary_json_never_raises(value: object, kind: str) -> None:
    parse_lines([json.dumps(value), json.dumps({"type": kind, "message": value})])


def test_is_empty() -> None:
    assert TranscriptDigest().is_empty()
    assert not TranscriptDigest(last_assistant="x").is_empty()
    assert not TranscriptDigest(compact_summary="x").is_empty()
    assert not TranscriptDigest(commands=("ls",)).is_empty()


# --- read_transcript -------------------------------------------------------------------


def test_read_whole_file(tmp_path: Path) -> None:
    data = jsonl(*SESSION)
    digest, offset = read_transcript(write(tmp_path / "t.jsonl", data))
    assert digest == EXPECTED
    assert offset == len(data)


def test_second_read_covers_only_new_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", jsonl(*SESSION))
    _, offset = read_transcript(path)
    assert read_transcript(path, offset) == (TranscriptDigest(), offset)
    append(path, jsonl(user("next"), assistant(tool("Bash", command="make"))))
    digest, new_offset = read_transcript(path, offset)
    assert digest == TranscriptDigest(prompts=("next",), commands=("make",))
    assert new_offset == path.stat().st_size


def test_partial_trailing_line_is_read_once_completed(tmp_path: Path) -> None:
    complete = jsonl(user("one"))
    rest = jsonl(user("two"))
    path = write(tmp_path / "t.jsonl", complete + rest[:20])
    digest, offset = read_transcript(path)
    assert digest.prompts == ("one",)
    assert offset == len(complete)
    assert read_transcript(path, offset) == (TranscriptDigest(), offset)
    append(path, rest[20:])
    digest, offset = read_transcript(path, offset)
    assert digest.prompts == ("two",)
    assert offset == len(complete + rest)


@pytest.mark.parametrize(
    "bad_offset",
    [
        pytest.param(lambda size: size + 100, id="beyond-eof"),
        pytest.param(lambda size: 5, id="mid-line"),
        pytest.param(lambda size: -1, id="negative"),
    ],
)
def test_invalid_offset_restarts_from_zero(tmp_path: Path, bad_offset: Any) -> None:
    data = jsonl(user("replaced"))
    path = write(tmp_path / "t.jsonl", data)
    digest, offset = read_transcript(path, bad_offset(len(data)))
    assert digest.prompts == ("replaced",)
    assert offset == len(data)


def test_max_bytes_stops_at_last_complete_line(tmp_path: Path) -> None:
    first, second, third = jsonl(user("a")), jsonl(user("b")), jsonl(user("c"))
    path = write(tmp_path / "t.jsonl", first + second + third)
    max_bytes = len(first + second) + 5
    digest, offset = read_transcript(path, max_bytes=max_bytes)
    assert (digest.prompts, offset) == (("a", "b"), len(first + second))
    digest, offset = read_transcript(path, offset, max_bytes=max_bytes)
    assert (digest.prompts, offset) == (("c",), path.stat().st_size)


def test_line_longer_than_max_bytes_is_skipped(tmp_path: Path) -> None:
    huge, small = jsonl(user("x" * 200_000)), jsonl(user("small"))
    path = write(tmp_path / "t.jsonl", huge + small)
    digest, offset = read_transcript(path, max_bytes=1000)
    assert (digest, offset) == (TranscriptDigest(), len(huge))
    digest, offset = read_transcript(path, offset, max_bytes=1000)
    assert (digest.prompts, offset) == (("small",), len(huge + small))


def test_long_partial_line_is_left_alone(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", jsonl(user("x" * 200_000))[:-1])
    assert read_transcript(path, max_bytes=1000) == (TranscriptDigest(), 0)


def test_empty_file(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", b"")
    assert read_transcript(path) == (TranscriptDigest(), 0)


def test_missing_file_raises(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_transcript(tmp_path / "missing.jsonl")


# --- render_digest ---------------------------------------------------------------------


def test_render_full() -> None:
    assert render_digest(EXPECTED) == (
        "**Prompts**\n- Fix the login bug\n- /model opus\n\n"
        "**Files edited**\n- `src/login.py`\n- `tests/test_login.py`\n\n"
        "**Commands**\n- `pytest -q`\n\n"
        f"**Compaction summary**\n> {SUMMARY_TEXT}\n\n"
        "**Last assistant message**\n> Fixed it."
    )


def test_render_empty() -> None:
    assert render_digest(TranscriptDigest()) == ""
    assert render_digest(TranscriptDigest(prompts=(" \n",))) == ""


def test_render_only_nonempty_sections() -> None:
    body = render_digest(TranscriptDigest(commands=("ls",)))
    assert body == "**Commands**\n- `ls`"


def test_render_keeps_last_items() -> None:
    digest = TranscriptDigest(prompts=tuple(f"p{i}" for i in range(25)))
    lines = render_digest(digest, max_items=20).splitlines()
    assert lines[:3] == ["**Prompts**", "- …(5 earlier omitted)", "- p5"]
    assert lines[-1] == "- p24"
    assert len(lines) == 22


@pytest.mark.parametrize(
    ("item", "max_chars", "expected"),
    [
        pytest.param("short", 300, "short", id="short"),
        pytest.param("x" * 20, 10, "x" * 6 + "…" + "x" * 3, id="cut"),
        pytest.param(
            "<pasted_content> " + "log line. " * 100 + "which port is it?",
            60,
            "<pasted_content> log line. log line. lo…e. which port is it?",
            id="the-end-kept",
        ),
        pytest.param("x" * 10, 10, "x" * 10, id="exact"),
        pytest.param("a\nb\r\n\tc  d", 300, "a b c d", id="collapsed"),
        pytest.param("a\x00b\x1b[0mc", 300, "a b [0mc", id="control-chars"),
        pytest.param("use `rm` ```x```", 300, "use 'rm' '''x'''", id="backticks"),
    ],
)
def test_render_item(item: str, max_chars: int, expected: str) -> None:
    body = render_digest(TranscriptDigest(prompts=(item,)), max_chars=max_chars)
    assert body == f"**Prompts**\n- {expected}"


def test_render_code_items_are_fence_safe() -> None:
    digest = TranscriptDigest(commands=("echo `date`",), files=("we`ird.py",))
    body = render_digest(digest)
    assert "- `echo 'date'`" in body
    assert "- `we'ird.py`" in body
    assert all(line.count("`") in (0, 2) for line in body.splitlines())


def test_render_quote_is_one_line() -> None:
    body = render_digest(TranscriptDigest(last_assistant="Done.\n\n# Heading\n> q"))
    assert body == "**Last assistant message**\n> Done. # Heading > q"


def _long_digest() -> TranscriptDigest:
    return TranscriptDigest(
        prompts=tuple(f"prompt {i} " + "y" * 80 for i in range(20)),
        commands=tuple(f"cmd {i}" for i in range(20)),
        last_assistant="z" * 300,
    )


def test_render_over_its_total_keeps_the_newest_of_each_part() -> None:
    # Before: the body was cut from its head, so the latest prompts, every command and
    # the last answer were the parts dropped.
    body = render_digest(_long_digest(), max_total=500)
    assert len(body) <= 500
    lines = body.splitlines()
    assert lines[:2] == ["**Prompts**", "- …(18 earlier omitted)"]
    assert lines[2:4] == [f"- prompt {i} " + "y" * 80 for i in (18, 19)]
    assert "- …(18 earlier omitted)\n- `cmd 18`\n- `cmd 19`" in body
    assert lines[-2:] == [
        "**Last assistant message**",
        "> " + "z" * 66 + "…" + "z" * 33,
    ]


def test_render_total_is_bounded() -> None:
    body = render_digest(_long_digest(), max_total=50)
    full = render_digest(_long_digest(), max_total=100_000)
    assert len(body) <= 50
    assert body.endswith("\n…[digest truncated]")
    kept = body.splitlines()[:-1]
    assert kept == full.splitlines()[: len(kept)]  # whole lines only


def test_render_tiny_total() -> None:
    body = render_digest(EXPECTED, max_total=5)
    assert body == "…[digest truncated]"


def test_render_is_deterministic(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", jsonl(*SESSION))
    first = render_digest(read_transcript(path)[0])
    second = render_digest(parse_lines(jsonl(*SESSION).splitlines()))
    assert first == second == render_digest(EXPECTED)

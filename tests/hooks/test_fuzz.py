"""Property tests over hostile hook payloads and broken memory files.

The hook must never exit 2 (it would block the user's prompt), never print a traceback,
answer within its deadline with empty or valid output, and never write outside the root.
Many examples run in-process (`main(["hook"], ...)`); a handful run as real subprocesses
for the exit-code contract. CI runs a fixed seed and a bounded count (the "ci" profile in
tests/conftest.py); `HYPOTHESIS_PROFILE=long` runs the longer fuzz.
"""

from __future__ import annotations

import contextlib
import gc
import io
import itertools
import json
import os
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from memhooks.hooks.cli import main
from memhooks.hooks.runner import decode
from memhooks.hooks.wire import DEADLINES
from memhooks.memory import Store
from memhooks.memory.toolsline import USAGE
from tests.hooks.test_reliability import ADVERSARIAL, assert_contained

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from pathlib import Path

#: The in-process fuzz runs this many times the profile's example count.
SCALE = 4
CLAUDE_EVENTS = [
    "SessionStart",
    "UserPromptSubmit",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
    "BeforeAgent",
    "PreCompress",
    "Stop",
    "PreToolUse",
    "",
]
GENERIC_EVENTS = [
    "session-start",
    "pre-prompt",
    "pre-compaction",
    "post-compaction",
    "session-end",
    "explode",
]
HARNESSES = [None, "claude-code", "codex", "gemini", "generic"]
#: Placeholders for paths that exist only once the `world` fixture has made them.
PLACES = ["<project>", "<transcript>", "<garbage>", "<missing>", "<world>", "<dir>"]


class _Stdin:
    """What `memhooks hook` reads: bytes on `.buffer` (so invalid UTF-8 gets through)."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


class _DeadlineHit(Exception):
    """The hook took its deadline path, which would end the process."""


@pytest.fixture(autouse=True)
def _in_process_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each hook answers by itself: no session process is started to outlive the test.
    monkeypatch.setenv("MEMHOOKS_SESSION_PROCESS", "0")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """A project, transcripts and a memory root shared by all examples of a test."""
    base = tmp_path_factory.mktemp("world")
    project = base / "shop"
    (project / ".git").mkdir(parents=True)
    transcript = base / "t.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": "fix the kafka lag"}},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "ok"}]}},
        {"type": "user", "message": {"content": "deploy with password=hunter2hunter2"}},
    ]
    transcript.write_text("".join(json.dumps(x) + "\n" for x in lines) + '{"half')
    (base / "garbage.jsonl").write_bytes(bytes(range(256)) * 40 + b"\n[1]\n\xff{}\n")
    (base / "dir").mkdir()
    places = {
        "<project>": project,
        "<transcript>": transcript,
        "<garbage>": base / "garbage.jsonl",
        "<missing>": base / "missing.jsonl",
        "<world>": base,
        "<dir>": base / "dir",
    }
    root = base / "root"
    store = Store.for_project(root, project)
    store.write_memory("- kafka consumers restart nightly\n" + "\n".join(ADVERSARIAL))
    store.write_note("kafka lag", "Kafka lag alerts fire at 10k messages.")
    with pytest.MonkeyPatch.context() as m:

        def deadline(code: int) -> None:
            raise _DeadlineHit(code)

        m.setattr(os, "_exit", deadline)
        yield {**places, "root": root, "base": base}


def _tree(base: Path, root: Path) -> dict[str, tuple[int, int]]:
    """Every path under `base` outside `root`, with its size and mtime."""
    out = {}
    for p in sorted(base.rglob("*")):
        if p != root and root not in p.parents:
            st_ = p.lstat()
            out[str(p)] = (st_.st_size, st_.st_mtime_ns)
    return out


def run_hook(data: bytes, *args: str) -> tuple[int, str, str, float]:
    out, err = io.StringIO(), io.StringIO()
    # A real hook is a small process of its own. This one shares the test process, whose
    # heap grows with hypothesis's bookkeeping until one full collection takes a second
    # (measured with gc.callbacks in the long run): that pause is not the hook's.
    gc.disable()
    try:
        start = time.monotonic()
        with contextlib.redirect_stderr(err):
            code = main(["hook", *args], stdin=_Stdin(data), stdout=out)  # type: ignore[arg-type]
        elapsed = time.monotonic() - start
    finally:
        gc.enable()
    return code, out.getvalue(), err.getvalue(), elapsed


def deadline_of(data: bytes, harness: str | None) -> float:
    try:
        event = decode(data, harness)  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - undecodable: the hook must answer at once
        return DEADLINES["session-end"]
    return DEADLINES[event.kind] if event else DEADLINES["session-end"]


def assert_valid_reply(code: int, out: str, err: str, harness: str | None) -> None:
    """Exit 0, no traceback, at most one stderr line; stdout empty or one JSON reply."""
    assert code == 0
    assert "Traceback" not in err and err.count("\n") <= 1, err
    if not out:
        return
    assert out.endswith("\n") and out.count("\n") == 1
    reply = json.loads(out)
    assert isinstance(reply, dict)
    if "hookSpecificOutput" in reply:
        assert harness != "generic" and list(reply) == ["hookSpecificOutput"]
        inner = reply["hookSpecificOutput"]
        assert list(inner) == ["hookEventName", "additionalContext"]
        assert inner["hookEventName"] in (
            "SessionStart",
            "UserPromptSubmit",
            "BeforeAgent",
        )
        context, name = inner["additionalContext"], inner["hookEventName"]
        if name == "BeforeAgent" and USAGE in context:
            # Gemini's first prompt of a session not begun here (a resume) or after a
            # compression brings the block back, then the prompt's own hits.
            block, _, hits = context.partition(USAGE)
            assert_contained(block + USAGE, block=True)
            if hits:
                assert hits.startswith("\n\n")
                assert_contained(hits[2:], block=False)
        else:
            assert_contained(context, block=name == "SessionStart")
    else:
        assert reply["ok"] is True and isinstance(reply["context"], str)
        if reply["context"]:
            block = reply["event"] in ("session-start", "post-compaction")
            assert_contained(reply["context"], block=block)


# -- payload strategies -------------------------------------------------------------------

# Any text, lone surrogates included ("\ud800" is valid JSON).
any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=60)
json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    any_text,
)
json_any = st.recursive(
    json_leaf,
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(any_text, kids, max_size=4)
    ),
    max_leaves=12,
)


def _field(*choices: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    """Mostly a plausible value; sometimes any text or any JSON value (a wrong type)."""
    plausible = st.one_of(*choices)
    return st.one_of(plausible, plausible, plausible, plausible, any_text, json_any)


prompts = st.one_of(
    st.sampled_from(["kafka lag alerts", "fix the consumer", "", "   "]),
    st.lists(
        st.sampled_from(ADVERSARIAL + ["kafka", "lag", "consumers"]), max_size=6
    ).map(" ".join),
)
places = st.sampled_from(PLACES)
COMMON_FIELDS = {
    "session_id": _field(st.sampled_from(["s1", "s2", ""])),
    "cwd": _field(
        st.just("<project>"),
        places,
        st.sampled_from(["/", ".", "relative/dir", "/nonexistent"]),
    ),
}
OPTIONAL_FIELDS = {
    "transcript_path": _field(places),
    "prompt": _field(prompts),
    "source": _field(
        st.sampled_from(["startup", "resume", "clear", "compact", "fork"])
    ),
    "compact_summary": _field(prompts),
    "summary": _field(prompts),
    "trigger": _field(st.sampled_from(["auto", "manual"])),
    "reason": _field(st.just("exit")),
    "timestamp": _field(st.just("2026-11-30T10:00:00Z")),
    "id": _field(st.integers(0, 10)),
    "model": json_any,
}
_claude = st.fixed_dictionaries(
    {"hook_event_name": _field(st.sampled_from(CLAUDE_EVENTS)), **COMMON_FIELDS},
    optional={**OPTIONAL_FIELDS, "event": _field(st.sampled_from(GENERIC_EVENTS))},
)
_generic = st.fixed_dictionaries(
    {"event": _field(st.sampled_from(GENERIC_EVENTS)), **COMMON_FIELDS},
    optional=OPTIONAL_FIELDS,
)
_any_object = st.dictionaries(any_text, json_any, max_size=6)
#: Claude Code / Codex / Gemini payloads, generic ones, and any JSON object at all.
payloads = st.sampled_from([_claude] * 4 + [_generic] * 4 + [_any_object]).flatmap(
    lambda strategy: strategy
)


def _encode(payload: Mapping[str, object], places: Mapping[str, Path]) -> str:
    text = json.dumps(payload)
    for key, path in places.items():
        if key.startswith("<"):
            text = text.replace(key, str(path).replace("\\", "\\\\"))
    return text


def _mangle(text: str, how: str, draw_bytes: bytes, cut_at: int) -> bytes:
    data = text.encode("utf-8")
    if how == "bom":
        return b"\xef\xbb\xbf" + data
    if how == "cut":
        return data[: cut_at % (len(data) + 1)]
    if how == "bytes":  # invalid UTF-8 spliced in
        at = cut_at % (len(data) + 1)
        return data[:at] + draw_bytes + data[at:]
    if how == "junk":
        return draw_bytes
    return data


# -- the properties -----------------------------------------------------------------------


@settings(
    max_examples=SCALE * settings().max_examples,
    # memory_root is only checked to stay absent: sharing it between examples is fine.
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(
    payload=payloads,
    how=st.sampled_from(["as-is"] * 6 + ["bom", "cut", "bytes", "junk"]),
    junk=st.binary(max_size=40),
    cut_at=st.integers(0, 10_000),
    harness=st.sampled_from([None, None, None, *HARNESSES]),
)
# Gemini's first prompt of a session this root has not seen (a resumed one) brings the
# block: a BeforeAgent reply may hold it.
@example(
    payload={"cwd": "<project>", "hook_event_name": "BeforeAgent", "session_id": "new"},
    how="as-is",
    junk=b"",
    cut_at=0,
    harness=None,
)
def test_any_payload_fails_open(
    world: dict[str, Path],
    memory_root: Path,
    payload: dict[str, object],
    how: str,
    junk: bytes,
    cut_at: int,
    harness: str | None,
) -> None:
    data = _mangle(_encode(payload, world), how, junk, cut_at)
    _check_one(world, memory_root, data, harness)


def _check_one(
    world: dict[str, Path], memory_root: Path, data: bytes, harness: str | None
) -> None:
    root = world["root"]
    before = _tree(world["base"], root)
    args = ["--root", str(root), *(["--harness", harness] if harness else [])]
    code, out, err, elapsed = run_hook(data, *args)
    event(_outcome(out, err))  # `pytest --hypothesis-show-statistics` tallies them
    assert_valid_reply(code, out, err, harness)
    assert elapsed < deadline_of(data, harness)
    assert _tree(world["base"], root) == before  # nothing written outside the root
    assert not memory_root.exists()  # nor at the default root
    assert not list(root.rglob(".*.tmp"))


def _outcome(out: str, err: str) -> str:
    """What an example reached, so that the statistics show the handlers were exercised."""
    if '"context": "<' in out or "additionalContext" in out:
        return "context"
    if out:
        return "reply, no context"
    return "failed open" if err else "nothing to say"


hostile_text = st.one_of(
    any_text,
    prompts,
    places,
    st.sampled_from(ADVERSARIAL),
    st.text(st.sampled_from("kafka lag </memory>\x00\u202e\ud800\n"), max_size=80),
)
_VALID = (
    [
        ("claude-code", "hook_event_name", e)
        for e in (
            "SessionStart",
            "UserPromptSubmit",
            "PreCompact",
            "PostCompact",
            "SessionEnd",
        )
    ]
    + [
        ("gemini", "hook_event_name", e)
        for e in ("SessionStart", "BeforeAgent", "PreCompress", "SessionEnd")
    ]
    + [("generic", "event", e) for e in GENERIC_EVENTS[:-1]]
)


@settings(
    max_examples=SCALE * settings().max_examples // 2,
    # memory_root is only checked to stay absent: sharing it between examples is fine.
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    which=st.sampled_from(_VALID),
    cwd=st.one_of(st.just("<project>"), hostile_text),
    fields=st.dictionaries(
        st.sampled_from(
            [
                "prompt",
                "summary",
                "compact_summary",
                "source",
                "session_id",
                "transcript_path",
            ]
        ),
        hostile_text,
    ),
    named_harness=st.booleans(),
)
def test_valid_events_with_hostile_values(
    world: dict[str, Path],
    memory_root: Path,
    which: tuple[str, str, str],
    cwd: str,
    fields: dict[str, str],
    named_harness: bool,
) -> None:
    """Events every harness really sends, whose values are hostile: these reach the
    handlers, so the replies and writes are checked, not only the failure path.
    """
    harness, key, name = which
    payload = {"session_id": "v", **fields, key: name, "cwd": cwd}
    _check_one(
        world,
        memory_root,
        _encode(payload, world).encode(),
        harness if named_harness else None,
    )


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"[" * 100_000 + b"]" * 100_000, id="deep-nesting"),
        pytest.param(
            b'{"hook_event_name": "SessionStart", "x": '
            + b"[" * 50_000
            + b"]" * 50_000
            + b"}",
            id="deep-field",
        ),
        pytest.param(
            json.dumps(
                {
                    "hook_event_name": "UserPromptSubmit",
                    "session_id": "big",
                    "prompt": "kafka " * 1_000_000,
                }
            ).encode(),
            id="6MB-prompt",
        ),
        pytest.param(
            json.dumps(
                {
                    "hook_event_name": "PostCompact",
                    "session_id": "big",
                    "compact_summary": "z" * 5_000_000,
                }
            ).encode(),
            id="5MB-single-line-summary",
        ),
        pytest.param(b" " * (17 * 1024 * 1024), id="over-the-payload-cap"),
        pytest.param(
            b'{"hook_event_name": "SessionStart", "session_id": NaN}', id="nan"
        ),
        pytest.param(b'{"a": 1, "a": [}', id="broken"),
        pytest.param(b"\x00" * 1000, id="nul-bytes"),
        pytest.param(b'"just a string"', id="json-string"),
    ],
)
def test_extreme_payloads_fail_open(
    world: dict[str, Path], memory_root: Path, data: bytes
) -> None:
    code, out, err, elapsed = run_hook(data, "--root", str(world["root"]))
    assert_valid_reply(code, out, err, None)
    assert elapsed < deadline_of(data, None)


def test_a_pasted_prompt_costs_about_what_decoding_it_does(
    world: dict[str, Path],
) -> None:
    """A prompt of a 6 MB paste: its terms come from its start and only the part the state
    keeps is redacted, so the hook costs a few times its payload's decoding, not seconds
    (it took ~4 s of CPU, past the 8 s deadline on a busy machine)."""

    def payload(prompt: str) -> bytes:
        return json.dumps(
            {
                "hook_event_name": "UserPromptSubmit",
                "session_id": "paste",
                "prompt": prompt,
            }
        ).encode()

    run_hook(payload("warm up: kafka lag"), "--root", str(world["root"]))
    data = payload("kafka consumer lag on orders " * 200_000)
    start = time.process_time()
    decode(data, None)
    decoding = time.process_time() - start
    start = time.process_time()
    code, _, err, _ = run_hook(data, "--root", str(world["root"]))
    used = time.process_time() - start
    assert code == 0 and not err, err
    assert used < 20 * decoding, (used, decoding)


# -- broken memory files ---------------------------------------------------------------------

_names = st.text(
    st.characters(codec="utf-8", exclude_characters="/\x00"), min_size=1, max_size=30
).filter(lambda n: n not in (".", "..") and len(n.encode()) <= 200)
_texts = st.one_of(
    st.text(max_size=400),
    st.lists(
        st.sampled_from([*ADVERSARIAL, "kafka lag", "\n", "- [ ] open item"]),
        max_size=8,
    ).map("".join),
)


@st.composite
def file_bytes(draw: st.DrawFn) -> bytes:
    """Binary, or text with a BOM, CRLF line ends and invalid UTF-8 mixed in."""
    if draw(st.booleans()) and draw(st.booleans()):
        return draw(st.binary(max_size=2000))
    data = draw(_texts).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data = data.replace(b"\n", b"\r\n")
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    if draw(st.booleans()):
        data += draw(st.binary(max_size=8))
    return data


memory_files = st.dictionaries(
    st.one_of(
        st.sampled_from(["MEMORY.md", "SCRATCHPAD.md", "daily/2026-11-30.md"]),
        st.dates().map(lambda d: f"daily/{d.isoformat()}.md"),
        _names.map(lambda n: f"notes/{n}.md"),
    ),
    file_bytes(),
    max_size=6,
)
_counter = itertools.count()


@settings(
    max_examples=settings().max_examples,
    # memory_root is only checked to stay absent: sharing it between examples is fine.
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(files=memory_files, prompt=prompts)
def test_broken_memory_files_are_answered(
    world: dict[str, Path], memory_root: Path, files: dict[str, bytes], prompt: str
) -> None:
    root = world["base"] / f"files-{next(_counter)}"
    project = world["<project>"]
    slug_dir = root / "projects" / Store.for_project(root, project).slug
    for rel, data in files.items():
        path = root / rel if rel == "MEMORY.md" else slug_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    common = {"session_id": "f", "cwd": str(project)}
    for harness, name, extra in (
        ("claude-code", "SessionStart", {"source": "startup"}),
        ("claude-code", "UserPromptSubmit", {"prompt": prompt}),
        ("generic", "pre-prompt", {"prompt": prompt + " kafka lag"}),
    ):
        key = "event" if harness == "generic" else "hook_event_name"
        data = json.dumps({**common, key: name, **extra}).encode()
        code, out, err, elapsed = run_hook(
            data, "--root", str(root), "--harness", harness
        )
        assert_valid_reply(code, out, err, harness)
        assert elapsed < deadline_of(data, harness)
    for argv in (["inject"], ["search", "kafka", "lag"], ["search", "--json", "kafka"]):
        buf = io.StringIO()
        code = main([*argv, "--root", str(root), "--project", str(project)], stdout=buf)
        # A search that finds nothing (every file broken) exits 1, as grep does.
        assert code == 0 or (argv[0] == "search" and code == 1)
        if argv[0] == "inject" and buf.getvalue():
            assert_contained(buf.getvalue().removesuffix("\n"), block=True)
    assert not memory_root.exists()


# -- the real contract, as subprocesses --------------------------------------------------------

SUBPROCESS_CASES = [
    pytest.param(b"\xff\xfe\x00garbage", None, id="invalid-utf8"),
    pytest.param(b"[" * 100_000, None, id="deep-nesting"),
    pytest.param(
        b'{"hook_event_name": "SessionStart", "cwd": "\\ud800"}',
        None,
        id="lone-surrogate",
    ),
    pytest.param(
        b'{"hook_event_name": 7, "session_id": [], "prompt": {}}',
        "claude-code",
        id="wrong-types",
    ),
    pytest.param(
        b'{"event": "pre-prompt", "prompt": "kafka \\u202e lag"}',
        "generic",
        id="generic",
    ),
    pytest.param(
        b'{"hook_event_name": "BeforeAgent", "prompt": "\\u0000"}',
        "gemini",
        id="gemini",
    ),
    pytest.param(
        b'{"hook_event_name": "SessionStart"}' + b" " * (17 * 1024 * 1024),
        "codex",
        id="17MB",
    ),
]


@pytest.mark.parametrize(("data", "harness"), SUBPROCESS_CASES)
def test_hostile_payload_as_a_real_hook(
    world: dict[str, Path], data: bytes, harness: str | None
) -> None:
    args = ["--root", str(world["root"]), *(["--harness", harness] if harness else [])]
    # What starting a process that imports the hook command costs on this machine now:
    # a busy machine's start-up is not the hook's (issue 14).
    start = time.monotonic()
    subprocess.run([sys.executable, "-c", "import memhooks.hooks.cli"], check=True)
    starting = time.monotonic() - start
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "memhooks.hooks", "hook", *args],
        input=data,
        capture_output=True,
        timeout=60,
        check=False,
    )
    elapsed = time.monotonic() - start
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert_valid_reply(proc.returncode, out, err, harness)
    assert elapsed < deadline_of(data, harness) + 1 + 3 * starting

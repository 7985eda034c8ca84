"""Run every file in examples/ for real, so the examples can't rot (style rule 40)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from memhooks.hooks.install import install
from memhooks.hooks.mcp_config import is_ours
from memhooks.memory import Store
from tests.conftest import REPO, run_cli

if TYPE_CHECKING:
    from collections.abc import Callable

    from memhooks.hooks.install import Harness

EXAMPLES = REPO / "examples"
SESSION = EXAMPLES / "session.jsonl"


def _events(output: str) -> list[str]:
    """Split simulate's output into one chunk per event: its `→` line and its reply."""
    chunks = output.split("\n→ ")[1:]
    return [chunk.split("\n~ ")[0] + "\n" for chunk in chunks]


def test_simulate_session_example(memory_root: Path) -> None:
    proc = run_cli("simulate", str(SESSION), "--root", str(memory_root), timeout=20)

    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.rstrip().endswith("5 passed, 0 failed")
    # simulate's events run in the script's folder, so the memory is the repository's.
    slug = Store.for_project(memory_root, EXAMPLES).slug
    note = f"projects/{slug}/notes/redis-port.md"
    start, first, second, compaction, end = _events(proc.stdout)
    assert start.startswith("session-start") and "Run the test suite" in start
    assert first.startswith("pre-prompt") and f"  surfaced: {note}\n" in first
    assert "port 6380" in first  # the note as it was then
    notice = f"Memory changed on disk since this session's block was built: {note}."
    assert notice in second
    assert f"  reread: {note}\n" in second  # only the edited file was re-read
    assert "docker compose stop redis" in second  # the note as edited
    assert compaction.startswith("post-compaction")
    assert "compaction summary (from the harness)" in compaction
    assert end.startswith("session-end")
    (log,) = (memory_root / "projects" / slug / "daily").glob("*.md")
    assert f"--- projects/{slug}/daily/{log.name} ---" in proc.stdout
    assert "Stopped it with `docker compose stop redis`" in log.read_text("utf-8")


@pytest.mark.parametrize(
    "line",
    [
        pytest.param('{"event": "pre-prompt", "prompt": "x"', id="not-json"),
        pytest.param('{"prompt": "no event"}', id="no-event-write-or-sleep"),
        # Python's json recurses: was "internal error: RecursionError" and a traceback.
        pytest.param(
            '{"event": "x", "a": ' + "[" * 100_000 + "]" * 100_000 + "}", id="deep"
        ),
        pytest.param('["session-start"]', id="not-an-object"),
        # NaN and -1 were a traceback (exit 3); Infinity and 1e308 hung the run for good.
        *(
            pytest.param(f'{{"sleep": {s}}}', id=f"sleep-{s}")
            for s in ("NaN", "-1", "Infinity", "1e308", "true", '"1"')
        ),
        # A title or aliases that is no text was a traceback (exit 3) once the run was
        # under way; a text that is none went into the note as Python's repr.
        *(
            pytest.param(f'{{"write": {{"to": "note", "name": "n", {f}}}}}', id=i)
            for i, f in [
                ("title-list", '"text": "x", "title": ["a"]'),
                ("aliases-object", '"text": "x", "aliases": {"a": 1}'),
                ("text-object", '"text": {"a": 1}'),
                ("text-null", '"text": null'),  # was written as "None"
            ]
        ),
        # Refused as the run got there: the one line did not say which line of the
        # script (the write says "refused name '../x'", and the script may hold many).
        pytest.param(
            '{"write": {"to": "note", "name": "../x", "text": "x"}}', id="write-refused"
        ),
    ],
)
def test_simulate_broken_line_is_a_one_line_error(tmp_path: Path, line: str) -> None:
    script = tmp_path / "broken.jsonl"
    script.write_text(
        f'{{"event": "session-start"}}\n{line}\n{{"event": "session-end"}}\n', "utf-8"
    )

    proc = run_cli("simulate", str(script), "--root", str(tmp_path / "root"))

    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    (message,) = proc.stderr.splitlines()
    assert message.startswith(f"memhooks: error: {script}:2: ")


def test_simulate_sends_a_prompt_with_a_lone_surrogate(tmp_path: Path) -> None:
    # JSON may spell one ("\ud800", as a cut emoji is spelt): simulate died sending it
    # ("UnicodeEncodeError ... surrogates not allowed", exit 3); the session answers it.
    script = tmp_path / "surrogate.jsonl"
    prompt = '{"event": "pre-prompt", "prompt": "redis \\ud800 port"}'
    script.write_text(f'{{"event": "session-start"}}\n{prompt}\n', "utf-8")

    proc = run_cli("simulate", str(script), "--root", str(tmp_path / "root"))

    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "→ pre-prompt: 'redis \\ud800 port'" in proc.stdout
    assert proc.stdout.rstrip().endswith("2 passed, 0 failed")


def test_harness_example(tmp_path: Path, memory_root: Path) -> None:
    rule = "- Integration tests need the dev Redis on port 6379."
    wrote = run_cli(
        "write", "--root", str(memory_root), "--to", "memory", "--text", rule
    )
    assert wrote.returncode == 0, wrote.stderr
    project = tmp_path / "project"
    project.mkdir()

    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "harness.py"), "--root", str(memory_root)],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )

    assert proc.returncode == 0, proc.stdout + proc.stderr
    sections = proc.stdout.split("== ")[1:]
    names = [s.split("\n", 1)[0] for s in sections]
    assert names == [
        "session-start",
        "pre-prompt",
        "pre-prompt",
        "post-compaction",
        "session-end",
    ]
    assert rule in sections[0]  # the block injected at session start
    # The summary is written to today's log, and the re-injected block shows it.
    assert "Redis port 6379 was taken; tests pass." in sections[3]
    assert proc.stdout.rstrip().endswith("session process exited with 0")


@pytest.mark.parametrize(
    ("command", "said"),
    [
        # Both were a traceback: FileNotFoundError, and BrokenPipeError at the next event.
        ("/nonexistent/memhooks session", "cannot start /nonexistent/memhooks: "),
        ("false", "session-start: the session process exited with 1"),
        ("'memhooks session", "--command 'memhooks session: No closing quotation"),
    ],
)
def test_harness_example_says_what_went_wrong(
    tmp_path: Path, command: str, said: str
) -> None:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "harness.py"), "--command", command],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    (line,) = (proc.stdout + proc.stderr).splitlines()
    assert line.startswith(said), line


def test_harness_example_runs_with_a_python_without_memhooks(
    tmp_path: Path, memory_root: Path
) -> None:
    # memhooks installed with pipx or uv tool: `python` is one that cannot import it,
    # and `memhooks` is on PATH.
    python = Path(sys.base_prefix) / "bin" / "python3"
    bare = subprocess.run([python, "-c", "import memhooks"], check=False)
    if bare.returncode == 0:
        pytest.skip(f"{python} can import memhooks")
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    env.pop("PYTHONPATH", None)
    project = tmp_path / "project"
    project.mkdir()

    proc = subprocess.run(
        [python, str(EXAMPLES / "harness.py"), "--root", str(memory_root)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )

    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.rstrip().endswith("session process exited with 0")


def test_harness_example_without_memhooks_says_so_in_one_line(tmp_path: Path) -> None:
    python = Path(sys.base_prefix) / "bin" / "python3"
    bare = subprocess.run([python, "-c", "import memhooks"], check=False)
    if bare.returncode == 0:
        pytest.skip(f"{python} can import memhooks")
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    env.pop("PYTHONPATH", None)

    proc = subprocess.run(
        [python, str(EXAMPLES / "harness.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )

    assert proc.returncode == 1
    (line,) = proc.stderr.splitlines()
    assert "--command" in line


@pytest.mark.parametrize(
    ("harness", "name"),
    [
        pytest.param("claude-code", "claude-code-settings.json", id="claude-code"),
        pytest.param("gemini", "gemini-settings.json", id="gemini"),
    ],
)
def test_settings_example_is_what_install_writes(
    tmp_path: Path, harness: Harness, name: str
) -> None:
    example = json.loads((EXAMPLES / name).read_text("utf-8"))
    written = tmp_path / "settings.json"

    install(harness, written, f"memhooks hook --harness {harness}")

    assert example == json.loads(written.read_text("utf-8"))


def test_claude_code_settings_example_hooks_every_event() -> None:
    settings = json.loads((EXAMPLES / "claude-code-settings.json").read_text("utf-8"))
    hooks = settings["hooks"]
    assert list(hooks) == [
        "SessionStart",
        "UserPromptSubmit",
        "PreCompact",
        "PostCompact",
        "SessionEnd",
    ]
    assert hooks["SessionStart"][0]["matcher"] == "startup|resume|clear|compact|fork"
    commands = {
        h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]
    }
    assert commands == {"memhooks hook --harness claude-code"}


def test_ci_workflow_runs_simulate() -> None:
    text = (EXAMPLES / "ci-workflow.yml").read_text("utf-8")
    runs = [
        ln.strip().removeprefix("run:").strip()
        for ln in text.splitlines()
        if ln.strip().startswith("run:")
    ]
    assert any(r.startswith("python -m pip install .") for r in runs)
    assert runs[-1] == "memhooks simulate examples/session.jsonl"
    assert "\t" not in text and "continue-on-error" not in text
    assert text.index("actions/checkout") < text.index("run: memhooks simulate")


def test_examples_readme_names_every_example() -> None:
    readme = (EXAMPLES / "README.md").read_text("utf-8")
    examples = sorted(
        p.name
        for p in EXAMPLES.iterdir()
        if p.name != "README.md" and not p.name.startswith((".", "__"))
    )
    assert examples == [
        "ci-workflow.yml",
        "claude-code-settings.json",
        "gemini-settings.json",
        "harness.py",
        "mcp",
        "session.jsonl",
    ]
    for name in examples:
        assert f"`{name}`" in readme


MCP = EXAMPLES / "mcp"


def _fenced(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)


def test_mcp_registration_examples_run_memhooks_mcp() -> None:
    readme = (MCP / "README.md").read_text("utf-8")
    claude = json.loads((MCP / "claude-code.mcp.json").read_text("utf-8"))
    (codex,) = [tomllib.loads(block) for block in _fenced(readme, "toml")]
    (gemini,) = [json.loads(block) for block in _fenced(readme, "json")]
    entries = [
        claude["mcpServers"]["memhooks"],
        codex["mcp_servers"]["memhooks"],
        gemini["mcpServers"]["memhooks"],
    ]

    for entry in entries:
        assert is_ours(shlex.join([entry["command"], *entry["args"]]))
    assert "$ claude mcp add memhooks -- memhooks mcp\n" in readme
    assert "`claude-code.mcp.json`" in readme
    # Never an install from the package index: memhooks is not published there yet.
    assert "pip install 'memhooks" not in readme
    assert sorted(p.name for p in MCP.iterdir()) == [
        "README.md",
        "claude-code.mcp.json",
    ]


def test_claude_code_mcp_json_starts_a_server(
    tmp_path: Path, memory_root: Path
) -> None:
    entry = json.loads((MCP / "claude-code.mcp.json").read_text("utf-8"))
    server = entry["mcpServers"]["memhooks"]
    # As a harness would run it, with this install's `memhooks` first on PATH.
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    env["CLAUDE_PROJECT_DIR"] = str(tmp_path)
    requests: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    ]

    argv = [shutil.which(server["command"], path=env["PATH"]) or "", *server["args"]]
    replies: dict[int, Any] = {}
    with subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        # One request at a time, each answer read before the next: a client that closed
        # stdin early would see the server shut down before it answered.
        for request in requests:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            if "id" in request:
                reply = json.loads(proc.stdout.readline())
                replies[reply["id"]] = reply
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0

    assert replies[1]["result"]["serverInfo"]["name"] == "memhooks"
    names = [t["name"] for t in replies[2]["result"]["tools"]]
    assert names == [
        "memory_search",
        "memory_read",
        "memory_write",
        "memory_edit",
        "memory_forget",
    ]


@pytest.mark.parametrize(
    ("make", "said"),
    [
        pytest.param(
            lambda p: os.mkfifo(p), "cannot read {}: not a regular file", id="fifo"
        ),
        pytest.param(
            lambda p: p.write_bytes(b'\xff{"event": "session-start"}\n'),
            "cannot read {}: not UTF-8 (byte 1)",
            id="not-utf8",
        ),
        pytest.param(
            lambda p: p.write_text("\n\n"),
            "{}: no event to replay",
            id="empty",
        ),
    ],
)
@pytest.mark.parametrize("command", ["simulate", "eval"])
def test_a_script_that_cannot_be_replayed_is_one_line_not_a_hang(
    tmp_path: Path, make: Callable[[Path], object], said: str, command: str
) -> None:
    # Before: a FIFO named as the script made `simulate` and `eval` wait for ever, a
    # non-UTF-8 one made `simulate` exit 3 with a traceback, and an emptied one made
    # `simulate` print "0 passed, 0 failed" and exit 0, so a CI job passed.
    script = tmp_path / "session.jsonl"
    make(script)
    proc = run_cli(command, str(script), "--root", str(tmp_path / "root"), timeout=20)
    assert proc.returncode == 1
    if command == "eval" and said.endswith("replay"):
        said = "{}: no queries"
    assert proc.stderr == f"memhooks: error: {said.format(script)}\n"

"""Run every file in examples/ for real, so the examples can't rot (style rule 40)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from hooks.install import install
from memory import Store
from tests.conftest import REPO, run_cli

if TYPE_CHECKING:
    from pathlib import Path

    from hooks.install import Harness

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
        pytest.param('["session-start"]', id="not-an-object"),
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
        "session.jsonl",
    ]
    for name in examples:
        assert f"`{name}`" in readme

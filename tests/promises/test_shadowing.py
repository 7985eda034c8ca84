"""A user's project may hold its own `memory` and `hooks` modules: memhooks never imports them.

memhooks is installed as `memhooks.memory` and `memhooks.hooks`, and the processes it starts
run with `python -P`, so the project folder (the working directory of every hook) is never on
`sys.path`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from memhooks.hooks.wire import answers, socket_path

LOUD = 'raise ImportError("the project\'s own module was imported by memhooks")\n'
MEMHOOKS = str(Path(sys.executable).parent / "memhooks")


def _shadowing_project(tmp_path: Path) -> Path:
    project = tmp_path / "app"
    (project / ".git").mkdir(parents=True)
    for name in ("memory", "hooks"):
        (project / f"{name}.py").write_text(LOUD)
        (project / name).mkdir()
        (project / name / "__init__.py").write_text(LOUD)
    return project


def _run(
    project: Path, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MEMHOOKS, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=project,
        env={**os.environ, "MEMHOOKS_SESSION_PROCESS": "1"},
        timeout=60,
        check=False,
    )


def _event(project: Path, event: str, **fields: str) -> str:
    return json.dumps(
        {
            "session_id": "shadow-1",
            "cwd": str(project),
            "hook_event_name": event,
            **fields,
        }
    )


def test_commands_and_the_session_process_ignore_the_projects_modules(
    tmp_path: Path, memory_root: Path
) -> None:
    project = _shadowing_project(tmp_path)
    wrote = _run(
        project,
        "write",
        "--to",
        "note",
        "--name",
        "redis",
        "--text",
        "Redis in development.\nThe redis port is 6380 here.",
    )
    assert wrote.returncode == 0, wrote.stderr
    found = _run(project, "search", "redis")
    assert found.returncode == 0 and "6380" in found.stdout, found.stderr

    start = _run(
        project, "hook", stdin=_event(project, "SessionStart", source="startup")
    )
    assert start.returncode == 0 and start.stderr == "", start.stderr
    assert (
        "6380" not in start.stdout and "redis" in start.stdout
    )  # the notes index names it
    path = socket_path(str(memory_root), "shadow-1")
    deadline = time.monotonic() + 30
    while not answers(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert answers(path), (
        "the session process never listened: it could not import memhooks"
    )

    prompt = _run(
        project,
        "hook",
        stdin=_event(project, "UserPromptSubmit", prompt="which port does redis use?"),
    )
    assert prompt.returncode == 0 and prompt.stderr == "", prompt.stderr
    assert "6380" in prompt.stdout
    end = _run(project, "hook", stdin=_event(project, "SessionEnd", reason="other"))
    assert end.returncode == 0, end.stderr

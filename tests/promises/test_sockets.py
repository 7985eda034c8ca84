"""A session process can listen however deep $XDG_RUNTIME_DIR is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import TYPE_CHECKING

from memhooks.hooks.wire import answers, socket_path

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def _hook(event: str, project: Path, **fields: object) -> str:
    payload = {"session_id": "deep", "cwd": str(project), "hook_event_name": event}
    done = subprocess.run(
        [sys.executable, "-P", "-m", "memhooks.hooks", "hook"],
        input=json.dumps({**payload, **fields}),
        capture_output=True,
        text=True,
        env={**os.environ, "MEMHOOKS_SESSION_PROCESS": "1"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_runtime_dir_too_deep_for_a_socket_falls_back_to_tmp(
    memory_root: Path,
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True, mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    _hook("SessionStart", project, source="startup")
    path = socket_path(str(memory_root), "deep")
    assert len(os.fsencode(path)) <= 107
    try:
        deadline = time.monotonic() + 60
        while not answers(path) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert answers(path), "the session process never listened"
    finally:
        _hook("SessionEnd", project, reason="other")

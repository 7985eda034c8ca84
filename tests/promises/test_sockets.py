"""A session process can listen however deep $XDG_RUNTIME_DIR is."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from memhooks.hooks.wire import answers, socket_path
from memhooks.memory import Store, slug_for


def _hook(event: str, project: Path, **fields: object) -> str:
    done = _run(event, project, **fields)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _run(
    event: str, project: Path, **fields: object
) -> subprocess.CompletedProcess[str]:
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
    return done


def _listening(path: str) -> None:
    # The session process the SessionStart hook forked answers on `path` (within a
    # minute, however busy the machine).
    deadline = time.monotonic() + 60
    while not answers(path) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert answers(path), "the session process never listened"


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
        _listening(path)
    finally:
        _hook("SessionEnd", project, reason="other")


def test_a_file_where_the_socket_folder_goes_leaves_the_hooks_answering(
    memory_root: Path,
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A file named memhooks-UID in $XDG_RUNTIME_DIR: each SessionStart hook said
    # "OSError: [Errno 17] File exists: ...; no context" after giving its context.
    # (Under /tmp: a socket path under tmp_path would be too long, and not tried.)
    runtime = Path(tempfile.mkdtemp(dir="/tmp"))
    (runtime / f"memhooks-{os.getuid()}").write_text("not a folder\n")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- kiwi rule")
    store.write_note("tart", "The tart needs 300 g of kiwi.")
    try:
        done = _run("SessionStart", project, source="startup")
        assert "kiwi rule" in done.stdout
        assert done.stderr == (
            f"memhooks: cannot make {runtime}/memhooks-{os.getuid()} (File exists); "
            "no session process\n"
        )
        prompt = _hook("UserPromptSubmit", project, prompt="how much kiwi in the tart?")
        assert "300 g of kiwi" in prompt
    finally:
        _hook("SessionEnd", project, reason="other")
        shutil.rmtree(runtime)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in any folder")
def test_a_runtime_dir_we_cannot_write_falls_back_to_tmp(
    memory_root: Path,
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Another user's $XDG_RUNTIME_DIR (kept by `sudo -E`, `su`): no session process
    # could listen, and every SessionStart hook said so with an OSError.
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o500)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    path = socket_path(str(memory_root), "deep")
    assert path.startswith("/tmp/")
    try:
        assert _run("SessionStart", project, source="startup").stderr == ""
        _listening(path)
    finally:
        _hook("SessionEnd", project, reason="other")
        runtime.chmod(0o700)

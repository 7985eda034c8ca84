from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def memory_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own memory root; the home location is made unusable."""
    root = tmp_path / "root"
    monkeypatch.setenv("MEMHOOKS_HOME", str(root))
    monkeypatch.setenv("HOME", str(tmp_path / "no-home-for-tests"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    return root


def run_cli(
    *args: str,
    input: str | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 30,
) -> subprocess.CompletedProcess[str]:
    """Run the real command in a subprocess, as a harness or a person would."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "hooks", *args],
        input=input,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
        check=False,
    )

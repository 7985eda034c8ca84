"""The end-to-end tier: real harness CLIs, pinned, against a mock model API (README.md here)."""

from __future__ import annotations

import os
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.e2e.sandbox import Sandbox, netns_usable

if TYPE_CHECKING:
    from collections.abc import Iterator

INSTALL = Path(__file__).with_name("install_clis.sh")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "e2e: drives a real harness CLI (tests/e2e; needs npm and the CLIs)"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def cli_bins() -> Path:
    """The folder holding `claude`, `codex` and `gemini`, installed once per version set.

    MEMHOOKS_E2E_BINS names another such folder instead (a CLI version of your choosing).
    """
    other = os.environ.get("MEMHOOKS_E2E_BINS")
    if other:
        if not Path(other).is_dir():
            _unavailable(f"MEMHOOKS_E2E_BINS={other} is not a folder")
        return Path(other)
    done = subprocess.run(
        ["bash", str(INSTALL)], capture_output=True, text=True, check=False, timeout=900
    )
    if done.returncode != 0:
        why = done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        _unavailable(why[0])
    return Path(done.stdout.strip().splitlines()[-1]) / "node_modules" / ".bin"


@pytest.fixture(scope="session")
def netns() -> bool:
    usable = netns_usable()
    if not usable and os.environ.get("CI") == "true":
        pytest.fail(
            "CI runs as root: the tier must isolate the CLIs in a network namespace"
        )
    return usable


@pytest.fixture(scope="session")
def tmux_present() -> None:
    """Interactive sessions run under tmux."""
    if shutil.which("tmux") is None:
        _unavailable("tmux not found (apt-get install tmux)")


def _unavailable(why: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"end-to-end tier cannot run in CI: {why}")
    pytest.skip(f"end-to-end tier skipped: {why}")


@contextmanager
def sandbox(base: Path, bins: Path, netns: bool) -> Iterator[Sandbox]:
    sb = Sandbox(base, bins, netns=netns).start()
    try:
        yield sb
    finally:
        sb.close()


def capture_dir(cli: str) -> str | None:
    """Where to save the hook payloads a CLI sends (MEMHOOKS_E2E_CAPTURE), else None."""
    base = os.environ.get("MEMHOOKS_E2E_CAPTURE")
    return str(Path(base) / cli) if base else None


def runs() -> int:
    """How many `claude -p` runs the repeated-run test makes (MEMHOOKS_E2E_RUNS)."""
    return int(os.environ.get("MEMHOOKS_E2E_RUNS", "5"))

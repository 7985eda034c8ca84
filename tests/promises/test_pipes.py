"""A reader that stops early (`memhooks … | head -1`) ends memhooks quietly."""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

from tests.conftest import REPO

if TYPE_CHECKING:
    from pathlib import Path


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path: Path) -> None:
    # `simulate` writes line by line while it replays: still writing when `head` leaves.
    argv = ["simulate", str(REPO / "examples" / "session.jsonl")]
    proc = subprocess.Popen(
        [sys.executable, "-P", "-m", "memhooks.hooks", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline()  # what `head -1` reads, then it exits
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert (proc.wait(timeout=60), err) == (0, "")

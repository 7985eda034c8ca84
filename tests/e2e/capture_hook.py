"""Save a hook's stdin, then run the real hook command on it (MEMHOOKS_E2E_CAPTURE=DIR).

    capture_hook.py DIR -- COMMAND...

writes DIR/<n>-<hook_event_name>.json (the payload as the harness sent it) and passes
stdin, stdout, stderr and the exit code of COMMAND through unchanged.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    outdir = Path(argv[0])
    command = " ".join(argv[argv.index("--") + 1 :])
    payload = sys.stdin.buffer.read()
    try:
        event = str(json.loads(payload).get("hook_event_name", "unknown"))
    except (ValueError, AttributeError):
        event = "unparsed"
    outdir.mkdir(parents=True, exist_ok=True)
    (outdir / f"{time.time_ns()}-{event}.json").write_bytes(payload)
    done = subprocess.run(
        command, shell=True, input=payload, check=False, env=os.environ
    )
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

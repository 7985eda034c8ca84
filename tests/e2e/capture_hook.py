"""Save a hook's stdin, then run the real hook command on it (MEMHOOKS_E2E_CAPTURE=DIR).

    capture_hook.py DIR -- COMMAND...

writes DIR/<n>-<hook_event_name>.json (the payload as the harness sent it) and passes
stdin, stdout, stderr and the exit code of COMMAND through unchanged; what COMMAND wrote
on stderr is kept in DIR/<n>-<hook_event_name>.err and its exit code in `.rc`.

This process becomes the `sh` that runs COMMAND: a hook's harness is its parent past
the shells (`hooks/spawn.py`), and a Python process in between would make the session
process take this wrapper, gone once the hook returned, for a harness that quit.

With MEMHOOKS_E2E_HOLD=EVENT:LATER in its environment, the hook of EVENT starts only
once a hook of event LATER the harness ran after it has returned (30 s at most): the
harness's second hook handled first, whatever the machine's load.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> None:
    outdir = Path(argv[0])
    command = " ".join(argv[argv.index("--") + 1 :])
    payload = sys.stdin.buffer.read()
    try:
        event = str(json.loads(payload).get("hook_event_name", "unknown"))
    except (ValueError, AttributeError):
        event = "unparsed"
    outdir.mkdir(parents=True, exist_ok=True)
    stem = outdir / f"{time.time_ns()}-{event}"
    sent, err, rc = (shlex.quote(f"{stem}{x}") for x in (".json", ".err", ".rc"))
    stem.with_suffix(".json").write_bytes(payload)
    held, _, later = os.environ.get("MEMHOOKS_E2E_HOLD", "").partition(":")
    if held == event:
        _wait_for_later(outdir, later, time.time_ns())
    script = (
        f"{command} <{sent} 2>{err}; rc=$?; cat {err} >&2; "
        f'printf %s "$rc" >{rc}; exit "$rc"'
    )
    os.execve("/bin/sh", ["sh", "-c", script], os.environ)


def _wait_for_later(outdir: Path, event: str, since: int) -> None:
    # Until a hook of `event` whose payload came after `since` (ns) has returned (its
    # exit code saved in `outdir`), 30 s at most.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if any(int(p.name.split("-")[0]) > since for p in outdir.glob(f"*-{event}.rc")):
            return
        time.sleep(0.05)


if __name__ == "__main__":
    main(sys.argv[1:])

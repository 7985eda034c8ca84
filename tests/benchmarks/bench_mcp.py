"""How long `memhooks mcp` takes to answer a client's first message, and to list its
tools; a script, not a test.

    .venv/bin/python -m tests.benchmarks.bench_mcp [--runs 11] [--against PYTHONPATH]

A fresh server per run, as a harness starts one: the time from its start to its answer to
`initialize`, and to its answer to `tools/list` sent after it (the handshake a harness
makes before a turn can use the tools), medians of ``--runs``, interleaved with a bare interpreter start (``python
-c pass``), the floor any Python server pays. ``--against`` runs a second server with that
``PYTHONPATH`` in between (another checkout's `memhooks` package, e.g. one that used the
mcp SDK). Codex CLI 0.171.0 waits about 1.1 s for an optional server before a turn.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

_LIST = [
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]
_HELLO = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


def _answered(env: dict[str, str], root: str) -> tuple[float, float]:
    argv = [sys.executable, "-m", "memhooks.hooks", "mcp", "--root", root]
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(_HELLO).encode() + b"\n")
    proc.stdin.flush()
    reply = json.loads(proc.stdout.readline())
    first = time.perf_counter() - start
    assert reply["id"] == 1 and "result" in reply, reply
    proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in _LIST))
    proc.stdin.flush()
    reply = json.loads(proc.stdout.readline())
    listed = time.perf_counter() - start
    assert reply["id"] == 2 and reply["result"]["tools"], reply
    proc.stdin.close()
    proc.wait()
    proc.stdout.close()
    return first, listed


def _bare() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--against", metavar="PYTHONPATH")
    args = parser.parse_args()
    times: dict[str, list[float]] = {"python -c pass": []}
    servers = {"memhooks mcp": None, "--against": args.against}
    with tempfile.TemporaryDirectory() as root:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        for _ in range(args.runs):
            times["python -c pass"].append(_bare())
            for name, path in servers.items():
                if name == "memhooks mcp" or path:
                    first, listed = _answered(
                        env if path is None else {**env, "PYTHONPATH": path}, root
                    )
                    times.setdefault(f"{name}: initialize", []).append(first)
                    times.setdefault(f"{name}: tools/list", []).append(listed)
    for name, got in times.items():
        print(f"{name:28} median {statistics.median(got) * 1000:6.0f} ms")


if __name__ == "__main__":
    main()

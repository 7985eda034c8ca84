"""Load: one session process under a flood of events, and many sessions writing at once."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import threading
import time
from typing import IO, TYPE_CHECKING

import pytest

from memhooks.memory import Store, slug_for

if TYPE_CHECKING:
    from pathlib import Path

EVENTS = 10_000
WRITERS = 8
ROUNDS = 10  # per writer: a pre-compaction flush and a harness summary each
_WORDS = [
    "kafka",
    "redis",
    "celery",
    "invoice",
    "billing",
    "export",
    "auth",
    "gateway",
    "cache",
    "queue",
    "worker",
    "deploy",
    "migration",
    "schema",
    "index",
    "lag",
    "retry",
    "timeout",
    "webhook",
    "stripe",
    "vault",
    "token",
    "rollout",
    "canary",
    "metrics",
    "alert",
    "dashboard",
    "backup",
    "restore",
    "replica",
    "shard",
    "tenant",
    "quota",
    "budget",
    "report",
    "search",
    "ranking",
    "parser",
    "lexer",
    "config",
    "logging",
    "tracing",
]


def _session(root: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "memhooks.hooks", "session", "--root", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _reap(proc: subprocess.Popen[bytes]) -> None:
    """Kill the session process if it still runs (a failed test), and close its pipes."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream:
            stream.close()


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")  # pragma: no cover (Linux always has it)


def _events(project: Path) -> list[bytes]:
    """Mostly prompts made of a 400-word vocabulary, with a few starts and summaries."""
    rng = random.Random(10_000)
    vocab = [f"{w}{n}" if n else w for w in _WORDS for n in range(10)]
    base = {"session_id": "load", "cwd": str(project)}
    out = []
    for i in range(EVENTS):
        if i % 1000 == 0:
            event = {**base, "event": "session-start"}
        elif i % 500 == 250:
            event = {**base, "event": "post-compaction", "summary": f"summary {i}"}
        else:
            words = rng.sample(vocab, rng.randint(1, 6))
            event = {**base, "event": "pre-prompt", "prompt": " ".join(words)}
        out.append(json.dumps({**event, "id": i}).encode() + b"\n")
    return out


@pytest.mark.timeout(120)
def test_a_flood_of_events_is_answered_in_order_in_bounded_memory(
    memory_root: Path, project: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- kafka consumers restart nightly\n- redis runs on 6380")
    for i, word in enumerate(_WORDS):
        store.write_note(
            f"{word}", f"# {word}\n{word}{i % 10} notes: {word} and {_WORDS[i - 1]}"
        )
    lines = _events(project)
    proc = _session(memory_root)
    assert proc.stdin and proc.stdout

    def write_all(stdin: IO[bytes]) -> None:
        for line in lines:  # as fast as the pipe takes them; stdin stays open
            stdin.write(line)
        stdin.flush()

    start = time.monotonic()
    writer = threading.Thread(target=write_all, args=(proc.stdin,), daemon=True)
    writer.start()
    ids, errors, rss = [], [], {}
    try:
        for n in range(1, EVENTS + 1):
            line = proc.stdout.readline()
            assert line, proc.stderr.read().decode() if proc.stderr else ""
            reply = json.loads(line)
            ids.append(reply.get("id"))
            if reply.get("ok") is not True:
                errors.append(reply)
            if n in (1000, 2500, 5000, 7500, EVENTS):
                rss[n] = _rss_kib(proc.pid)
        elapsed = time.monotonic() - start
        writer.join(10)
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0
    finally:
        _reap(proc)
    # Figures for the README's reliability section (shown with `pytest -s`).
    sys.stderr.write(
        f"\n{EVENTS} events in {elapsed:.1f} s ({EVENTS / elapsed:.0f}/s); "
        f"VmRSS KiB by replies answered: {rss}\n"
    )
    assert ids == list(range(EVENTS))  # every one answered, in order
    assert errors == []
    assert rss[EVENTS] < rss[1000] + 30 * 1024  # no growth without bound
    log = "".join(p.read_text() for p in memory_root.rglob("daily/*.md"))
    assert log.count("— compaction summary (from the harness)") == EVENTS // 500


def _drive(root: Path, project: Path, tmp: Path, w: int, failures: list[str]) -> None:
    """One session: ROUNDS prompts flushed from its transcript, ROUNDS harness summaries."""
    transcript = tmp / f"t{w}.jsonl"
    transcript.touch()
    proc = _session(root)
    assert proc.stdin and proc.stdout
    base = {"session_id": f"w{w}", "cwd": str(project)}
    try:
        for j in range(ROUNDS):
            with transcript.open("a") as f:
                record = {"type": "user", "message": {"content": f"prompt {w}/{j}"}}
                f.write(json.dumps(record) + "\n")
            for event in (
                {"event": "pre-compaction", "transcript_path": str(transcript)},
                {"event": "post-compaction", "summary": f"summary {w}/{j}"},
            ):
                proc.stdin.write(json.dumps({**base, **event}).encode() + b"\n")
                proc.stdin.flush()
                reply = json.loads(proc.stdout.readline())
                if reply.get("ok") is not True:
                    failures.append(f"w{w} round {j}: {reply}")
        proc.stdin.close()
        proc.wait(timeout=10)
    finally:
        _reap(proc)


def test_concurrent_sessions_on_one_project_keep_every_entry(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    failures: list[str] = []
    threads = [
        threading.Thread(
            target=_drive, args=(memory_root, project, tmp_path, w, failures)
        )
        for w in range(WRITERS)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert failures == []
    log = "".join(p.read_text() for p in memory_root.rglob("daily/*.md"))
    flushed = re.findall(r"^- prompt (\d)/(\d+)$", log, re.MULTILINE)
    summaries = re.findall(r"^> summary (\d)/(\d+)$", log, re.MULTILINE)
    expected = {(str(w), str(j)) for w in range(WRITERS) for j in range(ROUNDS)}
    assert sorted(flushed) == sorted(expected)  # each exactly once
    assert sorted(summaries) == sorted(expected)
    assert log.count("### ") == 2 * WRITERS * ROUNDS
    assert not list(memory_root.rglob(".*.tmp"))

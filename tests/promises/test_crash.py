"""Crash safety of the store: SIGKILL at random moments, and a disk that refuses writes.

The kill loop forks writers from a single-threaded helper process (a "zygote"), so that
each kill costs a fork rather than an interpreter start, and checks every file between
kills: each must be in a state some sequence of whole writes could have left.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import hashlib
import io
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import pytest

from memhooks.hooks.cli import main
from memhooks.memory import Store, StoreWriteError, build_block, search_docs, swap
from memhooks.memory.files import private_folder, write_atomic
from tests.conftest import REPO

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

SLUG = "crash-0123abcd"
KILLS = 220
OPS = {
    "d": "append_daily",
    "n": "write_note overwrite",
    "m": "write_memory append",
    "e": "edit",
    "s": "write_scratchpad append",
    "t": "write_atomic (a session state)",
}
_TMP = re.compile(r"\..+\.\d+\.[0-9a-f]{8}\.tmp")


# -- what the writers write, and how each file is recognised as whole ------------------


def _day(seed: int) -> dt.datetime:
    return dt.datetime(2026, 3, 1 + seed % 5, 9, 30).astimezone()


def _entry(seed: int, i: int, size: int) -> tuple[str, str]:
    return f"entry {seed}.{i}", f"begin {seed}.{i}\n{'x' * size}\nend {seed}.{i}"


_ENTRY = r"### \d\d:\d\d — entry (\d+\.\d+)\nbegin \1\nx*\nend \1\n"
_DAILY_FIRST = re.compile(_ENTRY)
_DAILY_NEXT = re.compile(r"\n" + _ENTRY)


def _version(seed: int, i: int, size: int) -> str:
    filler = "y" * size
    digest = hashlib.sha256(filler.encode()).hexdigest()[:16]
    return f"version {seed}.{i}\n{filler}\nend {seed}.{i} {digest}\n"


_VERSION = re.compile(r"version (\d+\.\d+)\n(y*)\nend \1 ([0-9a-f]{16})\n")
_FACT = re.compile(r"- fact \d+\.\d+ m*")
_ITEM = re.compile(r"- \[ \] item \d+\.\d+ i*")
_COUNTER_FILLER = "z" * 30_000 + "\n"
_COUNTER = re.compile(r"counter: (\d+)\n" + _COUNTER_FILLER)


def _writer(root: str, seed: int, progress: int) -> None:
    """Loop writes of every kind until killed; report each op's letter before it starts."""
    rng = random.Random(seed)
    store = Store(Path(root), SLUG)
    for i in range(1_000_000):
        op = rng.choice("ddnnmest")
        os.write(progress, op.encode())
        if op == "d":
            title, body = _entry(seed, i, rng.randrange(4000))
            store.append_daily(title, body, now=_day(seed))
        elif op == "n":
            text = _version(seed, i, rng.randrange(60_000))
            store.write_note("versioned", text, mode="overwrite")
        elif op == "m":
            store.write_memory(f"- fact {seed}.{i} {'m' * rng.randrange(300)}")
        elif op == "e":
            text = store.read_text(f"projects/{SLUG}/notes/counter.md")
            n = int(text.split("\n", 1)[0].removeprefix("counter: "))
            store.edit("notes/counter", f"counter: {n}\n", f"counter: {n + 1}\n")
        elif op == "s":
            store.write_scratchpad(f"item {seed}.{i} {'i' * rng.randrange(300)}")
        else:
            state = Path(root, ".sessions", "crash.json")
            private_folder(state.parent)
            write_atomic(
                state, json.dumps({"seed": seed, "i": i}).encode(), durable=True
            )


def _zygote() -> None:
    """Fork a writer per request line ("ROOT SEED DELAY"), SIGKILL it after DELAY seconds
    and answer with how it ended and which op it was in. Single-threaded, so fork is safe.
    """
    for line in sys.stdin:
        root, seed, delay = line.split()
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover (runs in the forked child)
            os.close(read_end)
            try:
                _writer(root, int(seed), write_end)
            finally:
                traceback.print_exc()  # a writer that stops before the kill is a bug
                os._exit(1)
        os.close(write_end)
        # Start the clock once the first write has begun, however slow the fork was.
        ops = os.read(read_end, 1)
        time.sleep(float(delay))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        while chunk := os.read(read_end, 65536):
            ops += chunk
        os.close(read_end)
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        sys.stdout.write(json.dumps({"killed": killed, "ops": ops.decode()}) + "\n")
        sys.stdout.flush()


# -- checks -----------------------------------------------------------------------------


class Snapshot:
    """What the files held after the previous kill: appends may only add whole entries."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.before: dict[str, str] = {}
        self.counter = 0
        self.temps_seen: set[str] = set()

    def check(self) -> None:
        base = self.root / "projects" / SLUG
        for path in sorted((base / "daily").glob("*.md")):
            self._appended(path, self._daily_tail)
        for name in ("versioned.md", "versioned.md.bak"):
            if (base / "notes" / name).exists():
                _check_version((base / "notes" / name).read_text())
        self._appended(self.root / "MEMORY.md", _lines_match(_FACT))
        self._appended(base / "SCRATCHPAD.md", _lines_match(_ITEM))
        counter = _COUNTER.fullmatch((base / "notes/counter.md").read_text())
        assert counter, "counter note torn"
        assert int(counter[1]) >= self.counter
        self.counter = int(counter[1])
        for state in (self.root / ".sessions").glob("*.json"):
            assert set(json.loads(state.read_text())) == {"seed", "i"}
        self.temps_seen |= {
            str(p) for p in self.root.rglob(".*.tmp") if _TMP.fullmatch(p.name)
        }
        store = Store(self.root, SLUG)
        assert not any(_TMP.search(loc.rel) for loc in store.files())

    def _appended(self, path: Path, check_tail: Callable[[str, bool], None]) -> None:
        if not path.exists():
            assert str(path) not in self.before, f"{path.name} vanished"
            return
        text = path.read_text()
        old = self.before.get(str(path), "")
        assert text.startswith(old), f"{path.name} lost data that was stored"
        check_tail(text[len(old) :], not old)
        self.before[str(path)] = text

    @staticmethod
    def _daily_tail(tail: str, first: bool) -> None:
        pos = 0
        if first:
            m = _DAILY_FIRST.match(tail)
            assert m, f"torn first entry: {tail[:80]!r}"
            pos = m.end()
        while pos < len(tail):
            m = _DAILY_NEXT.match(tail, pos)
            assert m, f"torn entry: {tail[pos : pos + 80]!r}"
            pos = m.end()


def _lines_match(pattern: re.Pattern[str]) -> Callable[[str, bool], None]:
    def check(tail: str, first: bool) -> None:
        assert tail.endswith("\n") or not tail
        for line in tail.splitlines():
            assert not line or pattern.fullmatch(line), f"torn line: {line[:80]!r}"

    return check


def _check_version(text: str) -> None:
    m = _VERSION.fullmatch(text)
    assert m, f"torn note version: {text[:40]!r}…{text[-40:]!r}"
    assert hashlib.sha256(m[2].encode()).hexdigest()[:16] == m[3]


def _check_readers(root: Path) -> None:
    """Search and injection see whole files only, and never a temp file."""
    store = Store(root, SLUG)
    docs = store.corpus()
    assert not any(_TMP.search(rel) for rel in docs)
    block = build_block(docs, "2026-03-05")
    assert ".tmp" not in block
    hits = search_docs(docs.values(), "entry version fact counter item").hits
    assert hits and not any(".tmp" in h.rel for h in hits)


@contextlib.contextmanager
def _zygote_process() -> Iterator[subprocess.Popen[str]]:
    code = "from tests.promises.test_crash import _zygote; _zygote()"
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        yield proc
    finally:
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=10)
        if proc.stdout:
            proc.stdout.close()


def test_sigkill_at_random_points_never_tears_a_file(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_note("counter", "counter: 0\n" + _COUNTER_FILLER)
    snap = Snapshot(memory_root)
    rng = random.Random(20261130)
    in_flight: Counter[str] = Counter()
    start = time.monotonic()
    with _zygote_process() as zygote:
        assert zygote.stdin and zygote.stdout
        for seed in range(KILLS):
            zygote.stdin.write(f"{memory_root} {seed} {rng.uniform(0.0, 0.012):.4f}\n")
            zygote.stdin.flush()
            result: dict[str, Any] = json.loads(zygote.stdout.readline())
            assert result["killed"], "a writer failed before it was killed"
            in_flight[OPS[result["ops"][-1]]] += 1
            snap.check()
            if seed % 20 == 0:
                _check_readers(memory_root)
    _check_readers(memory_root)
    elapsed = time.monotonic() - start
    # Figures for the README's reliability section (shown with `pytest -s`).
    sys.stderr.write(
        f"\n{KILLS} kills in {elapsed:.1f} s; op in flight at the kill: "
        f"{dict(in_flight)}; temp files left by kills mid-write: {len(snap.temps_seen)}\n"
    )
    assert sum(in_flight.values()) == KILLS >= 200
    assert len(in_flight) == len(OPS)  # every kind of write was interrupted
    assert snap.temps_seen  # some kills did land between temp file and rename


# -- stale temp files ---------------------------------------------------------------------


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid  # reaped: no such process any more


def test_stale_temp_files_are_swept_and_fresh_ones_kept(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_note("n", "first")
    notes = memory_root / "projects" / SLUG / "notes"
    old = time.time() - 3600
    stale = notes / f".n.md.{_dead_pid()}.0123abcd.tmp"
    fresh = notes / f".n.md.{_dead_pid()}.89abcdef.tmp"
    live = notes / f".n.md.{os.getpid()}.deadbeef.tmp"
    other = notes / ".n.md.tmp"  # not our name pattern: never touched
    for p in (stale, fresh, live, other):
        p.write_text("half a wri")
    for p in (stale, live, other):
        os.utime(p, (old, old))
    assert set(store.corpus()) == {f"projects/{SLUG}/notes/n.md"}
    store.write_note("n", "second", mode="overwrite")
    assert not stale.exists()
    assert fresh.exists() and live.exists() and other.exists()
    assert (notes / "n.md").read_text() == "second\n"


# -- a disk that refuses: full, read-only --------------------------------------------------


def _enospc(*_: object, **__: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _erofs(*_: object, **__: object) -> None:
    raise OSError(errno.EROFS, os.strerror(errno.EROFS))


class _FullFile:
    """A file whose every write fails as on a full disk."""

    def __init__(self, real: io.TextIOWrapper) -> None:
        self.real = real

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.real.close()

    def write(self, text: str) -> int:
        self.real.write(text[: len(text) // 2])
        self.real.flush()  # half of it reaches the temp file, then the disk is full
        _enospc()
        return 0

    def flush(self) -> None:
        self.real.flush()

    def fileno(self) -> int:
        return self.real.fileno()


def _break(monkeypatch: pytest.MonkeyPatch, seam: str) -> None:
    """Make the disk refuse writes at one seam of `memory.files.write_atomic`."""
    if seam == "write":
        real = os.fdopen
        monkeypatch.setattr(os, "fdopen", lambda *a, **k: _FullFile(real(*a, **k)))
    elif seam == "fsync":
        monkeypatch.setattr(os, "fsync", _enospc)
    elif seam == "rename":  # a plain rename, or the atomic swap where Linux has one
        monkeypatch.setattr(os, "replace", _erofs)
        monkeypatch.setattr(swap, "exchange", _erofs)
    else:  # a read-only file system refuses to create anything, lock file included
        real_open = os.open

        def ro_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
                _erofs()
            return real_open(path, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", ro_open)


SEAMS = [
    pytest.param("write", "No space left on device", id="disk-full-on-write"),
    pytest.param("fsync", "No space left on device", id="disk-full-on-fsync"),
    pytest.param("rename", "Read-only file system", id="read-only-on-rename"),
    pytest.param("open", "Read-only file system", id="read-only-root"),
]
WRITES: list[tuple[str, Callable[[Store], object]]] = [
    ("daily", lambda s: s.append_daily("more", "new body", now=_day(0))),
    ("note", lambda s: s.write_note("n", "replaced", mode="overwrite")),
    ("note-append", lambda s: s.write_note("n", "appended")),
    ("memory", lambda s: s.write_memory("- a new fact")),
    ("memory-overwrite", lambda s: s.write_memory("all new", mode="overwrite")),
    ("scratchpad", lambda s: s.write_scratchpad("new item")),
    ("edit", lambda s: s.edit("notes/n", "kept", "changed")),
]


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".memhooks.lock"
    }


@pytest.mark.parametrize(("seam", "reason"), SEAMS)
@pytest.mark.parametrize("write", [pytest.param(w, id=name) for name, w in WRITES])
def test_refused_write_is_one_clear_error_and_loses_nothing(
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    seam: str,
    reason: str,
    write: Callable[[Store], object],
) -> None:
    store = Store(memory_root, SLUG)
    store.write_memory("- an old fact")
    store.write_scratchpad("old item")
    store.write_note("n", "kept")
    store.append_daily("old", "old body", now=_day(0))
    before = _tree(memory_root)
    with monkeypatch.context() as m:
        _break(m, seam)
        with pytest.raises(StoreWriteError) as info:
            write(store)
    message = str(info.value)
    assert "\n" not in message and message.startswith("cannot write ")
    assert message.endswith(reason)
    assert _tree(memory_root) == before  # nothing changed, no temp file left


@pytest.mark.parametrize(("seam", "reason"), SEAMS)
def test_refused_write_via_the_command(
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    seam: str,
    reason: str,
) -> None:
    Store(memory_root, SLUG).write_memory("- an old fact")
    before = _tree(memory_root)
    with monkeypatch.context() as m:
        _break(m, seam)
        code = main(["write", "--slug", SLUG, "--to", "memory", "--text", "- new"])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    what = _rel(memory_root, seam)
    assert err.splitlines() == [f"memhooks: error: cannot write {what}: {reason}"]
    assert _tree(memory_root) == before


def _rel(root: Path, seam: str) -> str:
    # The lock, the first thing a write opens, is named in full: it says which root.
    return str(root / ".memhooks.lock") if seam == "open" else "MEMORY.md"


def test_refused_flush_fails_open_and_is_retried(
    memory_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A compaction's flush on a full disk: exit 0, one stderr line; the next has it all."""
    transcript = tmp_path / "t.jsonl"
    line = {"type": "user", "message": {"role": "user", "content": "rename billing"}}
    transcript.write_text(json.dumps(line) + "\n")
    project = tmp_path / "shop"
    project.mkdir()

    def payload(event: str) -> str:
        return json.dumps(
            {
                "hook_event_name": event,
                "session_id": "s",
                "cwd": str(project),
                "transcript_path": str(transcript),
                "trigger": "auto",
            }
        )

    class Stdin:
        def __init__(self, event: str = "PostCompact") -> None:
            self.buffer = io.BytesIO(payload(event).encode())

    # The flush is written once the harness has compacted (PostCompact).
    assert main(["hook"], stdin=Stdin("PreCompact"), stdout=io.StringIO()) == 0  # type: ignore[arg-type]
    with monkeypatch.context() as m:
        _break(m, "fsync")
        code = main(["hook"], stdin=Stdin(), stdout=io.StringIO())  # type: ignore[arg-type]
    err = capsys.readouterr().err
    assert code == 0
    assert len(err.splitlines()) == 1 and "No space left on device" in err
    assert not list(memory_root.rglob("daily/*.md"))
    assert not list(memory_root.rglob(".*.tmp"))
    assert main(["hook"], stdin=Stdin(), stdout=io.StringIO()) == 0  # type: ignore[arg-type]
    (log,) = memory_root.rglob("daily/*.md")
    assert "rename billing" in log.read_text()

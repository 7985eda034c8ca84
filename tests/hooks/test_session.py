"""`memhooks session`: one process per session, JSON lines both ways, watcher-driven re-reads."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import IO, TYPE_CHECKING, Self, cast

import pytest

from memhooks.hooks.wire import MAX_REQUEST
from memhooks.memory import Store, slug_for

if TYPE_CHECKING:
    import io
    from pathlib import Path


class Session:
    """A real `memhooks session` process driven over its pipes."""

    def __init__(self, root: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "memhooks.hooks",
                "session",
                "--root",
                str(root),
                *args,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def send(self, **event: object) -> dict[str, object]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(event) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, self.stderr()
        reply: dict[str, object] = json.loads(line)
        return reply

    def close_stdin(self) -> float:
        """Close stdin and return how long the process took to exit."""
        assert self.proc.stdin is not None
        start = time.monotonic()
        self.proc.stdin.close()
        self.proc.wait(timeout=10)
        return time.monotonic() - start

    def stderr(self) -> str:
        stream: IO[str] | None = self.proc.stderr
        return stream.read() if stream and self.proc.poll() is not None else ""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def test_an_edit_on_disk_is_found_by_the_next_event(
    memory_root: Path, project: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- rule")
    store.write_note("queue", "Celery visibility_timeout is 3600 seconds.")
    store.write_note("other", "unrelated text")
    with Session(memory_root) as s:
        first = s.send(event="session-start", session_id="s", cwd=str(project), id=1)
        assert (
            first["ok"] is True and first["id"] == 1 and "rule" in str(first["context"])
        )
        reply = s.send(
            event="pre-prompt",
            session_id="s",
            cwd=str(project),
            prompt="kafka consumer lag alerts",
            id=2,
        )
        assert reply["context"] == "" and "reread" not in reply
        store.write_note("kafka", "Kafka consumer lag alerts fire at 10k messages.")
        time.sleep(
            0.5
        )  # the watcher's debounce is 30 ms; a person's edit comes seconds before a prompt
        reply = s.send(
            event="pre-prompt",
            session_id="s",
            cwd=str(project),
            prompt="kafka consumer lag alerts",
            id=3,
        )
        assert f"projects/{store.slug}/notes/kafka.md" in str(reply["context"])
        assert "10k messages" in str(reply["context"])
        assert reply["reread"] == [
            f"projects/{store.slug}/notes/kafka.md"
        ]  # only the edited file
        assert s.close_stdin() < 1.0
        assert s.proc.returncode == 0


def test_a_file_named_in_latin1_leaves_the_session_finding_edits(
    memory_root: Path, project: Path
) -> None:
    # Before: the first time anything read notes/caf\xe9.md (a name that is not UTF-8),
    # watchfiles gave up for good ("Unable to decode path ... to string") and the
    # session process died with a traceback (exit 3): no reply to any later event.
    store = Store(memory_root, slug_for(str(project)))
    store.write_memory("- rule")
    store.write_note("ok", "x")
    bad = memory_root / "projects" / store.slug / "notes" / os.fsdecode(b"caf\xe9.md")
    bad.write_text("pastry order\n")
    with Session(memory_root) as s:
        s.send(event="session-start", session_id="s", cwd=str(project), id=1)
        bad.read_bytes()  # what a search or a person's editor does
        time.sleep(0.5)  # the watcher's debounce is 30 ms
        store.write_note("kafka", "Kafka consumer lag alerts fire at 10k messages.")
        time.sleep(0.5)
        reply = s.send(
            event="pre-prompt",
            session_id="s",
            cwd=str(project),
            prompt="kafka consumer lag alerts",
            id=2,
        )
        assert "10k messages" in str(reply["context"])
        assert s.close_stdin() < 5.0
        assert s.proc.returncode == 0
        assert "Traceback" not in s.stderr()


def test_session_end_ends_the_process(memory_root: Path, project: Path) -> None:
    Store(memory_root, slug_for(str(project))).write_memory("- rule")
    with Session(memory_root) as s:
        s.send(event="session-start", session_id="s", cwd=str(project))
        reply = s.send(event="session-end", session_id="s", cwd=str(project), id="end")
        assert reply == {"event": "session-end", "ok": True, "context": "", "id": "end"}
        assert s.proc.wait(timeout=2) == 0


def test_input_closed_before_session_end_still_records_the_session(
    memory_root: Path, project: Path
) -> None:
    # A harness killed (or its pipe closed) before it sent session-end: the prompts the
    # session held went nowhere and its state file stayed in .sessions/ for good, where
    # a session process over a socket writes the record as it leaves (design.md).
    store = Store(memory_root, slug_for(str(project)))
    with Session(memory_root) as s:
        s.send(event="session-start", session_id="s", cwd=str(project))
        s.send(
            event="pre-prompt", session_id="s", cwd=str(project), prompt="rotate keys"
        )
        assert list((memory_root / ".sessions").glob("*.json"))
        s.close_stdin()
        assert s.proc.returncode == 0
    (log,) = (memory_root / "projects" / store.slug / "daily").glob("*.md")
    text = log.read_text()
    assert "— session end" in text and "- rotate keys" in text
    assert not list((memory_root / ".sessions").glob("*.json"))


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_session_process_stopped_by_a_signal_records_its_session(
    memory_root: Path, project: Path, signum: int
) -> None:
    # Node's child.kill() sends SIGTERM; a closed terminal, SIGHUP. The process died on
    # the spot: the session's prompts never reached the daily log, its state stayed.
    store = Store(memory_root, slug_for(str(project)))
    with Session(memory_root) as s:
        s.send(event="session-start", session_id="s", cwd=str(project))
        s.send(event="pre-prompt", session_id="s", cwd=str(project), prompt="ship it")
        s.proc.send_signal(signum)
        assert s.proc.wait(timeout=10) == 0
    (log,) = (memory_root / "projects" / store.slug / "daily").glob("*.md")
    assert "— session end" in log.read_text() and "- ship it" in log.read_text()
    assert not list((memory_root / ".sessions").glob("*.json"))


def test_a_root_that_cannot_be_made_is_one_line_not_a_traceback(
    tmp_path: Path,
) -> None:
    # A HOME on a read-only disk, a file where the root's folder should be: the process
    # died with "internal error: OSError" and a 40-line traceback (exit 3).
    blocker = tmp_path / "data"
    blocker.write_bytes(b"a person's file\n")
    with Session(blocker / "memhooks") as s:
        s.close_stdin()
        assert s.proc.returncode == 1
        err = s.stderr()
    assert err.startswith(f"memhooks: error: cannot write {blocker / 'memhooks'}: ")
    assert len(err.splitlines()) == 1, err
    assert blocker.read_bytes() == b"a person's file\n"


def test_an_error_quoting_a_huge_event_name_stays_short(memory_root: Path) -> None:
    # The reply and the stderr line quoted a 1 MB event name whole.
    with Session(memory_root) as s:
        reply = s.send(event="x" * 1_000_000, id=7)
        s.close_stdin()
        err = s.stderr()
    error = str(reply["error"])
    assert reply["id"] == 7 and len(error.encode()) <= 1000
    assert error.startswith("unknown event 'xxx") and error.endswith("session-end")
    (line,) = err.splitlines()
    assert len(line.encode()) <= 1100


def test_a_bad_line_gets_an_error_reply_and_the_session_goes_on(
    memory_root: Path, project: Path
) -> None:
    with Session(memory_root) as s:
        assert s.proc.stdin is not None and s.proc.stdout is not None
        s.proc.stdin.write("{broken\n")
        s.proc.stdin.flush()
        bad = json.loads(s.proc.stdout.readline())
        assert bad["ok"] is False and "not JSON" in bad["error"]
        unknown = s.send(event="nope", id=4)
        assert (
            unknown["ok"] is False
            and unknown["id"] == 4
            and "unknown event 'nope'" in str(unknown["error"])
        )
        ok = s.send(
            event="pre-prompt",
            session_id="s",
            cwd=str(project),
            prompt="anything here",
            id=5,
        )
        assert ok["ok"] is True and ok["id"] == 5
        assert s.close_stdin() < 1.0


def test_claude_code_dialect_over_a_session(memory_root: Path, project: Path) -> None:
    Store(memory_root, slug_for(str(project))).write_memory("- rule for claude")
    with Session(memory_root, "--harness", "claude-code") as s:
        reply = s.send(
            hook_event_name="SessionStart",
            session_id="c",
            cwd=str(project),
            source="startup",
        )
        assert reply["hookSpecificOutput"]["additionalContext"].startswith("<memory")  # type: ignore[index]
        assert (
            s.send(
                hook_event_name="PreCompact",
                session_id="c",
                cwd=str(project),
                trigger="auto",
            )
            == {}
        )
        assert s.close_stdin() < 1.0


def test_a_harness_that_stops_reading_still_gets_its_session_recorded(
    memory_root: Path, project: Path
) -> None:
    with Session(memory_root) as s:
        assert s.proc.stdin is not None and s.proc.stdout is not None
        s.send(event="session-start", session_id="s", cwd=str(project))
        s.proc.stdout.close()  # the harness reads no more replies (`| head -n 1`)
        for event in (
            {"event": "pre-prompt", "prompt": "redis port in staging"},
            {"event": "session-end"},
        ):
            s.proc.stdin.write(
                json.dumps({**event, "session_id": "s", "cwd": str(project)}) + "\n"
            )
            s.proc.stdin.flush()
        assert s.proc.wait(timeout=10) == 0
        errors = s.stderr().splitlines()
    assert len(errors) == 1 and "replies could not be written" in errors[0], errors
    log = "".join(p.read_text() for p in memory_root.rglob("daily/*.md"))
    assert "session end" in log and "redis port in staging" in log


def test_a_line_past_the_limit_is_dropped_as_it_streams_and_the_next_is_answered(
    memory_root: Path, project: Path
) -> None:
    size = 7 * MAX_REQUEST  # read whole, it would take more than the line's size
    # Its id comes first: the error reply carries it (it had none).
    huge = b'{"id": 2, "event": "pre-prompt", "prompt": "' + b"x" * size + b'"}\n'
    with Session(memory_root) as s:
        assert s.proc.stdin is not None and s.proc.stdout is not None
        s.send(event="session-start", session_id="s", cwd=str(project))
        s.proc.stdin.flush()
        cast("io.TextIOWrapper", s.proc.stdin).buffer.write(huge)
        del huge
        refused = json.loads(s.proc.stdout.readline())
        assert refused["ok"] is False and refused["id"] == 2
        # What was wrong, not which exception (a hook's stderr line says the same).
        assert refused["error"] == f"payload larger than {MAX_REQUEST} bytes"
        after = s.send(
            event="pre-prompt", session_id="s", cwd=str(project), prompt="x", id=3
        )
        assert after["ok"] is True and after["id"] == 3
        peak = _peak_memory(s.proc.pid)
        s.proc.stdin.close()
        assert s.proc.wait(timeout=10) == 0
        errors = s.stderr().splitlines()
    assert errors == [
        f"memhooks: event failed: payload larger than {MAX_REQUEST} bytes"
    ]
    assert peak < size / 2


def test_a_prompt_with_invalid_utf8_is_searched_and_every_id_is_echoed(
    memory_root: Path, project: Path
) -> None:
    Store(memory_root, slug_for(str(project))).write_note(
        "redis-deploy", "Redis port 6379 already bound by docker-compose."
    )
    where = json.dumps(str(project))
    # Bytes that are not UTF-8 in a pasted prompt: the whole event was refused.
    prompt = (
        b'{"event": "pre-prompt", "session_id": "s", "cwd": '
        + where.encode()
        + b', "id": "p", "prompt": "why does redis \xff\xfe fail to bind its port?"}\n'
    )
    with Session(memory_root, "--harness", "generic") as s:
        assert s.proc.stdin is not None and s.proc.stdout is not None
        cast("io.TextIOWrapper", s.proc.stdin).buffer.write(prompt)
        s.proc.stdin.flush()
        hits = json.loads(s.proc.stdout.readline())
        assert hits["ok"] is True and hits["id"] == "p"
        assert "notes/redis-deploy.md" in str(hits["context"])
        # Any JSON scalar is echoed as sent (1.5 and true had no id in their reply).
        for rid in (1.5, True, 0, "", -7):
            reply = s.send(event="pre-prompt", session_id="s", cwd=str(project), id=rid)
            assert reply["ok"] is True and reply["id"] == rid
            assert type(reply["id"]) is type(rid)
        # One that no JSON reply could carry, or that is no scalar, is not.
        for raw in ("NaN", "[1]", "null"):
            s.proc.stdin.write(f'{{"event": "nope", "id": {raw}}}\n')
            s.proc.stdin.flush()
            assert "id" not in json.loads(s.proc.stdout.readline())
        s.proc.stdin.close()
        assert s.proc.wait(timeout=10) == 0
        errors = s.stderr().splitlines()
    assert errors[0] == (
        "memhooks: input is not valid UTF-8; each invalid byte read as U+FFFD"
    )


def _peak_memory(pid: int) -> int:
    # The process's own peak since exec (VmHWM): its ru_maxrss counts the memory of the
    # test process that forked it.
    with open(f"/proc/{pid}/status") as status:
        kb = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    return int(kb) * 1024


def test_a_note_in_a_project_folder_linked_in_the_root_is_found_mid_session(
    memory_root: Path, project: Path
) -> None:
    # A project's memory kept in another folder of the root, linked in: commands read
    # it, but the session process named an edit there by the link's target
    # ("elsewhere/notes/pump.md"), never a project file, and did not see it.
    slug = slug_for(str(project))
    (memory_root / "elsewhere" / "notes").mkdir(parents=True)
    (memory_root / "projects").mkdir(parents=True, exist_ok=True)
    (memory_root / "projects" / slug).symlink_to("../elsewhere")
    (memory_root / "elsewhere" / "notes" / "tank.md").write_text("Tank holds 200 l.\n")
    with Session(memory_root) as s:
        start = s.send(event="session-start", session_id="s", cwd=str(project))
        assert "notes/tank.md" in str(start["context"])
        note = memory_root / "elsewhere" / "notes" / "pump.md"
        note.write_text("The zebrafish tank pump is broken.\n")
        time.sleep(0.5)  # the watcher's debounce is 30 ms
        reply = s.send(
            event="pre-prompt",
            session_id="s",
            cwd=str(project),
            prompt="is the zebrafish tank pump broken",
        )
        assert reply["reread"] == [f"projects/{slug}/notes/pump.md"]
        assert "tank pump is broken" in str(reply["context"])
        s.close_stdin()

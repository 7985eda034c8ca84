"""hooks/runner.py: who keeps a session's state, and when it is written."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import pytest

from memhooks.hooks.events import Reply
from memhooks.hooks.runner import Sessions, decode, handle_now, request_id_of
from memhooks.hooks.stdin_lines import Dropped

if TYPE_CHECKING:
    from pathlib import Path

    from memhooks.hooks.events import Event


def _event(kind: str, project: Path, **fields: str) -> Event:
    line = json.dumps({"event": kind, "session_id": "s", "cwd": str(project), **fields})
    parsed = decode(line, None)
    assert parsed is not None
    return parsed


def _count_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    synced: list[int] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return synced


@pytest.mark.parametrize(
    ("kind", "fields", "durable"),
    [
        ("session-start", {}, False),
        ("pre-prompt", {"prompt": "where is the redis port"}, False),
        # where the transcript stood, for the flush after the harness compacts
        ("pre-compaction", {}, True),
    ],
)
def test_only_a_flush_waits_for_the_disk(
    memory_root: Path,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
    fields: dict[str, str],
    durable: bool,
) -> None:
    # An fsync waits for the disk's other pending writes as well: a SessionStart hook
    # paid up to 0.2 s for one while another program wrote. Only the state of a flush
    # (what the daily log holds already, losing which records things twice) pays it.
    synced = _count_fsyncs(monkeypatch)
    sessions = Sessions(memory_root, keep=False)
    handle_now(_event("session-start", project), sessions)  # the state file exists
    synced.clear()
    handle_now(_event(kind, project, **fields), sessions)
    assert (memory_root / ".sessions").is_dir()
    assert len(list((memory_root / ".sessions").glob("*.json"))) == 1
    assert bool(synced) == durable


def test_a_flush_that_wrote_is_durable_whatever_the_event(
    memory_root: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Gemini has no post-compression event: its flush is written by the next prompt.
    synced = _count_fsyncs(monkeypatch)
    sessions = Sessions(memory_root, keep=False)
    view = sessions.view(str(project))
    state = sessions.state(view, "s")
    prompt = _event("pre-prompt", project, prompt="hello")
    sessions.finish(view, prompt, state, sessions.begin("s"), Reply())
    assert synced == []
    wrote = Reply(wrote=("projects/x/daily/2026-12-05.md",))
    sessions.finish(view, prompt, state, sessions.begin("s"), wrote)
    assert synced


def test_an_event_abandoned_before_session_end_never_writes_its_state_back(
    memory_root: Path, project: Path
) -> None:
    flush, end = _event("pre-compaction", project), _event("session-end", project)
    sessions = Sessions(memory_root, keep=True)
    view = sessions.view(str(project))
    state = sessions.state(view, "s")
    sessions.finish(view, flush, state, sessions.begin("s"), Reply())
    assert len(list((memory_root / ".sessions").glob("*.json"))) == 1
    late = sessions.begin("s")  # a flush starts, misses its deadline, is abandoned
    sessions.finish(view, end, state, sessions.begin("s"), Reply())
    assert [p.name for p in (memory_root / ".sessions").iterdir()] == [".gitignore"]
    sessions.finish(view, flush, state, late, Reply())  # it ends late
    assert [p.name for p in (memory_root / ".sessions").iterdir()] == [".gitignore"]
    # A conversation resumed after its end keeps state again.
    sessions.finish(view, flush, state, sessions.begin("s"), Reply())
    assert len(list((memory_root / ".sessions").glob("*.json"))) == 1


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        pytest.param(b'{"id": 7, "prompt": "xxx', 7, id="first"),
        pytest.param(
            b' {"event": "pre-prompt", "id": "a\\"b", "prompt": "x', 'a"b', id="later"
        ),
        pytest.param(
            b'{"meta": {"id": 3}, "id": 1.5, "prompt": "x', 1.5, id="nested-is-not-it"
        ),
        pytest.param(b'{"prompt": "xxxxxxxxxxxx', None, id="after-the-cut"),
        pytest.param(b'{"id": [1], "prompt": "x', None, id="not-a-scalar"),
        pytest.param(b'{"id": NaN, "prompt": "x', None, id="nan"),
        pytest.param(b'[{"id": 1}, "x', None, id="not-an-object"),
        pytest.param(b'{"id": \xff, "prompt": "x', None, id="not-json"),
    ],
)
def test_the_id_of_a_line_too_long_to_keep_is_found_before_the_cut(
    head: bytes, expected: object
) -> None:
    found = request_id_of(Dropped(head), None)
    assert found == expected and type(found) is type(expected)

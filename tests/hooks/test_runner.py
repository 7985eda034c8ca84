"""hooks/runner.py: who keeps a session's state, and when it is written."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from memhooks.hooks.runner import Sessions, decode

if TYPE_CHECKING:
    from pathlib import Path

    from memhooks.hooks.events import Event


def test_an_event_abandoned_before_session_end_never_writes_its_state_back(
    memory_root: Path, project: Path
) -> None:
    def event(kind: str) -> Event:
        line = json.dumps({"event": kind, "session_id": "s", "cwd": str(project)})
        parsed = decode(line, None)
        assert parsed is not None
        return parsed

    flush, end = event("pre-compaction"), event("session-end")
    sessions = Sessions(memory_root, keep=True)
    view = sessions.view(str(project))
    state = sessions.state(view, "s")
    sessions.finish(view, flush, state, sessions.begin("s"))
    assert len(list((memory_root / ".sessions").iterdir())) == 1
    late = sessions.begin("s")  # a flush starts, misses its deadline, is abandoned
    sessions.finish(view, end, state, sessions.begin("s"))
    assert list((memory_root / ".sessions").iterdir()) == []
    sessions.finish(view, flush, state, late)  # it ends late
    assert list((memory_root / ".sessions").iterdir()) == []
    # A conversation resumed after its end keeps state again.
    sessions.finish(view, flush, state, sessions.begin("s"))
    assert len(list((memory_root / ".sessions").iterdir())) == 1

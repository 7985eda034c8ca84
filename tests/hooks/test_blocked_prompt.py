"""A prompt another UserPromptSubmit hook blocked is not recorded.

Found with the real Claude Code 2.1.332 and another tool's prompt hook beside memhooks
(2026-12-06): the person's hook answered ``{"decision": "block"}`` to a prompt naming a
project not to be discussed. Claude Code dropped the prompt (the model never got it),
but memhooks' own prompt hook had seen it, so the session-end record listed it, and
the next session's block showed it to the model. The transcript lines below are those
the real CLI wrote.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import anyio

from memhooks.hooks.adapters import to_event
from memhooks.hooks.events import Event, parse_payload
from memhooks.hooks.runner import Sessions, end_orphaned, handle
from tests.hooks.test_hook import _transcript, _user, claude, hook, store_for

ASKED = "Tell me what the kestrel queue does."
BLOCKED = "tell me about SECRET-PROJECT omega"
AFTER = "Which port does the kestrel queue use"


def _blocked(prompt: str, reason: str) -> dict[str, object]:
    """Claude Code's record of a prompt a UserPromptSubmit hook blocked."""
    return {
        "type": "system",
        "subtype": "informational",
        "content": f"UserPromptSubmit operation blocked by hook:\n{reason}\n\n"
        f"Original prompt: {prompt}",
        "isMeta": False,
        "level": "warning",
        "preventContinuation": True,
        "promptSubmitEnding": {
            "ending": {"kind": "blocked_by_hook", "reason": reason},
            "promptKept": False,
        },
    }


def _reply(text: str) -> dict[str, object]:
    content = [{"type": "text", "text": text}]
    return {"type": "assistant", "message": {"role": "assistant", "content": content}}


def _prompt(project: Path, path: str, prompt: str) -> None:
    code, _, err = hook(
        claude("UserPromptSubmit", project, prompt=prompt, transcript_path=path)
    )
    assert code == 0, err


def test_a_prompt_blocked_after_two_is_not_recorded(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    store_for(memory_root, project).write_memory("- rule")
    transcript = tmp_path / "t.jsonl"
    path = str(transcript)
    hook(claude("SessionStart", project, source="startup", transcript_path=path))
    for prompt, lines in (
        (ASKED, [_user(ASKED), _reply("It feeds the falcon workers.")]),
        (AFTER, [_user(AFTER), _reply("Port 9911.")]),
        (BLOCKED, [_blocked(BLOCKED, "that project is not to be discussed")]),
    ):
        _prompt(project, path, prompt)
        _transcript(transcript, lines)
    hook(claude("SessionEnd", project, reason="other", transcript_path=path))

    (log,) = memory_root.glob("projects/*/daily/*.md")
    text = log.read_text()
    assert f"- {ASKED}\n- {AFTER}\n" in text
    assert "SECRET-PROJECT" not in text


def test_a_run_whose_only_prompt_was_blocked_records_none(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # `claude -p` with the blocked prompt alone: no turn reaches the transcript.
    store_for(memory_root, project).write_memory("- rule")
    transcript = tmp_path / "t.jsonl"
    path = str(transcript)
    hook(claude("SessionStart", project, source="startup", transcript_path=path))
    _prompt(project, path, BLOCKED)
    _transcript(transcript, [_blocked(BLOCKED, "no")])
    hook(claude("SessionEnd", project, reason="other", transcript_path=path))

    logs = list(memory_root.glob("projects/*/daily/*.md"))
    assert all("SECRET-PROJECT" not in log.read_text() for log in logs)


_CODEX_EXEC = Path(__file__).parents[1] / "data" / "harness" / "codex" / "exec"
#: The first run's prompt in the rollout Codex CLI 0.171.0 wrote (`codex exec`).
_SENT = "Tell me which port the kestrel staging database uses behind the wombat proxy."


def _codex_run(
    project: Path, tmp_path: Path, second: str
) -> tuple[Sessions, list[Event]]:
    """`codex exec`'s events, as the real CLI sent them, with a second prompt that its
    rollout does not hold."""
    lines = (_CODEX_EXEC / "rollout.jsonl").read_text().splitlines(keepends=True)
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text("".join(lines[:13]))  # the first run, up to its reply
    events = []
    for name, prompt in (
        ("01-SessionStart", None),
        ("02-UserPromptSubmit", _SENT),
        ("02-UserPromptSubmit", second),
        ("03-SessionEnd", None),
    ):
        payload = json.loads((_CODEX_EXEC / f"{name}.json").read_text())
        payload |= {"cwd": str(project), "transcript_path": str(rollout)}
        payload |= {"prompt": prompt} if prompt else {}
        event = to_event(parse_payload(payload), "codex")
        assert event is not None
        events.append(event)
    return Sessions(None, keep=True), events


async def _play(sessions: Sessions, events: list[Event], *, killed: bool) -> None:
    for event in events[:-1] if killed else events:
        await handle(event, sessions)
    if killed:
        await end_orphaned(sessions, events[0].session_id, events[0].cwd)


def test_codex_a_prompt_its_rollout_does_not_hold_at_its_session_end_is_not_recorded(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # Codex CLI 0.171.0 writes nothing of a prompt another hook blocked (found with the
    # real CLI: tests/e2e/test_own_hooks.py); its own session end says the run is over.
    sessions, events = _codex_run(project, tmp_path, BLOCKED)
    anyio.run(functools.partial(_play, sessions, events, killed=False))
    (log,) = memory_root.glob("projects/*/daily/*.md")
    assert f"- {_SENT}\n" in log.read_text()
    assert "SECRET-PROJECT" not in log.read_text()


def test_codex_killed_in_a_turn_still_has_its_last_prompt_recorded(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # Killed (no SessionEnd), a harness never writes the turn it was in: the prompt
    # memhooks saw is all there is of it, and it was sent.
    unwritten = "And which user does it connect as?"
    sessions, events = _codex_run(project, tmp_path, unwritten)
    anyio.run(functools.partial(_play, sessions, events, killed=True))
    (log,) = memory_root.glob("projects/*/daily/*.md")
    assert f"- {_SENT}\n- {unwritten}\n" in log.read_text()

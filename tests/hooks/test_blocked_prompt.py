"""A prompt another UserPromptSubmit hook blocked is not recorded.

Found with the real Claude Code 2.1.332 and another tool's prompt hook beside memhooks
(2026-12-06): the person's hook answered ``{"decision": "block"}`` to a prompt naming a
project not to be discussed. Claude Code dropped the prompt (the model never got it),
but memhooks' own prompt hook had seen it, so the session-end record listed it, and
the next session's block showed it to the model. The transcript lines below are those
the real CLI wrote.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.hooks.test_hook import _transcript, _user, claude, hook, store_for

if TYPE_CHECKING:
    from pathlib import Path

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

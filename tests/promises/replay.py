"""Real-shaped Claude Code sessions, replayed through real memhooks processes.

Transcript lines follow Claude Code's transcript shape (user, assistant
with tool_use, tool_result, slash commands as <command-name> tags, compact_boundary and
the isCompactSummary user line); hook payloads follow §2 and the order observed in §2.3:
PreCompact → SessionStart(compact) → PostCompact.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


class Transcript:
    """A Claude Code session file that grows as the session goes on."""

    def __init__(self, path: Path, session_id: str, cwd: Path) -> None:
        self.path = path
        self.session_id = session_id
        self.cwd = str(cwd)
        self.parent: str | None = None

    def _line(self, kind: str, **fields: object) -> None:
        me = str(uuid.uuid4())
        record = {
            "type": kind,
            "uuid": me,
            "parentUuid": self.parent,
            "sessionId": self.session_id,
            "timestamp": "2026-12-01T10:00:00.000Z",
            "cwd": self.cwd,
            "version": "2.1.197",
            "gitBranch": "main",
            "isSidechain": False,
            "userType": "external",
            **fields,
        }
        self.parent = me
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record, separators=(",", ":")) + "\n")

    def prompt(self, text: str) -> None:
        self._line("user", message={"role": "user", "content": text})

    def slash(self, name: str, args: str = "") -> None:
        self._line(
            "user",
            message={
                "role": "user",
                "content": f"<command-name>/{name}</command-name>\n"
                f"<command-message>{name}</command-message>\n"
                f"<command-args>{args}</command-args>",
            },
        )

    def tool(self, name: str, args: dict[str, object], result: str) -> None:
        tool_id = f"toolu_{uuid.uuid4().hex[:20]}"
        self._line(
            "assistant",
            requestId="req_1",
            message={
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-5",
                "content": [
                    {"type": "tool_use", "id": tool_id, "name": name, "input": args}
                ],
                "stop_reason": "tool_use",
            },
        )
        self._line(
            "user",
            message={
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": tool_id, "content": result}
                ],
            },
            toolUseResult={"stdout": result},
        )

    def answer(self, text: str) -> None:
        self._line(
            "assistant",
            requestId="req_2",
            message={
                "id": "msg_2",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-5",
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
            },
        )

    def compacted(self, summary: str) -> None:
        """What Claude Code appends once /compact has run: a boundary, then its summary."""
        self._line(
            "system",
            subtype="compact_boundary",
            content="Conversation compacted",
            compactMetadata={
                "trigger": "manual",
                "preTokens": 48211,
                "postTokens": 3120,
            },
        )
        self._line(
            "user",
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
            message={
                "role": "user",
                "content": "This session is being continued from a previous conversation "
                "that ran out of context. The summary below covers the earlier portion "
                f"of the conversation.\n\nSummary:\n{summary}\n\nPlease continue the "
                "conversation from where we left it off without asking the user any "
                "further questions.",
            },
        )
        self._line(
            "user",
            message={
                "role": "user",
                "content": "<local-command-stdout>Compacted </local-command-stdout>",
            },
        )


class SessionProcess:
    """`memhooks session --harness claude-code`: one JSON line in, one line out."""

    def __init__(self, cwd: Path, session_id: str, transcript: Path) -> None:
        self.cwd = cwd
        self.session_id = session_id
        self.transcript = transcript
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-P",
                "-m",
                "memhooks.hooks",
                "session",
                "--harness",
                "claude-code",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
            env=dict(os.environ),
        )

    def send(self, event: str, **fields: object) -> dict[str, object]:
        payload = {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript),
            "cwd": str(self.cwd),
            "hook_event_name": event,
            **fields,
        }
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(payload) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, self.finish()
        reply = json.loads(line)
        assert isinstance(reply, dict)
        return reply

    def finish(self) -> str:
        """Wait for the process to exit (it does at SessionEnd); its stderr."""
        try:
            _, err = self.proc.communicate(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        return err


def context(reply: dict[str, object]) -> str:
    """The additionalContext of a Claude Code reply, "" when there is none."""
    out = reply.get("hookSpecificOutput")
    return str(out.get("additionalContext", "")) if isinstance(out, dict) else ""

"""A command or an edit that never ran is not recorded as done.

Found with the real Claude Code 2.1.332 and a person's own PreToolUse bash guard
(2026-12-06): the session-end record listed under **Commands** a `rm -rf` the guard had
blocked, a `git push` a hook denied, a `curl` a deny rule refused and a `touch` the person
answered No to; the next session's block and searches then showed them as run. The
tool results below are those the real CLI wrote in its transcript for each.
"""

from __future__ import annotations

import json
from typing import Any

from memhooks.hooks.transcript import parse_lines


def _use(n: int, name: str, **args: str) -> dict[str, Any]:
    block = {"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": args}
    message = {"role": "assistant", "model": "claude-x", "content": [block]}
    return {"type": "assistant", "isSidechain": False, "message": message}


def _result(
    n: int, content: str, used: object, *, error: bool = True
) -> dict[str, Any]:
    block: dict[str, object] = {"type": "tool_result", "content": content}
    block["tool_use_id"] = f"toolu_{n}"
    if error:
        block["is_error"] = True
    message = {"role": "user", "content": [block]}
    return {"type": "user", "message": message, "toolUseResult": used}


#: (command, the result's content, its toolUseResult) for each way a call never runs.
NOT_RUN = [
    (  # the person's guard exited 2
        "rm -rf /tmp/x",
        "PreToolUse:Bash hook error: [/home/me/bin/bash-guard.sh]: blocked by guard\n",
    ),
    (  # a hook's permissionDecision "deny"
        "git push origin main",
        "PreToolUse:Bash hook error: no pushing from agents",
    ),
    (  # a permissions.deny rule
        "curl http://127.0.0.1:1/x",
        "Permission to use Bash with command curl http://127.0.0.1:1/x has been denied.",
    ),
    (  # claude -p, a path outside the project
        "touch /tmp/y",
        (
            "touch in '/tmp/y' needs approval. The path is outside the working "
            "directories for this session ('/w/kestrel'). Allowing runs the command "
            "as written."
        ),
    ),
]
REJECTED = (  # No, in the TUI's permission prompt (its toolUseResult says so)
    "The user doesn't want to proceed with this tool use. The tool use was rejected "
    "(eg. if it was a file edit, the new_string was NOT written to the file). STOP "
    "what you are doing and wait for the user to tell you how to proceed."
)
UNRUN = [
    *((command, content, "Error: " + content) for command, content in NOT_RUN),
    ("touch /tmp/z", REJECTED, "User rejected tool use"),
]


def test_a_command_that_never_ran_is_not_recorded() -> None:
    lines = [_use(0, "Bash", command="ls /nonexistent")]
    # Ran and failed: it ran.
    lines.append(
        _result(
            0,
            "Exit code 2\nls: cannot access '/nonexistent': No such file or directory",
            "Error: Exit code 2\nls: cannot access '/nonexistent': No such file or directory",
        )
    )
    for n, (command, content, used) in enumerate(UNRUN, start=1):
        lines += [_use(n, "Bash", command=command), _result(n, content, used)]
    lines += [
        _use(9, "Bash", command="pytest -q"),
        _result(9, "3 passed", {"stdout": "3 passed", "stderr": ""}, error=False),
    ]

    digest = parse_lines(json.dumps(line) for line in lines)

    assert digest.commands == ("ls /nonexistent", "pytest -q")


def test_an_edit_that_was_refused_is_not_recorded() -> None:
    _, content, used = UNRUN[-1]
    lines = [
        _use(1, "Edit", file_path="/w/a.py", old_string="x", new_string="y"),
        _result(1, content, used),
        _use(2, "Write", file_path="/w/b.py", content="z"),
        _result(2, "File created successfully at: /w/b.py", {}, error=False),
    ]

    digest = parse_lines(json.dumps(line) for line in lines)

    assert digest.files == ("/w/b.py",)


def test_a_command_still_running_at_the_flush_is_recorded() -> None:
    # No result yet (the session killed mid-command, or a flush while it runs): as before.
    digest = parse_lines([json.dumps(_use(1, "Bash", command="make build"))])

    assert digest.commands == ("make build",)


def _codex(payload: dict[str, Any]) -> str:
    return json.dumps(
        {
            "timestamp": "2026-12-06T05:11:24.360Z",
            "type": "response_item",
            "payload": payload,
        }
    )


def test_a_codex_command_a_pretooluse_hook_blocked_is_not_recorded() -> None:
    # The real Codex CLI 0.171.0's rollout, the person's guard inline in config.toml
    # (exit 2), then a hook's permissionDecision "deny" (the same words).
    lines = []
    for n, (command, why) in enumerate(
        [("rm -rf /tmp/x", "blocked by guard"), ("git push", "no pushing from agents")]
    ):
        args = json.dumps({"cmd": command})
        lines.append(
            _codex(
                {
                    "type": "function_call",
                    "status": "completed",
                    "name": "exec_command",
                    "arguments": args,
                    "call_id": f"call_{n}",
                }
            )
        )
        output = f"Command blocked by PreToolUse hook: {why}. Command: {command}"
        lines.append(
            _codex(
                {
                    "type": "function_call_output",
                    "call_id": f"call_{n}",
                    "output": output,
                }
            )
        )
    lines.append(
        _codex(
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": "make test"}),
                "call_id": "call_9",
            }
        )
    )
    lines.append(
        _codex(
            {
                "type": "function_call_output",
                "call_id": "call_9",
                "output": "Exit code: 2",
            }
        )
    )

    assert parse_lines(lines).commands == ("make test",)


def _gemini(n: int, name: str, args: dict[str, str], status: str, shown: str) -> str:
    call_id = f"{name}__{name}_1796533911394_{n}"
    response = {"error": shown} if status == "error" else {"output": shown}
    result = {"functionResponse": {"id": call_id, "name": name, "response": response}}
    call = {
        "id": call_id,
        "name": name,
        "args": args,
        "result": [result],
        "status": status,
        "resultDisplay": shown,
    }
    record = {"id": f"m{n}", "type": "gemini", "content": "", "toolCalls": [call]}
    return json.dumps(record)


def test_a_gemini_call_a_beforetool_hook_blocked_is_not_recorded() -> None:
    # The real Gemini CLI 0.61.0's chat file, the person's guard a BeforeTool hook
    # (exit 2); a command that exits 2 is a "success" there, and it ran.
    header = json.dumps({"sessionId": "s", "projectHash": "h", "startTime": "t"})
    blocked = "Tool execution blocked: blocked by guard"
    lines = [
        header,
        _gemini(0, "run_shell_command", {"command": "rm -rf /tmp/x"}, "error", blocked),
        _gemini(1, "write_file", {"file_path": "/w/a.py"}, "error", blocked),
        _gemini(
            2, "run_shell_command", {"command": "ls /nope"}, "success", "Exit Code: 2"
        ),
    ]

    digest = parse_lines(lines)

    assert digest.commands == ("ls /nope",)
    assert digest.files == ()

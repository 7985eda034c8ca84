"""The model's own edits with Gemini CLI's and Codex CLI's file tools, replayed on the
text it was shown (`hooks/replayed_edits.py`), on lines shaped as Gemini CLI 0.61.0 and
Codex CLI 0.171.0 wrote them (tests/e2e/test_harness_edits.py drives the real ones)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from memhooks.hooks.events import Event
from memhooks.hooks.replayed_edits import model_edits
from memhooks.hooks.tool_edits import Edit, parse_patch, replay

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from memhooks.hooks.events import Harness

RULE = "- Name every migration after a bird (rule ZEBRA-42)."
MODEL = "- Run the heron linter before each push (rule HERON-9)."


def test_a_replace_is_replayed_as_gemini_applies_it() -> None:
    add = Edit(old=RULE, new=f"{RULE}\n{MODEL}")
    assert replay(RULE, [add]) == (f"{RULE}\n{MODEL}", False)
    # The file's final newline as it was; the old text once, or each time if allowed.
    assert replay("a\n", [Edit(old="a\n", new="b")]) == ("b\n", False)
    assert replay("a\nb\na", [Edit(old="a", new="c")]) is None
    assert replay("a\nb\na", [Edit(old="a", new="c", multiple=True)]) == (
        "c\nb\nc",
        False,
    )
    # Not in the text shown (a fuzzy match the CLI fell back to, a person's change
    # first), or nothing shown: not replayable, the file told as before.
    assert replay(f"{RULE} ", [Edit(old=f" {RULE}", new="x")]) is None
    assert replay(None, [add]) is None
    assert replay(RULE, [Edit(exact=False)]) is None


def test_a_write_makes_the_whole_text_raw() -> None:
    edits = [
        Edit(old="zz", new="y"),
        Edit(text="# Note\nbody\n"),
        Edit(old="body", new="b"),
    ]
    assert replay(None, edits) == ("# Note\nb\n", True)


def test_an_apply_patch_is_replayed_hunk_by_hunk() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: /m/MEMORY.md\n@@\n"
        f" {RULE}\n+{MODEL}\n@@ ## Later\n-old\n+new\n"
        "*** Add File: notes/n.md\n+# N\n+text\n"
        "*** Delete File: gone.md\n"
        "*** Update File: a.md\n*** Move to: b.md\n@@\n-x\n+y\n*** End Patch\n"
    )
    (memory, update), (note, add), (_, gone), (_, moved) = parse_patch(patch)
    assert (memory, note) == ("/m/MEMORY.md", "notes/n.md")
    shown = f"{RULE}\nold\n## Later\nold"
    assert replay(shown, [update]) == (f"{RULE}\n{MODEL}\nold\n## Later\nnew\n", False)
    assert replay(None, [add]) == ("# N\ntext\n", True)
    assert replay("x", [gone]) is None and replay("x", [moved]) is None
    assert replay("other", [update]) is None  # its lines not found exactly


def _lines(path: Path, *records: Mapping[str, object]) -> Path:
    path.write_text(
        "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
    )
    return path


def _event(harness: Harness, path: Path, cwd: Path) -> Event:
    return Event(
        "pre-prompt", harness, "x", "s", cwd=str(cwd), transcript_path=str(path)
    )


def test_gemini_calls_of_the_last_turn_that_succeeded(tmp_path: Path) -> None:
    memory, note = tmp_path / "MEMORY.md", tmp_path / "n.md"

    def turn(n: int, name: str, status: str, **args: object) -> dict[str, object]:
        call = {"id": f"c{n}", "name": name, "args": args, "status": status}
        return {"id": f"g{n}", "type": "gemini", "content": "", "toolCalls": [call]}

    def prompt(text: str) -> dict[str, object]:
        return {"id": text, "type": "user", "content": [{"text": text}]}

    path = _lines(
        tmp_path / "chat.jsonl",
        prompt("first"),
        turn(1, "write_file", "success", file_path=str(note), content="old"),
        prompt("second"),
        turn(
            2,
            "replace",
            "success",
            file_path=str(memory),
            old_string=RULE,
            new_string="x",
        ),
        turn(
            3,
            "replace",
            "error",
            file_path=str(memory),
            old_string="no",
            new_string="y",
        ),
        turn(4, "write_file", "success", file_path=str(note), content="# N\n"),
        {"$set": {"messages": [prompt("first"), turn(5, "write_file", "success")]}},
    )
    got = model_edits(_event("gemini", path, tmp_path), path)
    assert got == {
        memory.resolve(): [Edit(old=RULE, new="x")],
        note.resolve(): [Edit(text="# N\n")],
    }


def test_codex_patches_that_applied(tmp_path: Path) -> None:
    def item(payload: Mapping[str, object]) -> dict[str, object]:
        return {"timestamp": "t", "type": "response_item", "payload": payload}

    def call(n: int, patch: str) -> dict[str, object]:
        return item(
            {"type": "custom_tool_call", "call_id": f"c{n}", "name": "apply_patch"}
            | {"input": patch}
        )

    def output(n: int, text: str) -> dict[str, object]:
        payload = {
            "type": "custom_tool_call_output",
            "call_id": f"c{n}",
            "output": text,
        }
        return item(payload)

    done = "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\n"
    prompt = {"timestamp": "t", "type": "event_msg"} | {
        "payload": {"type": "user_message", "message": "second"}
    }
    path = _lines(
        tmp_path / "rollout.jsonl",
        call(1, "*** Begin Patch\n*** Add File: early.md\n+x\n*** End Patch\n"),
        output(1, done),
        prompt,
        call(2, "*** Begin Patch\n*** Add File: notes/n.md\n+# N\n*** End Patch\n"),
        output(2, done + "A notes/n.md\n"),
        call(
            3,
            "*** Begin Patch\n*** Update File: MEMORY.md\n@@\n-a\n+b\n*** End Patch\n",
        ),
        output(3, "apply_patch verification failed: Failed to find expected lines"),
    )
    got = model_edits(_event("codex", path, tmp_path), path)
    assert got == {(tmp_path / "notes" / "n.md").resolve(): [Edit(text="# N\n")]}


def test_codex_apply_patch_run_as_a_command(tmp_path: Path) -> None:
    """`apply_patch <<'EOF'` through exec_command, which Codex applies itself (its
    output then says so); any other command is no edit that can be replayed."""
    patch = "*** Begin Patch\n*** Update File: MEMORY.md\n@@\n a\n+b\n*** End Patch\n"

    def shell(n: int, cmd: str, output: str) -> list[dict[str, object]]:
        call = {"type": "function_call", "name": "exec_command", "call_id": f"c{n}"}
        done = {"type": "function_call_output", "call_id": f"c{n}", "output": output}
        args = {"arguments": json.dumps({"cmd": cmd})}
        return [
            {"timestamp": "t", "type": "response_item", "payload": call | args},
            {"timestamp": "t", "type": "response_item", "payload": done},
        ]

    ok = "Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM MEMORY.md\n"
    prompt = {"type": "user_message", "message": "go"}
    path = _lines(
        tmp_path / "rollout.jsonl",
        {"timestamp": "t", "type": "event_msg", "payload": prompt},
        *shell(1, f"apply_patch <<'EOF'\n{patch}EOF\n", ok),
        *shell(2, "printf 'c\\n' >> MEMORY.md", ""),
    )
    got = model_edits(_event("codex", path, tmp_path), path)
    (edit,) = got[(tmp_path / "MEMORY.md").resolve()]
    assert replay("a", [edit]) == ("a\nb\n", False)

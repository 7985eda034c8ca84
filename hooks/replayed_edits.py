"""The memory edits Gemini CLI's and Codex CLI's model made with its own file tools,
replayed on the text it was shown, so that the change notice tells only what someone
else changed.

Neither harness makes the model read a file whole before it edits it: Gemini CLI
0.61.0's `replace` shows it the lines around the edit, its `write_file` needs no read,
and Codex CLI 0.171.0's `apply_patch` names context lines only. So Claude Code's rule
(`own_edits`: a file its tool wrote holds nothing the model has not seen) does not hold.
What does: the model knows what its own edit changed. The text the model was shown
(`held`, or the section of the block a resumed conversation holds), with the model's
successful edits applied as the harness applies them, is what the model knows of the
file; if the file on disk is that text, nothing is news (`SessionState.own`); if not,
the notice tells the lines between that text and the file: a person's. An edit that
cannot be replayed exactly (its old text not found once, a fuzzy match the CLI fell
back to, a patch that moves or deletes a file, a shell command such as `printf >>`)
leaves the file told as before, the model's own lines with it; so does a `replace` of
a note the block did not hold whole (nothing shown to replay it on), and a whole write
that a person's save followed before the next prompt (its text is raw, not as shown).

Each edit is replayed as `tool_edits` says the CLI applies it. The calls are read off
the transcript, as the real CLIs write them: Gemini's chat file
(`toolCalls` of a `gemini` record: `replace` with `old_string`, `new_string` and
`allow_multiple`, `write_file` with `content`; `status` "success"), Codex's rollout
(`custom_tool_call` `apply_patch`, whose output says "Success." when the patch
applied; Codex offers that tool to a model its catalog gives an
`apply_patch_tool_type`, and any other model may run `apply_patch <<'EOF'` as a
command, which Codex applies itself). Before a prompt, the calls of the last turn
(after the last prompt's line: the harness writes the prompt after its hook); at a
resume, those after the last block.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from memhooks.hooks import held
from memhooks.hooks.ondisk import mtimes_of
from memhooks.hooks.rewinds import tail_lines, whole
from memhooks.hooks.tool_edits import Edit, gemini_edit, parse_patch, replay
from memhooks.hooks.transcript import json_line
from memhooks.hooks.transcript_shapes import codex_command, codex_events, codex_patch
from memhooks.memory.files import read_regular

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from memhooks.hooks.events import Event
    from memhooks.hooks.state import SessionState
    from memhooks.memory import Doc, Store

HARNESSES = frozenset({"gemini", "codex"})


def mark(
    event: Event,
    state: SessionState,
    store: Store,
    docs: Mapping[str, Doc],
    newest: int,
) -> None:
    """Before a prompt: each memory file in `docs` the model's edits of the last turn
    leave as it is on disk counts as the session's own write (`state.own`); for a file
    held whole they leave otherwise, what the model was shown becomes that text, so
    that the notice tells the rest (`newest`: no document changed after it)."""
    path = event.transcript_path
    if event.harness not in HARNESSES or not path or not state.noticed_at:
        return
    if newest <= state.noticed_at:
        return
    mtimes = mtimes_of(docs)
    fresh = [rel for rel, t in mtimes.items() if t > state.noticed_at]
    if not fresh or not (edits := model_edits(event, Path(path))):
        return
    base, shown = store.root.resolve(), held.load(store, event.session_id)
    kept = False
    for rel in fresh:
        calls, doc = edits.get(base / rel), docs.get(rel)
        if not calls or doc is None or not (after := replay(shown.get(rel), calls)):
            continue
        if _same(after, base / rel, doc):
            state.own[rel] = mtimes[rel]
        elif not after[1] and rel in shown:
            shown[rel], kept = after[0], True
    if kept:
        held.keep(store, event.session_id, shown)


def since_block(
    event: Event, root: Path
) -> tuple[set[str], Callable[[str, str], str | None]]:
    """At a resume, from the model's edits after the last block its conversation holds:
    the memory files (paths under `root`) a write of the model's left as they are, and
    what its edits make of the text the conversation was shown of a file
    (`resumes.told_since`; None: no edit of it, one not replayable, or a write)."""
    path = event.transcript_path
    if event.harness not in HARNESSES or not path:
        return set(), lambda rel, shown: None
    base, edits = root.resolve(), {}
    for target, calls in model_edits(event, Path(path), since_block=True).items():
        try:
            edits[target.relative_to(base).as_posix()] = calls
        except ValueError:  # not memory
            continue
    written = set()
    for rel, calls in edits.items():
        after = replay(None, calls)
        if after and after[1] and _raw(root / rel) == after[0]:
            written.add(rel)

    def edited(rel: str, shown: str) -> str | None:
        after = replay(shown, edits[rel]) if rel in edits else None
        return after[0] if after and not after[1] else None

    return written, edited


def _same(after: tuple[str, bool], path: Path, doc: Doc) -> bool:
    text, raw = after
    return _raw(path) == text if raw else text.strip() == held.shown(doc).strip()


def _raw(path: Path) -> str | None:
    try:
        return read_regular(path).data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def model_edits(
    event: Event, path: Path, *, since_block: bool = False
) -> dict[Path, list[Edit]]:
    """The successful edit calls of the last turn (`since_block`: after the last block)
    in Gemini's chat file or Codex's rollout at `path`, by the file (resolved) each
    wrote, in order."""
    if since_block:
        data = whole(path)
        lines = data.split(b"\n") if data is not None else []
        # Not a Gemini `$set` of the history: it repeats the turns before it.
        blocks = (i for i in reversed(range(len(lines))) if _block_in(lines[i]))
        start = next(blocks, 0)
    else:
        lines = tail_lines(path) or []
        turn = (i for i in reversed(range(len(lines))) if _prompt(lines[i]))
        start = next(turn, len(lines))  # no prompt in the tail: nothing replayed
    cwd = Path(event.cwd or ".")
    calls = (
        _gemini(lines[start:]) if event.harness == "gemini" else _codex(lines[start:])
    )
    out: dict[Path, list[Edit]] = {}
    for name, edit in calls:
        target = Path(name) if Path(name).is_absolute() else cwd / name
        out.setdefault(target.resolve(), []).append(edit)
    return out


#: What the usage line after our block starts with, inside a JSON string.
_BLOCK = b"\\nMemory tools"


def _block_in(line: bytes) -> bool:
    return _BLOCK in line and not _history_set(line)


def _history_set(line: bytes) -> bool:
    # A Gemini `$set` line: the history rewritten, repeating the turns before it.
    return line.lstrip().startswith(b'{"$set"')


def _prompt(line: bytes) -> bool:
    # A person's prompt: a Gemini user record with text, a Codex user message event.
    if _history_set(line):
        return False
    if b'"type":"user"' in line or b'"type": "user"' in line:
        obj = json_line(line)
        parts = obj.get("content") if obj is not None else None
        return isinstance(parts, list) and any(
            isinstance(p, dict) and isinstance(p.get("text"), str) for p in parts
        )
    if b"user_message" in line or b"UserMessage" in line:
        obj = json_line(line)
        return obj is not None and any(k == "prompt" for k, _ in codex_events(obj))
    return False


def _gemini(lines: Iterable[bytes]) -> list[tuple[str, Edit]]:
    calls: dict[str, tuple[str, Edit]] = {}  # by id: a record is written twice
    for line in lines:
        if b'"toolCalls"' not in line or (obj := json_line(line)) is None:
            continue
        found = obj.get("toolCalls")
        for call in found if isinstance(found, list) else []:
            if not isinstance(call, dict) or call.get("status") != "success":
                continue
            args = call.get("args")
            args = args if isinstance(args, dict) else {}
            target, edit = args.get("file_path"), gemini_edit(call.get("name"), args)
            if isinstance(target, str) and target and edit is not None:
                calls[str(call.get("id"))] = target, edit
    return list(calls.values())


#: What Codex CLI 0.171.0's apply_patch output holds when the patch applied.
_APPLIED = "Success. Updated the following files:"


def _codex(lines: Iterable[bytes]) -> list[tuple[str, Edit]]:
    patches: dict[str, str] = {}  # call id → the patch
    out: list[tuple[str, Edit]] = []
    for line in lines:
        if b"apply_patch" not in line and b"call_output" not in line:
            continue
        obj = json_line(line)
        payload = obj.get("payload") if obj is not None else None
        if not isinstance(payload, dict) or obj is None:
            continue
        if obj.get("type") != "response_item":
            continue
        kind, call = payload.get("type"), str(payload.get("call_id"))
        if payload.get("name") == "apply_patch" and kind == "custom_tool_call":
            patches[call] = str(payload.get("input") or "")
        elif (patch := codex_patch(codex_command(payload) or "")) is not None:
            patches[call] = patch  # `apply_patch <<'EOF'` run as a command
        elif payload.get("name") == "apply_patch" and kind == "function_call":
            try:
                args = json.loads(str(payload.get("arguments")))
            except (ValueError, RecursionError):
                continue
            patches[call] = str(args.get("input") if isinstance(args, dict) else "")
        elif call in patches and str(kind).endswith("call_output"):
            applied = _APPLIED in str(payload.get("output"))
            out.extend(parse_patch(patches.pop(call)) if applied else ())
    return out

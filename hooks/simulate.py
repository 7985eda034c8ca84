"""`memhooks simulate`: replay a scripted session through a real `memhooks session` process.

A script is JSON lines: generic events (`{"event": "pre-prompt", "prompt": …}`), and between
them edits made the way a person or another process would make them
(`{"write": {"to": "note", "name": "x", "text": "…", "mode": "overwrite"}}`). Each event
and its reply are printed; the run fails if any hook failed. This is what a CI job runs to
check a memory setup.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import anyio
from anyio.streams.buffered import BufferedByteReceiveStream

from memhooks.hooks.commands import write
from memhooks.hooks.errors import HookError, UsageError, given_text
from memhooks.hooks.spawn import open_session
from memhooks.memory import MemoryStoreError, Store

if TYPE_CHECKING:
    from anyio.abc import Process

    from memhooks.memory.store import WriteMode

#: Time a watcher gets to see an edit before the next event, as it would in a real session.
SETTLE = 0.3
REPLY_TIMEOUT = 30.0
#: The longest pause a script may ask for: an hour is past any wait a CI job means.
MAX_SLEEP = 3600.0


def load_script(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The steps of a session script, each with its line number; a bad line is a
    one-line usage error naming it."""
    missing = f"cannot read {path}: No such file or directory"
    lines = given_text(path, missing).splitlines()
    steps = []
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            step = json.loads(line)
        except json.JSONDecodeError as e:
            raise UsageError(f"{path}:{n}: not JSON: {e.msg}") from None
        except RecursionError:  # Python's json recurses, a level a bracket
            raise UsageError(f"{path}:{n}: nested too deeply") from None
        problem = _check(step)
        if problem:
            raise UsageError(f"{path}:{n}: {problem}")
        steps.append((n, step))
    if not any("event" in step for _, step in steps):
        # "0 passed, 0 failed" and exit 0 let a CI job pass on an emptied script.
        raise UsageError(f"{path}: no event to replay")
    return steps


def _check(step: object) -> str | None:
    if not isinstance(step, dict) or not ({"event", "write", "sleep"} & step.keys()):
        return "expected an object with 'event', 'write' or 'sleep'"
    if "sleep" in step and not _seconds(step["sleep"]):
        return f"'sleep' takes a number of seconds from 0 to {MAX_SLEEP:g}"
    spec = step.get("write")
    if "write" in step:
        if not isinstance(spec, dict) or spec.get("to") not in _TARGETS:
            return f"'write' needs an object with 'to': one of {', '.join(_TARGETS)}"
        if spec["to"] == "note" and not isinstance(spec.get("name"), str):
            return "'write' to a note needs a 'name'"
        if spec.get("mode", "append") not in ("append", "overwrite"):
            return "'mode' is 'append' or 'overwrite'"
        for key in ("text", "title", "aliases"):
            if key in spec and not isinstance(spec[key], str):
                return f"'write': '{key}' is text (a JSON string)"
    return None


_TARGETS = ("note", "memory", "scratchpad", "daily")


def _seconds(value: object) -> bool:
    # Python's JSON reads NaN and Infinity too: NaN was a traceback, Infinity a run that
    # never ended. NaN compares false with everything.
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    return 0 <= value <= MAX_SLEEP


async def replay(script: Path, root: Path, out: TextIO) -> int:
    """Run the script against `root`; 0 when every hook answered ok."""
    steps = load_script(script)
    base = script.parent.resolve()
    failures = 0
    async with await open_session(root) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        replies = BufferedByteReceiveStream(proc.stdout)
        cwd = str(base)
        for n, step in steps:
            if "sleep" in step:
                await anyio.sleep(float(step["sleep"]))
                continue
            if "write" in step:
                cwd = _cwd(step, base, cwd)
                out.write(f"~ write {json.dumps(step['write'], ensure_ascii=False)}\n")
                try:
                    _write(Store.for_project(root, cwd), step["write"])
                except (MemoryStoreError, HookError) as e:  # said with where it stands
                    raise UsageError(f"{script}:{n}: {e}") from None
                await anyio.sleep(SETTLE)
                continue
            event = dict(step)
            cwd = _cwd(event, base, cwd)
            event["cwd"] = cwd
            event.setdefault("session_id", "simulated")
            out.write(f"→ {event['event']}{_brief(event)}\n")
            await proc.stdin.send(
                (json.dumps(event) + "\n").encode()  # a lone surrogate as \ud800
            )
            reply = await _reply(replies)
            failures += _report(reply, out)
        await proc.stdin.aclose()
        code = await _wait(proc)
    if code != 0:
        out.write(f"session process exited with {code}\n")
        failures += 1
    _show_logs(root, out)
    out.write(
        f"{len([s for _, s in steps if 'event' in s]) - failures} passed, {failures} failed\n"
    )
    return 1 if failures else 0


def _cwd(step: dict[str, Any], base: Path, current: str) -> str:
    cwd = step.get("cwd")
    return str((base / cwd).resolve()) if isinstance(cwd, str) else current


def _write(store: Store, spec: dict[str, Any]) -> None:
    mode: WriteMode = "overwrite" if spec.get("mode") == "overwrite" else "append"
    write(
        store,
        str(spec["to"]),
        str(spec.get("text", "")),
        name=spec.get("name"),
        title=spec.get("title"),
        mode=mode,
        aliases=spec.get("aliases"),
    )


def _brief(event: dict[str, Any]) -> str:
    text = event.get("prompt") or event.get("summary")
    return f": {str(text)[:70]!r}" if text else ""


async def _reply(replies: BufferedByteReceiveStream) -> dict[str, Any]:
    try:
        with anyio.fail_after(REPLY_TIMEOUT):
            line = await replies.receive_until(b"\n", 16 * 1024 * 1024)
    except (TimeoutError, anyio.EndOfStream, anyio.IncompleteRead):
        return {"ok": False, "error": "no reply from the session process"}
    data = json.loads(line)
    return (
        data
        if isinstance(data, dict)
        else {"ok": False, "error": "reply is not an object"}
    )


def _report(reply: dict[str, Any], out: TextIO) -> int:
    if not reply.get("ok", False):
        out.write(f"  ✗ failed: {reply.get('error', 'unknown error')}\n")
        return 1
    context = str(reply.get("context") or "")
    if context:
        out.write(
            "  ← context:\n" + "".join(f"    {ln}\n" for ln in context.splitlines())
        )
    else:
        out.write("  ← no context\n")
    for key in ("surfaced", "reread", "notes"):
        if reply.get(key):
            out.write(f"  {key}: {', '.join(map(str, reply[key]))}\n")
    return 0


async def _wait(proc: Process) -> int:
    with anyio.move_on_after(5):
        return await proc.wait()
    proc.kill()
    return await proc.wait()


def _show_logs(root: Path, out: TextIO) -> None:
    out.writelines(
        f"\n--- {log.relative_to(root).as_posix()} ---\n{log.read_text(encoding='utf-8')}"
        for log in sorted(root.glob("projects/*/daily/*.md"))
    )


def cmd_simulate(script: str, root: str | None, out: TextIO) -> int:
    """Replay `script` against `root` (default: a fresh temporary root, removed afterwards)."""
    path = Path(script)
    if root:
        return anyio.run(replay, path, Path(root).absolute(), out)
    with tempfile.TemporaryDirectory(prefix="memhooks-sim-") as tmp:
        return anyio.run(replay, path, Path(tmp), out)

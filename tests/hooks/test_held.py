"""The change notice tells what changed in a file the block held whole: the lines removed
and added since the model was shown it, from the text kept beside the session's state
(`hooks/held.py`). Real hook commands (`memhooks hook`), real files."""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING

from memhooks.hooks.state import held_rel, state_rel
from tests.conftest import run_cli_as_person
from tests.hooks.test_hook import claude, compact, context_of, hook, store_for
from tests.hooks.test_session import Session

if TYPE_CHECKING:
    from pathlib import Path

NPM = "- Always use npm for installs (rule HERON-3)."
PNPM = "- Use pnpm for installs, never npm (rule HERON-4)."
SMALL = "- Keep commits small."
BUILT = "Memory changed on disk since this session's block was built: "
#: A prompt that finds nothing: what comes with it is the notice alone.
HELLO = "Say hello."


def _start(memory_root: Path, project: Path, text: str) -> Path:
    store_for(memory_root, project).write_memory(text)
    code, out, err = hook(claude("SessionStart", project, source="startup"))
    assert code == 0, err
    assert text in context_of(out, "SessionStart")
    return memory_root / "MEMORY.md"


def _ask(project: Path) -> str:
    code, out, err = hook(claude("UserPromptSubmit", project, prompt=HELLO))
    assert code == 0, err
    assert not err, err
    return context_of(out, "UserPromptSubmit") if out else ""


def test_a_rule_replaced_by_hand_is_told_removed_and_added_once(
    memory_root: Path, project: Path
) -> None:
    # The model holds the block with the old rule; "MEMORY.md changed" alone left it
    # using npm: it rarely reads the file again.
    memory = _start(memory_root, project, f"{NPM}\n{SMALL}")
    memory.write_text(memory.read_text().replace(NPM, PNPM))
    ctx = _ask(project)
    assert f"{BUILT}MEMORY.md.\n" in ctx
    assert f"\n-{NPM}\n+{PNPM}\n</memory>" in ctx
    assert SMALL not in ctx  # unchanged lines are not repeated
    assert _ask(project) == ""  # told once
    memory.write_text(memory.read_text() + "- Tag releases on Fridays.\n")
    ctx = _ask(project)  # from what was told last, not from the block
    assert "+- Tag releases on Fridays." in ctx
    assert NPM not in ctx and PNPM not in ctx


def test_a_line_forgotten_is_told_removed(memory_root: Path, project: Path) -> None:
    _start(memory_root, project, f"{NPM}\n{SMALL}")
    # A person's, in a terminal: the model's own is no news (test_session_writes).
    done = run_cli_as_person("forget", "MEMORY.md", "--line", "HERON-3", cwd=project)
    assert done.returncode == 0, done.stderr
    ctx = _ask(project)
    assert f"\n-{NPM}\n</memory>" in ctx
    assert "forgotten" not in ctx  # the block does not show the mark either


def test_a_change_too_long_for_the_budget_is_counted_and_the_reader_named(
    memory_root: Path, project: Path
) -> None:
    memory = _start(memory_root, project, f"{NPM}\n{SMALL}")
    many = "".join(
        f"- Rule {i}: the kestrel host {i} drains at noon.\n" for i in range(80)
    )
    memory.write_text(memory.read_text() + many)
    ctx = _ask(project)
    assert f"{BUILT}MEMORY.md.\n" in ctx
    assert (
        "MEMORY.md changed since the block showed it (lines removed: 0, added: 80); "
        "read it with `memhooks read MEMORY.md`." in ctx
    )
    assert "Rule 3:" not in ctx
    assert len(ctx.encode()) <= 1024 + 200  # half the auto-search budget, and the frame


def test_a_change_too_long_names_the_mcp_reader_the_model_has(
    memory_root: Path, project: Path
) -> None:
    server = {"command": "memhooks", "args": ["mcp"]}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"mem": server}}))
    memory = _start(memory_root, project, NPM)
    memory.write_text("".join(f"- Rule {i} of the kestrel hosts.\n" for i in range(90)))
    ctx = _ask(project)
    assert (
        "MEMORY.md changed since the block showed it (lines removed: 1, added: 90); "
        "read it with `mcp__mem__memory_read` (MEMORY.md)." in ctx
    )


def test_private_text_added_by_hand_is_not_shown(
    memory_root: Path, project: Path
) -> None:
    memory = _start(memory_root, project, f"{NPM}\n{SMALL}")
    memory.write_text(
        memory.read_text()
        + "<private>the vault PIN is 4921</private>\n"
        + "- Ship on Thursdays.\n<private>\nbackup code 77-1\n</private>\n"
    )
    ctx = _ask(project)
    assert "+- Ship on Thursdays." in ctx
    assert "4921" not in ctx and "77-1" not in ctx and "private" not in ctx


def test_an_open_item_closed_in_the_scratchpad_is_told_removed(
    memory_root: Path, project: Path
) -> None:
    store = store_for(memory_root, project)
    pad = (
        memory_root
        / store.write_scratchpad(
            "- [ ] Migrate the heron queue\n- [ ] Rotate the keys"
        ).rel
    )
    _start(memory_root, project, SMALL)
    pad.write_text(pad.read_text().replace("[ ] Rotate", "[x] Rotate"))
    ctx = _ask(project)
    assert (
        "\n-- [ ] Rotate the keys\n</memory>" in ctx
    )  # the block shows open items only


def test_a_first_rule_and_open_item_written_by_hand_are_told_added(
    memory_root: Path, project: Path
) -> None:
    # Seen with the real Claude Code (2.1.332, test_first_day.py): a project with no
    # memory got "No memory to show yet"; the MEMORY.md a person then wrote was only
    # named, and the model, holding no copy, did not read it.
    code, _, err = hook(claude("SessionStart", project, source="startup"))
    assert code == 0, err
    memory = memory_root / "MEMORY.md"
    memory.write_text(f"{PNPM}\n")
    ctx = _ask(project)
    assert f"{BUILT}MEMORY.md.\n" in ctx
    assert f"lines removed (-) and added (+):\n+{PNPM}\n</memory>" in ctx
    assert _ask(project) == ""  # told once
    pad = (
        memory_root
        / store_for(memory_root, project)
        .write_scratchpad("- [ ] Rotate the heron keys")
        .rel
    )
    ctx = _ask(project)
    assert "+- [ ] Rotate the heron keys\n</memory>" in ctx
    memory.write_text(f"{PNPM}\n{SMALL}\n")  # from what was told, not from ""
    ctx = _ask(project)
    assert f"+{SMALL}\n</memory>" in ctx and PNPM not in ctx
    assert pad.exists()


def test_a_blank_memory_file_filled_by_hand_is_told_added(
    memory_root: Path, project: Path
) -> None:
    memory_root.mkdir(parents=True, exist_ok=True)
    memory = memory_root / "MEMORY.md"
    memory.write_text("\n")
    assert hook(claude("SessionStart", project, source="startup"))[0] == 0
    memory.write_text(f"{NPM}\n")
    assert f"\n+{NPM}\n</memory>" in _ask(project)


def test_a_memory_file_cut_from_the_block_is_only_named(
    memory_root: Path, project: Path
) -> None:
    # The model holds the head alone: a diff against it would tell lines it lacks.
    lines = "\n".join(
        f"- Rule {i} of the long list, about the heron." for i in range(400)
    )
    store_for(memory_root, project).write_memory(lines)
    code, out, err = hook(claude("SessionStart", project, source="startup"))
    assert code == 0 and "Rule 399" not in out, err
    memory = memory_root / "MEMORY.md"
    memory.write_text(memory.read_text() + "- One more rule.\n")
    assert _ask(project).endswith(f"{BUILT}MEMORY.md.\n</memory>")


def test_without_the_kept_text_the_file_is_named_as_before(
    memory_root: Path, project: Path
) -> None:
    memory = _start(memory_root, project, f"{NPM}\n{SMALL}")
    side = memory_root / held_rel("sess-1")
    side.write_text("{not json")
    memory.write_text(memory.read_text().replace(NPM, PNPM))
    ctx = _ask(project)
    assert ctx.endswith(f"{BUILT}MEMORY.md.\n</memory>"), ctx
    side.unlink()
    memory.write_text(memory.read_text() + "- More.\n")
    assert _ask(project).endswith(f"{BUILT}MEMORY.md.\n</memory>")


def test_the_kept_text_goes_with_the_state(memory_root: Path, project: Path) -> None:
    _start(memory_root, project, f"{NPM}\n{SMALL}")
    side = memory_root / held_rel("sess-1")
    pad = f"projects/{store_for(memory_root, project).slug}/SCRATCHPAD.md"
    assert json.loads(side.read_text()) == {"MEMORY.md": f"{NPM}\n{SMALL}", pad: ""}
    assert side.stat().st_mode & 0o777 == 0o600
    code, _, err = hook(claude("SessionEnd", project, reason="exit"))
    assert code == 0, err
    assert not side.exists() and not (memory_root / state_rel("sess-1")).exists()


def test_a_session_that_never_ended_leaves_no_kept_text(
    memory_root: Path, project: Path
) -> None:
    # Killed with no session end: the next session's start sweeps its state, and the
    # text beside it; and a side file whose state is gone, once as old.
    _start(memory_root, project, SMALL)
    state, side = (memory_root / r for r in (state_rel("sess-1"), held_rel("sess-1")))
    raw = json.loads(state.read_text())
    state.write_text(json.dumps({**raw, "harness": 0}))
    lone = memory_root / held_rel("sess-0")
    fresh = memory_root / held_rel("sess-9")
    for path in (lone, fresh):
        path.write_text("{}")
    month_ago = time.time() - 31 * 24 * 3600
    for path in (state, side, lone):
        os.utime(path, (month_ago, month_ago))
    other = claude("SessionStart", project, source="startup") | {"session_id": "s-2"}
    code, _, err = hook(other)
    assert code == 0, err
    assert not state.exists() and not side.exists() and not lone.exists()
    assert fresh.exists()  # its state may be written yet


def test_a_session_process_tells_the_change_too(
    memory_root: Path, project: Path
) -> None:
    # A session process keeps its corpus and state in memory; the side file is on disk.
    memory = memory_root / store_for(memory_root, project).write_memory(NPM).rel
    side = memory_root / held_rel("s")
    with Session(memory_root) as s:
        start = s.send(event="session-start", session_id="s", cwd=str(project), id=1)
        assert NPM in str(start["context"])
        memory.write_text(memory.read_text().replace(NPM, PNPM))
        time.sleep(0.5)  # the watcher's debounce is 30 ms; a person is slower
        ask = {"event": "pre-prompt", "session_id": "s", "cwd": str(project)}
        reply = s.send(**ask, prompt=HELLO, id=2)
        assert f"\n-{NPM}\n+{PNPM}\n</memory>" in str(reply["context"])
        assert s.send(**ask, prompt=HELLO, id=3)["context"] == ""
        s.send(event="session-end", session_id="s", cwd=str(project), id=4)
        s.close_stdin()
    assert s.proc.returncode == 0
    assert not side.exists()


def test_our_own_record_in_a_log_held_whole_is_no_news(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # A compaction's record appended to today's log, which the block held whole, with no
    # block after it: a person's entry appended later is told alone.
    store = store_for(memory_root, project)
    log = memory_root / store.append_daily("deploy", "Shipped the heron build.").rel
    store.write_memory(SMALL)
    transcript = tmp_path / "t.jsonl"
    said = {"role": "user", "content": "Fix the kestrel build"}
    transcript.write_text(
        json.dumps({"type": "user", "uuid": "u1", "message": said}) + "\n"
    )
    start = claude("SessionStart", project, source="startup")
    assert hook(start | {"transcript_path": str(transcript)})[0] == 0
    compact(project, transcript)
    assert "compaction summary" in log.read_text()
    assert _ask(project) == ""  # our own write: no news
    with log.open("a") as f:
        f.write("\n### 18:00 — note\nThe osprey host reboots nightly.\n")
    ctx = _ask(project)
    assert "lines removed (-) and added (+):\n+### 18:00 — note\n" in ctx
    assert "+The osprey host reboots nightly.\n</memory>" in ctx
    assert "compaction summary" not in ctx and "kestrel" not in ctx

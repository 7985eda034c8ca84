"""The memory root on a disk that fills up, driven by the three real CLIs.

The root is a 2 MiB tmpfs (mounted as root, unmounted after), seeded and used once with
room, then filled with a file of zeros. On the full disk: `claude -p`, `codex exec` and
`gemini -p`, then each one's TUI in tmux: a prompt, a compaction (Claude Code's
`/compact`, Codex's forced auto-compaction, Gemini's `/compress`), a prompt and the
session end. Then a person's `memhooks write` and `memhooks doctor`. Then the filler is
removed and each CLI runs once more.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import (
    QUIT,
    READY,
    TUI,
    headless,
    hook_results,
    setup_claude,
    setup_codex,
    setup_gemini,
)
from tests.e2e.memory_fixture import ASK, FACT, blocks_in, seed
from tests.e2e.sandbox import MEMHOOKS

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.e2e.sandbox import Leftovers, Sandbox
    from tests.e2e.tmux import Tmux

pytestmark = pytest.mark.timeout(900)

CLIS = ("claude", "codex", "gemini")
#: Codex auto-compacts once a reply reports more tokens than this; Gemini's /compress
#: needs a history it finds big enough to be worth compressing.
COMPACT_LIMIT = 2000
QUIET = {"anthropic": 100, "responses": 100, "gemini": 200_000}
DISK = "2m"


def said(cli: str, what: str) -> str:
    return f"[{cli}] {what}"


@dataclass
class FullDisk:
    sb: Sandbox
    hooks: Path
    #: Every memory file's bytes just before the disk was filled.
    before: dict[str, bytes]
    #: The same just before the filler was removed.
    full: dict[str, bytes] = field(default_factory=dict)
    #: The prompts sent while the disk was full.
    prompts: list[str] = field(default_factory=list)
    leftovers: Leftovers | None = None
    write: subprocess.CompletedProcess[str] | None = None
    doctor: subprocess.CompletedProcess[str] | None = None
    #: Hook results (rc, stderr) while the disk was full, by payload path.
    results_full: dict[Path, tuple[str, str]] = field(default_factory=dict)
    #: What was left and the files once the disk had room again.
    leftovers_after: Leftovers | None = None
    after: dict[str, bytes] = field(default_factory=dict)
    search: subprocess.CompletedProcess[str] | None = None


def files(root: Path) -> dict[str, bytes]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink():
            with contextlib.suppress(OSError):
                out[str(p.relative_to(root))] = p.read_bytes()
    return out


def fill(disk: Path) -> None:
    """Write zeros to `disk/filler` until the file system refuses."""
    with (disk / "filler").open("wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError as e:
            assert e.errno == errno.ENOSPC, e
    with contextlib.suppress(OSError):
        (disk / "filler2").write_bytes(b"\0" * 4096)


def tui_session(sb: Sandbox, cli: str, env: dict[str, str], got: FullDisk) -> None:
    tmux: Tmux = sb.tmux(TUI[cli], env=env)
    tmux.wait_for(
        lambda: any(m in tmux.screen() for m in READY[cli]),
        timeout=90,
        what="input box",
    )
    got.prompts.append(said(cli, "Say hello on a full disk."))
    sb.ask(tmux, got.prompts[-1])
    if cli == "claude":
        tmux.command("/compact", "Compacted")
    elif cli == "codex":
        sb.script(usage={**QUIET, "responses": COMPACT_LIMIT * 4})
        got.prompts.append(said(cli, "Say hello before the compaction."))
        sb.ask(tmux, got.prompts[-1])
        sb.script(usage=QUIET)
    else:
        tmux.command("/compress", "compressed from")
    got.prompts.append(said(cli, "Say hello after the compaction."))
    sb.ask(tmux, got.prompts[-1])
    tmux.type(QUIT[cli])
    tmux.wait_exit(timeout=60)


@pytest.fixture(scope="module")
def full_disk(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> Iterator[FullDisk]:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    with sandbox(tmp_path_factory.mktemp("full-disk"), cli_bins, netns) as sb:
        disk = sb.base / "disk"
        disk.mkdir()
        mount = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={DISK}", "tmpfs", str(disk)],
            capture_output=True,
            text=True,
            check=False,
        )
        if mount.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs: {mount.stderr.strip()}")
        try:
            yield from _drive(sb, disk)
        finally:
            done = subprocess.run(["umount", str(disk)], check=False, timeout=30)
            if done.returncode != 0:  # something still holds it: detached at least
                subprocess.run(["umount", "-l", str(disk)], check=False, timeout=30)


def _drive(sb: Sandbox, disk: Path) -> Iterator[FullDisk]:
    sb.root = disk / "mem"
    sb.root.mkdir(mode=0o700)
    hooks = sb.base / "hooks"
    envs = {
        "claude": setup_claude(sb, capture=str(hooks / "claude")),
        "codex": setup_codex(
            sb, capture=str(hooks / "codex"), auto_compact=COMPACT_LIMIT
        ),
        "gemini": setup_gemini(sb, capture=str(hooks / "gemini")),
    }
    seed(sb)
    sb.script(usage=QUIET)
    for cli in CLIS:
        done = sb.run(headless(cli, said(cli, "Say hello with room.")), env=envs[cli])
        assert done.returncode == 0, done.stderr
    sb.entries("session end", at_least=3)
    got = FullDisk(sb, hooks, files(sb.root))
    fill(disk)
    for cli in CLIS:
        got.prompts.append(said(cli, ASK))
        done = sb.run(headless(cli, got.prompts[-1]), env=envs[cli])
        assert done.returncode == 0, done.stderr
    for cli in CLIS:
        tui_session(sb, cli, envs[cli], got)
    got.leftovers = sb.leftovers()
    got.write = sb.run(
        [str(MEMHOOKS), "write", "--to", "memory", "--text", "- a person's rule"],
        env=sb.env(),
    )
    got.doctor = sb.run([str(MEMHOOKS), "doctor"], env=sb.env())
    got.full = files(sb.root)
    got.results_full = hook_results(hooks)
    for name in ("filler", "filler2"):
        with contextlib.suppress(OSError):
            (disk / name).unlink()
    for cli in CLIS:
        done = sb.run(headless(cli, said(cli, "Say hello once freed.")), env=envs[cli])
        assert done.returncode == 0, done.stderr
    sb.entries("session end", at_least=6)
    got.leftovers_after = sb.leftovers()
    got.after = files(sb.root)
    got.search = sb.run([str(MEMHOOKS), "search", "wombat proxy"], env=sb.env())
    # Kept for a look once the tmpfs is gone.
    shutil.copytree(sb.root, sb.base / "mem-after", symlinks=True)
    yield got


RULE_MARK = "rule ZEBRA-42"


#: Memory files a person keeps (not memhooks' caches and state, in hidden folders).
def kept(snapshot: dict[str, bytes]) -> dict[str, bytes]:
    return {rel: b for rel, b in snapshot.items() if not rel.startswith(".")}


def test_every_hook_exits_0_and_names_the_full_disk_in_one_line(
    full_disk: FullDisk,
) -> None:
    said = full_disk.results_full.values()
    assert len(said) > 30
    for code, err in said:
        assert code == "0"
        assert len(err.splitlines()) <= 1, err
        assert not err or "No space left on device" in err, err


def test_each_prompt_on_the_full_disk_went_with_the_block(full_disk: FullDisk) -> None:
    # Before: a compaction's record the disk refused failed the whole post-compaction
    # event: Claude Code's and Codex's model got no block after `/compact` and Codex's
    # auto-compaction ("cannot write …daily…: No space left on device; no context").
    sb = full_disk.sb
    missing = [p for p in full_disk.prompts if RULE_MARK not in sb.turn(p).text]
    assert not missing


def test_no_prompt_on_the_full_disk_went_with_two_blocks(full_disk: FullDisk) -> None:
    # Before: Gemini's TUI got the block again with its first prompt: its SessionStart
    # hook could not save the session's state, and the session process it forked read
    # none. A prompt whose hook ran in-process (it says "session state not saved", which
    # a session process does not tell its hook) cannot know of the block: not asserted.
    sb = full_disk.sb
    alone = in_process(full_disk.hooks)
    twice = [
        p for p in full_disk.prompts if blocks_in(sb.turn(p)) > 1 and p not in alone
    ]
    assert not twice


def in_process(hooks: Path) -> set[str]:
    """The prompts whose hook ran in-process on the full disk, not in a session process."""
    out = set()
    for rc, (_, err) in hook_results(hooks).items():
        if "session state not saved" in err:
            payload = json.loads(rc.with_suffix(".json").read_text())
            out.add(str(payload.get("prompt")))
    return out


def test_auto_search_finds_the_note_on_the_full_disk(full_disk: FullDisk) -> None:
    sb = full_disk.sb
    for cli in CLIS:
        assert FACT in sb.turn(said(cli, ASK)).text, cli


def test_memory_files_keep_every_byte(full_disk: FullDisk) -> None:
    before = kept(full_disk.before)
    assert set(before) >= {"MEMORY.md"} and len(before) == 3, before.keys()
    assert kept(full_disk.full) == before
    after = kept(full_disk.after)
    assert all(after[rel].startswith(b) for rel, b in before.items())


def test_no_temp_file_is_left(full_disk: FullDisk) -> None:
    for snapshot in (full_disk.full, full_disk.after):
        assert not [r for r in snapshot if r.endswith(".tmp")]


def test_a_person_s_write_fails_in_one_line(full_disk: FullDisk) -> None:
    done = full_disk.write
    assert done is not None
    assert done.returncode != 0
    assert done.stderr == (
        "memhooks: error: cannot write MEMORY.md: No space left on device\n"
    )
    assert b"a person's rule" not in full_disk.full["MEMORY.md"]


def test_doctor_names_the_full_disk(full_disk: FullDisk) -> None:
    done = full_disk.doctor
    assert done is not None
    assert done.returncode == 1
    assert "its disk has 0 KiB free" in done.stdout


def test_nothing_is_left_running(full_disk: FullDisk) -> None:
    for left in (full_disk.leftovers, full_disk.leftovers_after):
        assert left is not None
        assert not left.processes and not left.sockets


def test_the_activity_record_lost_no_line_to_a_cut_one(full_disk: FullDisk) -> None:
    # Before: the disk took the first 4096 bytes of an append, and the next fact, once
    # it had room, went onto that cut line (two facts on a line, both skipped).
    (rel,) = [r for r in full_disk.after if r.startswith(".activity/") and r[-1] == "l"]
    lines = full_disk.after[rel].splitlines()
    assert not [ln for ln in lines if ln.count(b'{"t": ') > 1]


def test_search_works_once_the_disk_has_room(full_disk: FullDisk) -> None:
    done = full_disk.search
    assert done is not None
    assert done.returncode == 0, done.stderr
    assert FACT in done.stdout


@pytest.mark.xfail(
    strict=True,
    reason="a full disk loses the prompts of the sessions it ran: their session end "
    "cannot write its record, nor their state the prompts it would keep, and once the "
    "disk has room no event names those sessions again",
)
def test_the_prompts_of_the_full_disk_are_recorded_once_it_has_room(
    full_disk: FullDisk,
) -> None:
    daily = full_disk.sb.daily()
    lost = [p for p in full_disk.prompts if p not in daily]
    assert not lost


def test_all_three_were_driven(full_disk: FullDisk) -> None:
    assert {p.split("]")[0] for p in full_disk.prompts} == {
        "[claude",
        "[codex",
        "[gemini",
    }

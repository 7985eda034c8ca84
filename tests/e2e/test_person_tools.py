"""A person's own tools on the memory root while a Claude Code TUI session runs: the root
is a git repository (`git checkout` of an older commit, `git stash` and `stash pop`, a
`git pull` that brings a note), MEMORY.md saved in vim while vim keeps it open, a line
retired with `memhooks forget`, a note the block lists renamed with `mv`; then
`/compact` and `/exit`. Asserted on what the model received and on the files' bytes."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import setup_claude
from tests.e2e.memory_fixture import BLOCK_OPEN, RULE, seed
from tests.e2e.test_claude_code import hook_errors, wait_ready

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.e2e.sandbox import Leftovers, Sandbox
    from tests.e2e.tmux import Tmux

pytestmark = pytest.mark.timeout(300)

NOTICE = "Memory changed on disk since this session's block was built: "
HERON = "- The heron release ships only signed tarballs (rule HERON-3)."
OSPREY = "- The osprey cluster runs in zone ospreyzone-9 (rule OSPREY-1)."
PELICAN = "The pelican queue drains every 17 minutes through the gannet relay."
GREBE = "- The grebe service listens on port 9911 (rule GREBE-5)."
CORMORANT = "The cormorant batch job restarts at 04:10 UTC on the ibis host."
#: The prompts, in the order asked, by the step they follow.
ASKED = {
    "checkout": "What does the heron release ship as signed artifacts.",
    "stash": "Where does the osprey cluster run, which zone.",
    "pop": "Tell me again which zone the osprey cluster runs in.",
    "pull": "How often does the pelican queue drain through the gannet relay.",
    "vim": "Which port does the grebe service listen on.",
    "forget": "Which zone is the osprey cluster in now.",
    "mv": "Say hello after the rename.",
    "compact": "Pick the next task after the compaction.",
}


@dataclass
class Session:
    sb: Sandbox
    vim: bool
    memory_after_vim: bytes = b""
    vim_renamed: bool = False
    status: str = ""
    debug: str = ""
    leftovers: Leftovers | None = None
    notes: list[str] = field(default_factory=list)

    def notice(self, step: str) -> str:
        """The change notice that came with the prompt asked after `step` ("" if none)."""
        found = re.findall(f"{re.escape(NOTICE)}(.*)", self.after(step))
        return found[0] if found else ""

    def after(self, step: str) -> str:
        """What the model got with the prompt asked after `step`, the prompt on."""
        return self.sb.turn(ASKED[step]).text.split(ASKED[step])[-1]


def _notes(sb: Sandbox) -> str:
    """The project's notes folder, root-relative."""
    return str(next(sb.root.glob("projects/*/notes")).relative_to(sb.root))


def git(sb: Sandbox, *args: str, cwd: Path | None = None) -> str:
    """Run git as a person would in the sandbox's root (or `cwd`); its output."""
    done = subprocess.run(
        ["git", "-c", "user.name=p", "-c", "user.email=p@p", *args],
        cwd=cwd or sb.root,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


def _vim(sb: Sandbox, env: dict[str, str], path: Path, line: str) -> Tmux:
    """MEMORY.md opened in vim, a line added and saved with `:w`; vim left open. Vim
    saves as in a home folder: a `4913` probe, the file renamed to `MEMORY.md~`, a new
    one written, the backup removed (its `backupskip` default, `/tmp/*`, where the
    sandbox is, would have it write in place)."""
    vim = sb.tmux(["vim", "-c", "set backupskip=", str(path)], env=env)
    vim.wait_for(lambda: (path.parent / f".{path.name}.swp").exists(), what="vim")
    vim.keys("Escape")
    vim.type(f":$put ='{line}'")
    vim.type(":w")
    vim.wait_for(lambda: _holds(path, line), what="vim's save")
    return vim


def _holds(path: Path, line: str) -> bool:
    """Whether `path` holds `line` (False while vim has it renamed away)."""
    try:
        return f"{line}\n" in path.read_text()
    except FileNotFoundError:
        return False


@pytest.fixture(scope="module")
def session(
    tmp_path_factory, cli_bins: Path, netns: bool, tmux_present: None
) -> Iterator[Session]:
    with sandbox(tmp_path_factory.mktemp("person-tools"), cli_bins, netns) as sb:
        env = setup_claude(sb)
        seed(sb)
        sb.memhooks("write", "--to", "note", "--name", "cormorant", "--text", CORMORANT)
        (sb.root / ".gitignore").write_text(".memhooks.lock\n.sessions.lock\n")
        memory = sb.root / "MEMORY.md"
        git(sb, "init", "-q", "-b", "main")
        git(sb, "add", "-A")
        git(sb, "commit", "-qm", "seed")
        memory.write_text(memory.read_text() + HERON + "\n")
        git(sb, "commit", "-qam", "heron")
        result = Session(sb, vim=shutil.which("vim") is not None)
        log = sb.base / "debug.txt"
        tmux = sb.tmux(["claude", "--debug-file", str(log)], env=env)
        wait_ready(tmux)
        sb.ask(tmux, "Say hello first.")
        git(sb, "checkout", "-q", "HEAD~1")
        sb.ask(tmux, ASKED["checkout"])
        git(sb, "checkout", "-q", "main")
        memory.write_text(memory.read_text() + OSPREY + "\n")
        git(sb, "stash", "-q")
        sb.ask(tmux, ASKED["stash"])
        git(sb, "stash", "pop", "-q")
        sb.ask(tmux, ASKED["pop"])
        git(sb, "commit", "-qam", "osprey")
        other = sb.base / "laptop"
        git(sb, "clone", "-q", str(sb.root), str(other), cwd=sb.base)
        notes = sb.root / _notes(sb)
        pelican = other / _notes(sb) / "pelican-queue.md"
        pelican.write_text(f"# Pelican queue\n{PELICAN}\n")
        git(sb, "add", "-A", cwd=other)
        git(sb, "commit", "-qm", "pelican", cwd=other)
        git(sb, "pull", "-q", "--no-rebase", str(other), "main")
        sb.ask(tmux, ASKED["pull"])
        inode = memory.stat().st_ino
        vim = _vim(sb, env, memory, GREBE) if result.vim else None
        result.memory_after_vim = memory.read_bytes()
        result.vim_renamed = memory.stat().st_ino != inode
        sb.ask(tmux, ASKED["vim"])
        if vim is not None:
            vim.type(":q")
        sb.memhooks(
            "forget", "MEMORY.md", "--line", "osprey cluster", "--reason", "gone"
        )
        sb.ask(tmux, ASKED["forget"])
        (notes / "cormorant.md").rename(notes / "ibis-jobs.md")
        sb.ask(tmux, ASKED["mv"])
        tmux.type("/compact")
        tmux.wait_text("Compacted", timeout=90)
        sb.ask(tmux, ASKED["compact"])
        tmux.type("/exit")
        tmux.wait_exit()
        result.leftovers = sb.leftovers()
        sb.entries("session end", at_least=1)
        result.status = git(sb, "status", "--short", "--untracked-files=all")
        result.debug = log.read_text()
        result.notes = sorted(p.name for p in notes.iterdir())
        yield result


def test_an_older_commit_checked_out_is_what_the_next_prompt_sees(
    session: Session,
) -> None:
    assert session.notice("checkout") == "MEMORY.md."
    told = session.after("checkout")
    assert f"\n-{HERON}\n" in told  # the model is told the rule it holds is gone
    # Gone from disk, not surfaced.
    assert "HERON-3" not in told.replace(f"\n-{HERON}\n", "\n")
    assert f"\n+{HERON}\n" in session.after("stash")  # back with `checkout main`


def test_stash_and_stash_pop_are_what_the_next_prompts_see(session: Session) -> None:
    assert "ospreyzone-9" not in session.after("stash")
    assert OSPREY in session.after("pop")


def test_a_note_a_pull_brought_is_named_and_surfaced(session: Session) -> None:
    assert f"{_notes(session.sb)}/pelican-queue.md" in session.notice("pull")
    assert PELICAN in session.after("pull")


def test_a_vim_save_is_seen_and_its_side_files_never_are(session: Session) -> None:
    if not session.vim:
        pytest.skip("vim not installed")
    assert session.vim_renamed, "vim wrote in place, not as it saves in a home folder"
    assert session.notice("vim") == "MEMORY.md."
    assert f"\n+{GREBE}\n" in session.after("vim")
    assert session.memory_after_vim.endswith(f"{GREBE}\n".encode())
    for request in session.sb.requests():
        assert not re.search(r"\.swp|\b4913\b|\.md~", request.text), request.n


def test_a_forgotten_line_is_told_removed_and_not_surfaced(session: Session) -> None:
    assert session.notice("forget") == "MEMORY.md."
    told = session.after("forget")
    assert f"\n-{OSPREY}\n" in told  # the model is told the line it holds is gone
    assert "ospreyzone-9" not in told.replace(f"\n-{OSPREY}\n", "\n")


def test_a_note_renamed_with_mv_is_named_under_both_names(session: Session) -> None:
    # `mv` keeps the file's mtime: the notice named neither the new name nor the old
    # one, which the block's index of notes still listed (2026-12-05, Claude Code 2.1.332).
    notes = _notes(session.sb)
    assert session.notice("mv") == (
        f"{notes}/ibis-jobs.md, {notes}/cormorant.md (removed)."
    )


def test_the_block_after_compact_holds_the_files_as_they_are(session: Session) -> None:
    got = session.sb.turn(ASKED["compact"]).text  # the conversation is the summary now
    start = got.rfind(f"SessionStart hook additional context: {BLOCK_OPEN}")
    assert start >= 0
    block = got[start:]
    assert RULE in block and HERON in block and "notes/ibis-jobs.md" in block
    assert "notes/cormorant.md" not in block and "ospreyzone-9" not in block


def test_git_status_shows_only_what_the_person_did_and_the_log(
    session: Session,
) -> None:
    notes = _notes(session.sb)
    daily = notes.replace("/notes", f"/daily/{date.today().isoformat()}.md")
    assert sorted(session.status.splitlines()) == sorted(
        [
            " M MEMORY.md",  # vim's line and the forgotten one
            f" D {notes}/cormorant.md",
            f"?? {daily}",  # memhooks' records: the flush and the session end
            f"?? {notes}/ibis-jobs.md",
        ]
    )


def test_nothing_is_left_and_no_hook_failed(session: Session) -> None:
    assert not session.leftovers, session.leftovers
    assert not hook_errors(session.debug)
    assert session.notes == ["ibis-jobs.md", "pelican-queue.md", "staging-db.md"]

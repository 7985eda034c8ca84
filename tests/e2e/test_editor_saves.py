"""How editors and other tools save memory files while a Claude Code, Codex CLI or
Gemini CLI TUI session runs: `sed -i` and `perl -pi` (a temp file renamed over), a
JetBrains safe write, an emacs save (the file renamed to `~`, a new one written), a note
deleted and written again, a note renamed with `mv`, the notes folder moved away and
back, a `git pull` bringing 300 notes, a note replaced by a symlink to another, a note
named in Latin-1 (the watch lost), MEMORY.md linked to another file of the root and that
file edited; a prompt after each, then `/clear`, a prompt and `/exit` (`/quit`). Asserted
on what the model received and the hooks' exit codes."""

from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import sandbox
from tests.e2e.harnesses import (
    QUIT,
    hook_results,
    setup_claude,
    setup_codex,
    setup_gemini,
)
from tests.e2e.memory_fixture import BLOCK_OPEN, RULE, seed
from tests.e2e.test_claude_code import hook_errors, wait_ready
from tests.e2e.test_codex import _READY as CODEX_READY
from tests.e2e.test_person_tools import git

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from tests.e2e.sandbox import Leftovers, Sandbox

pytestmark = pytest.mark.timeout(300)

NOTICE = "Memory changed on disk since this session's block was built: "
LYNX = "- Rotate the lynx keys monthly (rule LYNX-2)."
LYNX_WEEKLY = "- Rotate the lynx keys weekly (rule LYNX-2)."
MOOSE = "- Tag every moose build with its date (rule MOOSE-4)."
RELAY = "The heron relay runs on host {} in the east rack."
PUFFIN = "The puffin gateway answers on port 6123 for the fjord clients."
GULL = "The gull mirror syncs every 9 minutes from the skua origin."
WOMBAT = "The wombat proxy restarts nightly at 03:15 on the dingo node."
QUOKKA = "The quokka archive compacts at 02:40 on the tern host."
OTTER = "- Deploys go out on Thursdays (rule OTTER-7)."
IBIS = "The ibis scheduler pauses on bank holidays in the marsh region."
BULK = 300
#: The prompts, in the order asked, by the step they follow.
ASKED = {
    "sed": "Which host does the heron relay run on in the east rack.",
    "jetbrains": "Say hello after the safe write.",
    "quiet": "Say hello with nothing changed.",
    "perl": "How often are the lynx keys rotated.",
    "emacs": "How is every moose build tagged.",
    "recreate": "Tell me the heron relay host in the east rack again.",
    "mv": "Which heron relay host is it now, east rack.",
    "away": "Which port does the kestrel staging database use behind the wombat proxy.",
    "back": "When does the wombat proxy restart on the dingo node.",
    "pull": "When does the quokka archive compact on the tern host.",
    "symlink": "Which port does the puffin gateway answer on for the fjord clients.",
    "linked": "Say hello after the link.",
    "target": "Say hello after the rules file changed.",
    "blind": "When does the ibis scheduler pause in the marsh region.",
    "clear": "Pick the next task after the clear.",
}


@dataclass
class Session:
    sb: Sandbox
    notes: str  #: the project's notes folder, root-relative
    leftovers: Leftovers | None = None
    debug: str = ""
    hooks: dict[Path, tuple[str, str]] = field(default_factory=dict)

    def notice(self, step: str) -> str:
        """The change notice that came with the prompt asked after `step` ("" if none)."""
        found = re.findall(f"{re.escape(NOTICE)}(.*)", self.after(step))
        return found[0] if found else ""

    def after(self, step: str) -> str:
        """What the model got with the prompt asked after `step`, the prompt on."""
        return self.sb.turn(ASKED[step]).text.split(ASKED[step])[-1]


def _run(*argv: str, cwd: Path) -> None:
    subprocess.run(argv, cwd=cwd, check=True, timeout=30)


def _jetbrains(path: Path, text: str) -> None:
    """A JetBrains safe write: the new text in `NAME___jb_tmp___`, the file renamed to
    `NAME___jb_old___`, the new one renamed to its name, the old one removed."""
    tmp = path.with_name(path.name + "___jb_tmp___")
    old = path.with_name(path.name + "___jb_old___")
    tmp.write_text(text)
    path.rename(old)
    tmp.rename(path)
    old.unlink()


def _emacs(path: Path, text: str) -> None:
    """An emacs save of a file it backs up by renaming: its lock link `.#NAME`, the
    file renamed to `NAME~`, a new one written, the lock removed (the backup stays)."""
    lock = path.with_name(f".#{path.name}")
    os.symlink("p@host.4242:1700000000", lock)
    path.rename(path.with_name(path.name + "~"))
    path.write_text(text)
    lock.unlink()


#: How each CLI's TUI is left.
_SETUP: dict[str, Callable[..., dict[str, str]]] = {
    "claude": setup_claude,
    "codex": setup_codex,
    "gemini": setup_gemini,
}


@pytest.fixture(scope="module", params=["claude", "codex", "gemini"])
def session(
    request: pytest.FixtureRequest,
    tmp_path_factory,
    cli_bins: Path,
    netns: bool,
    tmux_present: None,
) -> Iterator[Session]:
    cli = request.param
    with sandbox(tmp_path_factory.mktemp(f"saves-{cli}"), cli_bins, netns) as sb:
        captured = sb.base / "hooks"
        env = _SETUP[cli](sb, capture=str(captured))
        seed(sb)
        sb.memhooks("write", "--to", "memory", "--text", LYNX)
        for name, text in (
            ("heron-relay", RELAY.format("alder-3")),
            ("puffin", PUFFIN),
            ("gull", GULL),
        ):
            sb.memhooks("write", "--to", "note", "--name", name, "--text", text)
        rel = str(next(sb.root.glob("projects/*/notes")).relative_to(sb.root))
        notes = sb.root / rel
        memory = sb.root / "MEMORY.md"
        (sb.root / ".gitignore").write_text(".memhooks.lock\n.sessions.lock\n")
        git(sb, "init", "-q", "-b", "main")
        git(sb, "add", "-A")
        git(sb, "commit", "-qm", "seed")
        other = sb.base / "laptop"
        git(sb, "clone", "-q", str(sb.root), str(other), cwd=sb.base)
        for i in range(BULK):
            fact = QUOKKA if i == 137 else f"Bulk note {i} holds routine text."
            (other / rel / f"bulk-{i:03d}.md").write_text(f"# Bulk {i}\n{fact}\n")
        git(sb, "add", "-A", cwd=other)
        git(sb, "commit", "-qm", "bulk", cwd=other)
        result = Session(sb, rel)
        log = sb.base / "debug.txt"
        if cli == "claude":
            tmux = sb.tmux(["claude", "--debug-file", str(log)], env=env)
            wait_ready(tmux)
        elif cli == "codex":
            tmux = sb.tmux(["codex", "--dangerously-bypass-hook-trust"], env=env)
            tmux.wait_for(
                lambda: any(m in tmux.screen() for m in CODEX_READY),
                timeout=60,
                what="the input box",
            )
        else:
            tmux = sb.tmux(["gemini"], env=env)
            tmux.wait_text("Type your message", timeout=60)
        sb.ask(tmux, "Say hello first.")
        heron = notes / "heron-relay.md"
        _run("sed", "-i", "s/alder-3/birch-7/", heron.name, cwd=notes)
        sb.ask(tmux, ASKED["sed"])
        _jetbrains(memory, memory.read_text() + MOOSE.replace("MOOSE", "ELK") + "\n")
        sb.ask(tmux, ASKED["jetbrains"])
        sb.ask(tmux, ASKED["quiet"])
        _run(
            "perl", "-pi", "-e", "s/keys monthly/keys weekly/", "MEMORY.md", cwd=sb.root
        )
        sb.ask(tmux, ASKED["perl"])
        _emacs(memory, memory.read_text() + MOOSE + "\n")
        sb.ask(tmux, ASKED["emacs"])
        heron.unlink()
        heron.write_text(f"# Heron relay\n{RELAY.format('cedar-5')}\n")
        sb.ask(tmux, ASKED["recreate"])
        heron.rename(notes / "relay-hosts.md")
        sb.ask(tmux, ASKED["mv"])
        away = sb.base / "notes-away"
        notes.rename(away)
        sb.ask(tmux, ASKED["away"])
        staging = away / "staging-db.md"
        staging.write_text(staging.read_text() + WOMBAT + "\n")
        away.rename(notes)
        sb.ask(tmux, ASKED["back"])
        git(sb, "add", "-A")
        git(sb, "commit", "-qm", "edits")
        git(sb, "pull", "-q", "--no-rebase", "--no-edit", str(other), "main")
        sb.ask(tmux, ASKED["pull"])
        puffin = notes / "puffin.md"
        puffin.unlink()
        puffin.symlink_to("gull.md")
        sb.ask(tmux, ASKED["symlink"])
        # MEMORY.md kept in another folder of the root and linked in, then that file
        # edited (written through a link, memhooks keeps it one).
        rules = sb.root / "shared" / "rules.md"
        rules.parent.mkdir()
        rules.write_text(memory.read_text())
        memory.unlink()
        memory.symlink_to("shared/rules.md")
        sb.ask(tmux, ASKED["linked"])
        rules.write_text(rules.read_text() + OTTER + "\n")
        sb.ask(tmux, ASKED["target"])
        # A name that is not UTF-8, read: watchfiles gives up watching for good.
        latin1 = os.path.join(os.fsencode(notes), b"caf\xe9.md")
        with open(latin1, "wb") as f:
            f.write(b"# Cafe\npastry order\n")
        with open(latin1, "rb") as f:
            f.read()
        time.sleep(0.5)  # the watcher's debounce is 30 ms
        sb.memhooks("write", "--to", "note", "--name", "ibis", "--text", IBIS)
        last = sb.ask(tmux, ASKED["blind"])
        tmux.type("/clear")
        gone = f"Mock reply {last.n}."
        tmux.wait_for(lambda: gone not in tmux.screen(), what="the screen cleared")
        time.sleep(1)  # Codex CLI takes a prompt typed at once for the old conversation
        sb.ask(tmux, ASKED["clear"])
        tmux.type(QUIT[cli])
        tmux.wait_exit()
        result.leftovers = sb.leftovers()
        sb.entries("session end", at_least=1)
        result.debug = log.read_text() if log.exists() else ""
        result.hooks = hook_results(captured)
        yield result


def test_sed_i_is_seen(session: Session) -> None:
    told = session.after("sed")
    assert "birch-7" in told
    assert "alder-3" not in told


def test_a_jetbrains_safe_write_is_told_once(session: Session) -> None:
    assert session.notice("jetbrains") == "MEMORY.md."
    assert "\n+- Tag every moose build with its date (rule ELK-4).\n" in session.after(
        "jetbrains"
    )
    assert session.notice("quiet") == ""
    assert "jb_" not in "".join(r.text for r in session.sb.requests())


def test_perl_pi_is_told_as_a_changed_line(session: Session) -> None:
    told = session.after("perl")
    assert session.notice("perl") == "MEMORY.md."
    assert f"\n-{LYNX}\n" in told and f"\n+{LYNX_WEEKLY}\n" in told


def test_an_emacs_save_is_told_and_its_side_files_never_are(session: Session) -> None:
    assert session.notice("emacs") == "MEMORY.md."
    assert f"\n+{MOOSE}\n" in session.after("emacs")
    assert f"\n-{LYNX}\n" not in session.after("emacs")  # perl's change told once
    for request in session.sb.requests():
        assert not re.search(r"\.#MEMORY|MEMORY\.md~", request.text), request.n


def test_a_note_deleted_and_written_again_is_read_again(session: Session) -> None:
    told = session.after("recreate")
    assert "cedar-5" in told and "birch-7" not in told


def test_a_note_renamed_with_mv_is_found_under_its_new_name(session: Session) -> None:
    told = session.after("mv")
    assert "cedar-5" in told
    assert "relay-hosts.md" in told
    assert f"{session.notes}/heron-relay.md (removed)" in session.notice("mv")


def test_the_notes_folder_moved_away_is_not_searched(session: Session) -> None:
    told = session.after("away")
    assert "7431" not in told
    assert f"{session.notes}/staging-db.md (removed)" in session.notice("away")


def test_the_notes_folder_moved_back_is_searched_as_it_is(session: Session) -> None:
    told = session.after("back")
    assert "03:15" in told
    # Each note told removed is told back, the one edited meanwhile too.
    names = ["gull.md", "puffin.md", "relay-hosts.md", "staging-db.md"]
    assert (
        session.notice("back") == ", ".join(f"{session.notes}/{n}" for n in names) + "."
    )


def test_a_pull_of_300_notes_is_searched(session: Session) -> None:
    # Within the deadline too: past it the hook answers with what is read by then.
    assert "02:40 on the tern host" in session.after("pull")


def test_a_note_replaced_by_a_symlink_shows_what_the_link_holds(
    session: Session,
) -> None:
    told = session.after("symlink")
    assert "6123" not in told
    # The block's index of notes showed its first line: the model is told it changed.
    assert session.notice("symlink") == f"{session.notes}/puffin.md."


def test_memory_md_linked_in_is_told_when_its_target_changes(
    session: Session,
) -> None:
    assert "\n-" not in session.after("linked")  # the same lines
    assert session.notice("target") == "MEMORY.md."
    assert f"\n+{OTTER}\n" in session.after("target")
    assert OTTER not in session.notice("blind")


def test_a_note_written_after_the_watch_is_lost_is_found(session: Session) -> None:
    assert "bank holidays" in session.after("blind")


def test_the_block_after_clear_holds_the_files_as_they_are(session: Session) -> None:
    # Claude Code's block comes with SessionStart (`clear`), Gemini CLI's with the prompt.
    got = session.sb.turn(ASKED["clear"]).text
    start = got.rfind("## MEMORY.md\n")
    assert start >= 0 and BLOCK_OPEN in got[:start]
    block = got[start:]
    assert RULE in block and LYNX_WEEKLY in block and MOOSE in block
    assert LYNX not in block and "notes/heron-relay.md" not in block


def test_nothing_is_left_and_no_hook_failed(session: Session) -> None:
    assert not session.leftovers, session.leftovers
    assert not hook_errors(session.debug)
    assert session.hooks
    assert all(rc == "0" and not err for rc, err in session.hooks.values()), (
        session.hooks
    )

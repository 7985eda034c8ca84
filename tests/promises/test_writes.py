"""Nothing a person wrote is lost or rewritten, whoever else writes at the same time.

Real processes on real files: the CLI writing into a file saved in Latin-1 with CRLF line
endings; eight writers creating the same notes at once; a person's editor saving by
write-and-rename while memhooks appends.
"""

from __future__ import annotations

import datetime as dt
import multiprocessing
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from memhooks.memory import Store, lazylog, swap
from memhooks.memory import store as store_module
from memhooks.memory.errors import StoreWriteError
from memhooks.memory.files import write_atomic
from tests.conftest import run_cli

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from multiprocessing.synchronize import Barrier

SLUG = "proj-0123abcd"
#: A file a person wrote: Latin-1 (not UTF-8), CRLF line endings, trailing blank lines.
MARCH_FIRST = dt.datetime(2026, 3, 1, 9, 30).astimezone()
PERSONAL = b"# Caf\xe9 notes\r\n\r\nThe na\xefve approach failed.\r\n- keep \xa3 prices\r\n\r\n"


def _note(root: Path, name: str) -> Path:
    return root / "projects" / SLUG / "notes" / f"{name}.md"


def _cli(*args: str) -> None:
    done = run_cli(*args, "--slug", SLUG)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["--to", "note", "--name", "cafe"], id="note-append"),
        pytest.param(["--to", "note", "--name", "cafe", "--aliases", "x"], id="alias"),
    ],
)
def test_an_append_keeps_every_byte_and_the_files_line_endings(
    memory_root: Path, args: list[str]
) -> None:
    path = _note(memory_root, "cafe")
    path.parent.mkdir(parents=True)
    path.write_bytes(PERSONAL)
    _cli("write", *args, "--text", "A new line\nand another")
    after = path.read_bytes()
    if "--aliases" in args:
        assert after.startswith(b"aliases: x\r\n" + PERSONAL)
    else:
        assert after.startswith(PERSONAL)
    assert after.endswith(b"A new line\r\nand another\r\n")
    assert b"\xef\xbf\xbd" not in after  # no byte became U+FFFD
    assert re.search(rb"[^\r]\n", after) is None  # every line ends in CRLF


def test_aliases_never_go_above_a_notes_yaml_front_matter(memory_root: Path) -> None:
    # A note brought from Obsidian: an aliases: line above its "---" made the front
    # matter text for every tool that reads it. Now refused, nothing written.
    path = _note(memory_root, "k8s")
    path.parent.mkdir(parents=True)
    mine = (
        b"---\r\ntitle: Cluster\r\naliases: [kube]\r\n---\r\nThe ingress is nginx.\r\n"
    )
    path.write_bytes(mine)
    args = ("write", "--slug", SLUG, "--to", "note", "--name", "k8s", "--text", "more")
    refused = run_cli(*args, "--aliases", "k8s")
    assert refused.returncode == 1
    assert refused.stderr == (
        f"memhooks: error: projects/{SLUG}/notes/k8s.md begins with YAML front matter, "
        "which an aliases: line above it would break: write without aliases (the "
        "note's own words are searched)\n"
    )
    assert path.read_bytes() == mine
    assert run_cli(*args).returncode == 0
    assert path.read_bytes() == mine + b"\r\nmore\r\n"


def test_daily_memory_and_scratchpad_appends_keep_every_byte(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    daily = memory_root / "projects" / SLUG / "daily" / "2026-03-01.md"
    files = [
        memory_root / "MEMORY.md",
        memory_root / "projects" / SLUG / "SCRATCHPAD.md",
    ]
    for p in [*files, daily]:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(PERSONAL)
    store.write_memory("- a fact")
    store.write_scratchpad("an item")
    store.append_daily("flush", "what happened", now=MARCH_FIRST)
    for p in [*files, daily]:
        assert p.read_bytes().startswith(PERSONAL), p.name
        assert re.search(rb"[^\r]\n", p.read_bytes()) is None, p.name


def test_edit_and_backup_keep_every_other_byte(memory_root: Path) -> None:
    path = _note(memory_root, "cafe")
    path.parent.mkdir(parents=True)
    path.write_bytes(PERSONAL)
    _cli("edit", "notes/cafe", "--old", "approach failed.", "--new", "way works.")
    assert path.read_bytes() == PERSONAL.replace(b"approach failed.", b"way works.")
    # A two-line `old` typed with LF matches the file's CRLF lines.
    _cli("edit", "notes/cafe", "--old", "works.\n- keep", "--new", "works.\n- drop")
    assert path.read_bytes() == PERSONAL.replace(
        b"approach failed.\r\n- keep", b"way works.\r\n- drop"
    )
    before = path.read_bytes()
    _cli(
        "write", "--to", "note", "--name", "cafe", "--mode", "overwrite", "--text", "x"
    )
    assert path.with_name("cafe.md.bak").read_bytes() == before


def _create_and_append(root: str, worker: int, rounds: int, barrier: Barrier) -> None:
    store = Store(Path(root), SLUG)
    for r in range(rounds):
        barrier.wait()  # all writers find the note absent at the same moment
        store.write_note(f"fresh-{r}", f"- fact from writer {worker} in round {r}")


def test_writers_creating_the_same_note_lose_no_acknowledged_write(
    memory_root: Path,
) -> None:
    ctx = multiprocessing.get_context("spawn")
    writers, rounds = 8, 20
    barrier = ctx.Barrier(writers)
    procs = [
        ctx.Process(
            target=_create_and_append, args=(str(memory_root), w, rounds, barrier)
        )
        for w in range(writers)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    for r in range(rounds):
        text = _note(memory_root, f"fresh-{r}").read_text()
        for w in range(writers):
            assert f"- fact from writer {w} in round {r}\n" in text, (r, w)


def _editor(path: str, saves: int) -> None:
    """A person's editor: read, add a line, save to a temp file, rename it over the file.

    Like vim or VS Code, it notices that the file changed on disk since it read it (the
    inode or mtime differ) and reloads before saving, instead of overwriting blindly.
    """
    done = 0
    while done < saves:
        st = os.stat(path)
        with open(path, "rb") as f:
            data = f.read()
        tmp = f"{path}.editor~"
        with open(tmp, "wb") as f:
            f.write(data + f"- edited by hand {done}\n".encode())
        now = os.stat(path)
        if (now.st_ino, now.st_mtime_ns, now.st_size) != (
            st.st_ino,
            st.st_mtime_ns,
            st.st_size,
        ):
            continue  # changed since read: reload, as an editor warns and reloads
        os.rename(tmp, path)
        done += 1
        time.sleep(0.002)  # a fast typist; a person saves far less often


def _appender(root: str, count: int) -> None:
    store = Store(Path(root), SLUG)
    for i in range(count):
        store.write_note("shared", f"- appended by memhooks {i}")


def test_an_editors_save_racing_appends_loses_neither_side(memory_root: Path) -> None:
    path = _note(memory_root, "shared")
    Store(memory_root, SLUG).write_note("shared", "# Shared")
    ctx = multiprocessing.get_context("spawn")
    count = 200
    procs = [
        ctx.Process(target=_editor, args=(str(path), count)),
        ctx.Process(target=_appender, args=(str(memory_root), count)),
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    text = path.read_text()
    # A save the editor made over ours and then saved over itself, while the appender
    # stood between its swaps on a busy machine, is kept beside the note.
    text += "".join(p.read_text() for p in path.parent.glob("shared.md.conflict-*"))
    lost_ours = [i for i in range(count) if f"- appended by memhooks {i}\n" not in text]
    lost_theirs = [i for i in range(count) if f"- edited by hand {i}\n" not in text]
    assert (lost_ours, lost_theirs) == ([], [])


@pytest.fixture
def warned() -> Iterator[list[str]]:
    """The warnings memhooks says, as a command's ``memhooks: …`` lines get them."""
    said: list[str] = []
    previous = lazylog.capture(said.append)
    yield said
    lazylog.capture(previous)


def _saves_at_each_swap(
    monkeypatch: pytest.MonkeyPatch, path: Path, *saves: Callable[[bytes], bytes]
) -> None:
    """Another program saves `path` (write and rename) just before each of the first
    swaps memhooks makes there, the n-th making its file from what `path` then holds."""
    real = swap.exchange
    todo = list(saves)

    def save_first(a: Path, b: Path) -> bool:
        if b == path and todo:
            tmp = path.with_name("shared.md.editor~")
            tmp.write_bytes(todo.pop(0)(path.read_bytes()))
            os.rename(tmp, path)
        return real(a, b)

    monkeypatch.setattr(swap, "exchange", save_first)


def test_a_save_made_over_ours_while_the_write_stood_between_its_swaps_is_kept(
    memory_root: Path, monkeypatch: pytest.MonkeyPatch, warned: list[str]
) -> None:
    """An editor saves just before memhooks swaps its append in; memhooks, stalled, puts
    that save back only after the editor has reloaded the note (holding the append) and
    saved it again. That later save stands; the earlier one, which it was made without,
    is kept beside the note and named in a warning; the append is not made twice."""
    path = _note(memory_root, "shared")
    store = Store(memory_root, SLUG)
    store.write_note("shared", "# Shared")
    _saves_at_each_swap(
        monkeypatch,
        path,
        lambda now: now + b"- edited by hand 0\n",  # from what memhooks read
        lambda now: now + b"- edited by hand 1\n",  # reloaded: memhooks' file
    )
    store.write_note("shared", "- ours")
    assert path.read_bytes() == b"# Shared\n\n- ours\n- edited by hand 1\n"
    [kept] = path.parent.glob("shared.md.conflict-*")
    assert kept.read_bytes() == b"# Shared\n- edited by hand 0\n"
    assert re.fullmatch(r"shared\.md\.conflict-\d{8}-\d{6}", kept.name)
    assert warned == [
        (
            f"projects/{SLUG}/notes/shared.md: another program saved it twice while "
            f"memhooks wrote it; its later save stands and the earlier one is kept as "
            f"{kept.name}: take what you need from it, then delete it"
        )
    ]


def test_an_earlier_save_the_later_one_holds_whole_is_not_kept(
    memory_root: Path, monkeypatch: pytest.MonkeyPatch, warned: list[str]
) -> None:
    """As above, but the editor saves its buffer again without reloading (vim, told the
    file changed, answers "y" to write anyway): its later save holds every line of the
    earlier one, so nothing is kept aside, and the append is made on the later save."""
    path = _note(memory_root, "shared")
    store = Store(memory_root, SLUG)
    store.write_note("shared", "# Shared")
    first = b"# Shared\n- edited by hand 0\n"
    _saves_at_each_swap(
        monkeypatch,
        path,
        lambda now: first,
        lambda now: first + b"- edited by hand 1\n",
    )
    store.write_note("shared", "- ours")
    assert path.read_bytes() == first + b"- edited by hand 1\n- ours\n"
    assert list(path.parent.glob("shared.md.conflict-*")) == []
    assert warned == []


def test_an_append_an_editor_saved_over_twice_is_made_again(
    memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor that read the note before memhooks appended saves over the append, then
    saves again. On ext4 the second save's file takes the inode number the append's file
    had (a freed number is handed out next): the append is still found lost, and made
    again on what the editor saved."""
    path = _note(memory_root, "shared")
    store = Store(memory_root, SLUG)
    store.write_note("shared", "# Shared")
    read_by_editor = path.read_bytes()
    real = write_atomic  # what the store module calls
    inodes: list[int] = []

    def editor_saves_after(target: Path, data: bytes, **kw: Any) -> None:
        real(target, data, **kw)
        if target != path or inodes:
            return
        inodes.append(os.stat(path).st_ino)
        text = read_by_editor
        for n in range(2):
            text += b"- edited by hand %d\n" % n
            tmp = path.with_name("shared.md.editor~")
            tmp.write_bytes(text)
            os.rename(tmp, path)
        inodes.append(os.stat(path).st_ino)

    monkeypatch.setattr(store_module, "write_atomic", editor_saves_after)
    store.write_note("shared", "- ours")
    text = path.read_text()
    assert text.startswith("# Shared\n- edited by hand 0\n- edited by hand 1\n"), text
    assert text.count("- ours\n") == 1, (text, inodes)


def test_an_editors_save_looking_like_the_file_read_is_not_overwritten(
    memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor saves twice just before memhooks swaps its file in: the same size as the
    file memhooks read, its inode number (freed by the first save, on ext4) and, on a
    clock that moves in milliseconds, its mtime. The bytes differ: the editor's save is
    put back, and the append made on it."""
    path = _note(memory_root, "shared")
    store = Store(memory_root, SLUG)
    store.write_note("shared", "# Shared")
    read = path.read_bytes()
    was = os.stat(path)
    real = swap.exchange
    saves: list[int] = []

    def editor_saves_first(a: Path, b: Path) -> bool:
        if b == path and not saves:
            for _ in range(2):
                tmp = path.with_name("shared.md.editor~")
                tmp.write_bytes(read.upper())
                os.utime(tmp, ns=(was.st_atime_ns, was.st_mtime_ns))
                os.rename(tmp, path)
                saves.append(os.stat(path).st_ino)
        return real(a, b)

    monkeypatch.setattr(swap, "exchange", editor_saves_first)
    store.write_note("shared", "- ours")
    assert path.read_bytes() == b"# SHARED\n\n- ours\n", (saves, was.st_ino)


def test_a_write_gives_up_with_an_error_when_another_program_never_stops_saving(
    memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program saves its own bytes over the note (write and rename) each time
    just before memhooks would replace it: after `GIVE_UP_SECONDS` the write says so,
    and the other program's file stays as it saved it."""
    path = _note(memory_root, "shared")
    store = Store(memory_root, SLUG)
    store.write_note("shared", "# Shared")
    monkeypatch.setattr(store_module, "GIVE_UP_SECONDS", 0.5)
    real = write_atomic  # what the store module calls
    saves: list[int] = []

    def saved_by_another_first(target: Path, data: bytes, **kw: Any) -> None:
        if target == path:
            tmp = path.with_name("shared.md.other~")
            tmp.write_bytes(b"# Theirs %d\n" % len(saves))
            os.rename(tmp, path)
            saves.append(1)
        real(target, data, **kw)

    monkeypatch.setattr(store_module, "write_atomic", saved_by_another_first)
    with pytest.raises(StoreWriteError, match="kept replacing it for 0.5 s"):
        store.write_note("shared", "- ours")
    assert len(saves) > 1  # it made the change again on what was saved, then gave up
    assert path.read_bytes() == b"# Theirs %d\n" % (len(saves) - 1)


def test_a_fifo_in_place_of_a_note_is_refused_not_waited_for(
    memory_root: Path,
) -> None:
    path = _note(memory_root, "pipe")
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    for args in (
        ("read", "notes/pipe"),
        ("write", "--to", "note", "--name", "pipe", "--text", "x"),
        ("edit", "notes/pipe", "--old", "a", "--new", "b"),
    ):
        done = run_cli(*args, "--slug", SLUG, timeout=60)  # a hang raises here
        assert done.returncode == 1, (args, done.stderr)
        rel = f"projects/{SLUG}/notes/pipe.md"
        assert done.stderr.splitlines() == [
            f"memhooks: error: cannot read {rel}: not a regular file"
        ]

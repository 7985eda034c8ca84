"""The command line behaves like the tools people know (issue #16): --version, help,
flags that say their defaults, grep's exit codes for search, no silent success."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from memhooks.hooks import parser
from memhooks.hooks.errors import UsageError
from memhooks.hooks.progress import SLOW_WRITE_CHARS
from memhooks.memory import Store
from tests.conftest import run_cli

if TYPE_CHECKING:
    from pathlib import Path

SLUG = "proj-0123abcd"
PAD = f"projects/{SLUG}/SCRATCHPAD.md"


def test_version() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0
    name, number = proc.stdout.split()
    assert name == "memhooks" and number[0].isdigit()


def test_no_arguments_prints_the_help_and_exits_1() -> None:
    proc = run_cli()
    assert proc.returncode == 1
    assert proc.stdout.startswith("usage: memhooks")
    assert "install" in proc.stdout and proc.stderr == ""


def _subparsers(p: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_every_flag_has_help_naming_its_default() -> None:
    missing: list[str] = []
    for name, sub in _subparsers(parser.build()).items():
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            flag = f"{name} {'/'.join(action.option_strings) or action.dest}"
            if not action.help:
                missing.append(flag)
            elif action.default not in (None, False):
                shown = sub.format_help()
                if f"default: {action.default}" not in shown:
                    missing.append(f"{flag} (default {action.default!r} not shown)")
    assert missing == []


def test_a_command_parses_as_in_the_whole_tree_when_only_its_branch_is_built() -> None:
    # `parse` builds only the named command's parser: same help, same errors, same
    # arguments as the whole tree gives.
    whole = _subparsers(parser.build())
    assert len(whole) > 10
    for name, sub in whole.items():
        (only,) = _subparsers(parser.build(name)).values()
        assert only.format_help() == sub.format_help(), name
    argv = ["search", "--slug", "p", "--json", "redis", "port"]
    assert parser.parse(argv) == parser.build().parse_args(argv)
    with pytest.raises(UsageError, match="invalid choice: 'serch'") as bad:
        parser.parse(["serch", "redis"])
    assert "search" in str(bad.value) and "install" in str(bad.value)
    with pytest.raises(UsageError, match="the following arguments are required"):
        parser.parse(["search", "--slug", "p"])


def test_search_exit_codes_follow_grep(memory_root: Path) -> None:
    Store(memory_root, SLUG).write_note("redis", "Redis listens on 6380.")
    assert run_cli("search", "--slug", SLUG, "redis").returncode == 0
    none = run_cli("search", "--slug", SLUG, "postgres")
    assert none.returncode == 1 and "No matches" in none.stdout
    blank = run_cli("search", "--slug", SLUG, "", " ")
    assert blank.returncode == 2
    assert blank.stderr.startswith("memhooks: error: search needs a word")


@pytest.mark.parametrize(
    ("argv", "plain"),
    [
        (["search", "redis"], True),
        (["search", "--slug", "p", "redis", "port"], True),
        (["search", "--root", "/r", "--project", "/w", "redis"], True),
        (["search", "--project", "/w", "--root", "/r", "", "port"], True),
        (["search", "--root", "/r", "--slug", "p", "--json", "redis"], False),
        (["search", "--slug", "p", "redis", "--budget", "9"], False),
        (["search", "--slug=p", "redis"], False),
        (["search", "--slug", "p", "--slug", "q", "redis"], False),
        (["search", "--slug", "-p", "redis"], False),
        (["search", "--slug", "p", "-5"], False),
        (["search", "--slug", "p", "--", "->"], True),
        (["search", "--", "--cap", "-1.", "x"], True),
        (["search", "--root", "/r", "--", "--", "x"], True),
        (["search", "--slug", "p", "--"], False),
        (["search", "--", "--slug", "p"], True),
        (["search", "--slug", "p"], False),
        (["search", "--slug"], False),
        (["search", "--project", "/w", "--slug", "p", "redis"], False),
        (["search", "--ro", "/r", "redis"], False),
        (["search", "-h"], False),
        (["read", "--slug", "p", "redis"], False),
    ],
)
def test_the_plain_search_form_reads_as_the_parser_does(
    argv: list[str], plain: bool
) -> None:
    # `search` with only --root, --project, --slug and terms skips argparse; every other
    # form goes to the parser, which reads (or refuses) it.
    from memhooks.hooks.cli import _plain_search

    read = _plain_search(argv)
    assert (read is not None) == plain
    if read is None:
        return
    flags, terms = read
    parsed = parser.parse(argv)
    # A term argparse could take for an option comes from it with a space before it
    # (`arguments.dashed_terms`), which the search splits off.
    assert (
        parsed.root,
        parsed.project,
        parsed.slug,
        [*map(str.strip, parsed.terms)],
    ) == (
        flags.get("--root"),
        flags.get("--project"),
        flags.get("--slug"),
        terms,
    )
    assert (parsed.json, parsed.budget, parsed.ranking, parsed.semantic) == (
        (False, None, None, None)
    )


def test_a_term_that_begins_with_a_dash_is_searched_as_typed(memory_root: Path) -> None:
    # Before: the README names `->` and `--cap` as terms found as typed, but
    # `memhooks search "->"` said "the following arguments are required: TERM" and
    # `memhooks search --cap` "unrecognized arguments", with no word of `--`.
    Store(memory_root, SLUG).write_note("calls", "build->run\nuse --capacity 5\n")
    calls = f"projects/{SLUG}/notes/calls.md"
    for argv in (["->"], ["--json", "->"], ["->", "--json"], ["-%s", "->"]):
        proc = run_cli("search", "--slug", SLUG, *argv)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        assert calls in proc.stdout and "->" in proc.stdout
    page = json.loads(run_cli("search", "--slug", SLUG, "->", "--json").stdout)
    assert [t["term"] for t in page["terms"]] == ["->"]
    # A term that could be an option: one line that says how.
    proc = run_cli("search", "--slug", SLUG, "--cap")
    assert proc.returncode == 2
    (line,) = proc.stderr.splitlines()
    assert line.endswith(
        "to search for --cap, put -- before the terms: memhooks search -- --cap"
    )
    assert run_cli("search", "--slug", SLUG, "--", "--cap").returncode == 0
    # An option's value is left as it is.
    assert parser.parse(["search", "--slug=->x", "->"]).slug == "->x"


@pytest.mark.parametrize(
    "term",
    [
        pytest.param("-1.", id="a-number-and-a-stop"),
        pytest.param("-h.", id="begins-as-an-option"),
        pytest.param("--=x", id="an-empty-option-name"),
    ],
)
def test_a_dashed_term_argparse_would_still_take_for_an_option_is_searched(
    memory_root: Path, term: str
) -> None:
    # Before: the space put after such a term did not keep argparse from matching it
    # against the options first: `-1.` "arguments are required: TERM" (no negative
    # number to it), `-h.` "argument -h/--help: ignored explicit argument '. '", `--=x`
    # "ambiguous option: --=x  could match --help, --version" (found trying odd argv).
    Store(memory_root, SLUG).write_note("flags", "set -1. then -h. and --=x here\n")
    for argv in ([term], [term, "--json"], ["--json", "--", term]):
        proc = run_cli("search", "--slug", SLUG, *argv)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    page = json.loads(proc.stdout)
    assert page["terms"] == [{"term": term, "count": 1}]
    assert page["results"][0]["path"] == f"projects/{SLUG}/notes/flags.md"


def test_the_plain_search_form_is_taken_and_prints_what_the_parser_would(
    memory_root: Path,
) -> None:
    from memhooks.hooks.cli import _plain_search

    store = Store(memory_root, SLUG)
    for i in range(40):
        store.write_note(f"n{i}", f"Redis port {6000 + i} for service {i}.\n" * 30)
    plain = ["search", "--slug", SLUG, "redis", "port"]
    parsed = ["search", f"--slug={SLUG}", "redis", "port"]
    assert _plain_search(plain) is not None and _plain_search(parsed) is None
    a, b = run_cli(*plain), run_cli(*parsed)
    assert a.returncode == b.returncode == 0 and a.stderr == b.stderr == ""
    assert a.stdout == b.stdout and "n0.md" in a.stdout
    none = run_cli("search", "--slug", SLUG, "postgres")
    assert none.returncode == 1 and "No matches" in none.stdout


def test_a_search_page_is_whole_through_a_pipe(memory_root: Path) -> None:
    # A search ends its process without the interpreter's teardown: what it printed
    # must all be out first, however long, with grep's exit code.
    import io

    from memhooks.hooks.cli import main

    store = Store(memory_root, SLUG)
    for i in range(300):
        store.write_note(f"n{i}", f"Redis port {6000 + i} for service {i}.\n" * 20)
    argv = ["search", "--slug", SLUG, "--budget", "2000000", "redis"]
    here = io.StringIO()
    assert main(argv, stdout=here) == 0
    proc = run_cli(*argv)
    assert proc.returncode == 0 and proc.stderr == ""
    assert len(here.getvalue()) > 200_000
    assert proc.stdout == here.getvalue()


def test_a_root_that_does_not_exist_is_an_error_for_reading(
    memory_root: Path, tmp_path: Path
) -> None:
    Store(memory_root, SLUG).write_note("redis", "Redis listens on 6380.")
    typo = tmp_path / "rooot"
    search = run_cli("search", "--root", str(typo), "--slug", SLUG, "redis")
    assert search.returncode == 2 and search.stdout == ""
    assert f"memory root {typo} does not exist" in search.stderr
    for argv in (["read", "MEMORY.md"], ["inject"], ["status"]):
        proc = run_cli(*argv, "--root", str(typo), "--slug", SLUG)
        assert proc.returncode == 1, argv
        assert "does not exist" in proc.stderr
    assert not typo.exists()
    # Writing creates it.
    wrote = run_cli("write", "--root", str(typo), "--to", "memory", "--text", "- a")
    assert wrote.returncode == 0 and (typo / "MEMORY.md").is_file()


def test_a_root_under_a_file_is_said_to_be_so(tmp_path: Path) -> None:
    # Attacked on purpose (2026-12-06): "cannot read config.toml: Not a directory".
    (tmp_path / "notes.txt").write_text("a file")
    root = tmp_path / "notes.txt" / "memory"
    wrote = run_cli("write", "--root", str(root), "--to", "memory", "--text", "- a")
    assert (wrote.returncode, wrote.stdout) == (1, "")
    assert wrote.stderr == (
        f"memhooks: error: memory root {root} cannot be made: {tmp_path}/notes.txt is "
        "not a folder (check --root and $MEMHOOKS_HOME)\n"
    )


def test_relative_memhooks_home_is_refused(tmp_path: Path) -> None:
    env = {"MEMHOOKS_HOME": "mem"}
    proc = run_cli("write", "--to", "memory", "--text", "- a", cwd=tmp_path, env=env)
    assert proc.returncode == 1
    assert proc.stderr.startswith("memhooks: error: $MEMHOOKS_HOME must be an absolute")
    event = {
        "session_id": "s1",
        "cwd": str(tmp_path),
        "hook_event_name": "SessionStart",
    }
    hook = run_cli("hook", input=json.dumps(event), cwd=tmp_path, env=env)
    assert hook.returncode == 0 and hook.stdout == ""
    assert len(hook.stderr.splitlines()) == 1 and "absolute" in hook.stderr
    assert os.listdir(tmp_path) == []  # no root made in the folder the hook ran in
    # Before: `hook --root mem` in a harness's settings made a root in every project.
    for argv in (["--root", "mem"], ["--harness", "claude-code", "--root", "mem"]):
        hook = run_cli("hook", *argv, input=json.dumps(event), cwd=tmp_path)
        assert (hook.returncode, hook.stdout) == (0, ""), argv
        assert hook.stderr == (
            "memhooks hook: --root must be an absolute path, not 'mem' (a relative one "
            "names another memory root in every folder); no context\n"
        )
        assert os.listdir(tmp_path) == [], argv


def test_a_relative_xdg_data_home_is_ignored_as_the_spec_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # XDG_DATA_HOME=data made a memory root in every folder a command ran in
    # (./data/memhooks): a note written in one folder was not found from another, the
    # split a relative $MEMHOOKS_HOME is refused for. The XDG Base Directory spec: a
    # relative path there is invalid and is to be ignored.
    home = tmp_path / "home"
    monkeypatch.delenv("MEMHOOKS_HOME", raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", "data")
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    note = ["--slug", SLUG, "--to", "note", "--name", "kiwi", "--text", "kiwi tart"]
    assert run_cli("write", *note, cwd=one).returncode == 0
    found = run_cli("search", "--slug", SLUG, "kiwi", cwd=two)
    assert found.returncode == 0, found.stderr
    assert f"projects/{SLUG}/notes/kiwi.md" in found.stdout
    kept = home / ".local/share/memhooks/projects" / SLUG / "notes/kiwi.md"
    assert kept.read_text() == "kiwi tart\n"
    assert os.listdir(one) == []


def test_a_semantic_mode_in_the_environment_that_is_none_is_named(
    memory_root: Path,
) -> None:
    # MEMHOOKS_SEMANTIC=true (for "on") was dropped without a word: search ran by words
    # alone, and nothing said why meaning never helped.
    Store(memory_root, SLUG).write_note("tart", "kiwi tart")
    for _ in range(2):  # said by each process that reads it, once
        proc = run_cli(
            "search", "--slug", SLUG, "kiwi", env={"MEMHOOKS_SEMANTIC": "true"}
        )
        assert proc.returncode == 0 and "notes/tart.md" in proc.stdout
        assert proc.stderr == (
            "memhooks: $MEMHOOKS_SEMANTIC is 'true', not auto, on or off: ignored\n"
        )


def test_a_note_named_with_a_unicode_line_break_is_refused(memory_root: Path) -> None:
    # U+2028 is no control character, so the name passed; the note was written, and
    # then left out of search, status and the block: saved, never to be found.
    name = "tart\u2028pie"
    proc = run_cli(
        "write", "--slug", SLUG, "--to", "note", "--name", name, "--text", "x"
    )
    assert proc.returncode == 1
    assert proc.stderr == f"memhooks: error: refused name {name!r}: line break\n"
    assert not list(memory_root.rglob("*.md"))


@pytest.mark.parametrize("to", ["memory", "scratchpad", "note", "daily"])
def test_empty_text_is_refused(memory_root: Path, to: str) -> None:
    extra = ["--name", "n"] if to == "note" else []
    for argv in (["--text", ""], ["--text", " \n "], [], ["--text", "-"]):
        proc = run_cli("write", "--slug", SLUG, "--to", to, *extra, *argv, input="")
        assert proc.returncode == 1
        assert "the text is empty; nothing was written" in proc.stderr
        assert proc.stdout == ""
    assert not memory_root.exists() or not any(memory_root.rglob("*.md"))


def test_a_daily_entry_of_a_title_alone_is_written(memory_root: Path) -> None:
    # A title typed on purpose is an entry; the default one ("note") alone is not.
    proc = run_cli("write", "--slug", SLUG, "--to", "daily", "--title", "began")
    assert proc.returncode == 0, proc.stderr
    (log,) = (memory_root / f"projects/{SLUG}/daily").iterdir()
    assert log.read_text("utf-8").endswith(" — began\n")


def test_a_write_of_duplicates_only_says_unchanged(memory_root: Path) -> None:
    first = run_cli("write", "--to", "memory", "--text", "- Prefer small commits.")
    assert first.stdout == "wrote MEMORY.md\n"
    again = run_cli("write", "--to", "memory", "--text", "- prefer SMALL commits.")
    assert again.returncode == 0
    assert again.stdout == "unchanged MEMORY.md: every line is already there\n"
    assert "dropped, already in MEMORY.md" in again.stderr


@pytest.mark.parametrize(
    ("text", "items"),
    [
        pytest.param("- item", "- [ ] item", id="dash"),
        pytest.param("* item", "- [ ] item", id="star"),
        pytest.param("+ item", "- [ ] item", id="plus"),
        pytest.param("1. item\n2) next", "- [ ] item\n- [ ] next", id="numbered"),
        pytest.param("- [ ] item", "- [ ] item", id="checkbox"),
        pytest.param("* [x] done", "- [x] done", id="checked"),
        pytest.param("[ ] bare box", "- [ ] bare box", id="bare-box"),
        pytest.param("plain\n\n  - indented", "- [ ] plain\n- [ ] indented", id="mix"),
    ],
)
def test_scratchpad_lines_become_one_item_each(
    memory_root: Path, text: str, items: str
) -> None:
    for mode in ("append", "overwrite"):
        proc = run_cli(
            "write",
            "--slug",
            SLUG,
            "--to",
            "scratchpad",
            "--mode",
            mode,
            "--text",
            text,
        )
        assert proc.returncode == 0, proc.stderr
        assert (memory_root / PAD).read_text("utf-8") == items + "\n"
        (memory_root / PAD).unlink()


@pytest.mark.parametrize("text", ["- [ ]", "* [x]   ", "- [ ]\n\n1. [ ]"])
def test_a_scratchpad_write_of_empty_boxes_is_refused(
    memory_root: Path, text: str
) -> None:
    run_cli("write", "--slug", SLUG, "--to", "scratchpad", "--text", "kept")
    before = (memory_root / PAD).read_bytes()
    proc = run_cli("write", "--slug", SLUG, "--to", "scratchpad", "--text", text)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert "no item in the text" in proc.stderr and proc.stderr.count("\n") == 1
    assert (memory_root / PAD).read_bytes() == before


def test_overwritten_scratchpad_is_injected(memory_root: Path) -> None:
    run_cli("write", "--slug", SLUG, "--to", "scratchpad", "--text", "old")
    proc = run_cli(
        "write", "--slug", SLUG, "--to", "scratchpad", "--mode", "overwrite",
        "--text", "only",
    )  # fmt: skip
    assert proc.returncode == 0
    block = run_cli("inject", "--slug", SLUG).stdout
    assert "- [ ] only" in block and "old" not in block


def test_an_overwrite_keeps_the_scratchpad_a_person_wrote_as_a_backup(
    memory_root: Path,
) -> None:
    # Before: `write --to scratchpad --mode overwrite` (a model redoing its checklist)
    # dropped what a person wrote there for good, where MEMORY.md and notes keep a .bak.
    run_cli("write", "--slug", SLUG, "--to", "scratchpad", "--text", "old")
    pad = memory_root / PAD
    mine = b"- [ ] buy milk\r\n- [x] done\r\nwhy: the staging keys expire friday"
    pad.write_bytes(mine)
    proc = run_cli(
        "write", "--slug", SLUG, "--to", "scratchpad", "--mode", "overwrite",
        "--text", "only",
    )  # fmt: skip
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    assert pad.read_text() == "- [ ] only\n"
    assert pad.with_name("SCRATCHPAD.md.bak").read_bytes() == mine
    block = run_cli("inject", "--slug", SLUG).stdout
    assert "buy milk" not in block  # the backup is no memory file


def test_daily_overwrite_is_refused(memory_root: Path) -> None:
    run_cli("write", "--slug", SLUG, "--to", "daily", "--text", "kept")
    (log,) = (memory_root / "projects" / SLUG / "daily").glob("*.md")
    before = log.read_bytes()
    proc = run_cli(
        "write", "--slug", SLUG, "--to", "daily", "--mode", "overwrite", "--text", "x"
    )
    assert proc.returncode == 1
    assert "write --to daily only appends" in proc.stderr
    assert log.read_bytes() == before


@pytest.mark.parametrize(
    ("title", "text"),
    [
        pytest.param("session end", "DECISION: ship on Fridays", id="title"),
        pytest.param(
            "deploy notes",
            "pasted old log:\n### 09:00 — compaction summary\nkeep port 6380",
            id="heading-in-text",
        ),
    ],
)
def test_a_daily_entry_that_would_read_as_a_record_is_refused(
    memory_root: Path, title: str, text: str
) -> None:
    # Records are condensed away once the log grows (`hooks.records`): a person's entry
    # must never be taken for one.
    run_cli("write", "--slug", SLUG, "--to", "daily", "--text", "kept")
    (log,) = (memory_root / "projects" / SLUG / "daily").glob("*.md")
    before = log.read_bytes()
    proc = run_cli(
        "write", "--slug", SLUG, "--to", "daily", "--title", title, "--text", text
    )
    assert proc.returncode == 1 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1
    assert "marks memhooks' own records" in proc.stderr
    assert log.read_bytes() == before
    ok = run_cli(
        "write",
        "--slug",
        SLUG,
        "--to",
        "daily",
        "--title",
        "Session end",
        "--text",
        "x",
    )
    assert ok.returncode == 0, ok.stderr  # another spelling is a person's title


def test_missing_queries_file_is_one_line(tmp_path: Path) -> None:
    proc = run_cli("eval", str(tmp_path / "nope.jsonl"))
    assert proc.returncode == 1
    assert (
        proc.stderr
        == f"memhooks: error: no such queries file: {tmp_path / 'nope.jsonl'}\n"
    )


def _with_terminal_stderr(
    *argv: str, stdin: Path | None = None
) -> tuple[int, str, str]:
    """Run memhooks with stderr on a pseudo-terminal and stdout on a pipe (stdin: a file)."""
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    with contextlib.ExitStack() as stack:
        source = stack.enter_context(stdin.open("rb")) if stdin else subprocess.DEVNULL
        proc = stack.enter_context(
            subprocess.Popen(
                [sys.executable, "-m", "memhooks.hooks", *argv],
                stdin=source,
                stdout=subprocess.PIPE,
                stderr=follower,
                text=True,
            )
        )
        os.close(follower)
        out, _ = proc.communicate(timeout=60)
        err = b""
        with contextlib.suppress(OSError):  # EIO once the child is gone
            while chunk := os.read(leader, 4096):
                err += chunk
    os.close(leader)
    return proc.returncode, out, err.decode()


def test_first_search_says_it_builds_the_index_on_a_terminal_only(
    memory_root: Path,
) -> None:
    Store(memory_root, SLUG).write_note("redis", "Redis listens on 6380.")
    code, out, err = _with_terminal_stderr("search", "--slug", SLUG, "redis")
    assert code == 0 and "redis.md" in out
    assert f"memhooks: building the search index of {SLUG} (first search only)…" in err
    assert err.endswith("\r\x1b[K")  # erased: the terminal is left clean
    again = run_cli("search", "--slug", SLUG, "redis")  # a pipe: nothing on stderr
    (memory_root / ".index" / f"{SLUG}.mhix").unlink()
    piped = run_cli("search", "--slug", SLUG, "redis")
    assert again.stderr == "" and piped.stderr == ""


def test_a_huge_write_shows_progress_on_a_terminal_only(
    memory_root: Path, tmp_path: Path
) -> None:
    big = tmp_path / "big.md"
    line = "deploy the broker with ansible, then check the queue depth\n"
    big.write_text(line * (SLOW_WRITE_CHARS // len(line) + 1))
    small = tmp_path / "small.md"
    small.write_text(line)

    code, out, err = _with_terminal_stderr(
        "write", "--slug", SLUG, "--to", "note", "--name", "big", stdin=big
    )

    assert code == 0 and out == f"wrote projects/{SLUG}/notes/big.md\n"
    assert err.startswith("memhooks: writing 1 MiB to note, checking it for secrets…")
    assert err.endswith("\r\x1b[K")  # erased: the terminal is left clean
    note = memory_root / f"projects/{SLUG}/notes/big.md"
    assert note.read_text() == big.read_text()
    # A small write says nothing, nor a huge one whose stderr is not a terminal.
    _, _, quiet = _with_terminal_stderr(
        "write", "--slug", SLUG, "--to", "note", "--name", "small", stdin=small
    )
    assert quiet == ""
    piped = run_cli(
        "write", "--slug", SLUG, "--to", "note", "--name", "big2", input=big.read_text()
    )
    assert piped.returncode == 0 and piped.stderr == ""


def test_a_note_name_that_is_not_utf8_is_refused(memory_root: Path) -> None:
    # Before: `--name $'caf\xe9'` (a Latin-1 terminal) made notes/caf\xe9.md, which search
    # printed as "notes/caf�.md", a path no one can type back to read it.
    proc = run_cli(
        "write", "--slug", SLUG, "--to", "note", "--name", "caf\udce9", "--text", "x"
    )  # fmt: skip
    assert (proc.returncode, proc.stdout) == (1, "")
    assert "not UTF-8" in proc.stderr and proc.stderr.count("\n") == 1
    assert not memory_root.exists() or not any(memory_root.rglob("*.md"))


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("--to", "note", "--name", "n", "--text", "caf\udce9"), id="text"),
        pytest.param(
            ("--to", "daily", "--title", "caf\udce9", "--text", "x"), id="title"
        ),
        pytest.param(
            ("--to", "note", "--name", "n", "--aliases", "caf\udce9", "--text", "x"),
            id="alias",
        ),
    ],
)
def test_text_that_is_not_utf8_is_refused(
    memory_root: Path, args: tuple[str, ...]
) -> None:
    # Before: `--text $'caf\xe9'` from a Latin-1 terminal was written as its raw bytes,
    # a file that is not UTF-8 (search then shows "caf\ufffd"), where the same text on
    # stdin is refused as not UTF-8, as is such a --name.
    proc = run_cli("write", "--slug", SLUG, *args)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert "not UTF-8" in proc.stderr and proc.stderr.count("\n") == 1
    assert not memory_root.exists() or not any(memory_root.rglob("*.md"))


def test_text_on_stdin_that_is_not_utf8_is_named_as_such(memory_root: Path) -> None:
    # Attacked on purpose (2026-12-06): Latin-1 bytes piped in were refused as
    # "write --text is not UTF-8 (set the terminal to UTF-8)": no --text was given, and
    # no terminal setting converts a file.
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "memhooks.hooks",
            "write",
            "--slug",
            SLUG,
            "--to",
            "memory",
        ],
        input=b"caf\xe9 rule\n",
        capture_output=True,
        check=False,
        env={**os.environ, "MEMHOOKS_HOME": str(memory_root)},
    )
    assert (proc.returncode, proc.stdout) == (1, b"")
    said = proc.stderr.decode()
    assert said.startswith("memhooks: error: the text on standard input is not UTF-8")
    assert "iconv" in said and said.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(
            ("edit", "MEMORY.md", "--old", "cafe", "--new", "caf\udce9"), id="edit"
        ),
        pytest.param(("forget", "MEMORY.md:1", "--reason", "caf\udce9"), id="forget"),
    ],
)
def test_an_edit_or_forget_that_is_not_utf8_is_refused(
    memory_root: Path, argv: tuple[str, ...]
) -> None:
    # Before: `edit --new $'caf\xe9'` and `forget --reason $'caf\xe9'` wrote the raw
    # byte into MEMORY.md, a file that is then not UTF-8.
    run_cli("write", "--slug", SLUG, "--to", "memory", "--text", "- cafe rule")
    before = (memory_root / "MEMORY.md").read_bytes()
    proc = run_cli(*argv, "--slug", SLUG)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert "is not UTF-8" in proc.stderr and proc.stderr.count("\n") == 1
    assert (memory_root / "MEMORY.md").read_bytes() == before


# What a UTF-8 locale (en_US.UTF-8, the usual one) gives Python's stdout: strict.
STRICT_STDOUT = {"PYTHONIOENCODING": "utf-8:strict"}


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("search", "kiwi"), id="search"),
        pytest.param(("search", "--json", "kiwi"), id="search-json"),
        pytest.param(("inject",), id="inject"),
        pytest.param(("status",), id="status"),
    ],
)
def test_a_note_file_named_in_latin1_is_printed(
    memory_root: Path, args: tuple[str, ...]
) -> None:
    # Before: a note someone saved as caf\xe9.md (a Latin-1 archive, a Windows share)
    # made search, inject and status exit 3 with a traceback in a UTF-8 locale ("can't
    # encode character '\udce9'"), and printed the raw byte into --json in the C locale.
    run_cli("write", "--slug", SLUG, "--to", "note", "--name", "ok", "--text", "kiwi")
    notes = memory_root / "projects" / SLUG / "notes"
    (notes / os.fsdecode(b"caf\xe9.md")).write_text("kiwi tart\n")
    for env in (STRICT_STDOUT, {}):
        proc = run_cli(*args, "--slug", SLUG, env=env)  # text: stdout must be UTF-8
        assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
        assert "caf\ufffd.md" in proc.stdout
        if "--json" in args:
            paths = {r["path"] for r in json.loads(proc.stdout)["results"]}
            assert f"projects/{SLUG}/notes/caf\ufffd.md" in paths


def test_a_note_named_in_decomposed_unicode_is_the_note_typed_composed(
    memory_root: Path,
) -> None:
    # Before: notes/café.md saved by a Mac (NFD: "e" + U+0301) was "no such memory
    # file" to `read notes/café` typed composed (NFC), and a write made a second note
    # of the same name beside it; status listed "notes/café.md" twice.
    nfc, nfd = "caf\u00e9", "cafe\u0301"
    run_cli("write", "--slug", SLUG, "--to", "note", "--name", "ok", "--text", "x")
    notes = memory_root / "projects" / SLUG / "notes"
    (notes / f"{nfd}.md").write_text("- pastry order due friday\n")
    for args in (
        ("read", f"notes/{nfc}"),
        ("write", "--to", "note", "--name", nfc, "--text", "- ask for twelve"),
        ("edit", f"notes/{nfc}", "--old", "friday", "--new", "monday"),
        ("forget", f"notes/{nfc}", "--line", "twelve"),
    ):
        proc = run_cli(*args, "--slug", SLUG)
        assert (proc.returncode, proc.stderr) == (0, ""), (args, proc.stderr)
    assert sorted(p.name for p in notes.iterdir()) == [f"{nfd}.md", "ok.md"]
    text = (notes / f"{nfd}.md").read_text()
    assert (
        text.startswith("- pastry order due monday\n")
        and "~~- ask for twelve~~" in text
    )


def test_a_note_named_in_another_case_is_the_note_on_disk(memory_root: Path) -> None:
    # Before: on Linux `write --name Redis` beside redis.md made Redis.md, a second note
    # that a teammate's Mac (case-insensitive) checks out of git as one file, and `read
    # notes/Redis` was "no such memory file".
    notes = memory_root / "projects" / SLUG / "notes"
    for args in (
        ("write", "--to", "note", "--name", "redis", "--text", "- port 6380"),
        ("write", "--to", "note", "--name", "Redis", "--text", "- maxmemory 2gb"),
        ("edit", "notes/REDIS", "--old", "6380", "--new", "6381"),
        ("read", "notes/Redis.md"),
    ):
        proc = run_cli(*args, "--slug", SLUG)
        assert (proc.returncode, proc.stderr) == (0, ""), (args, proc.stderr)
    assert [p.name for p in notes.iterdir()] == ["redis.md"]
    assert proc.stdout == "- port 6381\n- maxmemory 2gb\n"
    # Where both are there, each name is its own note.
    (notes / "Redis.md").write_text("- the other one\n")
    proc = run_cli("read", "notes/redis", "--slug", SLUG)
    assert "port 6381" in proc.stdout and "the other one" not in proc.stdout


@pytest.mark.parametrize("mode", ["append", "overwrite"])
def test_aliases_given_on_lines_of_their_own_stay_aliases(
    memory_root: Path, mode: str
) -> None:
    # Before: `--aliases $'pgbouncer\npool'` wrote "aliases: pgbouncer\npool": "pool"
    # became a line of the note's body; " , " wrote an empty "aliases: " line.
    note = memory_root / f"projects/{SLUG}/notes/db.md"
    for aliases, first in (("pgbouncer\npool, Pool", "aliases: pgbouncer, pool"),
                           (" , \n", "Pool size is 20.")):  # fmt: skip
        proc = run_cli(
            "write", "--slug", SLUG, "--to", "note", "--name", "db", "--mode", mode,
            "--aliases", aliases, "--text", "Pool size is 20.",
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert note.read_text("utf-8").splitlines()[0] == first
        assert note.read_text("utf-8").count("Pool size is 20.") == 1
        note.unlink()


def test_an_edit_that_makes_a_persons_entry_read_as_a_record_is_refused(
    memory_root: Path,
) -> None:
    # Before: `edit daily/DAY --old "my plan" --new "session end"` retitled a person's
    # entry as one of memhooks' records, so the log's condensing merged it away (its
    # text, no prompt or command, gone); `write --to daily` refuses such titles.
    run_cli("write", "--slug", SLUG, "--to", "daily", "--title", "my plan",
            "--text", "ship on friday")  # fmt: skip
    (log,) = (memory_root / f"projects/{SLUG}/daily").iterdir()
    before = log.read_bytes()
    day = f"daily/{log.stem}"
    for old, new in (("my plan", "session end"),
                     ("ship on friday", "ship\n### 10:00 — compaction summary\nx")):  # fmt: skip
        proc = run_cli("edit", day, "--slug", SLUG, "--old", old, "--new", new)
        assert (proc.returncode, proc.stdout) == (1, ""), proc.stderr
        assert "read as one of memhooks' own records" in proc.stderr
        assert log.read_bytes() == before
    proc = run_cli("edit", day, "--slug", SLUG, "--old", "friday", "--new", "monday")
    assert proc.returncode == 0, proc.stderr


def test_a_term_with_terminal_escapes_is_not_echoed_raw(memory_root: Path) -> None:
    # Before: the summary line printed the term as typed, so `search $'\e]0;x\a...'`
    # (or a model's search holding a pasted escape) retitled or cleared the terminal.
    run_cli("write", "--slug", SLUG, "--to", "note", "--name", "n", "--text", "osprey")
    proc = run_cli("search", "--slug", SLUG, "\x1b]0;pwned\x07osprey\x1b[2J")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout
    assert proc.stdout.startswith("Searched 1 term: ]0;pwnedosprey[2j(0, 1 partial)")


def test_an_edit_with_empty_old_text_says_so(memory_root: Path) -> None:
    # Before: `edit MEMORY.md --old "" --new x` said "old text not found".
    run_cli("write", "--slug", SLUG, "--to", "memory", "--text", "- a rule")
    proc = run_cli("edit", "MEMORY.md", "--slug", SLUG, "--old", "", "--new", "x")
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == (
        "memhooks: error: edit MEMORY.md: old text is empty: give the text to replace "
        "(it must occur once)\n"
    )


def test_an_edit_that_changes_nothing_says_so(memory_root: Path) -> None:
    # Before: `edit --old 8080 --new 8080` said "edited", and the user took the file to
    # hold what they meant to type. Still an error if the old text is not there once.
    run_cli(
        "write", "--slug", SLUG, "--to", "note", "--name", "a", "--text", "port 8080"
    )
    note = memory_root / "projects" / SLUG / "notes" / "a.md"
    before = note.read_bytes()
    proc = run_cli("edit", "notes/a", "--slug", SLUG, "--old", "8080", "--new", "8080")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == (
        f"unchanged projects/{SLUG}/notes/a.md: the new text is the old text\n"
    )
    assert note.read_bytes() == before
    proc = run_cli("edit", "notes/a", "--slug", SLUG, "--old", "9090", "--new", "9090")
    assert proc.returncode == 1 and "old text not found" in proc.stderr


def test_a_write_reading_a_terminal_says_how_to_end_the_text(
    memory_root: Path,
) -> None:
    # Before: `memhooks write --to memory` with no --text, typed at a terminal, waited
    # for stdin without a word: a new user saw a hang.
    import pty
    import select
    import subprocess
    import sys

    leader, follower = pty.openpty()
    argv = ["write", "--slug", SLUG, "--to", "memory"]
    with subprocess.Popen(
        [sys.executable, "-m", "memhooks.hooks", *argv],
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        os.close(follower)
        assert proc.stderr is not None
        # Said before any text is typed (a generous bound: before the fix, never).
        ready, _, _ = select.select([proc.stderr], [], [], 30)
        said = proc.stderr.readline() if ready else ""
        os.write(leader, b"- typed at the terminal\n\x04")
        out, err = proc.communicate(timeout=60)
    os.close(leader)
    assert said == (
        "memhooks: reading the text from stdin: end it with Ctrl-D (or give --text)\n"
    )
    assert (proc.returncode, out, err) == (0, "wrote MEMORY.md\n", "")
    assert (memory_root / "MEMORY.md").read_text() == "- typed at the terminal\n"


def test_endless_stdin_is_refused_not_read_into_memory(memory_root: Path) -> None:
    # Before: `yes x | memhooks write --to note --name n` read until memory ran out and
    # ended in MemoryError. Now it stops past WRITE_STDIN_MAX characters and says so.
    store = Store(memory_root, SLUG)
    store.write_note("n", "kept as it is\n")
    before = (memory_root / "projects").rglob("*.md")
    kept = {p: p.read_bytes() for p in before}
    with subprocess.Popen(["yes", "x"], stdout=subprocess.PIPE) as yes:
        proc = subprocess.run(
            [sys.executable, "-m", "memhooks.hooks", "write", "--slug", SLUG,
             "--to", "note", "--name", "n"],
            stdin=yes.stdout, capture_output=True, text=True, timeout=120,
            env=os.environ, check=False,
        )  # fmt: skip
        yes.kill()
    assert (proc.returncode, proc.stdout) == (1, "")
    assert "over 64 Mi characters; nothing was written" in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert {p: p.read_bytes() for p in (memory_root / "projects").rglob("*.md")} == kept


def test_an_overwrite_without_aliases_keeps_the_notes_own(memory_root: Path) -> None:
    # Before: rewriting a note's body dropped its aliases line (only the .bak kept it),
    # so a search by those words no longer found the note.
    write = ("write", "--slug", SLUG, "--to", "note", "--name", "db")
    run_cli(*write, "--aliases", "pgbouncer", "--text", "Pool size is 20.")
    proc = run_cli(*write, "--mode", "overwrite", "--text", "Pool size is 40.")
    assert proc.returncode == 0, proc.stderr
    assert run_cli("search", "--slug", SLUG, "pgbouncer").returncode == 0
    run_cli(*write, "--mode", "overwrite", "--aliases", "", "--text", "Pool is 40.")
    note = memory_root / f"projects/{SLUG}/notes/db.md"
    assert note.read_text("utf-8") == "Pool is 40.\n"


def test_a_mistyped_slug_is_said_with_the_project_it_was_likely_meant_for(
    memory_root: Path,
) -> None:
    Store(memory_root, SLUG).write_note("vacuum", "autovacuum scale factor 0.05")
    typo = SLUG.replace("-", "x-", 1)  # one letter more in its name
    # Before: MEMORY.md alone searched, exit 1 or 0, and not a word of the slug.
    found = run_cli("search", "--slug", typo, "vacuum")
    assert found.stderr == (
        f"memhooks: --slug {typo}: no project of that name in {memory_root}; "
        f"did you mean --slug {SLUG}?\n"
    )
    # A write to it is made (a new project may be meant), and said; to a slug far from
    # any project's, nothing is said.
    wrote = run_cli(
        "write", "--slug", typo, "--to", "note", "--name", "a", "--text", "b"
    )
    assert wrote.returncode == 0 and f"did you mean --slug {SLUG}?" in wrote.stderr
    new = run_cli(
        *("write", "--slug", "other-0123abcd", "--to", "note", "--name", "a"),
        *("--text", "b"),
    )
    assert new.returncode == 0 and new.stderr == ""

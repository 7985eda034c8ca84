"""The command's contract: exit codes, one-line errors, no tracebacks for bad input."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from memhooks.hooks.cli import main
from memhooks.memory import Store
from tests.conftest import run_cli

if TYPE_CHECKING:
    from pathlib import Path

SLUG = "proj-0123abcd"


def call(*argv: str, stdin: str = "") -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), stdin=io.StringIO(stdin), stdout=out)
    return code, out.getvalue()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(["nonsense"], "invalid choice", id="unknown-command"),
        pytest.param(
            ["read", "--slug", SLUG, "notes/none"],
            "no such memory file",
            id="missing-file",
        ),
        pytest.param(
            ["read", "--slug", SLUG, "weird/target/x"],
            "unknown target",
            id="bad-target",
        ),
        pytest.param(
            ["read", "--slug", SLUG, "daily/2026-02-30"],
            # It said "use ... daily/YYYY-MM-DD", the form typed.
            "'daily/2026-02-30': 2026-02-30 is no day of the calendar",
            id="no-such-day",
        ),
        pytest.param(
            ["write", "--slug", SLUG, "--to", "note", "--text", "x"],
            "needs --name",
            id="note-without-name",
        ),
        pytest.param(
            ["read", "--slug", SLUG, "--bogus"],
            # It said "the following arguments are required: target".
            "unrecognized arguments: --bogus (see `memhooks read --help`)",
            id="flag-without-target",
        ),
        pytest.param(
            ["edit", "--slug", SLUG, "--old", "a", "--newer", "b"],
            "unrecognized arguments: --newer",
            id="flag-typo-before-missing",
        ),
        pytest.param(
            ["write", "--slug", SLUG, "--to", "memory", "--text", "x", "--bogus"],
            # It said "(see `memhooks --help`)", which lists the commands only.
            "unrecognized arguments: --bogus (see `memhooks write --help`)",
            id="flag-after-all-arguments",
        ),
        pytest.param(
            ["--root", "/srv/mem", "search", "redis"],
            # It said "argument COMMAND: invalid choice: '/srv/mem'", naming no option.
            "--root goes after the command: memhooks search --root /srv/mem redis",
            id="option-before-command",
        ),
        pytest.param(
            ["--bogus", "status"],
            "unrecognized arguments: --bogus",
            id="no-option-before-command",
        ),
    ],
)
def test_user_errors_exit_1_with_one_line(
    memory_root: Path, argv: list[str], message: str
) -> None:
    memory_root.mkdir()
    proc = run_cli(*argv)
    assert proc.returncode == 1
    (line,) = proc.stderr.splitlines()
    assert line.startswith("memhooks: error: ") and message in line
    assert line.count("memhooks") == 1 or "--help" in line  # never a doubled prefix
    assert proc.stdout == ""


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(
            ["search"], "the following arguments are required", id="missing-terms"
        ),
        pytest.param(
            ["search", "--slug", "../etc", "x"], "refused name", id="bad-slug"
        ),
        pytest.param(["search", "--bogus", "x"], "unrecognized arguments", id="flag"),
    ],
)
def test_search_errors_exit_2_as_grep_does(
    memory_root: Path, argv: list[str], message: str
) -> None:
    memory_root.mkdir()
    proc = run_cli(*argv)
    assert proc.returncode == 2
    (line,) = proc.stderr.splitlines()
    assert line.startswith("memhooks: error: ") and message in line
    assert "memhooks: error: memhooks" not in line


def test_an_error_quoting_a_huge_argument_keeps_to_a_readable_line(
    memory_root: Path,
) -> None:
    # `memhooks read` of a 100 KB target (a variable holding a file's text) printed a
    # 100 KB "line" quoting all of it; its head and the reason at its end are what help.
    Store(memory_root, SLUG).write_memory("- a")
    proc = run_cli("read", "--slug", SLUG, "x" * 100_000)
    assert proc.returncode == 1
    (line,) = proc.stderr.splitlines()
    assert len(line.encode()) <= 1100
    assert line.startswith("memhooks: error: unknown target 'xxxxxxxx")
    assert " bytes left out]… " in line
    assert line.endswith("notes/NAME or a path printed by search")


def test_an_error_naming_a_root_with_a_line_break_is_one_line(tmp_path: Path) -> None:
    # MEMHOOKS_HOME=$'/x\ny' (a paste gone wrong): the error took two lines, the second
    # looking like output of its own.
    root = f"{tmp_path}/mem\nory"
    proc = run_cli("status", env={"MEMHOOKS_HOME": root})
    assert proc.returncode == 1
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"memhooks: error: memory root {tmp_path}/mem ory does not")


def test_edit_takes_a_line_as_search_prints_it(memory_root: Path) -> None:
    # memory_edit's target is "a path exactly as memory_search printed it", and search
    # prints PATH:LINE: edit said "no such memory file: …/redis.md:1.md" (read took it).
    Store(memory_root, SLUG).write_note("redis", "port 6380")
    target = f"projects/{SLUG}/notes/redis.md:1"
    proc = run_cli("edit", "--slug", SLUG, target, "--old", "6380", "--new", "6381")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == f"edited projects/{SLUG}/notes/redis.md\n"
    assert Store(memory_root, SLUG).read("notes/redis", 100)[1] == "port 6381\n"


def test_edit_error_names_the_count(memory_root: Path) -> None:
    Store(memory_root, SLUG).write_note("n", "a a")
    proc = run_cli("edit", "--slug", SLUG, "notes/n", "--old", "a", "--new", "b")
    assert proc.returncode == 1
    assert (
        proc.stderr.strip()
        == f"memhooks: error: edit projects/{SLUG}/notes/n.md: old text found 2 times (must be unique)"
    )


def test_invalid_config_is_a_user_error(memory_root: Path) -> None:
    memory_root.mkdir(parents=True)
    (memory_root / "config.toml").write_text("[inject]\nbudjet = 3\n")
    proc = run_cli("inject", "--slug", SLUG)
    assert proc.returncode == 1
    assert proc.stderr == (
        f"memhooks: error: {memory_root / 'config.toml'}: "
        "inject.budjet: unknown key (did you mean inject.budget?)\n"
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            '[auto_search]\nenabled = "off"\n',
            "auto_search.enabled: Input should be a valid boolean",
        ),
        (
            '[search]\nbudget = "4096"\n',
            "search.budget: Input should be a valid integer",
        ),
        ("[inject]\nbudget = true\n", "inject.budget: Input should be a valid integer"),
        # Was "Input should be a valid dictionary or instance of _Inject": our class.
        ("inject = 4096\n", "inject: should be a table: [inject], then its keys"),
    ],
)
def test_a_value_of_the_wrong_type_is_named(
    memory_root: Path, text: str, problem: str
) -> None:
    # TOML has its types: "off" is no boolean (it read as false), true no budget (as 1).
    memory_root.mkdir(parents=True)
    (memory_root / "config.toml").write_text(text)
    proc = run_cli("inject", "--slug", SLUG)
    assert proc.returncode == 1
    assert proc.stderr == f"memhooks: error: {memory_root / 'config.toml'}: {problem}\n"


def test_a_config_saved_with_a_byte_order_mark_is_read(memory_root: Path) -> None:
    memory_root.mkdir(parents=True)
    (memory_root / "config.toml").write_bytes(b"\xef\xbb\xbf[inject]\nbudget = 4096\n")
    proc = run_cli("status", "--slug", SLUG)
    assert proc.returncode == 0, proc.stderr
    assert "of 4096 bytes" in proc.stdout


def test_status_says_what_the_harnesses_get_of_a_long_block(
    memory_root: Path, tmp_path: Path
) -> None:
    # A 12 KB MEMORY.md under the default 16 KiB budget: status said the block held it
    # whole, while Claude Code 2.1.332 got a block cut at 9,000 bytes (every harness's
    # hook reply is), its last ~70 rules gone.
    project = tmp_path / "app"
    project.mkdir()
    rules = "".join(f"- rule {i}: {'x' * 100}\n" for i in range(120))
    Store.for_project(memory_root, project).write_memory(rules)
    event = {"session_id": "s", "cwd": str(project), "hook_event_name": "SessionStart"}
    hook = run_cli("hook", "--harness", "claude-code", input=json.dumps(event))
    got = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]

    status = run_cli("status", cwd=project)

    assert status.returncode == 0, status.stderr
    assert "…[section truncated: MEMORY.md]" not in status.stdout.split("harness:")[0]
    harness = status.stdout.split("\nharness: ")[1].splitlines()[0]
    assert harness == (
        f"Claude Code, Codex and Gemini CLI get {len(got.encode())} bytes of it "
        "(at most 9000): …[section truncated: MEMORY.md]"
    ), got[-300:]


def test_status_of_months_of_logs_lists_the_two_the_block_reads(
    memory_root: Path,
) -> None:
    # A log a working day for nine months: status listed each, a line per log to scroll
    # past to see what the block holds.
    from tests.longuse import build

    (project,) = build(
        memory_root, projects=1, months=9, big=0, today=dt.date(2026, 12, 4)
    )
    logs = sorted(memory_root.glob("projects/*/daily/*.md"))
    assert len(logs) > 60
    typo = logs[0].parent / "2062-11-30.md"  # a log dated after today is no older one
    typo.write_text("### 09:00 — note\ntyped 2062 for 2026\n")

    status = run_cli("status", cwd=project)

    assert status.returncode == 0, status.stderr
    listed = [ln for ln in status.stdout.splitlines() if "/daily/" in ln]
    folder = logs[0].parent.relative_to(memory_root)
    size = sum(len(p.read_bytes()) for p in logs[:-2])
    assert listed == [
        (
            f"  {size:>8} B  {len(logs) - 2} older logs in {folder}/,"
            f" {logs[0].stem} … {logs[-3].stem}"
        ),
        *(
            f"  {len(p.read_bytes()):>8} B  {p.relative_to(memory_root)}"
            for p in [*logs[-2:], typo]
        ),
    ]
    assert f"section: Daily log {logs[-1].stem}" in status.stdout


def test_write_read_round_trip_in_process(memory_root: Path) -> None:
    assert call(
        "write",
        "--slug",
        SLUG,
        "--to",
        "note",
        "--name",
        "pool",
        "--aliases",
        "pgbouncer",
        stdin="size 20\n",
    ) == (0, f"wrote projects/{SLUG}/notes/pool.md\n")
    code, out = call("read", "--slug", SLUG, "--json", "notes/pool")
    assert code == 0
    assert json.loads(out) == {
        "path": f"projects/{SLUG}/notes/pool.md",
        "text": "aliases: pgbouncer\nsize 20\n",
    }


def test_text_dash_reads_stdin_as_other_tools_do(memory_root: Path) -> None:
    # Before: the item "- [ ] -" was written.
    where = ("--slug", SLUG)
    assert (
        call("write", *where, "--to", "scratchpad", "--text", "-", stdin="ship it")[0]
        == 0
    )
    assert call("read", *where, "scratchpad")[1].splitlines() == ["- [ ] ship it"]


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        pytest.param(
            ("--to", "note", "--name", "trail "),
            "body",
            "a name may not start or end with a space",
            id="name-ends-in-a-space",  # `read "notes/trail "` could not find it
        ),
        pytest.param(("--to", "memory"), "\0\0\0", "holds a NUL byte", id="nul-text"),
        pytest.param(
            ("--to", "memory", "--name", "n"),
            "a rule",
            "--name is for --to note",
            id="name-not-for-memory",  # it was ignored
        ),
        pytest.param(
            ("--to", "memory", "--title", "ports"),
            "- dev redis on 6380",
            "--title is for --to daily",
            id="title-not-for-memory",  # it was dropped without a word
        ),
        pytest.param(
            ("--to", "note", "--name", "n", "--title", "ports"),
            "redis on 6380",
            "--title is for --to daily",
            id="title-not-for-a-note",
        ),
    ],
)
def test_a_write_that_could_not_be_found_again_is_refused(
    memory_root: Path,
    capsys: pytest.CaptureFixture[str],
    args: tuple[str, ...],
    stdin: str,
    message: str,
) -> None:
    assert call("write", "--slug", SLUG, *args, stdin=stdin) == (1, "")
    assert message in capsys.readouterr().err
    assert not memory_root.exists() or not any(memory_root.rglob("*.md"))


def test_project_flag_picks_the_slug_from_the_directory(
    memory_root: Path, tmp_path: Path
) -> None:
    proj = tmp_path / "myapp"
    (proj / ".git").mkdir(parents=True)
    (proj / "src").mkdir()
    assert (
        call(
            "write",
            "--project",
            str(proj / "src"),
            "--to",
            "scratchpad",
            "--text",
            "ship it",
        )[0]
        == 0
    )
    proc = run_cli("status", cwd=proj / "src")
    assert proc.returncode == 0
    assert (
        "project: myapp-" in proc.stdout
        and "section: Scratchpad (open items)" in proc.stdout
    )


def test_python_m_hooks_help() -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0
    for command in (
        "search",
        "read",
        "write",
        "edit",
        "inject",
        "status",
        "hook",
        "session",
        "install",
        "simulate",
        "eval",
    ):
        assert command in proc.stdout


@pytest.mark.parametrize(
    "command", ["search", "read", "write", "edit", "inject", "status", "report", "mcp"]
)
def test_help_shows_root_project_and_slug_together(command: str) -> None:
    # Before: --project and --slug were listed under "options", away from --root and
    # the "where" section saying what the three choose (argparse drops a mutually
    # exclusive group's section when a parser is built from parents).
    proc = run_cli(command, "--help")
    assert proc.returncode == 0, proc.stderr
    where = proc.stdout.split("\nwhere:\n", 1)[1]
    for flag in ("--root DIR", "--project DIR", "--slug SLUG"):
        assert f"  {flag}" in where, flag
    assert "[--project DIR | --slug SLUG]" in proc.stdout  # still one or the other


def test_read_json_keeps_the_whole_line_within_the_cap(memory_root: Path) -> None:
    # Before: the text was cut to --cap, then JSON quoting ("\n", '"', '\\') grew the
    # line past it (1,070 bytes printed for --cap 1024).
    store = Store(memory_root, SLUG)
    store.write_note("quoted", "\n".join(f'- "{i}" C:\\tmp\\{i}' for i in range(200)))
    proc = run_cli("read", "--slug", SLUG, "notes/quoted", "--json", "--cap", "300")
    assert proc.returncode == 0, proc.stderr
    line = proc.stdout.removesuffix("\n")
    assert "\n" not in line and 250 < len(line.encode()) <= 300
    text = json.loads(line)["text"]
    assert text.startswith('- "0" C:\\tmp\\0\n')
    assert text.endswith("shown within 300 with this line]")


def test_read_of_a_huge_note_reads_only_its_head(memory_root: Path) -> None:
    # Before: the whole file was read (and decoded) to show its first --cap bytes; a
    # 2 GB note under a 1 GB address-space limit is a MemoryError. Sparse: no disk used.
    Store(memory_root, SLUG).write_note("huge", "first line\nsecond line")
    path = memory_root / f"projects/{SLUG}/notes/huge.md"
    os.truncate(path, 2 << 30)
    argv = [sys.executable, "-m", "memhooks.hooks", "read", "--slug", SLUG]
    proc = subprocess.run(
        ["sh", "-c", 'ulimit -v 1048576 && exec "$@"', "sh", *argv, "notes/huge"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("first line\nsecond line\n")
    assert proc.stdout.endswith(
        f"…[read truncated: file is {2 << 30} bytes, shown within 65536 with this line]\n"
    )
    assert path.stat().st_size == 2 << 30  # nothing written


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        pytest.param("--idle-timeout", "-1", id="idle-negative"),
        pytest.param("--idle-timeout", "0", id="idle-zero"),
        pytest.param("--idle-timeout", "nan", id="idle-nan"),
        pytest.param("--idle-timeout", "inf", id="idle-inf"),
        pytest.param("--parent-pid", "0", id="pid-zero"),
        pytest.param("--parent-pid", "-1", id="pid-negative"),
    ],
)
def test_session_refuses_a_time_or_pid_that_cannot_be(
    memory_root: Path, flag: str, value: str
) -> None:
    # Before: `session --idle-timeout -1` exited 0 at once, its event unanswered and the
    # session end unrecorded; `--parent-pid -1` asked every process whether it lived.
    event = '{"session_id": "s1", "hook_event_name": "SessionEnd"}\n'
    proc = run_cli("session", "--root", str(memory_root), flag, value, input=event)
    assert proc.returncode == 1
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"memhooks: error: argument {flag}: {value} ")
    assert proc.stdout == "" and not memory_root.exists()


_WRITE = ["write", "--to", "scratchpad", "--text", "x"]


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        pytest.param([*_WRITE, "--project", ""], 1, id="write-project"),
        pytest.param([*_WRITE, "--slug", ""], 1, id="write-slug"),
        pytest.param(["search", "item", "--project", ""], 2, id="search-project"),
        pytest.param(["search", "item", "--slug", ""], 2, id="search-slug"),
        pytest.param(["install", "claude-code", "--project", ""], 1, id="install"),
    ],
)
def test_an_empty_project_or_slug_is_refused_not_the_current_folder(
    memory_root: Path, project: Path, argv: list[str], code: int
) -> None:
    # Before: `--project "$UNSET"` (or `--slug ""`) wrote to, searched or installed in
    # the project of the current folder, as if the flag were not there.
    Store.for_project(memory_root, project).write_scratchpad("item")
    before = {p: p.read_bytes() for p in memory_root.rglob("*") if p.is_file()}
    proc = run_cli(*argv, cwd=project)
    assert proc.returncode == code
    (line,) = proc.stderr.splitlines()
    assert line.startswith("memhooks: error: ") and ("empty" in line or "''" in line)
    assert proc.stdout == "" and not (project / ".claude").exists()
    assert {p: p.read_bytes() for p in memory_root.rglob("*") if p.is_file()} == before


def test_a_bom_on_stdin_is_not_written_into_the_file(memory_root: Path) -> None:
    # Before: text piped from a file saved with a BOM (Notepad, PowerShell) put U+FEFF
    # in the middle of MEMORY.md, before its line's "- ", and the line it repeated was
    # not seen as a repeat.
    Store(memory_root, SLUG).write_memory("- old rule")
    proc = run_cli(
        "write",
        "--slug",
        SLUG,
        "--to",
        "memory",
        input="\ufeff- old rule\n- new rule\n",
    )
    assert proc.returncode == 0, proc.stderr
    assert (memory_root / "MEMORY.md").read_bytes() == b"- old rule\n- new rule\n"


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        pytest.param(["write", "--to", "memory", "--text", "- x"], 1, id="write"),
        pytest.param(["search", "x"], 2, id="search"),
        pytest.param(["inject"], 1, id="inject"),
    ],
)
def test_a_root_that_is_a_file_is_said_to_be_one(
    tmp_path: Path, argv: list[str], code: int
) -> None:
    # Before: search and inject said the root "does not exist" (it did, as a file),
    # and write said "cannot read config.toml: Not a directory".
    root = tmp_path / "memory"
    root.write_text("notes I keep\n")
    proc = run_cli(*argv, "--root", str(root), "--slug", SLUG)
    assert proc.returncode == code
    assert proc.stderr == (
        f"memhooks: error: memory root {root} is not a folder "
        "(check --root and $MEMHOOKS_HOME)\n"
    )
    assert root.read_text() == "notes I keep\n"


@pytest.mark.parametrize("shown", ["MEMORY.md:2", f"projects/{SLUG}/notes/port.md:1"])
def test_read_takes_a_path_and_line_as_search_prints_them(
    memory_root: Path, shown: str
) -> None:
    # Before: `memhooks read projects/<slug>/notes/port.md:1`, copied from a search
    # line, said "no such memory file: projects/<slug>/notes/port.md:1.md".
    store = Store(memory_root, SLUG)
    store.write_memory("- first rule\n- second rule")
    store.write_note("port", "Redis runs on 6380.")
    store.write_note("at:1", "a note whose name ends in a number")
    path = shown.rpartition(":")[0]

    proc = run_cli("read", "--slug", SLUG, shown)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == run_cli("read", "--slug", SLUG, path).stdout
    named = run_cli("read", "--slug", SLUG, "notes/at:1")  # a file by that name wins
    assert named.stdout == "a note whose name ends in a number\n", named.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["edit", "scratchpad", "--old", "-fix", "--new", "fix"],
        ["write", "--to", "memory", "--text", "-x"],
    ],
)
def test_a_value_that_begins_with_a_dash_is_explained(
    memory_root: Path, argv: list[str]
) -> None:
    # Before: "argument --old: expected one argument", and nothing said how to give it.
    flag, value = argv[-4:-2] if argv[0] == "edit" else argv[-2:]

    proc = run_cli(*argv, "--slug", SLUG)

    assert proc.returncode == 1
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"memhooks: error: argument {flag}: expected one argument")
    assert line.endswith(f"write it as {flag}={value}"), line


def test_a_memory_file_may_be_named_by_its_absolute_path(
    memory_root: Path, tmp_path: Path
) -> None:
    # Before: `memhooks read ~/.local/share/memhooks/MEMORY.md` (a path from `ls` or an
    # editor) said "absolute paths are not memory targets", and nothing else.
    store = Store(memory_root, SLUG)
    store.write_memory("- first rule")
    store.write_note("port", "Redis runs on 6380.")
    note = memory_root / "projects" / SLUG / "notes" / "port.md"

    read = run_cli("read", "--slug", SLUG, str(memory_root / "MEMORY.md"))
    edit = run_cli("edit", "--slug", SLUG, str(note), "--old", "6380", "--new", "6381")
    forget = run_cli("forget", "--slug", SLUG, f"{memory_root}/MEMORY.md:1")

    assert (read.returncode, read.stdout) == (0, "- first rule\n"), read.stderr
    assert edit.stdout == f"edited projects/{SLUG}/notes/port.md\n", edit.stderr
    assert forget.returncode == 0, forget.stderr
    outside = tmp_path / "elsewhere.md"
    outside.write_text("not memory")
    refused = run_cli("read", "--slug", SLUG, str(outside))
    assert refused.returncode == 1
    assert "an absolute path outside the memory root" in refused.stderr
    sneaky = run_cli("read", "--slug", SLUG, f"{memory_root}/../elsewhere.md")
    assert sneaky.returncode == 1 and "not memory" not in sneaky.stdout


def test_a_note_name_may_be_given_as_read_takes_it(memory_root: Path) -> None:
    # Before: `write --to note --name notes/deploy` (as `read notes/deploy` takes it)
    # was "refused name 'notes/deploy': path separator".
    proc = run_cli(
        "write", "--slug", SLUG, "--to", "note", "--name", "notes/deploy", "--text", "x"
    )

    assert proc.stdout == f"wrote projects/{SLUG}/notes/deploy.md\n", proc.stderr
    assert run_cli("read", "--slug", SLUG, "notes/deploy").stdout == "x\n"
    nested = run_cli(
        "write", "--slug", SLUG, "--to", "note", "--name", "notes/a/b", "--text", "x"
    )
    assert nested.returncode == 1 and "path separator" in nested.stderr


@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit", "SessionEnd"])
def test_a_hook_whose_root_is_a_file_says_so(tmp_path: Path, event: str) -> None:
    # Before: "memhooks: cannot read config.toml: Not a directory; using the defaults
    # (and 3 more: projects/.../daily cannot be read (Not a directory): left out | ...)".
    root = tmp_path / "memory"
    root.write_text("notes I keep\n")
    payload = {
        "session_id": "s1",
        "hook_event_name": event,
        "cwd": str(tmp_path),
        "prompt": "where do we deploy",
    }
    proc = run_cli("hook", "--root", str(root), input=json.dumps(payload))
    assert (proc.returncode, proc.stdout) == (0, "")
    assert proc.stderr == (
        f"memhooks hook: memory root {root} is not a folder "
        "(check --root and $MEMHOOKS_HOME); no context\n"
    )
    assert root.read_text() == "notes I keep\n"

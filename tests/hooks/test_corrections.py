"""`memhooks forget`, `restore` and `status --duplicates`, run as a person would."""

from __future__ import annotations

import io
import json
import re
from typing import TYPE_CHECKING

import pytest

from memhooks.hooks.cli import main
from memhooks.memory.inject import NOTHING_YET
from tests.conftest import run_cli

if TYPE_CHECKING:
    from pathlib import Path

SLUG = "proj-0123abcd"
NOTES = f"projects/{SLUG}/notes"


def cli(*argv: str) -> str:
    proc = run_cli(*argv, "--slug", SLUG)
    # `search` exits 1 when nothing matched, as grep does.
    ok = (0, 1) if argv[0] == "search" else (0,)
    assert proc.returncode in ok, proc.stderr
    return proc.stdout


def call(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main([*argv, "--slug", SLUG], stdin=io.StringIO(""), stdout=out)
    return code, out.getvalue()


def test_forget_a_line_then_restore_it_byte_for_byte(memory_root: Path) -> None:
    cli("write", "--to", "memory", "--text", "- Deploy with fabric.\n- Use uv.")
    memory = memory_root / "MEMORY.md"
    before = memory.read_bytes()

    out = cli("forget", "MEMORY.md", "--line", "fabric", "--reason", "moved to ansible")

    assert out == "forgot a line of MEMORY.md: - Deploy with fabric.\n"
    text = memory.read_text()
    assert re.search(
        r"^<!-- forgotten \d{4}-\d\d-\d\d — moved to ansible -->~~- Deploy with fabric\.~~$",
        text,
        re.MULTILINE,
    )
    assert "fabric" not in cli("inject")
    assert "0 files" in cli("search", "fabric")

    assert cli("restore", "MEMORY.md") == (
        "restored a line of MEMORY.md: - Deploy with fabric.\n"
    )
    assert memory.read_bytes() == before
    assert "fabric" in cli("inject")


def test_forget_and_restore_of_a_huge_line_say_its_start(memory_root: Path) -> None:
    # Before: both printed the whole line: 17 MB on the terminal for a pasted blob on
    # one line of MEMORY.md, and in the reply of MCP memory_forget, to the model.
    memory_root.mkdir()
    memory = memory_root / "MEMORY.md"
    blob = "- token dump " + "x" * 1_000_000
    memory.write_text(f"- keep this\n{blob}\n")
    before = memory.read_bytes()
    said = cli("forget", "MEMORY.md", "--line", "token dump")
    assert said.startswith("forgot a line of MEMORY.md: - token dump xxx")
    assert said.endswith("…\n") and len(said) < 300
    said = cli("restore", "MEMORY.md")
    assert said.startswith("restored a line of MEMORY.md: - token dump xxx")
    assert said.endswith("…\n") and len(said) < 300
    assert memory.read_bytes() == before


#: MEMORY.md with a private block, a rule with a private part, and a rule.
PRIVATE = (
    "<private>\nThe vault code is 4417-PLOVER.\n</private>\n"
    "- Lockers by the east door <private>(mine: 31, combo 9962)</private>.\n"
    "- Ship on Fridays.\n"
)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (2, " (line 2, private: not shown)"),
        (1, " (line 1, private: not shown)"),
        (4, ": - Lockers by the east door . (its private part not shown)"),
        (5, ": - Ship on Fridays."),
    ],
)
def test_forget_and_restore_never_say_private_text(
    memory_root: Path, line: int, said: str
) -> None:
    # What forget says is the reply of MCP memory_forget, to the model. Before
    # 2026-12-06 it said the line as written: "forgot a line of MEMORY.md: The vault
    # code is 4417-PLOVER." for a line of a private block.
    memory_root.mkdir()
    memory = memory_root / "MEMORY.md"
    memory.write_text(PRIVATE)
    out = cli("forget", f"MEMORY.md:{line}")
    assert out == f"forgot a line of MEMORY.md{said}\n"
    assert cli("restore", "MEMORY.md") == f"restored a line of MEMORY.md{said}\n"
    assert memory.read_text() == PRIVATE


def test_duplicates_leave_private_text_out(memory_root: Path) -> None:
    # Before 2026-12-06 `status --duplicates` listed a line of a private block that a
    # note repeated, with its text.
    memory_root.mkdir()
    (memory_root / "MEMORY.md").write_text(PRIVATE)
    cli("write", "--to", "note", "--name", "vault", "--text", "# Vault\n" + PRIVATE)
    out = cli("status", "--duplicates")
    assert "4417" not in out and "9962" not in out and "private>" not in out, out
    assert f"{NOTES}/vault.md:6: - Ship on Fridays." in out
    assert "MEMORY.md:4: - Lockers by the east door ." in out


def test_forget_a_note_then_restore_it(memory_root: Path) -> None:
    cli("write", "--to", "note", "--name", "pool", "--text", "Pool size is 20.")
    path = memory_root / NOTES / "pool.md"
    before = path.read_bytes()

    assert cli("forget", "notes/pool", "--reason", "wrong") == (
        f"forgot {NOTES}/pool.md\n"
    )

    assert path.read_text().startswith("forgotten: ")
    assert path.read_text().split("\n", 1)[0].endswith(" — wrong")
    assert "pool" not in cli("inject")
    assert "0 files" in cli("search", "pool")
    assert cli("restore", "notes/pool") == (
        f"restored {NOTES}/pool.md (no longer forgotten)\n"
    )
    assert path.read_bytes() == before


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize(
    ("rel", "target", "mark"),
    [
        pytest.param("MEMORY.md", "MEMORY.md:1", b"<!-- forgotten ", id="line-1"),
        pytest.param(f"{NOTES}/pool.md", "notes/pool", b"forgotten: ", id="note"),
    ],
)
def test_forget_keeps_a_byte_order_mark_first(
    memory_root: Path, rel: str, target: str, mark: bytes
) -> None:
    path = memory_root / rel
    path.parent.mkdir(parents=True)
    before = BOM + b"- Pool size is 20.\n- Use uv.\n"
    path.write_bytes(before)

    cli("forget", target)

    assert path.read_bytes().startswith(BOM + mark)
    assert "0 files" in cli("search", "pool")
    cli("restore", target.removesuffix(":1"))
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("before", "argv", "added"),
    [
        pytest.param(
            b"aliases: pool\r\nPool size is 20.\r\n",
            [],
            b"forgotten: ",
            id="forgotten",
        ),
        pytest.param(
            b"aliases: pool\r\nPool size is 20.\r\n",
            ["--by", "new"],
            b"superseded-by: ",
            id="superseded-below-aliases",
        ),
        pytest.param(
            b"Pool size is 20.\r\n",
            ["--by", "new"],
            b"superseded-by: ",
            id="superseded",
        ),
    ],
)
def test_a_crlf_note_gets_a_crlf_header_line(
    memory_root: Path, before: bytes, argv: list[str], added: bytes
) -> None:
    cli("write", "--to", "note", "--name", "new", "--text", "Pool is per service.")
    path = memory_root / NOTES / "pool.md"
    path.write_bytes(before)

    cli("forget", "notes/pool", *argv)

    after = path.read_bytes()
    (header,) = [ln for ln in after.split(b"\n") if ln.startswith(added)]
    assert header.endswith(b"\r")
    assert after.count(b"\n") == after.count(b"\r\n") == before.count(b"\n") + 1
    cli("restore", "notes/pool")
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    "command",
    [pytest.param("forget", id="forget"), pytest.param("restore", id="restore")],
)
@pytest.mark.parametrize(
    "number",
    [
        pytest.param("\u0661", id="arabic-indic-one"),
        pytest.param("\uff11", id="fullwidth-one"),
        pytest.param("\u0967", id="devanagari-one"),
    ],
)
def test_only_ascii_digits_number_a_line(
    memory_root: Path, command: str, number: str
) -> None:
    cli("write", "--to", "memory", "--text", "- Deploy with fabric.\n- Use uv.")
    if command == "restore":
        cli("forget", "MEMORY.md:1")
    memory = memory_root / "MEMORY.md"
    before = memory.read_bytes()

    proc = run_cli(command, f"MEMORY.md:{number}", "--slug", SLUG)
    letter = run_cli(command, "MEMORY.md:x", "--slug", SLUG)

    assert (proc.returncode, proc.stdout) == (letter.returncode, "") == (1, "")
    assert proc.stderr == letter.stderr.replace("MEMORY.md:x", f"MEMORY.md:{number}")
    assert len(proc.stderr.splitlines()) == 1
    assert memory.read_bytes() == before


def test_supersede_shows_the_newer_note_first(memory_root: Path) -> None:
    cli("write", "--to", "note", "--name", "deploy", "--text", "Deploy with fabric.")
    cli(
        "write", "--to", "note", "--name", "deploy-v2", "--text", "Deploy with ansible."
    )

    assert cli("forget", "notes/deploy", "--by", "notes/deploy-v2.md") == (
        f"superseded {NOTES}/deploy.md by {NOTES}/deploy-v2.md\n"
    )

    out = cli("search", "deploy")
    assert out.index("deploy-v2.md") < out.index("deploy.md ")
    assert "(superseded by notes/deploy-v2.md on " in out
    assert "(superseded by notes/deploy-v2.md)" in cli("inject")
    cli("restore", "notes/deploy")
    assert "superseded" not in (memory_root / NOTES / "deploy.md").read_text()


def test_a_note_is_not_superseded_by_one_that_is_superseded_or_forgotten(
    memory_root: Path,
) -> None:
    # Before: `forget notes/a --by notes/b` then `forget notes/b --by notes/a` marked
    # each superseded by the other: neither was the one to trust.
    for name in ("a", "b", "c"):
        cli("write", "--to", "note", "--name", name, "--text", f"deploy via {name}")
    cli("forget", "notes/a", "--by", "notes/b")
    cli("forget", "notes/c")
    for old, by, now in (
        ("b", "a", "superseded by notes/b.md"),
        ("b", "c", "forgotten"),
    ):
        before = (memory_root / NOTES / f"{old}.md").read_bytes()
        proc = run_cli("forget", f"notes/{old}", "--by", f"notes/{by}", "--slug", SLUG)
        assert (proc.returncode, proc.stdout) == (1, "")
        assert proc.stderr == (
            f"memhooks: error: {NOTES}/{by}.md is itself {now}: name the note that "
            f"holds, or `memhooks restore {NOTES}/{by}.md` first; nothing was written\n"
        )
        assert (memory_root / NOTES / f"{old}.md").read_bytes() == before


def test_duplicates_lists_places_forget_accepts(memory_root: Path) -> None:
    cli("write", "--to", "memory", "--text", "- Prefer small, reviewable commits.")
    cli(
        "write",
        "--to",
        "note",
        "--name",
        "git",
        "--text",
        "prefer small reviewable commits",
    )

    out = cli("status", "--duplicates")

    assert out.splitlines()[:4] == [
        (
            "1 group of near-duplicate lines in MEMORY.md and 1 note "
            "(whitespace, case and punctuation ignored):"
        ),
        "",
        "MEMORY.md:1: - Prefer small, reviewable commits.",
        f"{NOTES}/git.md:1: prefer small reviewable commits",
    ]
    cli("forget", f"{NOTES}/git.md:1", "--reason", "in MEMORY.md")
    assert cli("status", "--duplicates") == (
        "no near-duplicate lines in MEMORY.md and 1 note\n"
    )


def test_write_says_what_it_dropped(memory_root: Path) -> None:
    cli("write", "--to", "note", "--name", "pool", "--text", "Pool size is 20.")

    proc = run_cli(
        "write",
        "--slug",
        SLUG,
        "--to",
        "note",
        "--name",
        "pool",
        "--text",
        "POOL size is 20.",
    )

    assert proc.returncode == 0
    assert proc.stderr == (
        f"memhooks: dropped, already in {NOTES}/pool.md: POOL size is 20.\n"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(
            ["forget", "MEMORY.md"], "name the line with --line TEXT", id="whole-memory"
        ),
        pytest.param(
            ["forget", "MEMORY.md", "--line", "nope"],
            "no line holds 'nope'",
            id="no-line",
        ),
        pytest.param(
            ["forget", "notes/a", "--by", "missing"],
            "no such memory file",
            id="missing-successor",
        ),
        pytest.param(
            ["forget", "MEMORY.md:1", "--by", "a"],
            "--by marks a whole note",
            id="by-line",
        ),
        pytest.param(
            ["restore", "notes/a"],
            "nothing is forgotten in it",
            id="nothing-to-restore",
        ),
        pytest.param(["forget", "../x", "--line", "x"], "refused name", id="unsafe"),
    ],
)
def test_bad_requests_exit_1_with_one_line(argv: list[str], message: str) -> None:
    cli("write", "--to", "memory", "--text", "- a rule")
    cli("write", "--to", "note", "--name", "a", "--text", "a note")

    proc = run_cli(*argv, "--slug", SLUG)

    assert proc.returncode == 1
    (line,) = proc.stderr.splitlines()
    assert line.startswith("memhooks: error: ") and message in line
    assert proc.stdout == ""


def test_in_process_forget_and_restore(memory_root: Path) -> None:
    assert call("write", "--to", "scratchpad", "--text", "fix the flaky test")[0] == 0
    code, out = call("forget", "scratchpad:1")
    assert (code, out) == (
        0,
        f"forgot a line of projects/{SLUG}/SCRATCHPAD.md: - [ ] fix the flaky test\n",
    )
    assert NOTHING_YET in call("inject")[1]  # no open item left: no section
    assert call("restore", "scratchpad", "--line", "flaky")[0] == 0
    assert "fix the flaky test" in call("inject")[1]


def _places(out: str, word: str) -> list[str]:
    # The `PATH:LINE` of each matching line `search` printed that holds `word`.
    return [
        m[1]
        for m in re.finditer(r"^(\S+?:\d+):(.*)$", out, re.MULTILINE)
        if word in m[2]
    ]


def test_search_prints_the_place_forget_takes(memory_root: Path) -> None:
    # Line numbers are those of the file on disk: a forgotten line above, and a note's
    # header lines, still count, although search never shows them.
    cli("write", "--to", "memory", "--text", "- Deploy with fabric.\n- Use uv.")
    cli("forget", "MEMORY.md", "--line", "fabric")
    cli("write", "--to", "memory", "--text", "- The broker is rabbitmq on 5672.")
    cli("write", "--to", "note", "--name", "old", "--text", "queue: rabbitmq")
    cli("write", "--to", "note", "--name", "new", "--aliases", "mq", "--text", "x")
    cli("forget", "notes/old", "--by", "new")
    note = memory_root / NOTES / "old.md"
    cli("write", "--to", "note", "--name", "old", "--text", "broker rabbitmq retired")
    lines_before = (memory_root / "MEMORY.md").read_text().splitlines()

    out = cli("search", "rabbitmq")

    def on_disk(rel: str, word: str) -> str:
        lines = (memory_root / rel).read_text().splitlines()
        (n,) = [i for i, line in enumerate(lines, 1) if word in line]
        return f"{rel}:{n}"

    (in_memory,) = _places(out, "5672")
    assert in_memory == on_disk("MEMORY.md", "5672") == "MEMORY.md:3"
    (in_note,) = _places(out, "retired")
    assert in_note == on_disk(f"{NOTES}/old.md", "retired")
    assert note.read_text().startswith("superseded-by: ")
    cli("forget", in_memory)
    cli("forget", in_note)

    lines = (memory_root / "MEMORY.md").read_text().splitlines()
    assert lines[:2] == lines_before[:2]
    assert lines[2].startswith("<!-- forgotten ") and "5672" in lines[2]
    assert (
        [ln for ln in note.read_text().splitlines() if "rabbitmq" in ln]
        == [
            "queue: rabbitmq",  # the line above is still live
            f"<!-- forgotten {lines[2][15:25]} -->~~broker rabbitmq retired~~",
        ]
    )
    assert "5672" not in cli("search", "rabbitmq")


def test_search_json_carries_line_numbers(memory_root: Path) -> None:
    cli("write", "--to", "memory", "--text", "- a\n- b\n- postgres on 5433")
    cli("forget", "MEMORY.md:1")

    (hit,) = json.loads(cli("search", "postgres", "--json"))["results"]

    assert hit["line"] == 3
    assert {"line": 3, "text": "- postgres on 5433", "match": True} in hit["lines"]
    assert {"line": 2, "text": "- b", "match": False} in hit["lines"]


def test_a_note_whose_name_ends_in_a_number_is_forgotten_whole(
    memory_root: Path,
) -> None:
    # Before: `forget notes/port:8080` read ":8080" as a line number and said "no such
    # memory file: .../notes/port.md"; the note `write` made could not be forgotten.
    assert call("write", "--to", "note", "--name", "port:8080", "--text", "api")[0] == 0
    note = memory_root / "projects" / SLUG / "notes" / "port:8080.md"
    before = note.read_bytes()
    assert call("forget", "notes/port:8080")[0] == 0
    assert note.read_bytes() != before and call("search", "api")[0] == 1
    assert call("restore", "notes/port:8080")[0] == 0
    assert note.read_bytes() == before

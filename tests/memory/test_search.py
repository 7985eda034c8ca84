"""The docs/design.md baseline: the zerostack example must reproduce, and each ranking rule holds."""

from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING

import pytest

from memhooks.memory import Store, render_text, search, search_docs
from memhooks.memory.render import paginate, to_json
from tests.conftest import run_cli

if TYPE_CHECKING:
    from pathlib import Path

SLUG = "myapp-1a2b3c4d"
HEADER = "Searched 3 terms: redis(2) port(3) conflict(1) across 4 files."


def zerostack_root(root: Path) -> Store:
    store = Store(root, SLUG)
    store.write_note(
        "redis-deploy",
        "Redis port 6379 already bound by docker-compose.\n"
        "Resolved the port conflict by remapping the host to 6380.",
    )
    store.append_daily(
        "deploy troubleshooting",
        "docker-compose up failed; redis container couldn't bind port 6379",
        now=dt.datetime(2026, 3, 28, 14, 32).astimezone(),
    )
    store.write_note(
        "port-setup",
        "# Local dev environment\nDefault service bindings and host mappings.",
    )
    store.write_note("redis-cli", "Connect with the command line client and run INFO.")
    return store


def test_zerostack_example_through_the_real_command(memory_root: Path) -> None:
    zerostack_root(memory_root)
    proc = run_cli("search", "--slug", SLUG, "redis", "port", "conflict")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith(HEADER + " Showing top 4 by relevance.\n")
    order = [
        out.index(f"/{name}")
        for name in (
            "notes/redis-deploy.md",
            "daily/2026-03-28.md",
            "notes/port-setup.md",
            "notes/redis-cli.md",
        )
    ]
    assert order == sorted(order)
    assert (
        f"projects/{SLUG}/notes/redis-deploy.md  [matched: redis, port, conflict]"
        in out
    )
    assert (
        f"projects/{SLUG}/daily/2026-03-28.md  [matched: redis, port]\n"
        f"projects/{SLUG}/daily/2026-03-28.md-1-### 14:32 — deploy troubleshooting"
        in out
    )
    assert (
        f"projects/{SLUG}/notes/port-setup.md  [matched: port]\n(filename match)\n"
        f"projects/{SLUG}/notes/port-setup.md-1-# Local dev environment" in out
    )
    assert "truncated" not in out


def test_zerostack_example_truncated_to_three(memory_root: Path) -> None:
    store = zerostack_root(memory_root)
    result = search_docs(store.corpus().values(), "redis port conflict")
    full = render_text(result, 100_000)
    # A budget that fits the first three files and the trailer, not the fourth.
    budget = len(full.encode()) - 60
    text = render_text(result, budget)
    assert text.startswith(HEADER + " Showing top 3 by relevance.\n")
    assert text.endswith("\n…[search truncated, 1 more file omitted]")
    assert "redis-cli.md" not in text
    assert len(text.encode()) <= budget


def test_json_output_shape(memory_root: Path) -> None:
    zerostack_root(memory_root)
    proc = run_cli("search", "--slug", SLUG, "--json", "redis", "port", "conflict")
    data = json.loads(proc.stdout)
    assert data["terms"] == [
        {"term": "redis", "count": 2},
        {"term": "port", "count": 3},
        {"term": "conflict", "count": 1},
    ]
    assert (data["files_matched"], data["shown"], data["omitted"]) == (4, 4, 0)
    assert [r["filename_only"] for r in data["results"]] == [False, False, True, True]
    assert data["results"][0]["path"] == f"projects/{SLUG}/notes/redis-deploy.md"
    assert data["results"][0]["matched"] == ["redis", "port", "conflict"]


def test_first_file_always_shown_even_over_budget(memory_root: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_note("big", "needle\n" + "x" * 5000)
    store.write_note("small", "needle")
    page = paginate(search_docs(store.corpus().values(), "needle"), 400)
    assert len(page.shown) == 1 and page.omitted == 1
    assert len(page.text.encode()) <= 400


@pytest.mark.parametrize(
    ("files", "query", "expected"),
    [
        pytest.param(
            {"MEMORY.md": "one term: alpha", "notes/a": "alpha beta"},
            "alpha beta",
            ["MEMORY.md", "notes/a.md"],
            id="memory-first",
        ),
        pytest.param(
            {"notes/a": "alpha", "notes/b": "alpha beta"},
            "alpha beta",
            ["notes/b.md", "notes/a.md"],
            id="more-distinct-terms",
        ),
        pytest.param(
            {"notes/alpha": "nothing here", "notes/b": "alpha"},
            "alpha",
            ["notes/b.md", "notes/alpha.md"],
            id="content-before-filename",
        ),
        pytest.param(
            {"notes/a": "alpha", "notes/b": "alpha\nalpha again"},
            "alpha",
            ["notes/b.md", "notes/a.md"],
            id="more-lines",
        ),
        pytest.param(
            {"daily/2026-01-01": "alpha", "daily/2026-02-01": "alpha"},
            "alpha",
            ["daily/2026-02-01.md", "daily/2026-01-01.md"],
            id="newer-daily",
        ),
        pytest.param(
            {"notes/b": "alpha", "notes/a": "alpha"},
            "alpha",
            ["notes/a.md", "notes/b.md"],
            id="path-ascending",
        ),
    ],
)
def test_baseline_ranking_rules(
    memory_root: Path, files: dict[str, str], query: str, expected: list[str]
) -> None:
    for rel, text in files.items():
        path = memory_root / (
            rel if rel == "MEMORY.md" else f"projects/{SLUG}/{rel}.md"
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
    result = to_json(
        search_docs(
            Store(memory_root, SLUG).corpus().values(), query, ranking="baseline"
        )
    )
    got = [str(r["path"]).removeprefix(f"projects/{SLUG}/") for r in result["results"]]  # type: ignore[attr-defined]
    assert got == expected


def test_windows_merge_and_cap(memory_root: Path) -> None:
    lines = [f"line {i}" for i in range(100)]
    for i in (10, 12, 30, 50, 70, 90, 95):
        lines[i] = f"hit {i}"
    Store(memory_root, SLUG).write_note("long", "\n".join(lines))
    snippet = (
        search_docs(Store(memory_root, SLUG).corpus().values(), "hit").hits[0].snippet
    )
    windows = snippet.split("\n…\n")
    assert windows[0].splitlines() == [
        f"line {i}" if i not in (10, 12) else f"hit {i}" for i in range(7, 16)
    ]
    assert len(windows) == 5  # 10+12 merged; 30, 50, 70, 90+95 — capped at five windows
    assert snippet.endswith("\n…")


def test_no_match_says_so(memory_root: Path) -> None:
    zerostack_root(memory_root)
    text = render_text(
        search_docs(Store(memory_root, SLUG).corpus().values(), "kubernetes")
    )
    assert (
        text
        == "Searched 1 term: kubernetes(0) across 0 files. No matches: try other words."
    )


@pytest.mark.parametrize("ranking", ["default", "baseline"])
def test_lines_are_numbered_as_in_the_file_on_disk(
    memory_root: Path, ranking: str
) -> None:
    # Search never sees forgotten lines, yet the numbers it gives are grep's: a line
    # forgotten above, a CRLF file and a note's header lines all count.
    store = Store(memory_root, SLUG)
    note = memory_root / f"projects/{SLUG}/notes/kafka.md"
    note.parent.mkdir(parents=True)
    note.write_bytes(
        b"aliases: broker\r\n"
        b"superseded-by: notes/queue2.md (2026-11-30)\r\n"
        b"<!-- forgotten 2026-11-30 -->~~kafka on 9092~~\r\n"
        b"intro\r\n"
        b"<!-- forgotten 2026-11-30 -->~~kafka again~~\r\n"
        b"<!-- forgotten 2026-11-30 -->~~and again~~\r\n"
        b"kafka retention is 7 days\r\n"
        b"tail\r\n"
    )
    if ranking == "default":
        result = search(store, "kafka retention")
    else:
        result = search_docs(
            store.corpus().values(), "kafka retention", ranking="baseline"
        )

    (hit,) = result.hits
    numbered = [(ln.number, ln.text, ln.match) for ln in hit.lines if ln.number]
    assert numbered == [
        (1, "aliases: broker", False),
        (2, "superseded-by: notes/queue2.md (2026-11-30)", False),
        (4, "intro", False),
        (7, "kafka retention is 7 days", True),
        (8, "tail", False),
    ]
    assert hit.line == 7
    text = render_text(result)
    assert f"projects/{SLUG}/notes/kafka.md:7:kafka retention is 7 days\n" in text
    assert f"projects/{SLUG}/notes/kafka.md-4-intro\n" in text
    assert "(superseded by notes/queue2.md on 2026-11-30)" in text


def test_the_summary_shows_terms_as_typed_not_folded(memory_root: Path) -> None:
    # Before: "Straße" was reported as strasse(1), a word the user never typed.
    store = Store(memory_root, SLUG)
    store.write_note("street", "Die Straße ist lang")
    result = search(store, "Straße STRASSE")  # one term, either way it is written
    assert render_text(result).startswith("Searched 1 term: straße(1) across 1 file.")
    assert result.hits[0].matched == ("straße",)


def test_a_long_line_is_shown_around_its_match(memory_root: Path) -> None:
    # Before: a 21,000-character line was shown from its start and cut at the page's end,
    # so the word searched for never appeared.
    store = Store(memory_root, SLUG)
    store.write_note("minified", "filler " * 3000 + "narwhal at the end")
    (line,) = search(store, "narwhal").hits[0].lines
    assert line.number == 1 and line.match
    assert line.text.startswith("…") and line.text.endswith("narwhal at the end")
    assert len(line.text) == 501  # `SHOWN` characters and the mark where it was cut
    assert "narwhal" in render_text(search(store, "narwhal"), budget=1024)


def test_a_symbol_is_found_where_it_was_written(memory_root: Path) -> None:
    # Before: "Searched 1 term: 🚀(0) across 0 files": a symbol gave no key to look for.
    store = Store(memory_root, SLUG)
    store.write_note("launch", "🚀 launch on friday\nchecklist ✓ done\nnothing here")
    proc = run_cli("search", "--slug", SLUG, "🚀", "✓")
    assert proc.returncode == 0, proc.stderr
    rel = f"projects/{SLUG}/notes/launch.md"
    assert proc.stdout.startswith(
        "Searched 2 terms: 🚀(1) ✓(1) across 1 file. Showing top 1 by relevance.\n"
    )
    assert f"{rel}:1:🚀 launch on friday\n" in proc.stdout
    assert f"{rel}:2:checklist ✓ done\n" in proc.stdout
    # Before: 🇫🇷 found "🇷🇺 moscow" too (each regional indicator was a key of its own).
    store.write_note("trips", "🇷🇺 moscow in may\n🇺🇸 boston")
    proc = run_cli("search", "--slug", SLUG, "🇫🇷")
    assert proc.returncode == 1, proc.stdout
    store.write_note("paris", "🇫🇷 paris in june")
    proc = run_cli("search", "--slug", SLUG, "🇫🇷")
    assert proc.stdout.startswith("Searched 1 term: 🇫🇷(1) across 1 file."), proc.stdout


@pytest.mark.parametrize(
    ("written", "typed"),
    [
        pytest.param(
            "Lunch at the café with Zoë from Málaga", "cafe zoe malaga", id="bare"
        ),
        pytest.param(
            "The naïve approach was fine for José", "naïve José", id="as-typed"
        ),
        pytest.param("Ran the migration on Ångström", "angstrom", id="ring"),
        # Before: Vietnamese letters (Latin Extended Additional) split a word in two.
        pytest.param("Phở at Hà Nội, on Nguyễn Trãi", "nguyễn noi", id="vietnamese"),
        # macOS writes file text as it was typed, often decomposed (NFD); a query is NFC.
        pytest.param(
            "Notes from the re\u0301sume\u0301 review", "résumé", id="decomposed"
        ),
        pytest.param(
            "Notes from the re\u0301sume\u0301 review", "resume", id="decomposed-bare"
        ),
        pytest.param("Flight to İstanbul on Monday", "istanbul", id="dotted-capital-i"),
        # Before: letters Unicode does not decompose kept their marks: "lodz" found nothing.
        pytest.param("Ørsted's office in Łódź", "orsted lodz", id="undecomposed"),
        pytest.param("Meet Đức at Ærøskøbing", "duc aeroskobing", id="undecomposed-2"),
    ],
)
def test_a_word_is_found_with_or_without_its_accents(
    memory_root: Path, written: str, typed: str
) -> None:
    # Before: "cafe" found nothing in a note that says "café" (nor "naïve" in "naive"),
    # where grep -i would not either, but a person typing on a plain keyboard expects it.
    _finds_only_the_line(memory_root, written, typed)


def _finds_only_the_line(memory_root: Path, written: str, typed: str) -> None:
    # `memhooks search TYPED` finds the one note holding `written`, each term once, and
    # shows that line as written.
    store = Store(memory_root, SLUG)
    store.write_note("trip", f"{written}\nsomething else entirely")
    store.write_note("other", "Nothing about it here")
    proc = run_cli("search", "--slug", SLUG, *typed.split())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    terms = typed.split()
    counts = " ".join(f"{t.lower()}(1)" for t in terms)
    s = "s" if len(terms) > 1 else ""
    assert proc.stdout.startswith(
        f"Searched {len(terms)} term{s}: {counts} across 1 file."
    )
    assert f"notes/trip.md:1:{written}\n" in proc.stdout  # the line, as written
    assert "notes/trip.md:2:" not in proc.stdout  # the other line holds none


def test_a_word_typed_with_accents_finds_only_what_holds_them(
    memory_root: Path,
) -> None:
    # "Åre" without its ring is the English "are": typed with it, only the town is found.
    store = Store(memory_root, SLUG)
    store.write_note("trip", "Oskar starts at the ski school in Åre in December")
    store.write_note("plans", "We are flying out on the 3rd; tickets are booked")
    result = search(store, "Åre")
    assert [h.rel for h in result.hits] == [f"projects/{SLUG}/notes/trip.md"]
    assert {h.rel.rsplit("/", 1)[1] for h in search(store, "oskar are").hits} == {
        "trip.md",
        "plans.md",
    }


@pytest.mark.parametrize(
    ("written", "typed"),
    [
        pytest.param("اجتماع الفريق يوم الخميس", "الفريق", id="arabic"),
        pytest.param("مُحَمَّد سيراجع الكود", "محمد", id="arabic-vowels"),
        pytest.param("הפגישה עם הצוות ביום חמישי", "הצוות", id="hebrew"),
        pytest.param("टीम की बैठक गुरुवार को है।", "बैठक", id="hindi"),
        pytest.param("ประชุมทีมวันพฤหัสบดี", "ประชุมทีม", id="thai"),
    ],
)
def test_a_note_in_another_script_is_found_by_its_words(
    memory_root: Path, written: str, typed: str
) -> None:
    # Before: "Searched 1 term: الفريق(0) across 0 files" for a note holding the word.
    store = Store(memory_root, SLUG)
    store.write_note("meeting", f"{written}\nsomething else entirely")
    proc = run_cli("search", "--slug", SLUG, typed)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith(f"Searched 1 term: {typed}(1) across 1 file.")
    assert f"notes/meeting.md:1:{written}\n" in proc.stdout


@pytest.mark.parametrize(
    ("written", "typed"),
    [
        pytest.param("Базы данных переехали на новый сервер", "база серверов", id="ru"),
        pytest.param("Купили ёлку для офиса", "елки", id="ru-yo"),
        pytest.param("Η βάση δεδομένων μεταφέρθηκε", "βασεις", id="greek"),
        pytest.param(
            "Νέα προϊόντα στην Ευρωπαϊκή αγορά", "ευρωπαικος", id="el-dialytika"
        ),
        pytest.param("टीम की बैठकें गुरुवार को हैं।", "बैठक", id="hindi-plural"),
    ],
)
def test_a_word_in_russian_greek_or_hindi_finds_its_other_forms(
    memory_root: Path, written: str, typed: str
) -> None:
    # Before: each form was its own key: "база" found nothing in a note about "Базы".
    _finds_only_the_line(memory_root, written, typed)

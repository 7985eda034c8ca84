"""A term whose punctuation is part of it is found as typed, through the real command."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

from memhooks.memory import Store, segment
from memhooks.memory.index import Index
from memhooks.memory.literals import Literals, with_literals
from memhooks.memory.searching import search, search_index
from memhooks.memory.typed import Term, query_terms
from tests.conftest import run_cli

if TYPE_CHECKING:
    from pathlib import Path

    from memhooks.memory.corpus import Doc

SLUG = "myapp-1a2b3c4d"
NOTES = {
    "people": "the user's name\nit's fine\nBob's car\nwrite in C or Objective-C\n"
    "port 123 is open\nthe env var is set",
    "fmt": "use %s for strings in printf\nc++ is the language\nthe .env file\n"
    "fixed in #123 today\nfoo.bar, snake_case, C# and node.js",
}


def _search(*terms: str) -> str:
    proc = run_cli("search", "--slug", SLUG, "--", *terms)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


def _found_once(term: str, path: str, line: int) -> str:
    """The page of a search for `term`, which finds it on `line` of `path` only."""
    out = _search(term)
    assert out.startswith(f"Searched 1 term: {term.lower()}(1) across 1 file."), out
    assert f"{path}:{line}:" in out
    return out


def test_punctuation_that_is_part_of_a_term_is_matched_as_typed(
    memory_root: Path,
) -> None:
    # Before: "%s" was searched as "s": people.md ranked first, its 3 lines with "'s"
    # shown as matches, "%s(4)"; c++ and C# matched "C or Objective-C"; #123 "port 123".
    store = Store(memory_root, SLUG)
    for name, text in NOTES.items():
        store.write_note(name, text)
    fmt = f"projects/{SLUG}/notes/fmt.md"
    for term, line in [
        ("%s", 1),
        ("c++", 2),
        (".env", 3),
        ("#123", 4),
        ("C#", 5),
    ]:
        assert "people.md" not in _found_once(term, fmt, line)
    # Identifiers match by their words, as before.
    for term in ("foo.bar", "snake_case", "node.js"):
        out = _search(term)
        assert out.startswith(f"Searched 1 term: {term}(1) across 1 file."), out
        assert f"{fmt}:5:" in out


def test_a_literal_found_nowhere_is_searched_by_its_words_and_says_so(
    memory_root: Path,
) -> None:
    store = Store(memory_root, SLUG)
    store.write_note("team", "the champion won\nit's Bob's team")
    out = _search("@champion")
    assert out.startswith("Searched 1 term: @champion(0, 1 partial) across 1 file.")
    # Punctuation alone is read for in every note, as grep would.
    store.write_note("flow", "build -> test -> ship")
    out = _search("->")
    assert out.startswith("Searched 1 term: ->(1) across 1 file.")
    assert f"projects/{SLUG}/notes/flow.md:1:build -> test -> ship" in out
    # Before: a lone quote or question mark was stripped as if around a word, and
    # reported found nowhere: '"(0)', "?(0)".
    store.write_note("asked", 'she said "why?" and waited...')
    for term in ('"', "?", "..."):
        assert _search(term).startswith(f"Searched 1 term: {term}(1) across 1 file.")
    # Before: ".md" matched every note by its file name ("flow.md"), which the index
    # files without its extension (the word "md" matches none).
    assert _search(".md").startswith("Searched 1 term: .md(0) across 0 files.")
    # A mere letter or number is never searched for on its own: no "%s", no match.
    assert _search("%s").startswith("Searched 1 term: %s(0) across 0 files.")


def test_a_literal_is_found_inside_a_longer_word_as_grep_finds_it(
    memory_root: Path,
) -> None:
    # Before: only notes holding each of the literal's words whole were read, so "libc++"
    # (the word "libc", not "c"), "--capacity", ".envrc", "#1234" and "%sx" were missed
    # and counted 0, where `grep -F` finds them.
    store = Store(memory_root, SLUG)
    store.write_note(
        "glued",
        "link against libc++\nuse --capacity 5\nthe .envrc file\nsee #1234\nprintf %sx"
        "\nload from https://cdn.example.org/v3",
    )
    glued = f"projects/{SLUG}/notes/glued.md"
    for term, line in [
        ("c++", 1),
        ("--cap", 2),
        (".env", 3),
        ("#12", 4),
        ("%s", 5),
        ("s://cdn.example.org/v", 6),
    ]:
        _found_once(term, glued, line)


def test_a_search_showing_only_hits_reads_a_bounded_number_of_notes(
    memory_root: Path,
) -> None:
    # Before: auto-search of a pasted trace of `build::run` terms read every note once
    # per term (3.5 s a prompt over 10,000 notes); now a literal that would read more
    # than `most` notes is searched by its words, as before literals were.
    store = Store(memory_root, SLUG)
    for i in range(12):
        store.write_note(f"n{i}", f"build then run step {i}")
    store.write_note("trace", "panicked in build::run at main.rs")
    index = Index(store.corpus().values())
    terms = query_terms("build::run")
    view, loose = with_literals(index, terms, most=5)
    assert loose == {"build::run": Term("build::run", ("build", "run"))}
    assert isinstance(view, Literals) and view.unread == {"build::run"}
    # Within READ_MOST notes, auto-search reads them for it.
    hits = search_index(index, "build::run", counted=False).hits
    assert [h.rel.rsplit("/", 1)[1] for h in hits] == ["trace.md"]
    # Within the bound, or counted (a search a person reads), it is read as typed.
    for most in (None, 13):
        view, loose = with_literals(index, terms, most=most)
        assert loose == {}
        assert isinstance(view, Literals) and view.find("build::run")[0][1] == 1
    assert _search("build::run").startswith("Searched 1 term: build::run(1) across 1")


def test_a_one_shot_search_counts_a_literal_from_the_index_file(
    memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: a literal with no inner word (".env", "c++", "->") read every note, as
    # grep does: 5-7x `grep -rilF`'s time over 10,000 notes; then the index file's
    # punctuated strings (`memory.punctuated`) named the notes to read, still 2.2-2.9x
    # for "->" in a note in seven. Now they count it, by the lines they are on.
    store = Store(memory_root, SLUG)
    for i in range(30):
        store.write_note(f"n{i}", f"the env var {i}\nfoo.bar, it's fine -> done ->")
    store.write_note("setup", "copy .env.example to .ENV first\nx->y, a->b\nthen ->")
    folder = memory_root / "projects" / SLUG / "notes"
    past = time.time() - 600  # not racy: every note is ranked from the index file
    for f in folder.iterdir():
        os.utime(f, (past, past))
    assert _search("warm").startswith("Searched 1 term: warm(0)")  # builds it
    read: list[str] = []
    real = Store.read_listed

    def counted(self: Store, rel: str) -> Doc | None:
        read.append(rel)
        return real(self, rel)

    monkeypatch.setattr(Store, "read_listed", counted)
    setup = f"projects/{SLUG}/notes/setup.md"
    result = search(Store(memory_root, SLUG), ".env")
    assert [h.rel for h in result.hits] == [setup]
    assert result.terms[0][1] == 1  # in two strings, on one line
    result = search(Store(memory_root, SLUG), "->")
    assert len(result.hits) == 31 and result.terms[0][1] == 32  # lines, as grep -c
    assert read == []
    # A note changed since the index file was written is read for it.
    (folder / "n0.md").write_text("-> and ->\n->\n", encoding="utf-8")
    assert search(Store(memory_root, SLUG), "->").terms[0][1] == 33


def _run_starts(data: bytes) -> list[int]:
    # Where each run of an index file starts, as its document table says.
    footer = segment._FOOTER
    _, _, n, runs, path_bytes, _, table, _ = footer.unpack(data[-footer.size :])
    at = table + path_bytes + 17 * n
    return list(struct.unpack(f"<{runs}Q", data[at : at + 8 * runs]))


@pytest.mark.parametrize(
    "run", [pytest.param(0, id="words"), pytest.param(1, id="punctuated")]
)
def test_a_run_whose_header_claims_billions_of_keys_is_rebuilt_not_read(
    memory_root: Path, run: int
) -> None:
    # Before: the key count of a run's header, damaged, was trusted to size the read of
    # its key table (16 bytes a key): MemoryError and a traceback, on this search and
    # every one after, as the file was never dropped (found by flipping bytes of the
    # punctuated run `memhooks search -- ->` opens; the runs of words do the same).
    store = Store(memory_root, SLUG)
    for name, text in NOTES.items():
        store.write_note(name, text)
    assert _search(".env").startswith("Searched 1 term: .env(1) across 1 file.")
    path = memory_root / ".index" / f"{SLUG}.mhix"
    data = bytearray(path.read_bytes())
    data[_run_starts(bytes(data))[run] + 3] = 0xFF  # the count's high byte
    path.write_bytes(data)
    for _ in range(2):
        proc = run_cli("search", "--slug", SLUG, "--", ".env")
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stdout.startswith("Searched 1 term: .env(1) across 1 file.")
    segment.Segment(segment.Bytes(path.read_bytes()))  # rebuilt whole


def test_a_literal_typed_with_a_byte_that_is_no_utf_8_gets_an_answer(
    memory_root: Path,
) -> None:
    # Before: `memhooks search -- $'\xff->'` (Python reads the byte of argv as a lone
    # surrogate) failed where the files to read are picked, which encoded the literal
    # strictly: UnicodeEncodeError, exit 3 and a traceback (found trying invalid UTF-8).
    Store(memory_root, SLUG).write_note("fmt", NOTES["fmt"])
    argv = [sys.executable, "-m", "memhooks.hooks", "search", "--slug", SLUG]
    for env in ({}, {"PYTHONIOENCODING": "utf-8:strict"}):  # C locale, UTF-8 locale
        proc = subprocess.run(
            [*argv, "--", b"\xff->"],
            capture_output=True,
            check=False,
            env={**os.environ, **env},
        )
        assert proc.returncode == 1 and proc.stderr == b"", proc.stderr
        # The term is printed back with U+FFFD for its byte, in any locale: printed as
        # the byte, a UTF-8 locale's strict stdout failed (exit 3).
        assert proc.stdout.startswith(
            "Searched 1 term: \ufffd->(0) across 0 files.".encode()
        )

"""Fusion: strong lexical hits keep their place; meaning fills where words found nothing."""

from __future__ import annotations

from memhooks.memory.fusion import FLOOR, MAX_MEANING, Fused, Lexical, Meaning, fuse


def _m(rel: str, sim: float) -> Meaning:
    return Meaning(rel, sim, 0, 1)


def _flat(*pairs: tuple[str, float]) -> list[Meaning]:
    # Plenty of unrelated files put the median low, as in a real corpus.
    return [
        *(_m(r, s) for r, s in pairs),
        *(_m(f"other{i}.md", 0.1) for i in range(20)),
    ]


def test_without_meaning_the_lexical_order_is_kept() -> None:
    lex = [Lexical("a.md", 9.0, 1.0), Lexical("b.md", 3.0, 0.4)]
    assert fuse(lex, []) == [Fused("a.md", False), Fused("b.md", False)]


def test_a_query_whose_words_were_all_found_keeps_its_lexical_order() -> None:
    lex = [Lexical("a.md", 9.0, 1.0), Lexical("b.md", 8.0, 1.0)]
    meaning = _flat(("b.md", 0.9), ("a.md", 0.2), ("c.md", 0.95))
    got = fuse(lex, meaning)
    assert [f.rel for f in got[:2]] == ["a.md", "b.md"]
    # A file close in meaning still joins, after them, marked.
    assert Fused("c.md", True) in got


def test_a_paraphrase_is_ordered_by_meaning() -> None:
    # Only common words matched: low coverage everywhere, so meaning decides.
    lex = [Lexical("noise.md", 5.0, 0.2), Lexical("answer.md", 2.0, 0.1)]
    meaning = _flat(("answer.md", 0.6), ("noise.md", 0.15), ("near.md", 0.5))
    got = fuse(lex, meaning)
    assert got[0] == Fused("answer.md", False)
    assert got.index(Fused("near.md", True)) < got.index(Fused("noise.md", False))


def test_the_first_lexical_hit_stays_first_when_it_holds_enough_of_the_query() -> None:
    # A revised fact: the newest log wins lexically, the stale note wins by meaning.
    lex = [Lexical("daily/new.md", 6.0, 0.5), Lexical("notes/old.md", 5.5, 0.5)]
    meaning = _flat(("notes/old.md", 0.7), ("daily/new.md", 0.3))
    assert fuse(lex, meaning)[0] == Fused("daily/new.md", False)


def test_meaning_only_files_need_the_floor_and_are_capped() -> None:
    close = [_m(f"close{i}.md", 0.9) for i in range(MAX_MEANING + 5)]
    far = [_m(f"far{i}.md", 0.1) for i in range(30)]
    got = fuse([], [*close, *far])
    assert all(f.by_meaning for f in got)
    assert len(got) == MAX_MEANING
    assert {f.rel for f in got} <= {m.rel for m in close}
    assert 0 < FLOOR <= 1


def test_only_meaning_only_files_are_marked() -> None:
    lex = [Lexical("a.md", 1.0, 0.1)]
    got = fuse(lex, _flat(("a.md", 0.9), ("b.md", 0.8)))
    assert {f.rel: f.by_meaning for f in got} == {"a.md": False, "b.md": True}


def test_meaning_that_sets_no_file_apart_does_not_outweigh_the_words() -> None:
    # Sessions of one long chat: the encoder finds them all about equally close (best
    # 0.04 above the median), so its best guess must not overturn the lexical first.
    lex = [Lexical("said.md", 1.0, 0.25), Lexical("chatter.md", 0.5, 0.25)]
    meaning = [
        _m("chatter.md", 0.42),
        _m("said.md", 0.40),
        *(_m(f"session{i}.md", 0.38) for i in range(20)),
    ]
    assert [f.rel for f in fuse(lex, meaning)[:2]] == ["said.md", "chatter.md"]
    # The same files with the encoder sure of its pick: meaning decides.
    sure = [_m("chatter.md", 0.8), _m("said.md", 0.4), *meaning[2:]]
    assert fuse(lex, sure)[0] == Fused("chatter.md", False)


def test_a_question_about_the_latest_state_keeps_the_words_time_order() -> None:
    # "which Go version are we on now": the words put the newest log that mentions it
    # first; the encoder finds the older logs and the note as close, and cannot tell
    # which is current. Low coverage: untimed, meaning would reorder them.
    lex = [
        Lexical("daily/2025-12-01.md", 9.0, 0.2),
        Lexical("daily/2025-09-01.md", 4.0, 0.2),
        Lexical("notes/go.md", 3.0, 0.2),
    ]
    meaning = _flat(
        ("notes/go.md", 0.7),
        ("daily/2025-09-01.md", 0.6),
        ("daily/2025-12-01.md", 0.3),
        ("daily/2025-10-01.md", 0.55),
    )
    untimed = [f.rel for f in fuse(lex, meaning)]
    assert untimed.index("daily/2025-09-01.md") < untimed.index("daily/2025-12-01.md")
    got = fuse(lex, meaning, timed=True)
    lexical = [f.rel for f in got if not f.by_meaning]
    # The file closest in meaning may still move up; the others keep the words' order.
    assert lexical[0] == "notes/go.md"
    assert lexical[1:] == ["daily/2025-12-01.md", "daily/2025-09-01.md"]
    # A log only meaning found still joins, marked.
    assert Fused("daily/2025-10-01.md", True) in got
    assert sorted(f.rel for f in got) == sorted(untimed)


def test_the_closest_goes_above_the_words_first_only_in_another_script() -> None:
    # "which Go version are we on now": the closest in meaning is the older log, in the
    # question's script, so the newest log the words put first stays first. "Go 现在是
    # 哪个版本" (asked in both scripts) keeps it too. An English question whose answer is
    # a note written in Chinese: the words barely reach the note, the encoder does.
    lex = [
        Lexical("daily/2025-12-01.md", 9.0, 0.2),
        Lexical("daily/2025-09-01.md", 4.0, 0.2),
        Lexical("notes/go.md", 3.0, 0.2),
    ]

    def meaning(note: str) -> list[Meaning]:
        return [
            Meaning("daily/2025-09-01.md", 0.7, 0, 1, "alphabetic"),
            Meaning("notes/go.md", 0.8 if note == "cjk" else 0.6, 0, 1, note),
            Meaning("daily/2025-12-01.md", 0.3, 0, 1, "alphabetic"),
            *(Meaning(f"other{i}.md", 0.1, 0, 1, "alphabetic") for i in range(20)),
        ]

    for asked in ({"alphabetic"}, {"alphabetic", "cjk"}):
        got = [f.rel for f in fuse(lex, meaning("alphabetic"), timed=True, asked=asked)]
        assert got[:3] == ["daily/2025-12-01.md", "daily/2025-09-01.md", "notes/go.md"]
    got = [f.rel for f in fuse(lex, meaning("cjk"), timed=True, asked={"alphabetic"})]
    assert got[:3] == ["notes/go.md", "daily/2025-12-01.md", "daily/2025-09-01.md"]
    # Not asked for a time, the closest by meaning goes first either way.
    assert fuse(lex, meaning("alphabetic"), asked={"alphabetic"})[0].rel != lex[0].rel

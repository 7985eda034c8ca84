"""The index file names the documents holding a literal, those a read of every note finds,
and counts it in them as a read does."""

from __future__ import annotations

from unittest import mock

from hypothesis import assume, example, given
from hypothesis import strategies as st

from memhooks.memory import keytable, postings, segment
from memhooks.memory.corpus import Doc, make_doc
from memhooks.memory.needles import fold, lines_holding
from memhooks.memory.paths import Located
from memhooks.memory.punctuated import findable, punctuated
from memhooks.memory.segment import Bytes, Entry, Segment, encode
from memhooks.memory.typed import literal_of

# Letters, punctuation a literal holds, what wraps or ends a term, whitespace, and
# characters casefolding or NFKC changes (fullwidth "．", "ß", "ﬁ", "Ａ").
ALPHABET = "ab1.-+%#_:/>()\"'`,!?’ \n\t．ßﬁＡ"
TEXTS = st.lists(st.text(ALPHABET, max_size=40), min_size=1, max_size=7)
NAMES = st.lists(st.text("ab-_.#+", min_size=1, max_size=6), min_size=7, max_size=7)


def _docs(texts: list[str], names: list[str]) -> list[Doc]:
    return [
        make_doc(Located("note", f"projects/p/notes/{n}{i}.md", f"{n}{i}"), text)
        for i, (text, n) in enumerate(zip(texts, names, strict=False))
    ]


def _segment(docs: list[Doc], wide: bool = False) -> Segment:
    # `wide`: every document of a word or more in runs of its own (`memory.wide`).
    entries = [Entry(d.rel, d.size, 0, d) for d in docs]
    with mock.patch.object(postings, "WIDE", 0 if wide else postings.WIDE):
        return Segment(Bytes(b"".join(encode(entries, 0))))


def _holding(docs: list[Doc], literal: str) -> set[int]:
    # What reading every document finds, as `memory.literals.Literals` matches.
    return {
        i
        for i, d in enumerate(docs)
        if literal in fold(d.text) or literal in fold(d.filename.removesuffix(".md"))
    }


@given(
    texts=TEXTS,
    names=NAMES,
    term=st.text(ALPHABET, min_size=1, max_size=6),
    wide=st.booleans(),
    block=st.sampled_from([1, 2, 3, keytable.BLOCK]),
)
@example(
    texts=["cp .ENV.example (see .env)."],
    names=["a"] * 7,
    term=".env",
    wide=False,
    block=1,
)
@example(
    texts=["libc++, done", "c+ +"], names=["a"] * 7, term="c++", wide=False, block=1
)
@example(texts=["x", "y"], names=["a", "b-c"] * 4, term="-c", wide=False, block=1)
@example(texts=["ＡＢ．ｅｎｖ"], names=["a"] * 7, term=".env", wide=False, block=1)
@example(texts=["ab.+", "b.+a"], names=["a"] * 7, term="b.+", wide=False, block=1)
# across two strings
@example(texts=["x-a", "a.y"], names=["a"] * 7, term="yx-", wide=True, block=1)
@example(
    texts=["a-b a-b\nx a-b", "a-b-a-b c-a-b"],
    names=["a"] * 7,
    term="a-b",
    wide=True,
    block=1,
)
def test_the_index_file_names_and_counts_every_document_holding_a_literal(
    texts: list[str], names: list[str], term: str, wide: bool, block: int
) -> None:
    # `block`: keys a block of a run's fence covers; a literal is looked for in the
    # blocks whose strings hold its marks, one or several at once.
    lit = literal_of(term, alone=True)
    assume(lit and findable(lit))
    docs = _docs(texts, names)
    with mock.patch.object(keytable, "BLOCK", block):
        counted = _segment(docs, wide).literal(lit)
    assert counted.keys() == _holding(docs, lit)
    for i, got in counted.items():
        text = fold(docs[i].text)
        assert got == (text.count(lit), len(lines_holding(text, [lit])[0]))


def test_each_batch_of_documents_is_searched_for_a_literal() -> None:
    texts = [
        f"note {i} uses {'.env' if i % 3 == 0 else 'env'} and it's fine"
        for i in range(10)
    ]
    docs = _docs(texts, ["n"] * 10)
    with mock.patch.object(segment, "BATCH", 4):
        seg = _segment(docs)
    assert seg.literal(".env") == dict.fromkeys([0, 3, 6, 9], (1, 1))
    assert seg.literal("'s") == dict.fromkeys(range(10), (1, 1))


def test_a_literal_that_a_string_may_not_hold_is_read_for() -> None:
    # Whitespace (NFKC gives "¨" a space), a control character, and what a string is
    # filed without: each such literal reads every document.
    for lit in (" \u0308", "a\x01b", "...", '"', "abc"):
        assert not findable(lit)
    assert punctuated("(see .env). done.\n«x-y» .env", "my-note") == {
        (".env", 0): 1,
        (".env", 1): 1,
        ("x-y", 1): 1,
        ("my-note", 0): 0,
    }


def test_a_long_note_is_counted_by_its_lines_across_the_parts_it_is_read_in() -> None:
    # A note of more than ROWS_AT_ONCE lines is filed in parts; its lines are numbered
    # through them, so a string on the same line of two parts is two lines, not one.
    rows = ["plain words"] * 5_000
    for at in (0, 4_095, 4_096, 4_999):
        rows[at] = "a->b here"
    rows[4_096] = "a->b and x->y"
    doc = _docs(["\n".join(rows)], ["n"])
    assert _segment(doc).literal("->") == {0: (5, 4)}

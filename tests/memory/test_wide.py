"""A note of very many distinct keys (a base64 blob) is filed in runs of its own: every
key found as an `Index` files it, in about the memory a note of a few words takes."""

from __future__ import annotations

import base64
import random
import tracemalloc
from typing import TYPE_CHECKING

from memhooks.memory import postings
from memhooks.memory.corpus import Doc, make_doc
from memhooks.memory.index import Index
from memhooks.memory.paths import Located
from memhooks.memory.segment import Bytes, Entry, Segment, encode

if TYPE_CHECKING:
    import pytest

WORDS = ["Deploy", "the", "billing", "service", "and", "retry", "failed", "payments"]


def _doc(name: str, text: str) -> Doc:
    return make_doc(Located("note", f"projects/p/notes/{name}.md", name), text)


def _blob(rng: random.Random, n: int) -> str:
    return f"# blob\n\n{base64.b64encode(rng.randbytes(n)).decode()}\n"


def _build(docs: list[Doc]) -> bytes:
    return b"".join(encode([Entry(d.rel, d.size, 0, d) for d in docs], 0))


def _peak(doc: Doc) -> int:
    tracemalloc.start()
    try:
        for _ in encode([Entry(doc.rel, doc.size, 0, doc)], 0):
            pass
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_note_of_distinct_keys_is_built_in_the_memory_of_one_of_few_words() -> None:
    # ~110,000 distinct keys in 800 KB, against prose of as many bytes and ten words: the
    # build's allocated peak, as a ratio (no clock). It was 7.4 when each key had a
    # postings array of its own and entries in the run's tables; it is ~1.9.
    rng = random.Random(0)
    blob = _blob(rng, 600_000)
    prose = " ".join(rng.choices(WORDS, k=len(blob) // 6))[: len(blob)]
    ratio = _peak(_doc("blob", blob)) / _peak(_doc("prose", prose))
    assert ratio < 3.5


def test_every_key_of_a_wide_note_is_found_among_other_notes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Notes before and after it, in one batch: their runs, then its own, then theirs.
    monkeypatch.setattr(postings, "WIDE", 10_000)
    rng = random.Random(1)
    blob = _doc("blob-retry", _blob(rng, 90_000) + "Deploying at noon.\n")
    notes = [_doc(f"n{i}", " ".join(rng.choices(WORDS, k=30))) for i in range(6)]
    docs = [*notes[:3], blob, *notes[3:]]
    seg = Segment(Bytes(_build(docs)))
    index = Index(docs)
    assert len(index._post) > postings.WIDE
    assert len(seg._runs) == 3
    for key in index._post.keys() | index._fields.keys():
        post, named = seg.read(key)
        assert list(post) == list(index.postings(key)), key
        assert set(named) == index.field_ids(key), key

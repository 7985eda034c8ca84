"""A session's view of the corpus (hooks.view) answers as a search that reads the files."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from memhooks.hooks.view import View
from memhooks.memory import Store, search_docs, segment
from memhooks.memory.segment import Bytes, Segment
from tests.memory.test_index import SLUG, WORDS, _random_root
from tests.memory.test_layered import _answer

if TYPE_CHECKING:
    from pathlib import Path


def test_a_session_whose_index_file_is_damaged_answers_and_reopens_it(
    memory_root: Path, trusting: None
) -> None:

    rng = random.Random(3)
    _random_root(memory_root, rng)
    view = View.open(memory_root, memory_root, indexed=True)
    view.store = Store(memory_root, SLUG)
    view.index()
    index_file = memory_root / ".index" / f"{SLUG}.mhix"
    data = bytearray(index_file.read_bytes())
    table = segment._FOOTER.unpack_from(data, len(data) - segment._FOOTER.size)[6]
    # The last run's postings, just before the document table (the key tables are read
    # when the file is opened; postings when a search asks, and a CRC tells then).
    data[table - 40 : table] = bytes(b ^ 0xFF for b in data[table - 40 : table])
    index_file.write_bytes(bytes(data))  # in place: the session's descriptor sees it
    docs = view.corpus()
    for word in WORDS:
        assert _answer(view.search(word)) == _answer(
            search_docs(docs.values(), word)
        ), word
    Segment(Bytes(index_file.read_bytes()))  # dropped and built anew

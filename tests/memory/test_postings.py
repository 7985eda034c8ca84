"""The index file a build writes holds, key by key, the postings an `Index` of the same
documents holds: the build counts tokens (`memory.terms.line_tokens`) and looks each
distinct one up once, or files a document of very many in runs of its own
(`memory.wide`), `analyze` counts keys line by line; all must agree exactly."""

from __future__ import annotations

import itertools
import random
from array import array
from collections import Counter

import pytest

from memhooks.memory import index, keytable, postings, segment
from memhooks.memory.corpus import make_doc
from memhooks.memory.index import Index
from memhooks.memory.paths import Located
from memhooks.memory.segment import Bytes, Entry, Segment, encode
from memhooks.memory.terms import (
    cjk_chars,
    filed_keys,
    line_tokens,
    token_key,
    token_names,
)

#: Words whose keys are easy to get wrong: several words of one key (stems, case),
#: camel case, digits, CJK runs (alone, repeating a pair, against a word), ligatures,
#: full-width letters, casefolding that is not lowering, punctuation that separates.
WORDS = [
    "deploy",
    "deploys",
    "Deploying",
    "DEPLOYED",
    "retry",
    "retries",
    "retried",
    "test",
    "tests",
    "strictPort",
    "PDFDownload",
    "APIs",
    "ABC9D",
    "x9Y",
    "iPhone",
    "getHTTPResponse",
    "9Lives",
    "testTest",
    "portPort",
    "default_pool_size",
    "x-y_z",
    "Redis",
    "redis",
    "REDIS",
    "部署",
    "部署腳本",
    "哈哈哈",
    "a消b",
    "稅",
    "ｶﾀｶﾅ",
    "ＡＰＩ",
    "３",
    "ﬁle",
    "Ünïcode",
    "naïve",
    "İstanbul",
    "Straße",
    "Łódź",
    "Ærø",
    "ΑΒΓδ",
    "Привет",
    "Базы",
    "ёлку",
    "βάσης",
    "Ευρωπαϊκή",
    "κιτσα",
    "שָׁלוֹם",
    "مُحَمَّد،",
    "नमस्ते।",
    "Nguyễn",
    "สวัสดี๚",
    "caféBar",
    "éabcDef",
    "×÷",
    "—",
    "→",
    "’s",
    ".",
    ",",
    ";",
    "é",
    "t\tab",
    "a\rb",
]


def _text(rng: random.Random, ascii_only: bool) -> str:
    rows = [
        "".join(rng.choice(["", " ", ".", "\t"]) + w for w in rng.choices(WORDS, k=k))
        for k in [rng.randint(0, 9) for _ in range(rng.randint(1, 8))]
    ]
    rows += rng.choices(rows, k=rng.randint(0, 3))  # a log repeats its lines
    rng.shuffle(rows)
    text = "\n".join(rows)
    return text.encode("ascii", "ignore").decode() if ascii_only else text


@pytest.mark.parametrize("seed", range(200))
def test_tokens_stand_for_the_keys_of_each_line(seed: int) -> None:
    rng = random.Random(seed)
    text = _text(rng, ascii_only=seed % 2 == 1)
    got = [Counter(map(token_key, line)) for line in line_tokens(text)]
    want = [Counter([*filed_keys(line), *cjk_chars(line)]) for line in text.split("\n")]
    assert got == want
    tokens = list(dict.fromkeys(itertools.chain.from_iterable(line_tokens(text))))
    assert token_names(tokens) == [token_key(t).encode() for t in tokens]


@pytest.mark.parametrize("wide", [False, True], ids=["runs", "wide"])
@pytest.mark.parametrize("seed", range(12))
def test_the_index_file_holds_what_an_index_holds(
    seed: int, wide: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small runs, a small table of tokens and short "long" logs: every path of a build
    # (a new run, the table forgotten between runs, a log counted in parts) is taken;
    # and `wide`, documents of more than 2 tokens in runs of their own, their text
    # tokenized in pieces of a few characters. Blocks of 1-5 keys: a lookup falls on
    # every kind of block boundary of the key tables' fences.
    monkeypatch.setattr(segment, "BATCH", 3)
    monkeypatch.setattr(keytable, "BLOCK", 1 + seed % 5)
    monkeypatch.setattr(postings, "TOKENS_KEPT", 8)
    monkeypatch.setattr(postings, "ROWS_AT_ONCE", 4)
    monkeypatch.setattr(index, "ROWS_AT_ONCE", 4)
    if wide:
        monkeypatch.setattr(postings, "WIDE", 2)
        monkeypatch.setattr(postings, "PIECE", 8)
    rng = random.Random(seed)
    docs = [
        make_doc(
            Located("note", f"notes/{rng.choice(WORDS)}-{i}.md".replace("\n", ""), ""),
            _text(rng, ascii_only=rng.random() < 0.5),
        )
        for i in range(10)
    ]
    entries = [Entry(d.rel, d.size, 0, d) for d in docs]
    seg = Segment(Bytes(b"".join(encode(entries, 0))))
    full = Index(docs)
    every = set(full._post) | set(full._fields)
    assert every  # the documents hold keys
    for key in every:
        post, named = seg.read(key)
        assert list(post) == list(full.postings(key)), key
        assert set(named) == full.field_ids(key), key
    # Keys no document holds, before, between and after those held, read as absent.
    for key in (
        "",
        "\0",
        "\U0010ffff",
        *(k + "\0" for k in every),
        *(k[:-1] for k in every),
    ):
        if key not in every:
            assert seg.read(key) == (array("I"), array("I")), key

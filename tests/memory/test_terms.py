"""Keys of text: Snowball English stemming, camel-case parts and CJK bigrams."""

from __future__ import annotations

import pytest

from memhooks.memory.needles import fold
from memhooks.memory.stems import stem, stem_needles
from memhooks.memory.terms import (
    cjk_chars,
    filed_keys,
    keys,
    line_tokens,
    script,
    scripts,
    token_key,
)


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        pytest.param(
            ["deploy", "deploys", "deployed", "deploying"], "deploy", id="deploy"
        ),
        pytest.param(["retry", "retries", "retried", "retrying"], "retri", id="y-to-i"),
        pytest.param(["cache", "caches", "cached", "caching"], "cach", id="final-e"),
        pytest.param(["hope", "hoping", "hoped"], "hope", id="short-syllable"),
        pytest.param(["run", "runs", "running"], "run", id="double-consonant"),
        pytest.param(["policy", "policies"], "polici", id="ies"),
        pytest.param(["pool", "pools", "pooled", "pooling"], "pool", id="pool"),
    ],
)
def test_inflections_meet(words: list[str], expected: str) -> None:
    assert {stem(w) for w in words} == {expected}


@pytest.mark.parametrize(
    "word",
    [
        pytest.param("status", id="us-is-not-plural"),
        pytest.param("class", id="ss-is-not-plural"),
        pytest.param("string", id="ing-without-vowel-before"),
        pytest.param("need", id="eed"),
        pytest.param("api", id="short"),
        pytest.param("v2", id="digits"),
        pytest.param("café", id="non-ascii"),
    ],
)
def test_words_left_alone(word: str) -> None:
    assert stem(word) == word


def test_derivations_are_joined() -> None:
    # Snowball removes derivational suffixes too: the chat eval's "decision" meets
    # "decisive", a "deployment" is about deploying.
    assert stem("deployment") == stem("deploy")
    assert stem("availability") == stem("available")
    assert stem("decision") != stem("deploy")


@pytest.mark.parametrize(
    "word",
    [
        "hoping",
        "retries",
        "possibility",
        "capabilities",
        "dying",
        "lying",
        "generalization",
        "sensitivity",
        "operator",
        "relational",
        "happily",
        "skies",
        "redis",
        "busy",
        "серверов",
        "ёлка",
        "βάσης",
        "προϊόντα",
        "κιτσα",  # Greek's stemmer gives "κακ": the word is its own key
        "बैठकें",
    ],
)
def test_every_word_holds_a_needle_of_its_stem(word: str) -> None:
    # A one-shot search reads only files holding a needle (memory.rank.needles): a
    # word whose stem's needles it does not hold would be missed. It looks in text as
    # `fold` makes it: no accents, no dots on ё.
    assert any(n in fold(word) for n in stem_needles(stem(word)))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("база", "базы"),
        ("серверов", "сервер"),
        ("ёлка", "елки"),
        ("βάση", "βάσεις"),
        ("ευρωπαϊκή", "ευρωπαικος"),
        ("बैठक", "बैठकें"),
    ],
)
def test_russian_greek_and_hindi_words_are_stemmed(a: str, b: str) -> None:
    assert keys(a) == keys(b)


def test_other_scripts_are_not_stemmed() -> None:
    # Arabic's stemmer reads a word's first letter as a prefix: "team" would be "saliva".
    assert keys("فريق ريق") == ["فريق", "ريق"]


def test_needles_stay_as_long_as_they_can() -> None:
    # A short needle lets many lines through the one-shot prefilter ("red" for "redis").
    assert stem_needles(stem("redis")) == ("redi", "redy")
    assert stem_needles(stem("deploying")) == ("deploy",)


def test_words_split_at_punctuation_and_casefolded() -> None:
    assert keys("default_pool_size = 20, Redis!") == [
        "default",
        "pool",
        "size",
        "20",
        "redi",  # Snowball's -s rule; "Redis" in a file gives the same key
    ]


@pytest.mark.parametrize(
    "text",
    [
        "default_pool_size = 20, Redis! strictPort PDFDownload v1.2.3 -> `.env` #123",
        "1.2.3 -> 1.2.4",
        "",
    ],
)
def test_an_ascii_text_gets_the_keys_and_scripts_any_text_does(text: str) -> None:
    # An ASCII text is read without the patterns of the other scripts (compiled only
    # for a text outside ASCII, ~5 ms of a one-shot search): the same keys and scripts
    # as it gets beside a word outside ASCII.
    assert keys(text) == keys(f"{text} é")[:-1]
    assert scripts(text) == scripts(f"{text} 。")  # CJK punctuation is no CJK key
    assert script(text) == script(f"{text} 。")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("strictPort", ["strictport", "strict", "port"], id="camel"),
        pytest.param("PDFDownload", ["pdfdownload", "pdf", "download"], id="acronym"),
        pytest.param("HTTP", ["http"], id="all-caps"),
        pytest.param("plain", ["plain"], id="lower"),
    ],
)
def test_camel_case_gives_whole_and_parts(text: str, expected: list[str]) -> None:
    assert keys(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("催繳排程", ["催繳", "繳排", "排程"], id="chinese-bigrams"),
        pytest.param("コンビニ", ["コン", "ンビ", "ビニ"], id="katakana"),
        pytest.param("월말 정산", ["월말", "정산"], id="korean"),
        pytest.param("稅", ["稅"], id="lone-character"),
        pytest.param("月結。帳單", ["月結", "帳單"], id="punctuation-splits"),
        pytest.param("跑 month-end 月結", ["跑", "month", "end", "月結"], id="mixed"),
    ],
)
def test_cjk_overlapping_bigrams(text: str, expected: list[str]) -> None:
    assert keys(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("مرحبا بالعالم، كيف؟", ["مرحبا", "بالعالم", "كيف"], id="arabic"),
        pytest.param("שלום עולם־טוב", ["שלום", "עולם", "טוב"], id="hebrew"),
        pytest.param("নমস্কার বিশ্ব।", ["নমস্কার", "বিশ্ব"], id="bengali"),
        pytest.param("வணக்கம் உலகம்", ["வணக்கம்", "உலகம்"], id="tamil"),
        pytest.param("Բարեւ աշխարհ։", ["բարեւ", "աշխարհ"], id="armenian"),
        pytest.param("გამარჯობა მსოფლიო", ["გამარჯობა", "მსოფლიო"], id="georgian"),
        pytest.param("ሰላም፡ዓለም።", ["ሰላም", "ዓለም"], id="ethiopic"),
    ],
)
def test_words_of_other_spaced_scripts(text: str, expected: list[str]) -> None:
    # Before: none of these gave a key, and a note written in them was never found.
    assert keys(text) == expected


def test_the_scripts_tables_are_their_letters_marks_and_digits() -> None:
    # `_SPACED` and `_UNSPACED` were read off unicodedata: each block's letters, marks and digits in it
    # (code points unassigned then too), its punctuation and symbols out.
    import re
    import unicodedata

    from memhooks.memory.terms import _SPACED, _UNSPACED

    spaced = [*range(0x500, 0xE00), *range(0x10A0, 0x1100), *range(0x1200, 0x13A0)]
    unspaced = [*range(0xE00, 0xF00), *range(0x1000, 0x10A0), *range(0x1780, 0x1800)]
    for table, blocks in ((_SPACED, spaced), (_UNSPACED, unspaced)):
        inside = re.compile(f"[{table}]")
        for c in blocks:
            kind = unicodedata.category(chr(c))
            wanted = kind[0] in "LMN" or kind == "Cn"
            assert bool(inside.match(chr(c))) == wanted, (hex(c), kind)


def test_scripts_without_spaces_are_cut_into_pairs_as_cjk_is() -> None:
    # Before: Thai gave no key at all; now a word of a sentence meets it, as in Chinese.
    sentence = keys("สวัสดีชาวโลก๚")
    assert set(keys("ชาวโลก")) <= set(sentence)
    assert "๚" not in "".join(sentence)  # punctuation separates
    assert script("ประชุมทีมวันพฤหัส") == "cjk"


def test_hebrew_points_and_arabic_vowels_are_optional() -> None:
    # Mostly unwritten: a word written with them is filed without them too.
    assert filed_keys("שָׁלוֹם") == ["שָׁלוֹם", "שלום"]
    assert filed_keys("مُحَمَّد") == ["مُحَمَّد", "محمد"]
    assert filed_keys("نـــعم") == ["نـــعم", "نعم"]  # tatweel draws a word out


def test_full_width_forms_meet_plain_ones() -> None:
    assert keys("ＡＰＩ 第３天 ｺﾝﾋﾞﾆ") == keys("API 第3天 コンビニ")


def test_cjk_chars_of_longer_runs_only() -> None:
    assert cjk_chars("消費稅 a 稅") == ["消", "費", "稅"]
    assert cjk_chars("plain ascii") == []


@pytest.mark.parametrize(
    ("text", "used", "main"),
    [
        ("which Go version are we on now", {"alphabetic"}, "alphabetic"),
        ("现在 Airflow 跑在哪个 region?", {"alphabetic", "cjk"}, "cjk"),
        (
            "# 電子發票\n作廢期限是兩個月，`pnpm` 與 Redis 不影響。",
            {"alphabetic", "cjk"},
            "cjk",
        ),
        (
            "- 上線 Airflow 2.10.1 on EKS, scheduler on 3 nodes, API on 2",
            {"alphabetic", "cjk"},
            "alphabetic",
        ),
        ("Überprüfung der Konfiguration", {"alphabetic"}, "alphabetic"),
        ("1.2.3 -> 1.2.4", set(), ""),
    ],
)
def test_scripts_a_text_uses_and_the_one_it_is_mainly_in(
    text: str, used: set[str], main: str
) -> None:
    assert scripts(text) == used
    assert script(text) == main


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("🚀 launch", ["🚀", "launch"], id="emoji"),
        pytest.param("done✓ → next", ["done", "✓", "→", "next"], id="check-arrow"),
        pytest.param("€5 ❤️", ["€", "5", "❤"], id="currency-variation-selector"),
        pytest.param("a, b. c% d", ["a", "b", "c", "d"], id="ascii-punctuation-splits"),
        # A flag is its two regional indicators, whole: 🇫🇷 is no 🇫 and 🇷 (of 🇷🇺).
        pytest.param("🇫🇷 🇷🇺🇺🇸", ["🇫🇷", "🇷🇺", "🇺🇸"], id="flags"),
    ],
)
def test_symbols_outside_ascii_are_keys(text: str, expected: list[str]) -> None:
    # Before: a symbol was a separator, so `memhooks search 🚀` had no key to look for.
    assert keys(text) == expected
    (tokens,) = line_tokens(text)  # the index files the same keys
    assert [token_key(t) for t in tokens] == expected

"""The default ranking: each rule, rare-term weighting, stems, CJK bigrams, aliases, recency."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from memhooks.memory import Store, proximity, render_text, search_docs
from memhooks.memory.index import Index
from memhooks.memory.render import paginate, to_json
from memhooks.memory.searching import search_index
from tests.conftest import run_cli

if TYPE_CHECKING:
    from pathlib import Path

    from memhooks.memory.results import SearchResult

SLUG = "myapp-1a2b3c4d"


def _write(root: Path, files: dict[str, str]) -> Store:
    for rel, text in files.items():
        path = root / (rel if rel == "MEMORY.md" else f"projects/{SLUG}/{rel}.md")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
    return Store(root, SLUG)


def _search(root: Path, files: dict[str, str], query: str, **kw: str) -> SearchResult:
    return search_docs(_write(root, files).corpus().values(), query, **kw)  # type: ignore[arg-type]


def _order(result: SearchResult) -> list[str]:
    return [h.rel.removeprefix(f"projects/{SLUG}/") for h in result.hits]


# Filler notes make a word common, so that its weight falls as it would in a real root.
_COMMON = {
    f"notes/filler-{i}": f"the usual words about the project {i}" for i in range(6)
}


@pytest.mark.parametrize(
    ("files", "query", "first"),
    [
        pytest.param(
            {"notes/a": "alpha", "notes/b": "alpha beta"},
            "alpha beta",
            "notes/b.md",
            id="more-distinct-terms",
        ),
        pytest.param(
            {"notes/alpha": "nothing here", "notes/b": "alpha"},
            "alpha",
            "notes/b.md",
            id="content-before-filename",
        ),
        pytest.param(
            {"daily/2026-01-01": "alpha", "daily/2026-02-01": "alpha"},
            "alpha",
            "daily/2026-02-01.md",
            id="newer-daily-where-equal",
        ),
        pytest.param(
            {"notes/b": "alpha", "notes/a": "alpha"},
            "alpha",
            "notes/a.md",
            id="path-ascending-on-a-tie",
        ),
        pytest.param(
            {
                **_COMMON,
                "notes/pool": "pgbouncer",
                "notes/prose": "the the the\nthe the",
            },
            "the pgbouncer",
            "notes/pool.md",
            id="rare-term-outweighs-common",
        ),
        pytest.param(
            {"MEMORY.md": "alpha", "notes/b": "alpha beta gamma"},
            "alpha beta gamma",
            "notes/b.md",
            id="memory-ranked-by-score-not-first",
        ),
    ],
)
def test_default_ranking_rules(
    memory_root: Path, files: dict[str, str], query: str, first: str
) -> None:
    assert _order(_search(memory_root, files, query))[0] == first


def test_stopwords_decide_baseline_not_default(memory_root: Path) -> None:
    files = {
        **_COMMON,
        "notes/pool": "pgbouncer",
        "notes/prose": "the the the\nthe the",
    }
    store = _write(memory_root, files)
    docs = list(store.corpus().values())
    assert (
        _order(search_docs(docs, "the pgbouncer", ranking="baseline"))[0]
        == "notes/prose.md"
    )
    assert _order(search_docs(docs, "the pgbouncer"))[0] == "notes/pool.md"


def test_newer_daily_log_beats_an_equal_note(memory_root: Path) -> None:
    files = {
        "notes/db": "pool size 20",
        "daily/2026-01-05": "unrelated work",
        "daily/2026-03-01": "pool size 30",
    }
    assert _order(_search(memory_root, files, "pool size"))[:2] == [
        "daily/2026-03-01.md",
        "notes/db.md",
    ]


def test_a_clearly_better_note_still_beats_a_newer_log(memory_root: Path) -> None:
    files = {
        "notes/db": "pgbouncer pool size 20\npgbouncer transaction mode",
        "daily/2026-01-05": "unrelated work",
        "daily/2026-03-01": "pool meeting",
    }
    assert (
        _order(_search(memory_root, files, "pgbouncer pool size"))[0] == "notes/db.md"
    )


def test_stemming_meets_inflections(memory_root: Path) -> None:
    files = {"notes/ops": "We deployed the worker twice.", "notes/other": "nothing"}
    result = _search(memory_root, files, "deploying")
    assert _order(result) == ["notes/ops.md"]
    assert result.terms == (("deploying", 1),)
    assert result.hits[0].matched == ("deploying",)
    assert _search(memory_root, files, "deploying", ranking="baseline").hits == ()


def test_aliases_line_counts_as_content(memory_root: Path) -> None:
    files = {
        "notes/rate-limiting": "aliases: throttling, quotas\n# Rate limits\n100 requests a minute",
        "notes/api": "the public API and its quotas",
    }
    result = _search(memory_root, files, "throttling")
    assert _order(result) == ["notes/rate-limiting.md"]
    assert result.terms == (("throttling", 1),)
    assert result.hits[0].snippet.startswith("aliases: throttling")
    # A word a writer put on the aliases line outranks the same word in passing.
    assert _order(_search(memory_root, files, "quotas"))[0] == "notes/rate-limiting.md"


def test_cjk_query_without_spaces_finds_part_of_the_phrase(memory_root: Path) -> None:
    files = {
        "notes/dunning": "# 催繳\n催繳排程改成第 3、7、14 天重試",
        "notes/other": "月結流程",
    }
    result = _search(memory_root, files, "催繳排程現在是第幾天重試")
    assert _order(result) == ["notes/dunning.md"]
    # The phrase as typed is nowhere: count 0, with the lines that hold parts of it.
    assert result.terms == (("催繳排程現在是第幾天重試", 0),)
    assert result.partial == (("催繳排程現在是第幾天重試", 2),)
    assert render_text(result).startswith(
        "Searched 1 term: 催繳排程現在是第幾天重試(0, 2 partial) across 1 file."
    )
    assert to_json(result)["terms"] == [
        {"term": "催繳排程現在是第幾天重試", "count": 0, "partial": 2}
    ]
    baseline = _search(
        memory_root, files, "催繳排程現在是第幾天重試", ranking="baseline"
    )
    assert baseline.hits == ()


def test_cjk_term_found_whole_counts_whole(memory_root: Path) -> None:
    result = _search(
        memory_root, {"notes/a": "催繳排程改版", "notes/b": "排程"}, "催繳排程"
    )
    assert result.terms == (("催繳排程", 1),)
    assert result.partial == ()


def test_one_cjk_character_finds_it_inside_a_word(memory_root: Path) -> None:
    files = {"notes/tax": "消費稅 10%", "notes/other": "月結流程"}
    result = _search(memory_root, files, "稅")
    assert _order(result) == ["notes/tax.md"]
    assert result.terms == (("稅", 1),)


def test_cjk_snippet_cut_is_utf8_safe(memory_root: Path) -> None:
    body = "\n".join(
        f"第{i}行：催繳排程改成第三天重試，信件語氣要溫和。" for i in range(40)
    )
    result = _search(memory_root, {"notes/long": body}, "催繳")
    full = paginate(result, 100_000).text
    for budget in range(150, 400, 7):
        text = paginate(result, budget).text
        assert len(text.encode("utf-8")) <= budget
        head = text.removesuffix("\n…[snippet truncated]")
        assert head != text and full.startswith(head)
        assert "\ufffd" not in text


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        pytest.param("kubernetes", (("kubernetes", 0),), id="no-match-reports-0"),
        pytest.param("Redis redis", (("redis", 2),), id="case-insensitive-dedup"),
        pytest.param("redis-port", (("redis-port", 1),), id="all-words-on-one-line"),
        # Until 2026-12-06 "—(0)", though the file holds one: a dash between words
        # separates them (README), and is searched only when typed alone.
        pytest.param("— 6379", (("6379", 1),), id="punctuation-between-is-no-term"),
        pytest.param("redis - 6379", (("redis", 2), ("6379", 1)), id="a-lone-dash"),
    ],
)
def test_term_counts(
    memory_root: Path, query: str, terms: tuple[tuple[str, int], ...]
) -> None:
    files = {"notes/a": "redis port 6379 — taken", "notes/b": "redis cli"}
    assert _search(memory_root, files, query).terms == terms


@pytest.mark.parametrize(
    ("args", "config", "first"),
    [
        pytest.param((), "", "notes/b.md", id="default"),
        pytest.param(("--ranking", "baseline"), "", "MEMORY.md", id="flag"),
        pytest.param((), '[search]\nranking = "baseline"\n', "MEMORY.md", id="config"),
        pytest.param(
            ("--ranking", "default"),
            '[search]\nranking = "baseline"\n',
            "notes/b.md",
            id="flag-wins",
        ),
    ],
)
def test_cli_ranking_choice(
    memory_root: Path, args: tuple[str, ...], config: str, first: str
) -> None:
    _write(memory_root, {"MEMORY.md": "alpha", "notes/b": "alpha beta gamma"})
    if config:
        (memory_root / "config.toml").write_text(config)
    proc = run_cli("search", "--slug", SLUG, "--json", *args, "alpha", "beta", "gamma")
    assert proc.returncode == 0, proc.stderr
    paths = [r["path"] for r in json.loads(proc.stdout)["results"]]
    assert paths[0].removeprefix(f"projects/{SLUG}/") == first


# Logs in which one value was revised: the note keeps the first value, the logs change it,
# and the newest log says it in one line of a two-entry day, so it matches less well than
# the note and the older log, though within `timeline.LEAD` of the best (with a third
# chore in its second entry it fell under `LEAD` 0.8, docs/search-quality.md).
_REVISED = {
    **_COMMON,
    "notes/db": "pgbouncer default_pool_size = 20",
    "daily/2026-01-05": (
        "pgbouncer default_pool_size 20 -> 30 after the pgbouncer pool ran dry;\n"
        "restarted pgbouncer, pool fine"
    ),
    "daily/2026-02-02": "shipped the invoice export",
    "daily/2026-03-01": (
        "### 10:00 — db\npgbouncer default_pool_size = 40 now\n### 15:00 — exports\n"
        "shipped the refund export"
    ),
    "daily/2026-03-09": "shipped the refund export",
}


# Logs that name the subject with the word the question uses, and the newest one, which
# states the value only. Without the value's credit (`memory.values`) the older logs
# scored above `timeline.LEAD` of the best and the newest under it.
_VALUES = {
    **_COMMON,
    "daily/2026-01-05": (
        "django version check: which django version does DRF support? "
        "the django version matrix says the next LTS."
    ),
    "daily/2026-01-06": "django 版本：先看 DRF 支持哪个版本",
    "daily/2026-01-20": "field nodes: how many nodes in the field drop frames at night?",
    "daily/2026-01-21": "node count panel: the count per field plot is off by one",
    "daily/2026-02-02": "django admin css fixed; the nodes in the field rebooted fine",
    "daily/2026-03-01": "### 10:20 — upgrade\n- Django 5.1.7 -> 5.2.2 (LTS)",
    "daily/2026-03-09": "- fleet now 85 nodes: 40 at the farm, 45 at the orchard",
}


@pytest.mark.parametrize(
    ("files", "query", "first"),
    [
        pytest.param(
            _REVISED,
            "what's the latest pgbouncer default_pool_size?",
            "daily/2026-03-01.md",
            id="latest",
        ),
        pytest.param(
            _REVISED, "pgbouncer pool 现在是多少", "daily/2026-03-01.md", id="zh-now"
        ),
        pytest.param(
            _REVISED,
            "what was the pgbouncer default_pool_size originally?",
            "notes/db.md",  # undated, older than any log: see the test below
            id="originally",
        ),
        # The newest log states the value the question asks for, not the word.
        pytest.param(
            _VALUES,
            "which django version are we on now",
            "daily/2026-03-01.md",
            id="value-version",
        ),
        pytest.param(
            _VALUES, "现在 django 的版本是多少", "daily/2026-03-01.md", id="value-zh"
        ),
        pytest.param(
            _VALUES,
            "how many nodes do we have in the field now",
            "daily/2026-03-09.md",
            id="value-count",
        ),
        pytest.param(
            _VALUES,
            "node count in the field now",
            "daily/2026-03-09.md",
            id="value-count-of",
        ),
    ],
)
def test_a_question_about_time_ranks_by_the_logs_that_mention_its_subject(
    memory_root: Path, files: dict[str, str], query: str, first: str
) -> None:
    assert _order(_search(memory_root, files, query))[0] == first


def test_a_question_about_the_first_state_counts_a_note_as_older_than_any_log(
    memory_root: Path,
) -> None:
    # A note written when the node was set up, never updated, goes first; then the log
    # that changed the value, which holds the old one too; the others name the uplink in
    # passing. Undated, the note once got none of the bonus the oldest logs get for
    # "initially" and came after them all.
    files = {
        **_COMMON,
        "notes/radio": (
            "# Radio\nuplink interval: 15 min, SF9, ADR on\n"
            "gateway on the barn roof, antenna 5 dBi\nbattery two AA cells"
        ),
        "daily/2026-01-05": "uplink counters reset after the gateway reboot",
        "daily/2026-01-12": "uplink frames dropped at night, moved the gateway",
        "daily/2026-02-02": "uplink interval 15 -> 30 min to save the battery",
        "daily/2026-03-01": "shipped the firmware, uplink fine",
    }
    got = _order(_search(memory_root, files, "what was the uplink interval initially"))
    assert got[:2] == ["notes/radio.md", "daily/2026-02-02.md"]
    # A note tells no date: asked when it first happened, the logs answer.
    got = _order(
        _search(memory_root, files, "when did we first change the uplink interval")
    )
    assert got[0] == "daily/2026-02-02.md"


def test_a_lone_daily_log_is_the_newest_for_a_question_about_the_latest_state(
    memory_root: Path,
) -> None:
    # A new user's first day: a note, then the one log that revised it. The note's name
    # holds the subject; the log still answers "now". With more logs it would be the
    # newest too; alone it counted as the oldest, as old as the note.
    files = {
        **_COMMON,
        "notes/redis-port": "Redis runs on 6380 here: 6379 is taken by the system redis.",
        "daily/2026-12-03": (
            "### 09:10 — redis move\n"
            "Moved the dev Redis to port 6390; 6380 clashed with the test container."
        ),
    }
    got = _order(_search(memory_root, files, "which redis port do we use now"))
    assert got[:2] == ["daily/2026-12-03.md", "notes/redis-port.md"]
    # A question with no time keeps the note first: its name says what it is about.
    got = _order(_search(memory_root, files, "redis port"))
    assert got[0] == "notes/redis-port.md"


def test_a_question_that_names_someone_finds_a_file_that_names_them(
    memory_root: Path,
) -> None:
    # Two people's chats in one project: "thoughtful" and "boyfriend" are rarer than
    # Jonas, whose girlfriend's sessions all name him, so by weight alone the other
    # conversation's session came first.
    files = {
        **_COMMON,
        "daily/2023-04-14": "Hana: Jonas cooked for me. He was sweet about it.",
        "daily/2023-06-11": "Hana: Jonas remembered my mum's birthday. So thoughtful.",
        "daily/2023-08-27": "Hana: Jonas drove me to the airport at 5am.",
        "daily/2024-11-03": "Nadia: Iolo is a thoughtful boyfriend, he brought soup.",
    }
    got = _order(_search(memory_root, files, "Was Jonas a thoughtful boyfriend?"))
    assert got[0] == "daily/2023-06-11.md"
    # A name no file holds changes nothing: the words decide as before.
    got = _order(_search(memory_root, files, "Was Zed a thoughtful boyfriend?"))
    assert got[0] == "daily/2024-11-03.md"
    # Lowercase, "jonas" is a word like the others.
    got = _order(_search(memory_root, files, "was jonas a thoughtful boyfriend?"))
    assert got[0] == "daily/2024-11-03.md"


def test_without_a_time_the_better_match_wins(memory_root: Path) -> None:
    # The older log holds more of the subject; a past-tense question gives it no reason
    # to yield to a newer one.
    got = _order(_search(memory_root, _REVISED, "why did the pgbouncer pool run dry?"))
    assert got[0] == "daily/2026-01-05.md"


def test_a_past_tense_question_gets_no_newer_log_bonus(memory_root: Path) -> None:
    # The same sentence twice; the newer log is a little longer, so matches a little
    # less: only a question about the present lifts it above the older one.
    said = "Alice: I moved to Lisbon for the sea."
    files = {
        **_COMMON,
        "daily/2026-01-05": said,
        "daily/2026-03-01": said + "\nBob: nice",
    }
    past = _order(_search(memory_root, files, "Why did Alice move to Lisbon?"))
    assert past[:2] == ["daily/2026-01-05.md", "daily/2026-03-01.md"]
    present = _order(_search(memory_root, files, "Does Alice live in Lisbon?"))
    assert present[:2] == ["daily/2026-03-01.md", "daily/2026-01-05.md"]


def test_frame_words_do_not_decide_but_are_all_reported(memory_root: Path) -> None:
    # "would" and "likely" frame the question; one log happens to be full of them, the
    # other holds what it is about.
    files = {
        **{f"daily/2026-01-{d:02d}": f"what did you do? {d}" for d in range(10, 20)},
        "daily/2026-02-01": "I would likely go, you would likely come, would you?",
        "daily/2026-02-02": "Alice ran a marathon in four hours",
    }
    result = _search(memory_root, files, "Would Alice likely enjoy the marathon?")
    assert _order(result)[0] == "daily/2026-02-02.md"
    assert result.terms == (
        ("would", 1),
        ("alice", 1),
        ("likely", 1),
        ("enjoy", 0),
        ("the", 0),
        ("marathon?", 1),
    )


# A chat where Omar talks on every line: the session where he says what broke holds
# "van" once, on his line; a later one holds it twice, on Lena's.
_VAN = {
    **_COMMON,
    "daily/2023-05-01": "Omar: Hey! Good to hear from you, Lena.\n"
    "Lena: My advisor wants a whole new chapter on algae.\n"
    "Omar: The van's engine broke down on the motorway.\n"
    "Omar: The festival was crazy, we sold out by two.",
    "daily/2023-05-26": "Omar: Did you take any pictures? I'd love to see them.\n"
    "Lena: A van was parked outside the lab, a van like yours.\n"
    "Omar: Yasmin painted a dragon on the side door.",
}


def test_a_questions_words_on_one_line_outweigh_the_same_words_apart(
    memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    query = "What was wrong with Omar's van?"
    assert _order(_search(memory_root, _VAN, query))[:2] == [
        "daily/2023-05-01.md",
        "daily/2023-05-26.md",
    ]
    # what decides: without the pairs, the log with more of "van" comes first
    monkeypatch.setattr(proximity, "WEIGHT", 0.0)
    assert _order(_search(memory_root, _VAN, query))[0] == "daily/2023-05-26.md"


def test_words_together_do_not_decide_a_question_about_the_current_state(
    memory_root: Path,
) -> None:
    # In the present tense the question asks for the newest state: the newer log that
    # mentions its subject as well stays first, whatever an older line says.
    got = _order(_search(memory_root, _VAN, "What is wrong with Omar's van?"))
    assert got[0] == "daily/2023-05-26.md"


def test_the_first_hits_of_a_question_do_not_depend_on_how_many_are_asked_for(
    memory_root: Path,
) -> None:
    # Auto-search asks for a few, eval for many: the pairs reorder the same first files.
    store = _write(memory_root, _VAN)
    index = Index(store.corpus().values())
    query = "What was wrong with Omar's van?"
    full = [h.rel for h in search_index(index, query).hits]
    for limit in (1, 2, 5):
        got = [h.rel for h in search_index(index, query, limit=limit).hits]
        assert got == full[:limit]


def test_scores_added_up_in_a_list_are_those_added_per_posting(
    memory_root: Path,
) -> None:
    # The common words of a long prompt are added up in a list over every id
    # (`BM25.score_all`): the same floats as `BM25.score` key by key, for keys a name
    # holds too, keys only a name holds, and a tf past the table kept as a list.
    from memhooks.memory.index import Index
    from memhooks.memory.rank import BM25, Sums
    from memhooks.memory.terms import keys

    files = {
        "notes/deploy": "deploy the cache, then deploy again\ncache misses",
        "notes/cache": "aliases: deploy\nthe cache is warm",
        "notes/kafka": "nothing about brokers here",
        "notes/huge": "cache " * 1500 + "\ndeploy once",
        "daily/2026-01-02": "deploy, cache, kafka\nkafka kafka",
        "MEMORY.md": "- Deploy on Fridays never.",
        **_COMMON,
    }
    index = Index(list(_write(memory_root, files).corpus().values()))
    words = ["deploy", "cache", "kafka", "the", "project", "never"]
    bm25 = BM25(index.sizes, index.avg_size)
    keyed = []
    for n, word in enumerate(words):
        (k,) = keys(word)
        keyed.append((0.37 + n / 7, index.postings(k), index.field_ids(k)))
    one, each = Sums(), Sums()
    bm25.score_all(one, keyed)
    for w, post, named in keyed:
        bm25.score(each, w, post, named)
    assert (one.score, one.content, one.by_name) == (
        each.score,
        each.content,
        each.by_name,
    )
    assert len(one.score) > 8 and one.by_name  # a name alone held "kafka"
    assert max(max(post[1::3]) for _, post, _ in keyed) > 1024


@pytest.mark.parametrize(
    "query", ["cert-manager version now", "cert-manager 目前是哪个版本"]
)
def test_the_newest_log_that_states_the_value_goes_before_a_passing_mention(
    memory_root: Path, query: str
) -> None:
    # The newer log names cert-manager as well as the older one (within `timeline.LEAD`
    # of it) but states no version beside it: the older log, which states the version
    # asked for, goes first (`memory.values.credit`, `memory.timeline.lead`).
    files = {
        **_COMMON,
        "daily/2026-01-05": "- cert-manager 1.16.2 -> 1.17.1 via argo, crds by helm",
        "daily/2026-02-02": (
            "- envoy gateway v1.3.2 on the staging cluster; cert-manager issues its certs\n"
            "- cert-manager logs clean after the gateway moved"
        ),
        "daily/2026-02-09": "shipped the refund export",
    }
    assert _order(_search(memory_root, files, query))[0] == "daily/2026-01-05.md"


def test_a_value_of_another_subject_or_kind_earns_nothing(memory_root: Path) -> None:
    # The newest log states a version on a line about something else, one far from
    # django on its line, and a size beside django: the older log that says "django
    # version" stays first.
    files = {
        **_VALUES,
        "daily/2026-03-01": (
            "- node 20.11.1 on the build box\n- django static files 4.2 MB\n"
            "- django static files collected, then node 20.11.1 rebuilt them"
        ),
        "daily/2026-03-09": "shipped the refund export",
    }
    got = _order(_search(memory_root, files, "which django version are we on now"))
    assert got[0] == "daily/2026-01-05.md"

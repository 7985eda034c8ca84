"""Reading a question's frame: the time it asks for and the words that carry no subject."""

from __future__ import annotations

import pytest

from memhooks.memory.question import read
from memhooks.memory.terms import keys


@pytest.mark.parametrize(
    "query",
    [
        pytest.param("what's the latest on the 3.4 rollout?", id="latest"),
        pytest.param("most recent crash-free rate", id="most-recent"),
        pytest.param("pgbouncer pool size currently", id="currently"),
        pytest.param("is staging still in us-central1?", id="still"),
        pytest.param("where did I leave the decoder leak?", id="where-did-i-leave"),
        pytest.param("where did we leave the migration", id="where-did-we-leave"),
        pytest.param("last time I tried the backfill", id="last-time"),
        pytest.param("what's the status of the migration", id="status-of"),
        pytest.param("how many stations do we have these days", id="these-days"),
        pytest.param("Who owns Omar's bike shop at this point?", id="at-this-point"),
        pytest.param("which region is staging in at present", id="at-present"),
        pytest.param(
            "what Proxmox version is the cluster on right now", id="right-now"
        ),
        pytest.param("who owns billing for the time being", id="for-the-time-being"),
        pytest.param("which broker do we use, as things stand", id="as-things-stand"),
        pytest.param("how many releases have we shipped to date", id="to-date"),
        pytest.param("原始数据现在保留多久", id="zh-now"),
        pytest.param("最新的数据保留期", id="zh-latest"),
        pytest.param("最近一次改成多少", id="zh-recently"),
        pytest.param("上次调的批量大小", id="zh-last-time"),
        pytest.param("目前在哪个区域", id="zh-at-present"),
        pytest.param("Argo CD 还在用手动同步吗", id="zh-still-ma"),
        pytest.param("催繳排程現在是第幾天", id="zh-hant-now"),
        pytest.param("最新のバージョン", id="ja-latest"),
    ],
)
def test_questions_about_the_current_state(query: str) -> None:
    assert read(query).when == "latest"


@pytest.mark.parametrize(
    "query",
    [
        pytest.param("when did we first notice the leak", id="did-we-first"),
        pytest.param("when was TestReplayWindow first quarantined", id="was-x-first"),
        pytest.param("what TTL did we originally set", id="originally"),
        pytest.param("original subscription price", id="original"),
        pytest.param("which service did we use at first", id="at-first"),
        pytest.param("initially what was the limit", id="initially"),
        pytest.param("which zephyr version did we start with", id="start-with"),
        pytest.param("what node version did the repo start on?", id="start-on"),
        pytest.param("which broker did we start out on", id="start-out"),
        pytest.param("how many workers did we begin with", id="begin-with"),
        pytest.param("who owned billing at the start", id="at-the-start"),
        pytest.param("what python were we on at the beginning", id="at-the-beginning"),
        pytest.param("what was prod on when we started", id="when-we-started"),
        pytest.param("IngestLagHigh 最初的阈值", id="zh-at-first"),
        pytest.param("第一次崩溃是什么时候", id="zh-first-time"),
        pytest.param("一开始 staging 在哪个区域", id="zh-in-the-beginning"),
    ],
)
def test_questions_about_the_first_state(query: str) -> None:
    assert read(query).when == "first"


@pytest.mark.parametrize(
    ("query", "when"),
    [
        # "first" as an adjective names an event; it asks for no time.
        pytest.param("What was Kenji's first big fire?", None, id="possessive-first"),
        pytest.param(
            "How many came to The Low Tides' first gig?", None, id="plural-possessive"
        ),
        pytest.param("What happened on the first day?", None, id="the-first-day"),
        # "initial" describes a thing: the initial bundle is today's bundle.
        pytest.param("initial JS bundle size budget", "present", id="initial"),
        # "last" alone is not "last time".
        pytest.param("What happened on the last day?", None, id="last-day"),
        # The past tense: the answer may lie in any session.
        pytest.param("Why did Bob decide to move?", None, id="past"),
        pytest.param(
            "What did Alice say she would do after the race?", None, id="said"
        ),
        # The present tense, or no verb: the current state, weakly.
        pytest.param("which port does the dev server run on", "present", id="present"),
        pytest.param("Sentry traces_sample_rate for prod", "present", id="keywords"),
        # Both at once: no time.
        pytest.param("was it originally 20 and what is it now", None, id="both"),
    ],
)
def test_questions_that_ask_for_no_latest_or_first_state(
    query: str, when: str | None
) -> None:
    assert read(query).when == when


def test_frame_words_carry_no_subject() -> None:
    frame = read("What did Alice say she would likely do after the race?").subjectless
    for word in ("what", "did", "she", "would", "likely", "after", "the"):
        assert set(keys(word)) <= frame, word
    for word in ("alice", "say", "race"):
        assert not set(keys(word)) & frame, word


def test_words_of_a_request_carry_no_subject_but_show_and_like_can() -> None:
    frame = read("what are we using for the bootloader now").subjectless
    assert set(keys("using")) <= frame
    assert not set(keys("bootloader")) & frame
    assert set(keys("need")) <= read("whose ok do I need before a rebuild").subjectless
    # Nouns and verbs of the subject, in questions about people.
    assert (
        not set(keys("show"))
        & read("When did the tomatoes win at the show?").subjectless
    )
    assert not set(keys("like")) & read("Why would Mateo like Kenji?").subjectless


def test_words_that_something_went_on_carry_no_subject() -> None:
    # An answer says what went on, rarely that it "happened" (issue 18; the prompt hook
    # needed a hit to hold the word as if it were the subject).
    for question in (
        "What happened to the algae chapter?",
        "how is the warehouse migration going?",
        "When did the chairlift evacuation happen?",
    ):
        frame = read(question).subjectless
        assert set(keys("happen")) <= frame or set(keys("going")) <= frame, question
    assert not set(keys("warehouse")) & read("how is the warehouse going?").subjectless


def test_contractions_typed_without_the_apostrophe_carry_no_subject() -> None:
    frame = read(
        "whats the status of the warehouse, and why dont the tests pass"
    ).subjectless
    for word in ("whats", "dont"):
        assert set(keys(word)) <= frame, word
    # Not those that spell another word.
    for question in ("which user id is well known", "is the shell script ill formed"):
        frame = read(question).subjectless
        for word in ("id", "shell", "ill"):
            assert not set(keys(word)) & frame, (question, word)


def test_russian_and_greek_function_words_carry_no_subject() -> None:
    frame = read("Где сейчас база данных?").subjectless
    assert set(keys("где")) <= frame and not set(keys("база")) & frame
    # Typed with or without accents, with a final ς.
    for question in ("Ποιος είναι αυτός ο διακομιστής;", "ποιος ειναι αυτος"):
        frame = read(question).subjectless
        assert set(keys("ποιος")) | set(keys("αυτός")) <= frame, question
    assert not set(keys("διακομιστής")) & read("ποιος διακομιστής;").subjectless


def test_time_words_carry_no_subject_but_the_same_word_elsewhere_does() -> None:
    assert set(keys("status")) <= read("what's the status of the migration").subjectless
    assert not set(keys("status")) & read("status page colours").subjectless
    # "right" of "right now" was the rarest subject word of "what Proxmox VE version is
    # the cluster on right now" (and of 38 questions of the eval sets).
    assert set(keys("right")) <= read("which VE version is it on right now").subjectless
    assert not set(keys("right")) & read("is the right panel fixed now").subjectless


def test_possessive_s_carries_no_subject() -> None:
    assert "s" in read("What is Maya's dog called?").subjectless


@pytest.mark.parametrize(
    ("query", "names"),
    [
        pytest.param("Was Jonas a thoughtful boyfriend?", ["Jonas"], id="mid-sentence"),
        pytest.param("What did Lucas's sister say?", ["Lucas"], id="possessive"),
        pytest.param("Did Owen and Sian marry?", ["Owen", "Sian"], id="two"),
        pytest.param("how do I configure Redis", ["Redis"], id="lowercase-question"),
        pytest.param("Redis maxmemory now", [], id="first-word"),
        pytest.param("It broke. Deploy again?", [], id="sentence-start"),
        pytest.param("What Did We Decide", [], id="capitalised-function-words"),
        pytest.param("I'm stuck on the CI", [], id="pronoun-and-acronym"),
        pytest.param("where does hana live now", [], id="no-capitals"),
        pytest.param("現在 Hana 住在哪里", ["Hana"], id="in-a-cjk-question"),
        pytest.param("What did we ship in March?", [], id="month"),
        pytest.param("What does Omar do on Tuesday nights?", ["Omar"], id="weekday"),
    ],
)
def test_names_are_capitalised_words_that_start_no_sentence(
    query: str, names: list[str]
) -> None:
    assert read(query).named == {k for name in names for k in keys(name)}


@pytest.mark.parametrize(
    ("query", "frame", "subject"),
    [
        pytest.param(
            "台湾区订阅价格现在是多少",
            {"现在", "多少", "是多", "格现"},
            {"订阅", "价格", "台湾"},
            id="zh",
        ),
        pytest.param(
            "コンビニ決済の期限は何日ですか",
            {"の期", "限は", "何日", "です"},
            {"決済", "期限", "コン"},
            id="ja-particles",
        ),
    ],
)
def test_cjk_bigrams_that_touch_a_function_word_carry_no_subject(
    query: str, frame: set[str], subject: set[str]
) -> None:
    got = read(query).subjectless
    assert frame <= got
    assert not subject & got

"""What a question asks besides its subject: when (the latest state, the first one, or
neither) and which of its words carry no subject. Pure: a query in, its reading out.

People ask memory in sentences — "where did I leave the decoder leak?", "is staging still
in us-central1?", "原始数据现在保留多久", "when did we first see it?" — and the words of
the frame are not what they look for. Two things are read from the frame (`read`):

- **When.** A question about the current state ("latest", "most recent", "current",
  "now", "right now", "still", "last time", "these days", "at this point", "to date",
  "where did I leave", "what's the status of", 最新/最近/上次/目前/现在/还…吗,
  最新/現在/前回/まだ) asks for
  the newest file that mentions its subject; one about a first or original state ("when
  did we first", "originally", "initially", "at first", "did we start with",
  最初/第一次/一开始/当初, 初めて) for the oldest. "first" counts only as an adverb ("did
  we first", "was X first"), not as an adjective ("Kenji's first fire", "the first day"),
  and "initial" never does ("initial bundle size" is a size). A question with both asks
  for no time; one with neither asks for the present when it is in the present tense or
  has no verb at all ("which port does X run on", "Sentry sample rate") and for no time
  when it is in the past tense ("why did Bob decide …"), whose answer may lie in any old
  session.
- **Subject-less words.** Question words, auxiliaries, pronouns, articles and other
  function words (English: the Snowball stop list, plus a few hedges of questions such as
  "likely", the words of a request such as "using", "need" or "thing", and "happen" and
  "going", which say that something went on, not what; Russian and Greek: their function
  words, in either's letters only; CJK:
  particles, pronouns and question words, and every hiragana character, which in Japanese
  are endings and particles), and the words that told the time. They still count in the
  search summary (the user typed them), but `memory.rank` gives them a share (`FRAME`)
  of their weight — all of it if the question has nothing else.

And two things from the subject: the names it uses ("Jonas", "Lucas's"), which a file
should mention to answer it (`memory.names`), and the kinds of value it asks for ("which
django version", "how many nodes"), which a file may state without the word
(`memory.values`).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Literal, NamedTuple

from memhooks.memory.accents import bare
from memhooks.memory.names import names
from memhooks.memory.terms import keys
from memhooks.memory.values import Asked
from memhooks.memory.values import read as read_values

When = Literal["latest", "first", "present"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: The Snowball project's English stop word list (snowballstem.org, BSD), which the
#: Snowball stemmer is meant to be used with, and a few words that frame questions; and
#: its contractions as often typed without the apostrophe (`_UNMARKED`).
STOP_WORDS = _words(
    """
    i me my myself we our ours ourselves you your yours yourself yourselves he him his
    himself she her hers herself it its itself they them their theirs themselves what
    which who whom this that these those am is are was were be been being have has had
    having do does did doing would should could ought i'm you're he's she's it's we're
    they're i've you've we've they've i'd you'd he'd she'd we'd they'd i'll you'll he'll
    she'll we'll they'll isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't
    didn't won't wouldn't shan't shouldn't can't cannot couldn't mustn't let's that's
    who's what's here's there's when's where's why's how's a an the and but if or because
    as until while of at by for with about against between into through during before
    after above below to from up down in out on off over under again further then once
    here there when where why how all any both each few more most other some such no nor
    not only own same so than too very
    will shall can may might must likely probably possibly perhaps maybe ever also
    """
)
#: "whats", "dont", "im": a contraction typed without its apostrophe, as prompts often
#: are; not those that spell another word ("well", "shell", "id", "ill", "wont").
_UNMARKED = frozenset(w.replace("'", "") for w in STOP_WORDS if "'" in w) - _words(
    "hell id ill shed shell wed well cant wont lets"
)
STOP_WORDS |= _UNMARKED

#: The function words of the other languages whose words `memory.stems` stems by script,
#: Russian and Greek: pronouns, articles, prepositions, conjunctions, particles,
#: question words and forms of "to be" and "to have"; written as a query is compared,
#: bare (`accents.bare`: no Greek accents, е for ё) and casefolded (Greek's final ς is σ).
#: A word in Cyrillic or Greek letters is none of English's.
SCRIPTED_STOP_WORDS = _words(
    """
    я ты он она оно мы вы они меня тебя его ее него нее нас вас их них мне тебе ему ей
    нам вам им мной тобой ним ней нами вами ими мой моя мое мои твой твоя твое твои наш
    наша наше наши ваш ваша ваше ваши свой своя свое свои себя себе собой этот эта это
    эти этого этой этих этим тот та то те того той тех тем весь вся все всех всем что
    кто где когда куда откуда почему зачем как какой какая какое какие каким сколько чей
    чья чье чьи ли в во на с со к ко по о об обо от до из у за над под при про для без
    через между перед после около и а но или да если чтобы потому так также тоже хотя ни
    не нет же бы вот уже еще только даже быть был была было были будет будут буду будем
    есть сейчас теперь можно нужно надо
    ο η το οι τα του τησ των τον την τουσ τισ ενασ
    μια ενα ενοσ μιασ εγω εσυ αυτοσ αυτη αυτο αυτοι αυτεσ αυτα μου σου μασ σασ τι ποιοσ
    ποια ποιο ποιοι ποιεσ που ποτε πωσ γιατι ποσο ποσα ποσοι σε στο στη στην στον στα
    στουσ στισ με απο για προσ χωρισ μεχρι και αλλα αν οτι να θα δεν μη μην οχι ναι
    ειναι ηταν εχει εχουν ειχε εχω εχουμε τωρα τη
    """
)
#: Words of a request to an agent that name no subject ("please show me", "thanks, now
#: try", "can you tell me what we still need"): auto-search drops them from a prompt's
#: terms, with `STOP_WORDS`. The time words among them ("now", "still", "yet") tell
#: `read` the time of a query; as search terms they would match any file that says "still".
REQUEST_WORDS = _words(
    """
    don done else even get got just know let like make much need ok okay please really
    see show sure take tell thank thanks thing things think try us use used using want
    way well yes now still yet
    """
)

#: The request words a question's frame holds too ("what are we using for X now", "what
#: do I need before …"), but for two that in a question name a thing as often as they
#: frame it ("the garden show", "why would Mateo like Kenji").
_REQUEST_FRAME = REQUEST_WORDS - {"show", "like"}
#: Words that say something went on, not what: "what happened to …", "how is … going",
#: "is she going to …".
_EVENT = _words("happen happens happened happening going")
#: Months and weekdays: a daily log is dated by its file name, not by naming the month.
_DATES = _words(
    """
    january february march april june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday
    """
)
#: Words that are no name when capitalised mid-sentence ("and what Did Hana say").
_NOT_NAMES = STOP_WORDS | REQUEST_WORDS | _DATES

# Question words, pronouns, particles and auxiliaries of Chinese and Japanese; a CJK
# bigram that touches one of them is part of the frame, not of the subject.
_CJK_STOP = _words(
    "什么 什麼 怎么 怎麼 怎样 怎樣 为什么 為什麼 为何 為何 多少 多久 哪里 哪裡 哪个 哪個 哪些 "
    "我们 我們 你们 你們 他们 他們 她们 她們 可以 应该 應該 一下 "
    "的 了 吗 嗎 呢 吧 啊 嘛 是 在 有 和 与 與 及 或 也 都 就 还 還 又 把 被 给 給 让 讓 "
    "对 對 从 從 到 我 你 他 她 它 这 這 那 哪 几 幾 谁 誰 么 麼 要 会 會 能 个 個 些 过 過 "
    "着 著 何 誰 "
)
_HIRAGANA = re.compile("[\u3041-\u309f]")

# Time words: each a tuple of tokens that must follow one another. "*" is any token.
_LATEST = [
    ("latest",),
    ("newest",),
    ("current",),
    ("currently",),
    ("now",),
    ("right", "now"),
    ("as", "of", "today"),
    ("for", "the", "time", "being"),
    ("as", "things", "stand"),
    ("as", "it", "stands"),
    ("to", "date"),
    ("nowadays",),
    ("presently",),
    ("lately",),
    ("recent",),
    ("recently",),
    ("still",),
    ("anymore",),
    ("last", "time"),
    ("these", "days"),
    ("at", "the", "moment"),
    ("at", "this", "point"),
    ("at", "present"),
    ("so", "far"),
    ("up", "to", "date"),
    ("left", "off"),
    ("where", "did", "*", "leave"),
    ("status", "of"),
    ("status", "on"),
    ("what's", "the", "status"),
]
_FIRST = [
    ("originally",),
    ("original",),
    ("initially",),
    ("earliest",),
    ("at", "first"),
    ("first", "time"),
    ("in", "the", "beginning"),
    ("at", "the", "beginning"),
    ("at", "the", "start"),
    ("begin", "with"),
    ("began", "with"),
    ("when", "we", "started"),
    ("start", "with"),
    ("start", "on"),
    ("started", "with"),
    ("started", "on"),
    ("started", "out"),
    ("start", "out"),
]
_CJK_LATEST = _words(
    "最新 最近 上次 上一次 目前 现在 現在 当前 當前 如今 至今 进度 進度 进展 進展 仍然 依然 "
    "前回 まだ 今も"
)
_CJK_FIRST = _words(
    "最初 第一次 一开始 一開始 起初 最早 原本 原来 原來 当初 當初 首次 初めて"
)
#: The Chinese and Japanese words of a question's frame and time (`memory.glosses`).
CJK_FRAME = _CJK_STOP | _CJK_LATEST | _CJK_FIRST
#: "first" before a verb ("did we first notice") is an adverb of time unless it follows
#: one of these, which make it an adjective ("the first day", "Kenji's first fire").
_DETERMINERS = _words(
    "the a an my our your his her its their this that these those whose"
)
_PRESENT = _words("is are am does do has have what's where's who's how's")
_ASKING = _words("what which who whom whose why when where how")
_PAST = _words("did was were had")
#: A word, with its clitic ("kenji's", "don't") or the apostrophe of a plural possessive
#: ("the tides'").
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+|'(?![a-z]))?")
#: A word in Cyrillic or Greek letters (accents off, `accents.bare`).
_SCRIPTED_WORD = re.compile("[\u0370-\u03ff\u0400-\u04ff]+")


class Reading(NamedTuple):
    """What the frame of a question says, and the names its subject uses."""

    #: the newest or oldest state wanted, the present, or no time at all
    when: When | None
    #: keys that carry no subject: the frame's words and the time words
    subjectless: frozenset[str]
    #: keys of the names it uses ("Jonas", "Lucas's"): `memory.names`
    named: frozenset[str]
    #: the kinds of value it asks for ("which version", "how many nodes"): `memory.values`
    asks: tuple[Asked, ...]


@lru_cache(maxsize=256)
def read(query: str) -> Reading:
    """Read a query's frame.

    Args:
        query: what was typed.

    Returns:
        Its `Reading`, e.g. ``read("is staging still in us-central1?")`` →
        ``Reading("latest", {"is", "still", "in"}, set(), ())`` (as keys, i.e. stemmed).
    """
    as_typed = unicodedata.normalize("NFKC", query).replace("\u2019", "'")
    text = as_typed.casefold()
    words = _WORD.findall(text)
    latest, first = _english_time(words)
    cue_words = latest | first
    cjk_latest = [w for w in _CJK_LATEST if w in text]
    if "还" in text and "吗" in text or "還" in text and "嗎" in text:
        cjk_latest.append("还")
    cjk_first = [w for w in _CJK_FIRST if w in text]
    is_latest = bool(latest or cjk_latest)
    is_first = bool(first or cjk_first)
    when: When | None = None
    if is_latest != is_first:
        when = "latest" if is_latest else "first"
    elif (
        not is_latest
        and not _PAST.intersection(words)
        and (_PRESENT.intersection(words) or not _ASKING.intersection(words))
    ):
        when = "present"
    frame: set[str] = set()
    for i, w in enumerate(words):
        if w in STOP_WORDS or w in _REQUEST_FRAME or w in _EVENT or i in cue_words:
            frame.update(keys(w))
        elif "'" in w:  # Kenji's, Omar's: the "s" is no subject
            frame.update(keys(w.split("'", 1)[1]))
    frame.update(_cjk_frame(text, [*cjk_latest, *cjk_first]))
    for w in _SCRIPTED_WORD.findall(bare(text)):
        if w in SCRIPTED_STOP_WORDS:
            frame.update(keys(w))
    asks = read_values(words, text, frame)
    return Reading(when, frozenset(frame), names(as_typed, _NOT_NAMES), asks)


def _english_time(words: list[str]) -> tuple[set[int], set[int]]:
    # The positions of the words that ask for the latest and for the first state.
    latest = _matches(words, _LATEST)
    first = _matches(words, _FIRST)
    for i, w in enumerate(words):
        # "first" as an adverb: after a name or pronoun and before another word
        # ("did we first notice", "was TestX first quarantined").
        if (
            w == "first"
            and 0 < i < len(words) - 1
            and words[i - 1] not in _DETERMINERS
            and not words[i - 1].endswith(("'s", "'"))
            and not words[i - 1].isdigit()
        ):
            first.add(i)
    return latest, first


def _matches(words: list[str], phrases: list[tuple[str, ...]]) -> set[int]:
    at: set[int] = set()
    for p in phrases:
        for i in range(len(words) - len(p) + 1):
            if all(x in ("*", words[i + j]) for j, x in enumerate(p)):
                # Only the phrase's own words are time words, not what "*" stood for.
                at.update(i + j for j, x in enumerate(p) if x != "*")
    return at


def _cjk_frame(text: str, cues: list[str]) -> set[str]:
    # Bigrams of the query that touch a function word or a time word; lone characters
    # that are one.
    marked: set[int] = set()
    for word in [*cues, *_CJK_STOP]:
        at = text.find(word)
        while at != -1:
            marked.update(range(at, at + len(word)))
            at = text.find(word, at + 1)
    marked.update(m.start() for m in _HIRAGANA.finditer(text))
    out: set[str] = set()
    for i in marked:
        for lo in (i - 1, i):
            pair = text[lo : lo + 2] if lo >= 0 else ""
            if len(pair) == 2 and keys(pair) == [pair]:
                out.add(pair)
        if keys(text[i]) == [text[i]]:
            out.add(text[i])
    return out


__all__ = [
    "CJK_FRAME",
    "REQUEST_WORDS",
    "SCRIPTED_STOP_WORDS",
    "STOP_WORDS",
    "Reading",
    "When",
    "read",
]

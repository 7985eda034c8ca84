"""The kind of value a question asks for, and the files that state one (issue 18). Pure.

"Which django version are we on now" is answered by a log that says "Django 5.1.7 ->
5.2.2" and never the word "version"; "how big are the OTA slots these days" by "384 KB
slots"; "how many stores are we ingesting now" by "184 → 212 stores total". BM25 gives
such a log none of the weight of the word that named the kind, often the rarest word of
the question, so an older log that says "version" scores higher, and the newest log
that states the value falls short of the logs that go first (`memory.timeline.LEAD`).

Question-answering systems have long read the kind of answer a question expects from its
words (a number, a date, a place) and looked for passages holding a value of that kind.
Here, a question that names one of a few kinds (`read`) — a version, a size, a count, a
time of day, a length of time, in English or Chinese — and asks for the latest or the
first state credits a file with `SHARE` of the weight of the word that named the kind
when the file lacks that word but a line of it holds a value of that kind within `NEAR`
words of a subject word ("Django 5.2.2", "384 KB slots"; `credit`, in `memory.rank`,
before the logs that go first are chosen). A count ("how many nodes", "number of
nodes", "node count") wants a number before what is counted ("85 nodes"); what "how many"
counts is the first plural after it ("how many emulator shards").

Measured with ``memhooks eval`` (docs/search-quality.md), words only, recency R@1: coding
0.89 → 0.95, larkspur 0.60 → 0.65, osprey 0.66 → 0.74, heron 0.63 → 0.69 (14 questions
up, one down: a newer log that states a value of the subject in passing); no dev category
or chat set moves. A value anywhere on the subject's line instead of beside it: 15 up, 4
down ("pnpm version currently" found "`node:22.14-alpine`, `pnpm deploy`"). `SHARE` 0.5 or
1.0 gives the same within a question per set; a `DEPTH` of 50, one more question down.
Counts asked for as "<what> count" and counted by their plural: plover recency R@1 0.73 →
0.76, a heron question 4th → 2nd, none down. A length of time also asked for by
"interval", "period", "retention", "TTL", "delay", "how often" (间隔, 保留, 周期): three
origin questions up (4th → 2nd, 3rd → 2nd, 15th → 4th), none down.

For the latest state, the logs that state a value of the kind asked beside a subject
word, holding the kind's word or not, go first among those within `timeline.LEAD` of the
best (`memory.timeline.lead`): a newer log that names the subject in passing
("cert-manager issues its certs fine") no longer goes before the older one that states
its version. It was written down with the rule for taking it before two coding sets were
written blind, and taken on them: recency first 24 → 25 and 28 → 29 of 40, the same with
meaning; on eleven sets before, 8 up and 2 down. Counts are left out: "Playwright workers
4 -> 6" puts the number after what it counts, where a count's shape does not look. Read
from those two sets afterwards, and so not blind: a value changed by an arrow counts as
beside the words before its old value ("DLQ retention 14 → 30 days" states the DLQ's
retention): four more recency questions first, one of them on an older set, none lower
anywhere.

A question that asks when ("when did we first …", 什么时候) wants a date, which no value
in a file's text gives but a daily log's name does: such a question keeps the notes out
of the files that go first for the first state (`dated`, `memory.timeline.lead`).
"""

from __future__ import annotations

import heapq
import itertools
import re
from typing import TYPE_CHECKING, NamedTuple

from memhooks.memory.constants import MEMORY_FILE
from memhooks.memory.index import holding
from memhooks.memory.needles import LINES_PER_NEEDLE, fold, lines_holding
from memhooks.memory.stems import stem_needles
from memhooks.memory.terms import keys
from memhooks.memory.timeline import factor

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

    from memhooks.memory.index import Searchable
    from memhooks.memory.question import When

#: The credit of a file stating a value of the kind asked, as a share of the weight of
#: the question's word that named the kind.
SHARE = 0.75
#: How many of the best scoring files are looked at for a value.
DEPTH = 20
#: How many words either side of a value may name what it is the value of.
NEAR = 3

#: Characters either side of a value looked at for its `NEAR` words.
_REACH = 200
#: An old value and an arrow just before a value, in the `_OLD_REACH` characters before
#: it: a change ("retention 7 -> 21 days") is one value, beside the words before the old.
_OLD = re.compile(r"[\w.,:]+\s*(?:->|→|=>)\s*$")
_OLD_REACH = 40
_START = r"(?<![\w.])"
_SIZE_UNIT = r"(?:[kmgtp]i?b|[kmgtp]i|bytes?)"
_SPAN_UNIT = r"(?:ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|d|days?|weeks?)"
#: A value of each kind, as it is written on a line. A version is a dotted number that is
#: no size, rate or share ("5.2.2", "v1.82"; not "2.5Gi", "1.5x").
SHAPES = {
    "version": re.compile(
        _START + r"v?\d+(?:\.\d+)+(?!\.?\d|\s?(?:" + _SIZE_UNIT + r"|%|x|hz)\b|%)",
        re.IGNORECASE,
    ),
    "size": re.compile(
        _START + r"\d+(?:[.,]\d+)?\s?" + _SIZE_UNIT + r"(?!\w)", re.IGNORECASE
    ),
    "clock": re.compile(
        _START + r"\d{1,2}:\d{2}(?!\d)|" + _START + r"\d{1,2}\s?[ap]m\b", re.IGNORECASE
    ),
    "span": re.compile(
        _START + r"\d+(?:\.\d+)?\s?" + _SPAN_UNIT + r"(?!\w)", re.IGNORECASE
    ),
}
#: The words that ask for each kind (a length of time: also how often, how long something
#: is kept or waits), and phrases (English words in a row) that do.
_WORDS = {
    "version": "version versions 版本",
    "size": "size sizes big large limit 大小 多大",
    "clock": "几点",
    "date": "when 什么时候 何时 哪天 哪一天 いつ",  # a log's name tells it: `dated`
    "span": "timeout timeouts duration interval intervals period retention ttl delay "
    "多久 间隔 保留 周期",
}
_PHRASES = {
    ("what", "time"): "clock",
    ("how", "long"): "span",
    ("how", "often"): "span",
}


class Asked(NamedTuple):
    """A kind of value a question asks for, and the keys of its words that named it."""

    kind: str  #: "version", "size", "count", "clock", "span" or "date" (`dated`)
    named_by: frozenset[str]  #: keys of the words that asked for it ("version", "big")
    counted: str | None  #: for a count: the key of what is counted ("node")


def read(words: Sequence[str], text: str, frame: Collection[str]) -> tuple[Asked, ...]:
    """The kinds of value a question asks for.

    Args:
        words: its English words, casefolded, in order (`memory.question`).
        text: the whole question, casefolded (for Chinese words).
        frame: the keys of its frame (what is counted is none of them).

    Returns:
        One `Asked` per kind, e.g. ``read(["how", "many", "nodes"], …)`` →
        ``(Asked("count", {"mani"}, "node"),)`` (as keys, i.e. stemmed).
    """
    named: dict[str, set[str]] = {}
    for kind, cues in _WORDS.items():
        for cue in cues.split():
            if cue in words or not cue.isascii() and cue in text:
                named.setdefault(kind, set()).update(keys(cue))
    pairs = list(itertools.pairwise(words))
    for pair, kind in _PHRASES.items():
        if pair in pairs:
            named.setdefault(kind, set()).update(keys(pair[1]))
    out = [Asked(kind, frozenset(k), None) for kind, k in named.items() if k]
    for at, (a, b) in enumerate(pairs):
        if (a, b) in (("how", "many"), ("number", "of")):
            cue = b if a == "how" else a  # "many", "number"
            counted = _counted_after(words[at + 2 :], frame)
        elif b in ("count", "counts"):
            cue, counted = b, next((k for k in keys(a) if k not in frame), None)
        else:
            continue
        if counted:
            out.append(Asked("count", frozenset(keys(cue)), counted))
            break
    return tuple(out)


def _counted_after(words: Sequence[str], frame: Collection[str]) -> str | None:
    # What "how many" or "number of" counts: the first plural among the words after it
    # ("how many emulator shards" counts shards), else the first word that carries a
    # subject.
    subject = [(w, k) for w in words for k in keys(w) if k not in frame]
    plural = [
        k for w, k in subject if len(w) > 3 and w.endswith("s") and w[-2] not in "su"
    ]
    return plural[0] if plural else subject[0][1] if subject else None


def credit(
    index: Searchable,
    score: dict[int, float],
    asks: Sequence[Asked],
    subject: Collection[str],
    idf: Mapping[str, float],
    place: Mapping[int, float],
    when: When,
) -> set[int]:
    """Add to `score` the credit of each of its `DEPTH` best files that states a value of
    a kind `asks` wants beside a key of the `subject` (the question's keys that carry
    one, but those that named a kind), and lacks the words that named it. `idf`:
    the weight of each query key; `place`: `timeline.boosts`, for the factor of the time
    `when` asks for, which the score already has.

    Returns, for the latest state, the files among them that state a value of a kind
    with a shape (no count), whether they hold the words that named it or not: they go
    first among the logs that do (`memory.timeline.lead`). Not for the first state: there
    it put two origin questions lower and none higher."""
    subject = set(subject).difference(*(a.named_by for a in asks))
    wanted = [a for a in asks if a.counted or subject and a.kind in SHAPES]
    stating: set[int] = set()
    if not wanted or not score:
        return stating
    memory = index.id_of(MEMORY_FILE)
    holders = {a: holding(index, a.named_by) for a in wanted}
    for i in heapq.nlargest(DEPTH, score, key=score.__getitem__):
        stated = _stated(index.doc(i).text, wanted, subject)
        if when == "latest" and any(not a.counted for a in stated):
            stating.add(i)
        extra = sum(
            max(idf.get(k, 0.0) for k in a.named_by)
            for a in stated
            if i not in holders[a]
        )
        if extra:
            score[i] += SHARE * extra * factor(i == memory, place.get(i, 0.0), when)
    return stating


def dated(asks: Sequence[Asked]) -> bool:
    """Whether a question asks when something happened ("when did we first …"), which
    only a dated log tells (`memory.timeline.lead`)."""
    return any(a.kind == "date" for a in asks)


def _stated(text: str, asks: Sequence[Asked], subject: Collection[str]) -> list[Asked]:
    # The kinds among `asks` of which a line of `text` holds a value beside a subject
    # key (for a count, a number before what is counted). Only lines holding a subject
    # key's needle are looked at, at most `LINES_PER_NEEDLE` per needle.
    folded = fold(text)
    lines: list[str] | None = None
    out = []
    for a in asks:
        about = [a.counted] if a.counted else list(subject)
        needles = [n for k in about for n in stem_needles(k)]
        at, _ = lines_holding(folded, needles, LINES_PER_NEEDLE)
        if not at:
            continue
        lines = folded.split("\n") if lines is None else lines
        shape = _counted(a.counted) if a.counted else SHAPES[a.kind]
        for n in sorted(at)[:LINES_PER_NEEDLE]:
            line = lines[n]
            if any(a.counted or _beside(line, m, about) for m in shape.finditer(line)):
                out.append(a)
                break
    return out


def _beside(line: str, value: re.Match[str], about: Collection[str]) -> bool:
    # A key of `about` among the `NEAR` words either side of the value and the old value
    # an arrow changed it from (looked for in `_REACH` characters each side: a line may
    # be a megabyte long).
    start, end = value.span()
    old = _OLD.search(line, max(0, start - _OLD_REACH), start)
    start = old.start() if old else start
    before = line[max(0, start - _REACH) : start].split()[-NEAR:]
    after = line[end : end + _REACH].split()[:NEAR]
    return not {*keys(" ".join(before + after))}.isdisjoint(about)


def _counted(key: str) -> re.Pattern[str]:
    # A number, then at most one word, then a word that holds what is counted.
    held = "|".join(map(re.escape, stem_needles(key)))
    return re.compile(_START + r"\d[\d,]*\s+(?:[\w-]+\s+)?\w*(?:" + held + ")")


__all__ = ["DEPTH", "NEAR", "SHAPES", "SHARE", "Asked", "credit", "dated", "read"]

"""Where a daily log stands in time, and what the time a question asks for does to its
score (`memory.rank`, issue 18). Pure: an index in.

A later daily log often revises what an older log or a note says. The place of a log is
its rank in the timeline, 0 (oldest) .. 1 (newest), by order and not by days (a lone
log is the newest for a question about the latest state, else the oldest). A question
about the latest state multiplies a log's score by up to 1 + `TIMELY` (the newest), then
the logs within `LEAD` of the best score move ahead, newest first: the newest file that
mentions the subject about as well as the best. A question about the first state does the
same towards the oldest log; one in the present tense or without a verb gets up to
`PRESENT` more; one in the past tense nothing. MEMORY.md holds the standing rules: it gets
`STANDING` more always (`TIMELY`, as the newest, for a latest question). A note has no
date and counts as old as the oldest log: no more for the latest state, as much for the
first, and older than any log among those that go first for the first state, unless the
question asks when (a log's date answers that). Measured with ``memhooks eval``
(docs/search-quality.md): origin questions answered first on the five coding sets 26 → 34
of 50, none lower.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhooks.memory.constants import MEMORY_FILE
from memhooks.memory.paths import is_note

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

    from memhooks.memory.index import Searchable
    from memhooks.memory.question import When

#: Score bonus of MEMORY.md, as a fraction: it holds the standing rules.
STANDING = 0.25
#: Score bonus of the newest daily log for a question in the present tense (or with no
#: verb), as a fraction; older logs get less by their place in the timeline.
PRESENT = 0.25
#: The same for a question that asks for the latest state (the oldest log, for the
#: first state), before the logs within `LEAD` of the best go first.
TIMELY = 1.0
#: For such a question, the daily logs scoring at least this share of the best score
#: go first, newest (oldest) first: they mention its subject about as well. Not 0.7: on
#: coding sets written blind, a newer log scoring 0.7-0.8 of the best named the subject
#: in passing more often than it stated its new value (docs/search-quality.md).
LEAD = 0.8

#: The times for which the logs near the best move ahead (`lead`).
LEADING = ("latest", "first")


def factor(memory: bool, place: float, when: When | None) -> float:
    """The factor of a daily log's score (or MEMORY.md's, when `memory`) at `place` (0 oldest
    .. 1 newest) for a question asking for `when`; never below 1, so `memory.topk` may
    bound the other documents by their sum of keys."""
    if memory:
        return 1 + (TIMELY if when == "latest" else STANDING)
    if when == "latest":
        return 1 + TIMELY * place
    if when == "first":
        return 1 + TIMELY * (1 - place)
    if when == "present":
        return 1 + PRESENT * place
    return 1.0


def lead(
    index: Searchable,
    score: dict[int, float],
    place: Mapping[int, float],
    stating: Collection[int] = (),
    *,
    oldest: bool,
    dated: bool = False,
) -> None:
    """Put the daily logs scoring within `LEAD` of the best first in `score`, newest first
    (oldest, with `oldest`): each gets the best score times its rank by date. `place`:
    `boosts` of `index`, as the ranking worked it out already.

    With `oldest`, a note first gets the oldest log's factor: it has no date, and for a
    question about the latest state it already counts as old as that log (`factor` 1 for
    both). Notes are often written when a thing is set up and then left as they were, so
    one within `LEAD` goes first, before the oldest log: "what was the original uplink
    interval" is answered by the note on the radio settings. Unless `dated`: the
    question asks when something happened, which only a dated log tells.

    Those in `stating` go first among them: they state a value of the kind the question
    asks for (`memory.values.credit`), where the others name the subject in passing.
    """
    notes: list[int] = []
    if oldest:
        old = factor(False, 0.0, "first")
        rel = index.rel
        for i in score:  # a common word scores thousands of files
            if is_note(rel(i)):
                score[i] *= old
                notes.append(i)
    top = max(score.values())
    memory = index.id_of(MEMORY_FILE)
    # A note, undated, as older than any log (-1), unless the question asks when.
    dates = place if dated or not notes else {**place, **dict.fromkeys(notes, -1.0)}
    near = [i for i in dates if i != memory and score.get(i, 0.0) >= LEAD * top]
    # Notes, all as old, by score among themselves.
    near.sort(key=lambda i: (dates[i], -score[i]), reverse=oldest)
    near.sort(key=lambda i: i in stating)  # stable: the last boosted most
    for r, i in enumerate(near):
        score[i] += top * (1 + r)


def boosts(index: Searchable, when: When | None) -> dict[int, float]:
    """The ids whose score the time of a question (`when`) may raise (daily logs,
    MEMORY.md), and their place (0 .. 1) in the timeline."""
    out: dict[int, float] = {}
    for rel, place in _freshness(index, latest=when == "latest").items():
        at = index.id_of(rel)
        if at is not None:
            out[at] = place
    return out


def _freshness(index: Searchable, *, latest: bool) -> dict[str, float]:
    # Place in the timeline, 0 (oldest log) .. 1 (newest): by order, not by days, so a
    # gap of a month between two logs counts like a gap of a day. MEMORY.md holds the
    # standing rules, as current as the newest log: this is rule 1 made soft (it wins
    # near ties instead of coming first), global R@1 0.70 → 0.90 on the dev set. A lone
    # log is both the oldest and the newest: the newest for a question about the latest
    # state (the log that revised the notes of a project's first day), else the oldest,
    # with no present-tense bonus over the notes (a fresh project's only log fills up
    # with the hooks' records: tests/promises/test_replay.py).
    dailies = index.dailies()
    last = max(len(dailies) - 1, 1)
    out = {rel: i / last for i, (_, rel) in enumerate(dailies)}
    if latest and len(dailies) == 1:
        out[dailies[0][1]] = 1.0
    if index.id_of(MEMORY_FILE) is not None:
        out[MEMORY_FILE] = 1.0
    return out

"""Pre-prompt auto-search: the prompt's significant terms, and a compact rendering of the hits.

The model rarely searches on its own, so the hook does it for every prompt, but injects
little: a small budget of the best hits it has not already seen this session.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from memhooks.hooks.records import entries, entry_id
from memhooks.hooks.state import fingerprint
from memhooks.hooks.unseen import cut_seen
from memhooks.memory.question import REQUEST_WORDS, SCRIPTED_STOP_WORDS, STOP_WORDS
from memhooks.memory.render import matched_label
from memhooks.memory.terms import WORD_CHARS, scripts
from memhooks.memory.text import cut, nbytes, neutralise, wrap

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping

    from memhooks.hooks.state import SessionState
    from memhooks.memory import Doc
    from memhooks.memory.results import Hit, SearchResult

MAX_TERMS = 12
#: A prompt up to this long (characters) is read as a question (`memory.question`): its
#: time words are no terms, and its frame ranks the hits. A longer one is mostly a paste.
QUESTION_MAX = 1000
#: A prompt longer than this is mostly a paste: its terms are read from its first and
#: last `SCAN_MAX // 2` characters only.
SCAN_MAX = 64 * 1024
_WORD = re.compile(
    rf"[\w{WORD_CHARS}][\w{WORD_CHARS}.\-/:]*[\w{WORD_CHARS}]|[\w{WORD_CHARS}]"
)
# Words that carry no topic (one list, memory.question's): a prompt made only of these
# gets no search. And "remind", as typed ("Remind me when …"): a request to memory,
# which no note need hold; not in that list, where its stem would make "reminders" a
# question word too.
_STOP = STOP_WORDS | REQUEST_WORDS | {"remind"}
# The rest of a contraction ("didn't", "we're"): the list holds it whole.
_CONTRACTED = re.compile(r"['\u2019]([a-z]+)", re.IGNORECASE)


#: A hit's heading as `render_hits` writes it, read back from a transcript (JSON and
#: Gemini's HTML escapes leave a memory path as it is): what a conversation was shown;
#: or a compaction (Claude Code's boundary, Codex's item), after which the model has
#: only a summary of what came before.
SHOWN = re.compile(
    rb"(MEMORY\.md|projects/[^\s\"\\<>&]+)  \[matched: "
    rb'|("subtype":\s*"compact_boundary"|"type":\s*"compacted")'
)


def significant_terms(prompt: str) -> list[str]:
    """Terms worth searching for: no stopwords, no 1-2 letter words (CJK runs are kept).

    At most `MAX_TERMS`: when a prompt holds more, those it starts with and those it ends
    with, half each. A question comes before or after what it pastes, and an error
    names itself at one end of its trace (last in Python's, first in Java's or Go's);
    the middle is frames and noise.
    """
    frame = question(prompt)
    first: dict[str, None] = {}
    for word in _terms(prompt[: SCAN_MAX // 2], frame):
        first.setdefault(word, None)
        if len(first) > MAX_TERMS:
            break
    else:
        if len(prompt) <= SCAN_MAX // 2:
            return list(first)
    chosen = list(first)[: MAX_TERMS // 2]
    want = MAX_TERMS - len(chosen)
    for size in _TAILS:  # the end read back a little at a time: a paste can be long
        tail = prompt[-size:]
        if size < len(prompt):  # from a word's start
            tail = tail[next((i for i, c in enumerate(tail) if c.isspace()), 0) :]
        last = [
            w
            for w in dict.fromkeys(reversed(list(_terms(tail, frame))))
            if w not in chosen
        ]
        if len(last) >= want or size >= min(len(prompt), SCAN_MAX // 2):
            break
    return [*chosen, *reversed(last[:want])]


#: How much of a long prompt's end is read for its last terms, at each try.
_TAILS = (1024, 8 * 1024, SCAN_MAX // 2)


def question(prompt: str) -> str | None:
    """The prompt, when it is short enough to be read as a question (`QUESTION_MAX`)."""
    return prompt if len(prompt) <= QUESTION_MAX else None


class Asked(NamedTuple):
    """What auto-search looks for in a prompt, and how much of it a hit must hold."""

    terms: list[str]  #: `significant_terms`
    frame: str | None  #: the prompt read as a question (`question`), for the ranking
    #: terms naming the kind of value a question asks for ("which django version", "how
    #: big"): the answer states the value ("Django 5.2"), often not the word
    valued: frozenset[str]

    def need(self) -> int:
        """How many of the other terms a hit must match (two, or all if fewer)."""
        return min(2, sum(t not in self.valued for t in self.terms))

    def counted(self, matched: Iterable[str]) -> list[str]:
        """The terms of `matched` that count toward `need`."""
        return [t for t in matched if t not in self.valued]


def asked(prompt: str) -> Asked:
    """The prompt's terms, its frame, and the terms an answer may lack (`Asked`)."""
    from memhooks.memory.question import read
    from memhooks.memory.terms import keys

    terms, frame = significant_terms(prompt), question(prompt)
    named = {k for a in read(frame).asks for k in a.named_by} if frame else set()
    valued = frozenset(t for t in terms if (ks := keys(t)) and named.issuperset(ks))
    if len(valued) == len(terms):  # nothing else to match: they count
        valued = frozenset()
    return Asked(terms, frame, valued)


def _terms(prompt: str, frame: str | None) -> Iterator[str]:
    # The prompt's significant words, casefolded, in order, with repeats; no word of a
    # question's frame ("latest", "status of", "where did I leave").
    from memhooks.memory.accents import bare
    from memhooks.memory.question import read
    from memhooks.memory.terms import keys

    subjectless = read(frame).subjectless if frame is not None else frozenset()
    for m in _WORD.finditer(prompt):
        word = m.group(0).strip(".-/:").casefold()
        if not word or word in _STOP or word.isdigit() and len(word) < 3:
            continue
        if not word.isascii() and bare(word) in SCRIPTED_STOP_WORDS:  # "где", "τι"
            continue
        if subjectless and (ks := keys(word)) and subjectless.issuperset(ks):
            continue
        rest = _CONTRACTED.match(prompt, m.end())
        if rest and f"{word}'{rest[1].casefold()}" in _STOP:
            continue
        # One or two CJK characters carry a subject (the index's own CJK set).
        if len(word) < 3 and "cjk" not in scripts(word):
            continue
        yield word


def render_hits(
    hits: Iterable[Hit], budget: int, notice: str | None = None, prog: str = "memhooks"
) -> tuple[str, list[Hit]]:
    """The wrapped context for auto-search hits (and an optional one-line notice) in `budget`
    bytes, and the hits that fit; `prog`: `memhooks` as the model's shell runs it
    (`modelshell.model_prog`).
    """
    lines: list[str] = []
    if notice:
        lines.append(neutralise(notice))
    frame = nbytes(wrap("")) + 1
    used = frame + sum(nbytes(x) + 1 for x in lines)
    header = f"Related memory (auto-search; `{prog} read PATH` for the whole file):"
    shown: list[Hit] = []
    for hit in hits:
        # The path too: a note's file name can hold a tag or a control character.
        block = neutralise(f"{hit.rel}  {matched_label(hit)}\n{window_of(hit)}")
        room = budget - used - (0 if shown else nbytes(header) + 1)
        if nbytes(block) + 1 > room:
            if shown or room < 120:
                break
            block = cut(block, room - 1, "…[snippet truncated]")
        if not shown:
            lines.append(header)
            used += nbytes(header) + 1
        lines.append(block)
        used += nbytes(block) + 1
        shown.append(hit)
    return (wrap("\n".join(lines)) if lines else ""), shown


def window_of(hit: Hit) -> str:
    """What auto-search injects of a hit's snippet: its first window."""
    return hit.snippet.split("\n…\n", 1)[0].removesuffix("\n…")


#: Daily logs larger than this (characters) are taken whole, not entry by entry.
JUDGE_MAX = 512 * 1024
# A record cuts each prompt to 300 characters: the rest of a huge prompt echoes nothing.
_PROMPT_MAX = 20_000


class LogHit(NamedTuple):
    """What a daily-log hit matched in: a person's entries, or only memhooks' records."""

    person: bool  #: a person's entry matched enough terms on its own
    entries: dict[
        str, frozenset[str]
    ]  #: id (`entry_id`) → terms, of entries that matched
    #: id → the entry's lines that hold a matched term (none: the log was judged whole)
    lines: dict[str, frozenset[str]]

    def news(self, seen: Iterable[str], need: int) -> bool:
        """Whether the entries not `seen` yet match `need` terms on their own."""
        old = set(seen)
        terms = {t for i, ts in self.entries.items() if i not in old for t in ts}
        return len(terms) >= need

    def shown(self, hit: Hit) -> list[str]:
        """The ids of the entries `hit`'s injected window showed a matching line of:
        those the session has seen. Only the first window is injected; an entry that
        matched further down was not shown, and a later prompt it answers is news."""
        window = window_of(hit).split("\n")
        whole = set(window)
        # A line over 1,000 characters is shown cut around the match, "…" where cut.
        cut = [w.strip("…") for w in window if w.startswith("…") or w.endswith("…")]
        parts = [p for p in cut if p]

        def held(lines: frozenset[str]) -> bool:
            return bool(lines & whole) or any(p in ln for p in parts for ln in lines)

        return sorted(
            i for i in self.entries if not self.lines.get(i) or held(self.lines[i])
        )


def judge_log(
    log: str, matched: Iterable[str], prompt: str, need: int
) -> LogHit | None:
    """Where a daily log matched the query; None when only echoes of the prompt did.

    The hooks record every prompt, so a question asked before always "finds" the log
    that recorded it: in memhooks' own records a line whose words are all the prompt's
    (and the record's heading) is an echo, not an answer (issue #15). A person's entries
    count whole.

    Args:
        log: the daily log's text.
        matched: the query terms search says the log matched.
        prompt: the prompt being answered.
        need: how many terms a hit must match.
    """
    if len(log) > JUDGE_MAX:
        # Records are condensed long before this: a log this large is a person's (or
        # hostile), and judging it line by line would cost the prompt its deadline.
        return LogHit(True, {entry_id(log[:JUDGE_MAX]): frozenset(matched)}, {})
    from memhooks.memory.terms import keys  # the stemmer: not for SessionStart

    said = set(keys(prompt[:_PROMPT_MAX]))
    wanted = {t: set(keys(t)) for t in matched}
    person: set[str] = set()
    anyone: set[str] = set()
    ids: dict[str, frozenset[str]] = {}
    where: dict[str, frozenset[str]] = {}
    for entry in entries(log):
        lines = entry.text.split("\n")
        # A record's heading and the lines that echo the prompt are left out.
        held: dict[str, frozenset[str]] = {}
        for line in lines[1:] if entry.automatic else lines:
            ks = _keys_of(line)
            if ks and not (entry.automatic and ks <= said):
                held[line] = ks
        found = frozenset().union(*held.values())
        terms = {t for t, ks in wanted.items() if ks & found}
        if terms:
            eid = entry_id(entry.text)
            ids[eid] = frozenset(terms)
            keys_of_terms = set().union(*(wanted[t] for t in terms))
            where[eid] = frozenset(ln for ln, ks in held.items() if ks & keys_of_terms)
            anyone |= terms
            if not entry.automatic:
                person |= terms
    if len(anyone) < need or not ids:
        return None
    return LogHit(len(person) >= need, ids, where)


def _keys_of(line: str) -> frozenset[str]:
    # A log line's keys: a session judges the same logs prompt after prompt, and a log
    # only grows (a key does not cross a line, so a text's keys are its lines'). The
    # keys of lines up to 1,000 characters are kept (4,096 of them at most).
    if len(line) > 1000:
        from memhooks.memory.terms import keys

        return frozenset(keys(line))
    return _line_keys(line)


@lru_cache(maxsize=4096)
def _line_keys(line: str) -> frozenset[str]:
    from memhooks.memory.terms import keys

    return frozenset(keys(line))


#: Hits looked at per prompt: an answer ranked below this is not worth the wait.
CONSIDERED = 20


def fresh_hits(
    result: SearchResult,
    docs: Mapping[str, Doc],
    state: SessionState,
    query: Asked,
    prompt: str,
    logs: dict[str, LogHit],
) -> Iterator[Hit]:
    """Hits worth injecting, best first; lazy, since only the first few fit the budget.

    Answers before echoes (issue #15): a daily log that matched only in memhooks' own
    records comes after every file a person wrote, one whose records only repeat the
    prompt is no hit, and one whose matching entries the session has seen already is
    not news because something else was appended to it: the entries it has not seen
    must match on their own. A hit must match `query.need()` of the prompt's terms;
    `logs` receives how each daily-log hit was judged, for the caller to mark seen the
    entries the injected window shows.
    """
    need = query.need()
    later: list[Hit] = []
    for hit in result.hits[:CONSIDERED]:
        matched = query.counted(hit.matched)
        # A file found by meaning ([semantic], session only) matched no term by design;
        # one matched by its name only ("deploy checklist" for notes/deploy-checklist.md
        # whose steps never say so) shows its first lines.
        if len(matched) < need and not hit.by_meaning:
            continue
        try:  # not `get`: before the corpus is read, `docs` reads a file when asked
            doc = docs[hit.rel]
        except KeyError:  # written since `docs` was taken: the next prompt has it
            continue
        fp = fingerprint(doc)
        if state.injected.get(hit.rel) == fp or state.surfaced.get(hit.rel) == fp:
            continue
        if doc.kind != "daily" or hit.by_meaning:
            yield hit
            continue
        judged = judge_log(doc.text, matched, prompt, need)
        if judged is None:
            continue
        if not judged.news(state.seen_entries.get(hit.rel, ()), need):
            continue
        logs[hit.rel] = judged
        # Its snippet shows none of the entries seen (`unseen`): a window placed on the
        # news reaches into the record before it, which the session's model holds.
        hit = cut_seen(hit, doc, judged, state.seen_entries.get(hit.rel, ()))
        if judged.person:
            yield hit
        else:
            later.append(hit)
    yield from later

"""Which lines of a document a query reaches: where its snippet goes (`focus`), and how
many lines hold a term (`count_lines`). Pure: a document and keys in.

Both look only at lines holding one of a key's needles (`memory.needles.lines_holding`),
and tokenize at most `LINES_PER_NEEDLE` of them per needle: a word on every line of a
20 MB log costs what it costs in a short note, and the snippet says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from memhooks.memory.constants import (
    FILENAME_PREVIEW_LINES,
    SEARCH_CONTEXT_LINES,
    SEARCH_MAX_WINDOWS,
)
from memhooks.memory.index import SEEN_LINES, line_keys
from memhooks.memory.needles import LINES_PER_NEEDLE, fold, lines_holding
from memhooks.memory.results import Line
from memhooks.memory.stems import stem_needles
from memhooks.memory.typed import held

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from memhooks.memory.corpus import Doc
    from memhooks.memory.index import Searchable
    from memhooks.memory.typed import Term

#: A line is shown in a snippet if its weight is at least this fraction of the best line's.
FOCUS = 0.5
#: Lines of one file tokenized per needle to place its snippet (the first ones holding
#: it) or to count a term of several keys (`count_lines`): see `LINES_PER_NEEDLE`.
FOCUS_LINES = COUNT_LINES = LINES_PER_NEEDLE
#: Lines a snippet's windows are built around, at most (each brings its context).
FIT_LINES = 2 * SEARCH_MAX_WINDOWS * (2 * SEARCH_CONTEXT_LINES + 1)
#: The line that stands for lines left out of a snippet.
GAP = Line(0, "…")
#: A line longer than this (in characters) is shown as `SHOWN` of them around its first
#: match (`around`): the one line of a minified file would fill a page with its start.
LONG_LINE = 1000
SHOWN = 500


class Focus(NamedTuple):
    """The lines of a document worth showing, and whether only part of it was looked at."""

    lines: tuple[int, ...]
    partial: bool = False
    #: the lines looked at (each holding a needle), and those that hold a key
    looked: frozenset[int] = frozenset()
    holding: frozenset[int] = frozenset()

    def holds(self, i: int, line: str, wanted: set[str]) -> bool:
        """Whether line `i` (`line`) holds one of the `wanted` keys it was placed for:
        tokenized again only if it is none of the lines looked at and some were not."""
        if i in self.looked:
            return i in self.holding
        return self.partial and bool(held(line, wanted))


def focus(doc: Doc, found: Sequence[str], idf: Mapping[str, float]) -> Focus:
    """The lines of `doc` worth showing for the query keys it holds, in at most 5 windows.

    A snippet is for recognising the file (docs/design.md), so it shows the lines with the
    query's rarest keys: every line within FOCUS of the best line's weight, not each line
    with a common word — in a long log those would fill the window cap alone.

    Only lines holding a key's needle are tokenized, at most `FOCUS_LINES` per key: a
    common word in a 20 MB log costs no more than in a short note (`partial` says so).
    """
    weight: dict[int, float] = {}
    wanted = set(found)
    text = fold(doc.text)
    candidates, partial = lines_holding(
        text, dict.fromkeys(n for k in found for n in stem_needles(k)), FOCUS_LINES
    )
    seen: dict[str, float] = {}  # a log repeats its lines: tokenize each text once
    lines = doc.lines
    for i in sorted(candidates):
        line = lines[i]
        w = seen.get(line)
        if w is None:
            here = held(line, wanted)
            w = sum(idf[k] for k in found if k in here)
            if len(seen) < SEEN_LINES:
                seen[line] = w
        if w:
            weight[i] = w
    if not weight:
        return Focus((), partial, frozenset(candidates))
    floor = max(weight.values()) * FOCUS
    best = sorted(
        (i for i, w in weight.items() if w >= floor), key=lambda i: (-weight[i], i)
    )
    return Focus(_fit(best), partial, frozenset(candidates), frozenset(weight))


def _fit(best_first: list[int]) -> tuple[int, ...]:
    # The best lines whose windows fit the window cap, so a long log shows where the
    # rare words are rather than its first five mentions of a common one.
    reach = 2 * SEARCH_CONTEXT_LINES + 1  # lines this close share a window
    chosen: list[int] = []
    near: set[int] = set()
    groups = 0
    for i in best_first:
        if len(chosen) == FIT_LINES:
            break  # a word on every line would make one window of the whole file
        if i not in near:
            if groups == SEARCH_MAX_WINDOWS:
                continue
            groups += 1
        chosen.append(i)
        near.update(range(i - reach, i + reach + 1))
    return tuple(sorted(chosen))


def count_lines(index: Searchable, term: Term) -> tuple[int, int]:
    """How many lines hold `term` whole, and (when none does) how many hold part of it.

    A line holds a term whole when it holds all of the term's keys: the word up to
    stemming, every word of ``default_pool_size``, every bigram of a CJK phrase. A term
    with no keys at all (only punctuation) matches nothing here and counts 0, as it does
    in the ranking.

    Args:
        index: the corpus, or the part of it that can hold the term.
        term: one typed term.

    Returns:
        (whole, partial) line counts across the corpus; partial is 0 when whole is not.
    """
    if not term.keys:
        return 0, 0
    if len(term.keys) == 1:
        post = index.postings(term.keys[0])
        return sum(post[2::3]), 0
    posts = [set(index.postings(k)[0::3]) for k in term.keys]
    whole = sum(
        _count(index.doc(i), term.keys, every=True) for i in set.intersection(*posts)
    )
    if whole:
        return whole, 0
    some = sum(_count(index.doc(i), term.keys, every=False) for i in set.union(*posts))
    return 0, some


def _count(doc: Doc, ks: Sequence[str], *, every: bool) -> int:
    # Only lines holding a needle of every key (of some key, for a partial count) can
    # hold the term; the first COUNT_LINES of them are tokenized, the others counted as
    # holding it (a word on every line of a 20 MB log must not cost seconds).
    wanted = set(ks)
    folded = fold(doc.text)
    # Found by `str.find` over the whole text, not line by line.
    held = [lines_holding(folded, stem_needles(k))[0] for k in ks]
    maybe = sorted(set.intersection(*held) if every else set.union(*held))
    lines = doc.text.split("\n")  # not `Doc.lines`: that would stay cached on the doc
    n = 0
    for i in maybe[:COUNT_LINES]:
        here = wanted.intersection(line_keys(lines[i]))
        n += (here == wanted) if every else bool(here)
    return n + max(len(maybe) - COUNT_LINES, 0)


def windows(
    doc: Doc, hits: Sequence[int], match: Callable[[int, str], bool] | None = None
) -> list[Line]:
    """The lines around `hits` (±`SEARCH_CONTEXT_LINES`, at most `SEARCH_MAX_WINDOWS`
    windows, a gap line between and after them), numbered as in the file on disk; a line
    is a match if it is one of `hits`, or if `match` says it holds a query key."""
    spans: list[list[int]] = []
    for i in hits:
        lo = max(0, i - SEARCH_CONTEXT_LINES)
        hi = min(len(doc.lines) - 1, i + SEARCH_CONTEXT_LINES)
        if spans and lo <= spans[-1][1] + 1:
            spans[-1][1] = max(spans[-1][1], hi)
        else:
            spans.append([lo, hi])
    if not spans:  # the file changed since it was indexed: none of its lines match now
        return []
    centres = set(hits)
    out: list[Line] = []
    for lo, hi in spans[:SEARCH_MAX_WINDOWS]:
        if out:
            out.append(GAP)
        for i in range(lo, hi + 1):
            text = doc.lines[i]
            here = i in centres or (match is not None and match(i, text))
            out.append(Line(doc.number(i), text, here))
    more = (
        len(spans) > SEARCH_MAX_WINDOWS
        or spans[min(len(spans), SEARCH_MAX_WINDOWS) - 1][1] < len(doc.lines) - 1
    )
    return [*out, GAP] if more else out


def around(line: Line, needles: Sequence[str]) -> Line:
    """`line`, if longer than `LONG_LINE`, cut to `SHOWN` characters from a little before
    the first of `needles` it holds (its start when it holds none), "…" where cut."""
    text = line.text
    if len(text) <= LONG_LINE:
        return line
    # Needles are casefolded: where that changes a text's length, the place drifts a bit.
    low = text.lower()
    at = min((p for n in needles if (p := low.find(n)) >= 0), default=0)
    start = max(0, min(at - SHOWN // 4, len(text) - SHOWN))
    end = start + SHOWN
    shown = f"{'…' if start else ''}{text[start:end]}{'…' if end < len(text) else ''}"
    return line._replace(text=shown)


def filename_preview(doc: Doc) -> list[Line]:
    """What a file whose name alone matched shows: its first non-blank lines."""
    head = [i for i, ln in enumerate(doc.lines) if ln.strip()][:FILENAME_PREVIEW_LINES]
    return [
        Line(0, "(filename match)"),
        *(Line(doc.number(i), doc.lines[i]) for i in head),
    ]

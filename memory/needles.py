"""Where a query's needles stand: substrings that every line, and every file, holding
one of its keys contains (`memory.stems.stem_needles`), looked for in text folded the
way keys see it. Pure.

A one-shot search reads only the files whose bytes hold a needle (`prefilter`) and
tokenizes only their lines that do (`lines_holding`): a plain substring search, cheaper
than tokenizing, that never drops a file or a line able to match.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

from memhooks.memory.accents import bare

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from memhooks.memory.paths import Located

#: Lines of one file tokenized per needle when only a query's keys are wanted (a one-shot
#: search's changed files, a snippet): a word on every line of a 20 MB log then costs
#: what it costs in a short note, and its counts past these lines are left out.
LINES_PER_NEEDLE = 1_000


def lines_holding(
    folded: str, needles: Iterable[str], cap: int | None = None
) -> tuple[set[int], bool]:
    """Indexes of the lines of `folded` text holding one of `needles`, and whether any
    needle was found on more than `cap` lines (only its first `cap` lines are given).

    Each line is looked at once per needle however often the needle repeats on it, so the
    work is bounded by `cap` per needle (a common word in a 20 MB log stops early).
    """
    hits: set[int] = set()
    capped = False
    for n in needles:
        found = line = pos = 0
        at = folded.find(n)
        while at != -1:
            if found == cap:
                capped = True
                break
            line += folded.count("\n", pos, at)
            hits.add(line)
            found += 1
            end = folded.find("\n", at)
            if end == -1:
                break
            pos, line = end + 1, line + 1
            at = folded.find(n, pos)  # the next line: once per line is enough
    return hits, capped


def prefilter(needles: Sequence[str]) -> Callable[[bytes, Located], bool]:
    """A test on a file's bytes (ASCII letters lowered) and location that every file able
    to match a query with these `needles` (see `memory.rank.needles`) passes.

    Plain ASCII files are checked as bytes; others are decoded and normalised the way
    `memory.terms.keys` normalises text, so the test never drops a file that matches.
    """
    raw = [n.encode("utf-8", "surrogatepass") for n in needles]

    def keep(low: bytes, loc: Located) -> bool:
        # `in` on bytes is a fast substring search; a regex alternation is ten times slower.
        for n in raw:
            if n in low:
                return True
        name = fold(loc.rel.rsplit("/", 1)[-1])
        if any(n in name for n in needles):
            return True
        if low.isascii():
            return False
        text = fold(low.decode("utf-8", "replace"))
        return any(n in text for n in needles)

    return keep


def fold(text: str) -> str:
    """`text` as needles are looked for in it (`memory.stems.stem_needles`): as
    `memory.terms.keys` sees it (NFKC), `bare` of accents, casefolded."""
    if text.isascii():
        return text.casefold()
    return bare(unicodedata.normalize("NFKC", text)).casefold()

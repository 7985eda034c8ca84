"""One-shot searches run minutes apart, as the model runs ``memhooks search`` in a session;
a script, not a test.

    .venv/bin/python -m tests.benchmarks.bench_spaced [--sizes 10000,100000] [--runs 5]

`tests.benchmarks.bench_queries` runs its searches back to back, so all but the first
trust what the one before found of the files (`memory.layered.FULL_CHECK_NS`, 10 s). Here
each measured search comes `GAP` seconds after the one before it, on the same generated
corpora, the ``common+rare`` mix: alone (it stats every file to find edits made in place),
and while a session process watches the project (it trusts what the last search found
until the watcher reports a change, `memory.index_file.Watch`); next to ``grep -ril``
run at the same moment and to a search right after another. Medians of wall time, and
of CPU time (user + system), which a busy machine disturbs less.
"""

from __future__ import annotations

import argparse
import statistics
import time

from memhooks.memory import Store
from memhooks.memory.index_file import watched
from tests.benchmarks.bench_queries import Corpus, _hook, _terms, _timed
from tests.benchmarks.bench_speed import ENV, MEMHOOKS

#: Seconds between two searches: past `memory.layered.FULL_CHECK_NS`.
GAP = 11.0


def measure(c: Corpus, runs: int) -> dict[str, tuple[float, float]]:
    """Per case the median wall and CPU time in ms."""
    env = {**ENV, "MEMHOOKS_HOME": str(c.root)}
    store = Store(c.root, c.slug)
    terms = _terms(c.mixes()["common+rare"])
    search = [MEMHOOKS, "search", "--root", str(c.root), "--slug", c.slug, *terms]
    grep = ["grep", "-ril", "-E", "|".join(terms), *c.files()]
    got: dict[str, list[tuple[float, float]]] = {}
    _timed(search, env)  # builds the index file if there is none
    for r in range(runs):
        for case in ("alone", "watched"):
            session = f"spaced-{r}"
            if case == "watched":
                _hook(c, env, session, "SessionStart", source="startup")
                deadline = time.monotonic() + 10  # its listing made, it watches
                while not watched(store) and time.monotonic() < deadline:
                    time.sleep(0.05)
            _timed(search, env)
            time.sleep(GAP)
            got.setdefault(case, []).append(_timed(search, env))
            got.setdefault("grep -ril", []).append(_timed(grep, env))
            got.setdefault("right after", []).append(_timed(search, env))
            if case == "watched":
                _hook(c, env, session, "SessionEnd", reason="other")
    return {
        k: (
            1000 * statistics.median(w for w, _ in v),
            1000 * statistics.median(u for _, u in v),
        )
        for k, v in got.items()
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    print(f"searches {GAP:.0f} s apart, common+rare mix; median wall / CPU ms")
    for size in map(int, args.sizes.split(",")):
        c = Corpus(size)
        for case, (wall, cpu) in measure(c, args.runs).items():
            print(f"{size:>7} notes  {case:<12} {wall:7.0f} / {cpu:5.0f}")


if __name__ == "__main__":
    main()

"""What counting a question's words found together on a line costs a search, or (with
``--part values``) looking for the kind of value it asks for; a script, not a test.

    .venv/bin/python -m tests.benchmarks.bench_proximity [--notes 10000] [--runs 9]
        [--part pairs|values]

On `tests.benchmarks.bench_queries`' generated corpus (its index file built first), three
questions are searched in this process as `memhooks search` does, with the part and
without it, one after the other in each run: medians of CPU time (user + system), which a
busy machine disturbs less. For the pairs, past-tense questions, the kind
`memory.proximity` reorders the first files for; for the values, questions about the
latest state that ask for a version, a size or a count (`memory.values`). The first three
hits of each (with the part) are printed too.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from typing import TYPE_CHECKING
from unittest import mock

from memhooks.memory import Store
from memhooks.memory import rank as rank_module
from memhooks.memory.searching import search
from tests.benchmarks.bench_queries import Corpus, _run
from tests.benchmarks.bench_speed import ENV, MEMHOOKS

if TYPE_CHECKING:
    from memhooks.memory.results import Hit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--part", choices=("pairs", "values"), default="pairs")
    args = parser.parse_args()
    c = Corpus(args.notes)
    v = c.vocab
    env = {**ENV, "MEMHOOKS_HOME": str(c.root)}  # the index file, built once
    _run([MEMHOOKS, "search", "--root", str(c.root), "--slug", c.slug, "warm"], env)
    store = Store(c.root, c.slug)
    questions = [
        f"why did the {v[25_000]} test fail after we changed the {v[900]} config?",
        f"what was wrong with the {v[300]} {v[3_000]} {v[30_000]} build?",
        f"who wrote the {v[22_000]} {v[37_000]} error handler?",
    ]
    if args.part == "values":
        questions = [
            f"which {v[300]} version are we on now?",
            f"how big is the {v[3_000]} {v[900]} these days?",
            f"how many {v[25_000]} do we run now?",
        ]
    print(f"{args.notes:,} notes, medians of {args.runs} runs, CPU ms")
    for q in questions:
        cpu: dict[str, list[float]] = {"with": [], "none": []}
        shown: tuple[Hit, ...] = ()
        for _ in range(args.runs):
            for mode, found in cpu.items():
                with (
                    _without(args.part) if mode == "none" else contextlib.nullcontext()
                ):
                    start = time.process_time()
                    hits = search(store, q).hits
                    found.append(time.process_time() - start)
                shown = hits if mode == "with" else shown
        on, off = (statistics.median(cpu[m]) * 1000 for m in ("with", "none"))
        print(f"{on:6.1f} with {args.part}, {off:6.1f} without  {q}")
        first = ", ".join(h.rel.rsplit("/", 1)[-1] for h in shown[:3])
        print(f"       first hits: {first}")


def _without(part: str) -> contextlib.AbstractContextManager[object]:
    # What `rank` calls for the pairs, made to find none; or for the values, to credit none.
    if part == "values":
        return mock.patch.object(rank_module, "credit", lambda *_: None)
    return mock.patch.object(rank_module, "pairs", lambda *_: [])


if __name__ == "__main__":
    main()

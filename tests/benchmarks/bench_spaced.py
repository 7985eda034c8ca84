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
import json
import statistics
import subprocess
import time

from tests.benchmarks.bench_queries import Corpus, _terms, _timed
from tests.benchmarks.bench_speed import ENV, MEMHOOKS

#: Seconds between two searches: past `memory.layered.FULL_CHECK_NS`.
GAP = 11.0


def _hook(c: Corpus, session: str, event: str, **extra: str) -> None:
    payload = {"session_id": session, "cwd": str(c.project), "hook_event_name": event}
    subprocess.run(
        [MEMHOOKS, "hook", "--harness", "claude-code", "--root", str(c.root)],
        input=json.dumps(payload | extra),
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
    )


def measure(c: Corpus, runs: int) -> dict[str, tuple[float, float]]:
    """Per case the median wall and CPU time in ms."""
    terms = _terms(c.mixes()["common+rare"])
    search = [MEMHOOKS, "search", "--root", str(c.root), "--slug", c.slug, *terms]
    grep = ["grep", "-ril", "-E", "|".join(terms), *c.files()]
    got: dict[str, list[tuple[float, float]]] = {}
    _timed(search, ENV)  # builds the index file if there is none
    for r in range(runs):
        for case in ("alone", "watched"):
            session = f"spaced-{r}"
            if case == "watched":
                _hook(c, session, "SessionStart", source="startup")
                time.sleep(1.0)  # its listing made, it watches
            _timed(search, ENV)
            time.sleep(GAP)
            got.setdefault(case, []).append(_timed(search, ENV))
            got.setdefault("grep -ril", []).append(_timed(grep, ENV))
            got.setdefault("right after", []).append(_timed(search, ENV))
            if case == "watched":
                _hook(c, session, "SessionEnd", reason="other")
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

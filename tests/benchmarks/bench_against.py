"""One-shot search of this checkout against another version of memhooks and grep, in one run;
a script, not a test (pytest collects ``test_*.py``).

    git archive main memory hooks | tar -x -C /tmp/base/memhooks && touch /tmp/base/memhooks/__init__.py
    .venv/bin/python -m tests.benchmarks.bench_against /tmp/base [--notes 10000] [--runs 7] [--build]

The other version runs from that folder (put first on ``PYTHONPATH``, same interpreter and
packages), on the corpora and query mixes of `tests.benchmarks.bench_queries`; the three
commands alternate run by run, so a load that comes and goes weighs on each alike. Both
versions must read the same index file (the same `memory.segment.VERSION`): it is built
once, before the first run. With ``--build``, it times instead the search that builds the
index file (none there) with each version: wall time, CPU time and peak RSS.
"""

from __future__ import annotations

import argparse
import compileall
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from tests.benchmarks.bench_queries import Corpus, _terms, _timed
from tests.benchmarks.bench_speed import ENV, PY


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("other", type=Path, help="a folder holding a memhooks package")
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--build", action="store_true", help="time the index build")
    args = ap.parse_args()
    compileall.compile_dir(args.other, quiet=1)
    c = Corpus(args.notes)
    env = {**ENV, "MEMHOOKS_HOME": str(c.root)}
    other = {**env, "PYTHONPATH": str(args.other.resolve())}
    search = [PY, "-m", "memhooks.hooks", "search", "--root", str(c.root)]
    search += ["--slug", c.slug]
    if args.build:
        _builds(c, [*search, "anything"], {"other": other, "this": env}, args.runs)
        return
    subprocess.run([*search, "anything"], env=env, capture_output=True, check=False)
    print(f"{args.notes:,} notes, medians of {args.runs} interleaved runs")
    print("| mix | other | this | grep -ril | other / grep | this / grep |")
    print("|---|---|---|---|---|---|")
    for mix, query in c.mixes().items():
        terms = _terms(query)
        grep = ["grep", "-ril", "-E", "|".join(terms), *c.files()]
        cmds = [([*search, *terms], other), ([*search, *terms], env), (grep, env)]
        times: list[list[float]] = [[], [], []]
        for _ in range(args.runs):
            for (cmd, where), out in zip(cmds, times, strict=True):
                out.append(_timed(cmd, where)[0])
        o, t, g = (1000 * statistics.median(x) for x in times)
        print(
            f"| {mix} | {o:.0f} ms | {t:.0f} ms | {g:.0f} ms | {o / g:.2f}× | {t / g:.2f}× |"
        )
    sys.stdout.flush()


def _builds(
    c: Corpus, search: list[str], envs: dict[str, dict[str, str]], runs: int
) -> None:
    """Medians of the search that builds the index file, each version in turn."""
    got: dict[str, list[tuple[float, ...]]] = {k: [] for k in envs}
    for _ in range(runs):
        for name, env in envs.items():
            shutil.rmtree(c.root / ".index", ignore_errors=True)
            timed = ["/usr/bin/time", "-f", "%e %U %S %M", *search]
            out = subprocess.run(
                timed, env=env, capture_output=True, text=True, check=False
            )
            wall, user, system, rss = out.stderr.split()[-4:]
            got[name].append(
                (float(wall), float(user) + float(system), int(rss) / 1024)
            )
    print(f"{c.notes:,} notes, index build, medians of {runs} interleaved runs")
    print("| version | wall | CPU (user + sys) | peak RSS |")
    print("|---|---|---|---|")
    for name, rows in got.items():
        wall, cpu, rss = (statistics.median(col) for col in zip(*rows, strict=True))
        print(f"| {name} | {wall:.2f} s | {cpu:.2f} s | {rss:.0f} MB |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()

"""Timing for search and eval; a script, not a test (pytest collects only ``test_*.py``).

    .venv/bin/python -m tests.benchmarks.bench_search [--runs 15] [--dev PATH/TO/eval/dev]

1. ``memhooks search`` one-shot, as a harness runs it (a fresh process per query), on the
   dev root: ``--ranking baseline`` and the default, interleaved so machine load hits both
   alike; the median of ``--runs`` runs per query and ranking.
2. ``memhooks eval`` over 2,000 generated queries on a generated root of ~300 files, one
   process, both rankings.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
QUERIES = [
    ("coinpurse-4b7e2d91", "current pgbouncer default_pool_size"),
    (
        "coinpurse-4b7e2d91",
        "why did the stripe signature check fail only for some webhook events?",
    ),
    ("coinpurse-4b7e2d91", "催繳排程現在是第幾天重試？"),
    ("lanternboard-a09c53f6", "vite preview port used by playwright in CI"),
]
SLUGS = ("alpha-0a1b2c3d", "beta-4e5f6a7b", "gamma-8c9d0e1f")
_HAN = [chr(c) for c in range(0x4E00, 0x4E00 + 400)]


def _memhooks(*args: str) -> float:
    return _timed_run(*args)[0]


def _timed_run(*args: str) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "memhooks.hooks", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return time.perf_counter() - start, out


def bench_one_shot(dev: Path, runs: int) -> None:
    root = str(dev / "root")
    print(f"memhooks search, one-shot, median of {runs} runs (ms):")
    print(f"  {'query':58} baseline  default  change")
    totals = {"baseline": 0.0, "default": 0.0}
    for slug, query in QUERIES:
        times: dict[str, list[float]] = {"baseline": [], "default": []}
        for _ in range(runs):
            for ranking, runs_of in times.items():
                args = ("search", "--root", root, "--slug", slug, "--ranking", ranking)
                runs_of.append(_memhooks(*args, *query.split()))
        med = {r: statistics.median(t) * 1000 for r, t in times.items()}
        for r in totals:
            totals[r] += med[r]
        change = med["default"] / med["baseline"] - 1
        print(
            f"  {query[:58]:58} {med['baseline']:8.1f} {med['default']:8.1f}  {change:+6.1%}"
        )
    change = totals["default"] / totals["baseline"] - 1
    print(
        f"  {'sum':58} {totals['baseline']:8.1f} {totals['default']:8.1f}  {change:+6.1%}"
    )


def _words(rng: random.Random, vocab: list[str], weights: list[float], n: int) -> str:
    return " ".join(rng.choices(vocab, weights, k=n))


def make_root(root: Path, rng: random.Random) -> list[dict[str, object]]:
    """~300 files over three projects, and 2,000 queries whose answer is one line's file."""
    vocab = [
        "".join(rng.choices("abcdefghijklmnoprstuvwy", k=rng.randint(3, 10)))
        for _ in range(4000)
    ]
    weights = [
        1 / (i + 1) for i in range(len(vocab))
    ]  # Zipf: a few words are everywhere
    lines_of: dict[str, list[str]] = {}

    def write(rel: str, n_lines: int) -> None:
        lines = []
        for _ in range(n_lines):
            if rng.random() < 0.2:
                lines.append("".join(rng.choices(_HAN, k=rng.randint(6, 20))))
            else:
                lines.append(_words(rng, vocab, weights, rng.randint(4, 14)))
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("\n".join(lines) + "\n", encoding="utf-8")
        lines_of[rel] = lines

    write("MEMORY.md", 60)
    for slug in SLUGS:
        base = f"projects/{slug}"
        write(f"{base}/SCRATCHPAD.md", 15)
        for day in range(60):
            write(
                f"{base}/daily/2025-{1 + day // 28:02d}-{1 + day % 28:02d}.md",
                rng.randint(5, 80),
            )
        for n in range(39):
            write(f"{base}/notes/note-{n:02d}.md", rng.randint(5, 120))
    queries: list[dict[str, object]] = []
    rels = [r for r in lines_of if r.startswith("projects/")]
    for i in range(2000):
        rel = rng.choice(rels)
        line = rng.choice(lines_of[rel])
        if " " in line:
            words = line.split()
            query = " ".join(rng.sample(words, min(len(words), rng.randint(2, 5))))
        else:
            start = rng.randrange(max(1, len(line) - 6))
            query = line[start : start + 6]
        slug = rel.split("/")[1]
        cat = "cjk" if " " not in line else "words"
        queries.append(
            {
                "id": f"s{i:04d}",
                "query": query,
                "project": slug,
                "expect": [rel],
                "category": cat,
            }
        )
    return queries


def bench_eval(runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        queries = make_root(root, random.Random(7))
        qfile = Path(tmp) / "queries.jsonl"
        qfile.write_text(
            "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in queries),
            encoding="utf-8",
        )
        files = sum(1 for p in root.rglob("*.md"))
        print(
            f"\nmemhooks eval, {len(queries)} queries over {files} files, one process (s):"
        )
        for ranking in ("baseline", "default"):
            args = (
                "eval",
                str(qfile),
                "--json",
                "--ranking",
                ranking,
                "--semantic",
                "off",
            )
            runs_of = [_timed_run(*args) for _ in range(max(1, runs // 5))]
            times = [t for t, _ in runs_of]
            out = runs_of[-1][1]
            recall = json.loads(out)["recall"]
            print(f"  {ranking:9} {statistics.median(times):6.2f} s   recall {recall}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=15)
    p.add_argument("--dev", type=Path, default=REPO.parent / "shared" / "eval" / "dev")
    args = p.parse_args()
    bench_one_shot(args.dev, args.runs)
    bench_eval(args.runs)


if __name__ == "__main__":
    main()

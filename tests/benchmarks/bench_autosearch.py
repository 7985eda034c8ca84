"""What auto-search shows for the eval sets' questions asked as prompts; a script, not a test.

    .venv/bin/python -m tests.benchmarks.bench_autosearch [QUERIES.jsonl ...]

Each labelled question (default: the public dev set and every set in `tests/data/eval`)
goes through the prompt hook's rules in this process: its terms (`hooks.autosearch.asked`),
the search with its frame, and the hits that hold enough of its terms, as
`hooks.handlers.pre_prompt` picks them (a fresh session: nothing seen yet). Printed per
set: how often an expected file is among the first three it would show (a 2 KiB budget
holds two to four), how often it shows anything, and how often it shows anything for the
next set's questions asked of this set's first project, where no file answers (noise a
model would have to read past).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from memhooks.hooks.autosearch import asked
from memhooks.memory import Store
from memhooks.memory.evaluate import parse_queries
from memhooks.memory.index import Index
from memhooks.memory.searching import search

REPO = Path(__file__).resolve().parents[2]
DEV = REPO.parent / "shared" / "eval" / "dev" / "queries.jsonl"
SHOWN = 3  #: hits counted as shown
CONSIDERED = 20  #: hits the hook looks at (`hooks.autosearch.CONSIDERED`)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("queries", nargs="*", type=Path)
    sets = parser.parse_args().queries or [
        *([DEV] if DEV.is_file() else []),
        *sorted((REPO / "tests" / "data" / "eval").glob("*/queries.jsonl")),
    ]
    indexes: dict[tuple[Path, str], tuple[Store, Index]] = {}

    def shown(root: Path, project: str, prompt: str) -> list[str]:
        if (root, project) not in indexes:
            store = Store(root, project)
            indexes[root, project] = (store, Index(store.corpus().values()))
        store, index = indexes[root, project]
        query = asked(prompt)
        if not query.terms:
            return []
        result = search(
            store,
            " ".join(query.terms),
            index=index,
            limit=CONSIDERED,
            counted=False,
            frame=query.frame,
        )
        need = query.need()
        return [
            h.rel
            for h in result.hits
            if not h.filename_only and len(query.counted(h.matched)) >= need
        ][:SHOWN]

    found = total = noise = foreign = 0
    for i, path in enumerate(sets):
        queries = parse_queries(path.read_text(encoding="utf-8"), str(path))
        root = path.parent / "root"
        lists = [shown(root, q.project, q.query) for q in queries]
        answered = sum(
            any(e in s for e in q.expect) for q, s in zip(queries, lists, strict=True)
        )
        other = sets[(i + 1) % len(sets)]
        others = parse_queries(other.read_text(encoding="utf-8"), str(other))
        noisy = sum(bool(shown(root, queries[0].project, q.query)) for q in others)
        print(
            f"{path.parent.name:12} {len(queries):5} questions: answer shown"
            f" {answered / len(queries):.3f}, anything {sum(map(bool, lists)) / len(queries):.3f};"
            f" for another set's questions, anything {noisy / len(others):.3f}"
        )
        found, total = found + answered, total + len(queries)
        noise, foreign = noise + noisy, foreign + len(others)
    print(
        f"all          {total:5} questions: answer shown {found / total:.4f};"
        f" for another set's questions, anything {noise / foreign:.4f}"
    )


if __name__ == "__main__":
    main()

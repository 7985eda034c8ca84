"""`memhooks eval`: run labelled queries through the real search and score them.

Each query runs in its own project, ``Store(root, query.project)``, through
`memory.searching.search` — the function behind ``memhooks search`` — so a number printed
here is a number the model would see. Each project's corpus is read once and reused,
as a session process does, which keeps 2,000 queries within seconds.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from memhooks.hooks.commands import root_exists
from memhooks.hooks.constants import EXIT_OK
from memhooks.hooks.errors import UsageError, given_text
from memhooks.hooks.meaning import open_meaning
from memhooks.hooks.progress import status
from memhooks.memory import Store, default_root, parse_config
from memhooks.memory.index import Index
from memhooks.memory.lazylog import getLogger
from memhooks.memory.searching import search

if TYPE_CHECKING:
    from memhooks.memory import Doc
    from memhooks.memory.evaluate import Query
    from memhooks.memory.results import SearchResult
    from memhooks.memory.searching import Ranking
    from memhooks.memory.semantic import SemanticIndex

logger = getLogger(__name__)


def eval_root(queries: Path, explicit: str | None) -> Path:
    """``--root``, else the ``root/`` folder beside the queries file, else the usual root."""
    if explicit:
        return default_root(explicit)
    beside = queries.parent / "root"
    return beside.resolve() if beside.is_dir() else default_root()


def cmd_eval(
    queries_file: str,
    out: TextIO,
    *,
    root: str | None = None,
    k: str = "1,5,10",
    as_json: bool = False,
    ranking: Ranking | None = None,
    semantic: str | None = None,
) -> int:
    # Imported here: building its pydantic model costs every `memhooks` start ~6 ms, and
    # the hooks run on every prompt.
    from memhooks.memory.evaluate import (
        evaluate,
        parse_ks,
        parse_queries,
        render,
        to_json,
    )

    path = Path(queries_file)
    text = given_text(path, f"no such queries file: {path}")
    try:
        ks = parse_ks(k)
    except ValueError as e:
        raise UsageError(str(e)) from None
    queries = parse_queries(text, str(path))
    where = eval_root(path, root)
    root_exists(where)
    config = parse_config(
        Store(where, queries[0].project).config_text(), str(where / "config.toml")
    )
    chosen: Ranking = ranking or config.search.ranking
    meaning = open_meaning(
        where, config.search.semantic, flag=semantic, long_lived=True
    )
    stores: dict[str, tuple[Store, dict[str, Doc], Index]] = {}

    def run(q: Query) -> SearchResult:
        # Each project is read and indexed once, as a session process holds it: thousands
        # of queries must not tokenize the same files thousands of times.
        if q.project not in stores:
            store = Store(where, q.project)
            docs = store.corpus()
            stores[q.project] = (store, docs, Index(docs.values()))
        store, docs, index = stores[q.project]
        if chosen == "default":
            return search(store, q.query, index=index, semantic=meaning)
        return search(store, q.query, ranking=chosen, docs=docs)

    with (
        status("embedding the memory files (cached for the next run)")
        if meaning is not None
        else contextlib.nullcontext()
    ):
        report = evaluate(queries, run, ks)
    _warn_unknown(queries, where)
    if as_json:
        out.write(json.dumps(to_json(report), ensure_ascii=False) + "\n")
    else:
        out.write(
            f"memhooks eval: {len(queries)} queries, root {where}, ranking {chosen}"
            f"{_semantic_note(meaning, chosen)}\n\n"
        )
        out.write(render(report) + "\n")
    return EXIT_OK


def _semantic_note(semantic: SemanticIndex | None, ranking: str) -> str:
    if semantic is None or ranking != "default":
        return ", semantic off"
    return f", semantic on ({semantic.encoder.name})"


def _warn_unknown(queries: list[Query], root: Path) -> None:
    # An expected file that does not exist means a wrong --root or a stale label, and
    # every query that names it would count as a miss of the search.
    missing = sorted(
        {rel for q in queries for rel in q.expect if not (root / rel).is_file()}
    )
    for rel in missing[:10]:
        logger.warning("expected file not under %s: %s", root, rel)
    if len(missing) > 10:
        logger.warning("… and %d more expected files not found", len(missing) - 10)


__all__ = ["cmd_eval", "eval_root"]

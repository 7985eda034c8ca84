"""Search as discovery (docs/design.md): which files to read, ranked so truncation drops the least
relevant. `search` is the one entry point; `memory.render` formats what it returns.

Baseline semantics are zerostack's (`memory.baseline`): the query splits on whitespace
into literal, case-insensitive terms; a line matches if it contains any term; each file
shows its matching lines with ±3 lines of context, adjacent windows merged, at most 5
windows.

The default ranking (``ranking="default"``) keeps that output and matches on keys instead
of substrings: stemmed words and CJK bigrams (`memory.terms`), scored by `memory.rank`.
A typed term's ``term(N)`` count is then the number of lines holding *all* its keys (the
term as a whole, up to stemming). A term found only in parts, e.g. two characters of a
Chinese phrase, still reports ``(0, N partial)``: the phrase as typed is nowhere, and the
model should know that before it trusts the files ranked by the parts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from memhooks.memory.baseline import baseline
from memhooks.memory.constants import SEARCH_CONTEXT_LINES
from memhooks.memory.errors import CorruptSegment
from memhooks.memory.index import Index
from memhooks.memory.index_file import drop_index
from memhooks.memory.layered import open_index
from memhooks.memory.lazylog import getLogger
from memhooks.memory.lines import FOCUS_LINES, around, filename_preview, focus, windows
from memhooks.memory.literals import READ_MOST, with_literals
from memhooks.memory.literals import counts as literal_counts
from memhooks.memory.needles import prefilter
from memhooks.memory.question import read
from memhooks.memory.rank import MAX_HITS, rank
from memhooks.memory.results import Hit, Line, SearchResult
from memhooks.memory.stems import stem_needles
from memhooks.memory.superseded import mark_superseded
from memhooks.memory.terms import scripts
from memhooks.memory.timeline import LEADING
from memhooks.memory.typed import bounded, query_of, query_terms

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from memhooks.memory.corpus import Doc
    from memhooks.memory.fusion import Meaning, MeaningSource
    from memhooks.memory.index import Query, Searchable
    from memhooks.memory.rank import Scored
    from memhooks.memory.scope import Found
    from memhooks.memory.store import Store

logger = getLogger(__name__)

#: Starts the snippet of a file where a term was on more lines than the snippet looked at.
PARTIAL_FOCUS = f"…[long file: snippet placed from the first {FOCUS_LINES:,} lines holding each term]"


Ranking = Literal["default", "baseline"]


def search(
    store: Store,
    query: str,
    *,
    ranking: Ranking = "default",
    docs: Mapping[str, Doc] | None = None,
    index: Searchable | None = None,
    semantic: MeaningSource | None = None,
    limit: int = MAX_HITS,
    files: list[Found] | None = None,
    counted: bool = True,
    build: bool = True,
    frame: str | None = None,
) -> SearchResult:
    """Search a project's memory: what `memhooks search`, auto-search, MCP and eval all call.

    Args:
        store: the memory root and project to search (MEMORY.md and the project's files).
        query: what was typed; whitespace separates the terms.
        ranking: ``"default"`` (BM25 over stemmed keys, see `memory.rank`) or
            ``"baseline"`` (docs/design.md rules 1-6 on literal terms).
        docs: the project's corpus when the caller already holds it (a session process,
            eval over thousands of queries); else the on-disk index is used, and only the
            files changed since it was written are read.
        index: an index the caller keeps (a session process).
        semantic: adds files found by meaning (the ``[semantic]`` extra); needs the
            whole corpus, so it reads it unless `docs` or `index` is given.
        limit: how many hits a caller looks at, at most (auto-search: a few); the
            default ranking then stops once it has found those (`memory.topk`).
        files: every file in scope as it is now, when the caller keeps that current
            (a session process's watcher): the index file is then compared with it
            instead of a stat of every file (`memory.layered.open_index`).
        counted: count each term's lines (False for a caller that shows only hits,
            as auto-search: a CJK phrase's count reads every note holding a bigram).
        build: write the index file when it is missing or stale (seconds at ten
            thousand notes); False reads the files it lacks instead, for their words.
        frame: the question the query's words were taken from (auto-search's prompt):
            its frame, not the query's, says when, names and values (`memory.question`).

    Returns:
        Every matching file, best first, with the per-term line counts; a superseded note
        is marked with its successor and ranked just below it. Terms past the first
        `SEARCH_MAX_TERMS` are not looked for, and counted in ``unsearched``.
    """
    query, unsearched = bounded(query)
    if ranking == "default" and (index is not None or semantic is None):
        try:
            if index is None:
                # Index only the files that can match, with the counts of all: from the
                # index file and the files changed since (a one-shot search), or picked
                # from a corpus already in memory.
                def opened(query: str) -> Searchable:
                    only = query_of(query_terms(query))
                    return (
                        open_index(store, only, files=files, build=build)
                        if docs is None
                        else _picked(docs, only)
                    )

                index = opened(query)
                if (asked := _widened(query, index)) != query:
                    index = opened(asked)  # with the files its glosses reach
            in_scope = None if docs is None else list(docs.values())
            result = search_index(
                index,
                query,
                semantic=semantic,
                docs=in_scope,
                limit=limit,
                counted=counted,
                frame=frame,
            )
            marked = {
                h.rel: d for h in result.hits if (d := index.marked(h.rel)) is not None
            }
            return mark_superseded(result, marked)._replace(unsearched=unsearched)
        except CorruptSegment as e:  # damaged after it was opened: read the notes
            logger.warning("%s; rebuilt on the next search", e)
            drop_index(store)
    corpus = store.corpus() if docs is None else docs
    result = search_docs(corpus.values(), query, ranking=ranking, semantic=semantic)
    return result._replace(unsearched=unsearched)


def _picked(docs: Mapping[str, Doc], only: Query) -> Index:
    # The documents that can match a query, with the corpus-wide counts ranking needs.
    keep = prefilter(only.needles)
    return Index(
        [
            d
            for d in docs.values()
            if keep(d.text.encode("utf-8", "surrogatepass").lower(), d.loc)
        ],
        count=len(docs),
        total_size=sum(d.size for d in docs.values()),
        dailies=[(d.key, d.rel) for d in docs.values() if d.kind == "daily"],
        only=only,
    )


def search_docs(
    docs: Iterable[Doc],
    query: str,
    *,
    ranking: Ranking = "default",
    semantic: MeaningSource | None = None,
) -> SearchResult:
    """Rank the documents of a corpus already read for `query` (see `search`).

    Args:
        docs: the corpus in scope (MEMORY.md and the current project's files).
        query: what was typed; whitespace separates the terms.
        ranking: ``"baseline"`` is docs/design.md rules 1-6 on literal terms: 1. MEMORY.md
            first; 2. more distinct terms; 3. content hits before filename-only; 4. more
            matching lines; 5. newer daily log first; 6. path ascending. ``"default"``
            scores keys with BM25 (see `memory.rank`), measured with ``memhooks eval``.
        semantic: scores by meaning (`memory.semantic`), fused with the default ranking
            (`memory.fusion`); the baseline ignores it.

    Returns:
        Every matching file, best first, with the per-term line counts; superseded notes
        marked (`mark_superseded`).
    """
    docs = list(docs)
    if ranking == "default":
        result = search_index(Index(docs), query, semantic=semantic)
        return mark_superseded(result, {d.rel: d for d in docs})
    return mark_superseded(baseline(docs, query), {d.rel: d for d in docs})


def search_index(
    index: Searchable,
    query: str,
    *,
    semantic: MeaningSource | None = None,
    docs: Sequence[Doc] | None = None,
    limit: int = MAX_HITS,
    counted: bool = True,
    frame: str | None = None,
) -> SearchResult:
    """The default ranking over an index (see `memory.index`): what `search_docs` does, for
    callers that keep an index (a session) or build one of the files that can match.
    With `semantic`, the index must hold every document in scope (or `docs` must be
    them): meaning can rank a file that holds no query key. At most `limit` hits (all
    `MAX_HITS` with `semantic`: fusion may lift a file from far down the lexical list);
    with `counted` False, no term's lines counted (`terms` and `partial` empty), and a
    literal that would read more than `memory.literals.READ_MOST` notes searched by its
    words (`memory.literals.with_literals`). A question
    asked only in Chinese is ranked with its words' English glosses too (`memory.glosses`).
    """
    terms, asked = query_terms(query), _widened(query, index)  # typed, and glossed
    # "%s" is found as typed, not as "s" (only hits shown: within READ_MOST notes read)
    index, loose = with_literals(index, terms, None if counted else READ_MOST)
    if semantic is not None:
        limit = MAX_HITS
    reading = read(asked if frame is None else frame)
    ranked = [loose.get(t.text, t) for t in query_terms(asked)]
    scored, total, idf = rank(index, ranked, limit, reading=reading)
    hits = tuple(
        Hit(
            s.rel,
            s.matched,
            s.filename_only,
            _snippet(index, s.rel, s.found, idf, s.filename_only),
            s.lines,
        )
        for s in scored
    )
    if semantic is not None:
        docs = list(index.docs()) if docs is None else docs
        lexical = len(hits)
        meaning = semantic.similar(query, docs)
        typed = {k: idf[k] for t in terms for k in t.keys if k in idf}  # no glosses
        timed = reading.when in LEADING
        hits = _with_meaning(
            hits, scored, typed, meaning, docs, timed=timed, query=query
        )
        total += len(hits) - lexical  # files only meaning found
    counts = literal_counts(index, terms, loose) if counted else []
    partial = tuple((t, p) for t, c, p in counts if c == 0 and p)
    return SearchResult(tuple((t, c) for t, c, _ in counts), hits, partial, total)


def _with_meaning(
    hits: tuple[Hit, ...],
    scored: Sequence[Scored],
    idf: dict[str, float],
    meaning: Sequence[Meaning],
    docs: Sequence[Doc],
    *,
    timed: bool,
    query: str,
) -> tuple[Hit, ...]:
    # Fusion is a step after `rank`: the lexical hits keep their snippets, and a file found
    # by meaning only shows its closest chunk. Imported here: a search by words (every
    # one-shot hook) has no use for it.
    from memhooks.memory.fusion import Lexical, fuse

    total = sum(idf.values()) or 1.0
    lexical = [
        Lexical(s.rel, s.score, sum(idf.get(k, 0.0) for k in s.found) / total)
        for s in scored
    ]
    by_rel = {h.rel: h for h in hits}
    where = {m.rel: m for m in meaning}
    doc_of = {d.rel: d for d in docs}
    out: list[Hit] = []
    for f in fuse(lexical, meaning, timed=timed, asked=scripts(query)):
        if not f.by_meaning:
            out.append(by_rel[f.rel])
            continue
        m, doc = where[f.rel], doc_of[f.rel]
        centre = min(m.start + SEARCH_CONTEXT_LINES, m.end - 1)
        out.append(Hit(f.rel, (), False, _snippet_at(doc, centre), by_meaning=True))
    return tuple(out)


def _snippet_at(doc: Doc, line: int) -> Callable[[], list[Line]]:
    return lambda: windows(doc, [line])


def _snippet(
    index: Searchable,
    rel: str,
    found: Sequence[str],
    idf: dict[str, float],
    filename_only: bool,
) -> Callable[[], list[Line]]:
    # The document is read only if the snippet is made (an index may hold no text), by
    # its path: made after a session's search, outside the lock its watcher patches the
    # index under, an id may name a document removed since, or another in its place.
    def make() -> list[Line]:
        doc = index.get(rel)
        if doc is None:
            return []  # gone since the search: it shows no lines
        if filename_only:
            return filename_preview(doc)
        wanted = set(found)
        placed = focus(doc, found, idf)
        lines = windows(
            doc, placed.lines, lambda i, text: placed.holds(i, text, wanted)
        )
        needles = [n for k in found for n in stem_needles(k)]
        lines = [around(ln, needles) for ln in lines]
        return [Line(0, PARTIAL_FOCUS), *lines] if placed.partial else lines

    return make


def _widened(query: str, index: Searchable) -> str:
    # `memory.glosses.widened`, whose module is loaded only for a query that may hold
    # Chinese: most are ASCII, and a one-shot search pays for every module it imports.
    if query.isascii():
        return query
    from memhooks.memory.glosses import widened

    return widened(query, index)

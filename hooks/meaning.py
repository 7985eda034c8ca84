"""Whether a search also ranks by meaning (docs/design.md).

The encoder takes about a second and 150 MB to load, so only processes that live long
enough to pay that back use it: a session process, which loads it once and keeps its
vectors while the watcher reports edits, and ``memhooks eval``. A one-shot hook never
loads it (it uses meaning only through a session process that serves it), and
``memhooks search`` loads it only when asked (``--semantic on``, or ``semantic = "on"``).

The mode is the command's ``--semantic``, else $MEMHOOKS_SEMANTIC, else ``[search]
semantic`` in config.toml (default ``auto``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, cast

from memhooks.hooks.constants import ENV_SEMANTIC
from memhooks.hooks.errors import UsageError
from memhooks.memory.lazylog import getLogger

if TYPE_CHECKING:
    import threading
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from memhooks.memory import Doc
    from memhooks.memory.config import SemanticMode
    from memhooks.memory.semantic import SemanticIndex

logger = getLogger(__name__)

INSTALL = (
    "reinstall memhooks from the clone with `.[semantic]` "
    "(`pipx install --force '.[semantic]'`)"
)
_MODES = ("auto", "on", "off")
_warned: set[str] = set()


def mode_of(configured: SemanticMode, flag: str | None = None) -> SemanticMode:
    """The mode in force: `flag`, else $MEMHOOKS_SEMANTIC (when valid), else `configured`."""
    env = os.environ.get(ENV_SEMANTIC, "").strip().lower()
    if env and env not in _MODES and ENV_SEMANTIC not in _warned:
        _warned.add(ENV_SEMANTIC)  # `true` meant on: say so, once a process
        logger.warning("$%s is %r, not auto, on or off: ignored", ENV_SEMANTIC, env)
    chosen = flag or (env if env in _MODES else configured)
    return cast("SemanticMode", chosen)


def lexical(configured: SemanticMode) -> bool:
    """True when a session process searches by words only (`open_meaning` gives None):
    meaning is off, or the [semantic] extra is not installed."""
    if mode_of(configured) == "off":
        return True
    from memhooks.memory.semantic import available

    return not available()


def open_meaning(
    root: Path,
    configured: SemanticMode,
    *,
    flag: str | None = None,
    long_lived: bool = False,
) -> SemanticIndex | None:
    """A semantic index over `root`'s cache, or None when this search stays lexical.

    Args:
        root: the memory root (its ``.embeddings/`` holds the cache).
        configured: ``[search] semantic`` of config.toml.
        flag: the command's ``--semantic``, if given (a missing extra is then an error).
        long_lived: a session process or eval, where ``auto`` means on.

    Raises:
        UsageError: ``--semantic on`` without the extra installed.
    """
    mode = mode_of(configured, flag)
    if mode == "off" or (mode == "auto" and not long_lived):
        return None
    from memhooks.memory.semantic import SemanticIndex, available, default_cache

    if not available():
        if mode == "on" and flag:
            raise UsageError(f"--semantic on needs the [semantic] extra: {INSTALL}")
        if mode == "on" and str(root) not in _warned:
            _warned.add(str(root))
            logger.warning(
                "search.semantic is on, but the [semantic] extra is not installed "
                "(%s); searching by words only",
                INSTALL,
            )
        return None
    return SemanticIndex(default_cache(root))


class Warm:
    """A session's semantic index, embedded in the background.

    Until every document has its vectors (about a minute for 1,000 notes the first time,
    a fraction of a second from the cache), searches stay lexical rather than wait: a
    prompt must not stall. After that, an edited file is re-embedded in the background as
    soon as the watcher reports it, or the first search that finds it without its vectors
    starts that; only its chunks whose text changed go to the encoder, and searches stay
    lexical until they are in (a note of 1 MB is seconds of encoder: a prompt that waited
    for it missed its 8 s deadline and got nothing).
    """

    def __init__(self, index: SemanticIndex, root: Path | None = None) -> None:
        import threading  # a session's: a one-shot search has no use for it

        self.index = index
        #: once warm, the records of files gone from this root leave the cache
        self.root = root
        self.ready = threading.Event()
        self._behind: threading.Thread | None = None  #: embedding what a search lacked
        #: Files edited (their new `Doc`) or deleted (None) since `_edits` last took
        #: them, by path: the latest change of a file wins.
        self._changed: dict[str, Doc | None] = {}
        self._wake = threading.Condition()
        self._worker: threading.Thread | None = None  #: `_edits`, once a file changed

    def start(self, docs: Sequence[Doc]) -> None:
        """Embed `docs` in a daemon thread (it never keeps a finished session alive)."""
        self._spawn(list(docs), done=self.ready, first=True)

    def usable(self, docs: Sequence[Doc]) -> SemanticIndex | None:
        """The index once warm and holding the vectors of all of `docs`, else None:
        search by words meanwhile, while what it lacks is embedded in the background."""
        if not self.ready.is_set():
            return None
        if not self.index.covers(docs):
            if self._behind is None or not self._behind.is_alive():
                self._behind = self._spawn(list(docs))
            return None
        return self.index

    def changed(self, rel: str, doc: Doc | None) -> None:
        """A file was edited (`doc`) or deleted (None): taken by one thread, `_edits`.

        Not here: the watcher (and the prompts waiting for what it re-reads) would wait
        while an embedding holds the index, seconds for a long note. Nor a thread per
        file: a pull or a sync of the root changes hundreds at once, a thread each.
        """
        if doc is not None and not self.ready.is_set():
            return  # the first embedding, or a search's (`usable`), takes it
        with self._wake:
            self._changed[rel] = doc
            if self._worker is None:
                self._worker = _thread(self._edits)
            self._wake.notify()

    def _edits(self) -> None:
        while True:
            with self._wake:
                while not self._changed:
                    self._wake.wait()
                batch, self._changed = self._changed, {}
            try:
                for rel, doc in batch.items():
                    if doc is None:
                        self.index.forget(rel)
                self.index.prepare([d for d in batch.values() if d is not None])
            except Exception as e:  # noqa: BLE001 - a search embeds what it lacks
                logger.warning("semantic index: %s: %s", type(e).__name__, e)

    def _spawn(
        self, docs: list[Doc], done: threading.Event | None = None, first: bool = False
    ) -> threading.Thread:
        def run() -> None:
            try:
                self.index.prepare(docs)
                if first:
                    # The first query also stacks the vectors and runs the encoder once
                    # (~150 ms at 1,000 notes): better here than in the first prompt.
                    self.index.similar("warm up", docs)
            except Exception as e:  # noqa: BLE001 - the session goes on by words alone
                logger.warning("semantic index: %s: %s", type(e).__name__, e)
                return
            if done is not None:
                done.set()
            if first and self.root is not None:
                # Once a session: the records of files renamed or deleted while none
                # watched them (0.04 s over 1,000 records, 0.2 s removing 2,000 of 3,000).
                try:
                    self.index.prune(self.root)
                except Exception as e:  # noqa: BLE001 - a cache left untidy
                    logger.warning("embedding cache: %s: %s", type(e).__name__, e)

        return _thread(run)


def _thread(run: Callable[[], None]) -> threading.Thread:
    # A daemon: it never keeps a finished session alive.
    import threading

    thread = threading.Thread(target=run, daemon=True, name="embed")
    thread.start()
    return thread


__all__ = ["INSTALL", "Warm", "mode_of", "open_meaning"]

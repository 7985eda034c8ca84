"""A harness's settings file as install and uninstall write it: the content before a
change kept in ``<name>.bak``, written back byte for byte when a change is undone; each
write atomic and through a symlink; a file an install made removed when nothing is left
in it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from memhooks.hooks import settings_text


def save(path: Path, raw: bytes | None, new: dict[str, Any]) -> Path | None:
    """Write ``new``, first copying the previous content to ``.bak``; return the backup.
    A backup holding ``new`` (the file before an install) is written back byte for byte
    when the file is as the change from it left it (a layout a person gave it since,
    even one that holds the same values, is theirs: it stays).

    Raises:
        OSError: the disk refused.
    """
    backup = None if raw is None else _backup_of(path)
    before = _read_or_none(backup) if backup is not None else None
    if backup is not None and raw is not None:
        _atomic_write(backup, raw)
    if (
        raw is not None
        and before is not None
        and settings_text.holding(before, new)
        and settings_text.made_from(raw, before)
    ):
        _atomic_write(path, before)
    else:
        _atomic_write(path, settings_text.dumps_keeping(new, raw))
    return backup


def read_only(path: Path) -> bool:
    """Whether the file `path` names (through a symlink) exists with no write bit set."""
    try:
        return not path.resolve().stat().st_mode & 0o222
    except OSError:
        return False


def made_by_install(path: Path) -> bool:
    """Whether `path` was made by an install: one backs up a file it finds (`save`), so
    none is beside it (a symlinked file is a person's, whatever it holds)."""
    backup = _backup_of(path)
    return not path.is_symlink() and not backup.exists() and not backup.is_symlink()


def remove(path: Path) -> None:
    """Delete `path`, and its folder if that is left empty (an install made both).

    Raises:
        OSError: the file could not be deleted.
    """
    path.unlink()
    with contextlib.suppress(OSError):
        path.parent.rmdir()


def _backup_of(path: Path) -> Path:
    return path.with_name(path.name + ".bak")


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _atomic_write(path: Path, data: bytes) -> None:
    # Follow a symlinked settings file (dotfile managers) instead of replacing the link.
    target = path.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o644
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


__all__ = ["made_by_install", "read_only", "remove", "save"]

"""Errors of the hook runner and the command line.

HookError
 └── UsageError   bad command-line arguments
"""

from __future__ import annotations

import os
from pathlib import Path

from memhooks.memory.files import read_text


class HookError(Exception):
    """Base class: every error the hooks package raises on purpose."""


class UsageError(HookError):
    """Raised by the argument parser instead of exiting 2 (exit 2 would block a Claude Code prompt)."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


def absolute_root(root: str, given_as: str, what: str = "memory root") -> None:
    """Refuse a relative memory root (or another folder: `what`) where it names another
    in every folder (a hook runs in whatever folder its harness is in).

    Raises:
        UsageError: `root` (`given_as`: ``$MEMHOOKS_HOME``, ``--root``) is relative.
    """
    if root and not os.path.isabs(os.path.expanduser(root)):
        raise UsageError(
            f"{given_as} must be an absolute path, not {root!r} (a relative one "
            f"names another {what} in every folder)"
        )


def project_folder(project: str | None) -> Path:
    """The folder `--project` names (default: the current one), resolved.

    Raises:
        UsageError: it is empty or names no folder: a typo would otherwise read, write
            or install into a project of its own, made on the spot.
    """
    if project == "":
        # `--project "$UNSET"` read and wrote the current folder's memory instead.
        raise UsageError(
            "--project is empty (an unset variable?): name a folder, "
            "or leave --project out for the current one"
        )
    if project is not None and not Path(project).is_dir():
        raise UsageError(f"--project {project}: no such folder")
    return Path(project or Path.cwd()).resolve()


def given_text(path: Path, missing: str) -> str:
    """The UTF-8 text of a file named on the command line (a session script, queries).

    Raises:
        UsageError: `missing` when there is none; a FIFO or a folder there (a FIFO's
            read would wait for ever), a file that cannot be read or is not UTF-8.
    """
    try:
        text = read_text(path)
    except UnicodeDecodeError as e:
        raise UsageError(
            f"cannot read {path}: not UTF-8 (byte {e.start + 1})"
        ) from None
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None
    if text is None:
        raise UsageError(missing)
    return text

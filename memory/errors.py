"""Errors raised by the memory core.

MemoryStoreError
 ├── UnsafeNameError      (also ValueError)
 ├── TargetNotFoundError  (also LookupError)
 ├── NotAFileError        (also OSError)
 ├── InvalidTargetError   (also ValueError)
 ├── EditError
 ├── FrontMatterError     (also ValueError)
 ├── ConfigError
 ├── QueriesFileError     (also ValueError)
 ├── ForgetError
 ├── ForeignRootError
 ├── EmptyRootError       (also ValueError)
 ├── CorruptSegment       (also ValueError)
 ├── EncoderError
 └── StoreWriteError      (also OSError)
"""

from __future__ import annotations


class MemoryStoreError(Exception):
    """Base class: every error the memory core raises on purpose."""


class ForeignRootError(MemoryStoreError):
    """Raised when the memory root belongs to another user: its files would end up owned
    by two users (each unable to write the other's), and what it injects is not yours.
    """

    def __init__(self, root: str, owner: str, you: str) -> None:
        self.root = root
        super().__init__(
            f"memory root {root} belongs to {owner}, not to you, {you}: "
            "set $MEMHOOKS_HOME to a folder of yours, or chown it"
        )


class EmptyRootError(MemoryStoreError, ValueError):
    """Raised when the memory root is given as an empty string (``--root "$UNSET"``):
    falling back to the default root would write to another memory than the one meant.
    """

    def __init__(self) -> None:
        super().__init__(
            "the memory root given is empty (an unset variable?): name a folder, "
            "or leave --root out for the default"
        )


class CorruptSegment(MemoryStoreError, ValueError):
    """Raised by `memory.segment.Segment`, when opened or when a key is read, for bytes
    that are not a search index this version wrote (damaged, cut short, or of another
    version); the index is a cache, so callers rebuild it.
    """

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(f"search index: {problem}")


class EncoderError(MemoryStoreError):
    """Raised by `memory.semantic` when the [semantic] extra is installed but its encoder
    does not load (numpy removed or broken, the package's weights missing): a search that
    asked for meaning says so in one line rather than in a traceback.
    """

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(
            f"the [semantic] extra is installed but its encoder did not load ({problem}): "
            "reinstall memhooks with '.[semantic]', or search without --semantic on"
        )


class UnsafeNameError(MemoryStoreError, ValueError):
    """Raised by the layout when a name could leave the memory root."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason
        super().__init__(f"refused name {name!r}: {reason}")


class InvalidTargetError(MemoryStoreError, ValueError):
    """Raised by the layout when a target string names no kind of memory file."""

    def __init__(self, target: str, why: str | None = None) -> None:
        self.target = target
        super().__init__(
            f"unknown target {target!r}: {why}"
            if why
            else f"unknown target {target!r}: use MEMORY.md, scratchpad, "
            "daily/YYYY-MM-DD, notes/NAME or a path printed by search"
        )


class TargetNotFoundError(MemoryStoreError, LookupError):
    """Raised by the store when a file to read or edit does not exist."""

    def __init__(self, rel: str) -> None:
        self.rel = rel
        super().__init__(f"no such memory file: {rel}")


class NotAFileError(MemoryStoreError, OSError):
    """Raised by the store when a memory file cannot be read: a FIFO, device or folder sits
    where a file should be, or the disk refuses.
    """

    def __init__(self, rel: str, reason: str) -> None:
        self.rel = rel
        self.reason = reason
        super().__init__(f"cannot read {rel}: {reason}")


class EditError(MemoryStoreError):
    """Raised by `edit` when the old text does not occur exactly once (`count` -1: none
    was given)."""

    def __init__(self, rel: str, count: int) -> None:
        self.rel = rel
        self.count = count
        where = "not found" if count == 0 else f"found {count} times (must be unique)"
        if count < 0:  # none was given: "not found" would send one looking for it
            where = "is empty: give the text to replace (it must occur once)"
        super().__init__(f"edit {rel}: old text {where}")


class FrontMatterError(MemoryStoreError, ValueError):
    """Raised by a note write with aliases to a note that has none and begins with YAML
    front matter: an ``aliases:`` line above it would break it for the tools reading it."""

    def __init__(self, rel: str) -> None:
        self.rel = rel
        super().__init__(
            f"{rel} begins with YAML front matter, which an aliases: line above it "
            "would break: write without aliases (the note's own words are searched)"
        )


class ConfigError(MemoryStoreError):
    """Raised when config.toml cannot be parsed or holds unknown or invalid keys."""

    def __init__(self, path: str, detail: str) -> None:
        self.path = path
        self.detail = detail
        super().__init__(f"{path}: {detail}")


class QueriesFileError(MemoryStoreError, ValueError):
    """Raised by `memory.evaluate.parse_queries` when a queries file line is not a valid query."""

    def __init__(self, source: str, line: int, detail: str) -> None:
        self.source = source
        self.line = line
        self.detail = detail
        super().__init__(
            f"{source}:{line}: {detail}" if line else f"{source}: {detail}"
        )


class ForgetError(MemoryStoreError):
    """Raised by forget/restore when the line or note named is missing, not unique, or
    already in the state asked for.
    """

    def __init__(self, rel: str, detail: str) -> None:
        self.rel = rel
        self.detail = detail
        super().__init__(f"{rel}: {detail}" if rel else detail)


class StoreWriteError(MemoryStoreError, OSError):
    """Raised by the store when the disk refuses a write (full, read-only, denied)."""

    def __init__(self, rel: str, cause: OSError, *, said: str | None = None) -> None:
        self.rel = rel
        self.cause = cause
        super().__init__(said or f"cannot write {rel}: {cause.strerror or cause}")

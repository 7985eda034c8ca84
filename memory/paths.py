"""Where memory lives: the root, the project a folder belongs to, and each file under the
root (docs/design.md).

Every path handed to the store is a POSIX path relative to the root, produced here, so
the rules that keep names inside the root live in one place. Only root and project
resolution look at the disk (reading `.git`, never running git).
"""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from memhooks.memory.constants import (
    DAILY_DIR,
    MEMORY_FILE,
    NOTES_DIR,
    PROJECTS_DIR,
    SCRATCHPAD_FILE,
    SLUG_BASENAME_MAX,
)
from memhooks.memory.digests import sha256
from memhooks.memory.errors import InvalidTargetError, UnsafeNameError
from memhooks.memory.home import root_dir

if TYPE_CHECKING:
    from collections.abc import Mapping

Kind = Literal["memory", "scratchpad", "daily", "note"]

#: Characters that reorder how a name is displayed (Trojan Source): never in a file name.
_BIDI = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_UNSAFE_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SLUG = re.compile(r"^[A-Za-z0-9_-]{1,40}-[0-9a-f]{8}$")
_IN_NOTES = f"/{NOTES_DIR}/"


class Located(NamedTuple):
    """A memory file: its kind, its path relative to the root, and its date or note name."""

    kind: Kind
    rel: str
    key: str  # the date for daily logs, the name for notes, "" otherwise


def default_root(
    explicit: str | Path | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """The memory root: `explicit`, else $MEMHOOKS_HOME, else $XDG_DATA_HOME/memhooks, else
    ~/.local/share/memhooks.
    """
    return Path(root_dir(explicit, env))


def project_dir(cwd: str | Path) -> Path:
    """The directory whose memory a session in `cwd` uses.

    Inside git this is the main checkout, so that every `git worktree` of a repository
    shares one memory; it is found by reading `.git` (a folder, or a file pointing at the
    worktree's git dir and its `commondir`), never by running git. Outside git: `cwd`.
    """
    start = Path(cwd).absolute()
    found = git_checkout(start)
    if found is None:
        return start
    top, gitdir = found
    if gitdir is None or gitdir == top / ".git":
        return top  # the main checkout, or a `.git` file that cannot be read
    try:
        common = (
            gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()
        ).resolve()
    except OSError:
        return top  # a submodule or a broken link: the checkout itself
    return common.parent if common.name == ".git" else top


def git_checkout(folder: Path) -> tuple[Path, Path | None] | None:
    """The checkout holding `folder` and its git dir: its ``.git`` folder, or the one a
    ``.git`` file (a worktree's, a submodule's) names (None when that file cannot be
    read); None outside git. Read, never by running git."""
    for d in (folder, *folder.parents):
        dotgit = d / ".git"
        if dotgit.is_dir():
            return d, dotgit
        if dotgit.is_file():
            try:
                line = os.fsdecode(dotgit.read_bytes().strip())
            except OSError:
                return d, None
            return d, (d / line.removeprefix("gitdir:").strip()).resolve()
    return None


def today(now: dt.datetime | None = None) -> str:
    """Today's local date as YYYY-MM-DD (a UTC date would file evening work under tomorrow)."""
    return (now or dt.datetime.now().astimezone()).strftime("%Y-%m-%d")


def slug_for(project_dir: str) -> str:
    """Name of a project's folder: sanitised basename plus a hash of the absolute path.

    Args:
        project_dir: absolute path of the project directory.

    Returns:
        e.g. ``myapp-1a2b3c4d``; two folders called ``myapp`` never collide.
    """
    base = project_dir.rstrip("/").rsplit("/", 1)[-1]
    base = _UNSAFE_CHARS.sub("-", base)[:SLUG_BASENAME_MAX] or "root"
    digest = sha256(project_dir.encode("utf-8", "surrogateescape")).hexdigest()
    return f"{base}-{digest[:8]}"


def is_slug(name: str) -> bool:
    """Whether `name` is a well-formed project folder name (`slug_for`'s shape)."""
    return _SLUG.match(name) is not None


def project_slugs(root: Path) -> list[str]:
    """The slugs under ``<root>/projects/``, sorted ([] when it cannot be listed)."""
    try:
        return sorted(
            p.name for p in (root / PROJECTS_DIR).iterdir() if is_slug(p.name)
        )
    except OSError:
        return []


def check_slug(slug: str) -> str:
    """Return `slug` if it is a well-formed project folder name, else raise UnsafeNameError."""
    if not _SLUG.match(slug):
        raise UnsafeNameError(slug, "a project slug is <name>-<8 hex digits>")
    return slug


def check_name(name: str) -> str:
    """Return a note name if it cannot leave its folder, else raise UnsafeNameError.

    Spaces and any Unicode are fine; separators, `..`, NUL, control characters, line
    breaks and a leading dot (hidden files are ours: locks, temp files) are not.
    """
    name = name.removeprefix(f"{NOTES_DIR}/").removesuffix(".md")  # as `read` takes it
    if not name or not name.strip():
        raise UnsafeNameError(name, "empty name")
    for bad, why in (
        ("\x00", "NUL byte"),
        ("/", "path separator"),
        ("\\", "path separator"),
    ):
        if bad in name:
            raise UnsafeNameError(name, why)
    if name.startswith("."):
        raise UnsafeNameError(name, "names may not start with '.'")
    if any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in name):
        raise UnsafeNameError(name, "control character")
    if breaks_line(name):  # U+2028, U+2029: such a note is left out (`key_in`)
        raise UnsafeNameError(name, "line break")
    if any(c in _BIDI for c in name):
        # A right-to-left override makes "evil\u202egpj.md" read as "evilgpj.md"… backwards.
        raise UnsafeNameError(name, "bidirectional text control character")
    if len(name.encode("utf-8", "surrogatepass")) > 200:
        raise UnsafeNameError(name, "longer than 200 bytes")
    return name


def check_date(date: str) -> str:
    """Return `date` if it is a real YYYY-MM-DD date, else raise InvalidTargetError."""
    date = date.removesuffix(".md")
    if not _is_date(date):
        # "use daily/YYYY-MM-DD" misled one who typed 2026-02-30: it has that form.
        why = f"{date} is no day of the calendar" if _DATE.match(date) else None
        raise InvalidTargetError(f"daily/{date}", why)
    return date


def _is_date(text: str) -> bool:
    # YYYY-MM-DD naming a day that exists: not 2026-13-45 nor 2026-02-30.
    if not _DATE.match(text):
        return False
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def project_rel(slug: str) -> str:
    """Folder of one project, relative to the root."""
    return f"{PROJECTS_DIR}/{check_slug(slug)}"


def memory_file() -> Located:
    """The global MEMORY.md."""
    return Located("memory", MEMORY_FILE, "")


def scratchpad(slug: str) -> Located:
    """A project's scratchpad."""
    return Located("scratchpad", f"{project_rel(slug)}/{SCRATCHPAD_FILE}", "")


def daily(slug: str, date: str) -> Located:
    """A project's daily log for `date` (YYYY-MM-DD, local calendar day)."""
    date = check_date(date)
    return Located("daily", f"{project_rel(slug)}/{DAILY_DIR}/{date}.md", date)


def note(slug: str, name: str) -> Located:
    """A project's named note."""
    name = check_name(name)
    return Located("note", f"{project_rel(slug)}/{NOTES_DIR}/{name}.md", name)


def within(root: Path, target: str) -> str:
    """`target` relative to `root` when it is an absolute path inside it (a memory file as
    `ls` or an editor names it), else as typed: `locate` judges either."""
    t = target.strip()
    base = f"{str(root.absolute()).rstrip('/')}/"
    if not t.startswith(base) or ".." in t.split("/"):
        return target
    return t[len(base) :]


def locate(target: str, slug: str) -> Located:
    """Resolve what a person or model typed to a memory file.

    Args:
        target: ``MEMORY.md``, ``scratchpad``, ``daily/YYYY-MM-DD``, ``notes/NAME``, or a
            root-relative path as printed by search (``projects/<slug>/notes/x.md``).
        slug: the current project, for the short forms.

    Raises:
        UnsafeNameError: the name could leave the root.
        InvalidTargetError: the target names no kind of memory file.
    """
    if "\x00" in target:
        raise UnsafeNameError(target, "NUL byte")
    t = target.strip()
    if t.startswith(("/", "\\")) or (len(t) > 1 and t[1] == ":"):
        raise UnsafeNameError(target, "an absolute path outside the memory root")
    if t.lower() in ("memory.md", "memory"):
        return memory_file()
    if t.lower() in ("scratchpad", "scratchpad.md"):
        return scratchpad(slug)
    parts = t.split("/")
    if ".." in parts or "\\" in t:
        raise UnsafeNameError(target, "'..' or backslash in path")
    if parts[0] == PROJECTS_DIR and len(parts) >= 3:
        other, rest = parts[1], "/".join(parts[2:])
        if rest == SCRATCHPAD_FILE:
            return scratchpad(other)
        return locate(rest, other) if rest.count("/") == 1 else _bad(target)
    if len(parts) == 2 and parts[0] == DAILY_DIR:
        return daily(slug, parts[1])
    if len(parts) == 2 and parts[0] == NOTES_DIR:
        return note(slug, parts[1])
    return _bad(target)


def _bad(target: str) -> Located:
    raise InvalidTargetError(target)


def kind_of(rel: str) -> Located | None:
    """Classify a root-relative path found on disk; None for files that are not memory."""
    parts = rel.split("/")
    if rel == MEMORY_FILE:
        return memory_file()
    if len(parts) < 3 or parts[0] != PROJECTS_DIR or not _SLUG.match(parts[1]):
        return None
    if len(parts) == 3 and parts[2] == SCRATCHPAD_FILE:
        return Located("scratchpad", rel, "")
    if len(parts) != 4:
        return None
    return in_folder(parts[2], parts[3], rel)


def is_note(rel: str) -> bool:
    """Whether `rel`, the path of a memory file (one `kind_of` classifies), is a note's:
    only a note's path holds a notes folder. A substring test, for loops over thousands
    of files, where `kind_of` would cost a microsecond each."""
    return _IN_NOTES in rel


def in_folder(folder: str, name: str, rel: str) -> Located | None:
    """Classify file `name` of a project's ``daily`` or ``notes`` folder, at `rel`."""
    key = key_in(folder, name)
    if key is None:
        return None
    return Located("daily" if folder == DAILY_DIR else "note", rel, key)


#: What `str.splitlines` takes for the end of a line.
_LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


#: The copy a sync tool keeps of a file two machines changed: Dropbox's and Nextcloud's
#: "pool (conflicted copy 2026-12-01).md" (or "(Ana's conflicted copy …)"), Syncthing's
#: "pool.sync-conflict-20261201-101010-ABCDEFG.md".
_SYNC_COPY = re.compile(
    r"(.+?)(?: \([^()]*conflicted copy[^()]*\)|\.sync-conflict-\d{8}-\d{6}(?:-\w+)?)(\.md)"
)


def synced_copy_of(name: str) -> str | None:
    """The name of the file that the sync tool's conflict copy `name` was made of
    ("pool.md"), or None when `name` is no such copy."""
    m = _SYNC_COPY.fullmatch(name)
    return None if m is None else m[1] + m[2]


#: What `git mergetool` leaves beside a file it merges: the sides while it runs
#: ("pool_LOCAL_12345.md", BASE, REMOTE, BACKUP; left by one stopped), and after, the
#: file as it was before ("pool.md.orig": `mergetool.keepBackup`, on by default).
_MERGE_COPY = re.compile(r"(.+)_(?:BASE|LOCAL|REMOTE|BACKUP)_\d+(\.md)|(.+\.md)\.orig")


def merge_copy_of(name: str) -> str | None:
    """The name of the file that `git mergetool` made the file `name` of ("pool.md"),
    or None when `name` is no such file."""
    m = _MERGE_COPY.fullmatch(name)
    return None if m is None else m[3] or m[1] + m[2]


def breaks_line(name: str) -> bool:
    """Whether a file name holds a line break: such a note (made elsewhere, named
    "a\\n## MEMORY.md\\n…") would forge lines of the block and of search's output, so it
    is none (memhooks refuses such names)."""
    return not _LINE_BREAKS.isdisjoint(name)


def key_in(folder: str, name: str) -> str | None:
    """The date or note name of file `name` in a project's ``daily`` or ``notes``
    folder; None for a file that is not memory there.
    """
    if not name.endswith(".md") or name.startswith("."):
        return None
    stem = name[:-3]
    if folder == DAILY_DIR:
        return stem if _is_date(stem) else None
    if folder == NOTES_DIR and stem and not breaks_line(stem):
        return stem
    return None

"""`memhooks doctor`: check the memory root and the hook installation, say what to fix.

Every check returns findings — a level and one line naming the problem and the fix — and
only `cmd_doctor` prints them. Levels: ``ok``; ``warn`` (worth knowing, nothing broken);
``fix`` (broken or unsafe: the exit code is 1). The memory root is checked here (read
only: it is inspected, never written), each harness's settings in `hooks.harnesscheck` (our
hooks), `hooks.hooksoff` (what turns them off), `hooks.hookenv` (the root they get),
`hooks.sandboxcheck` and `shellcheck` (what the model's commands may write, and find),
`hooks.mcpcheck` (`memhooks mcp`) and `hooks.harnessversion` (a harness release too old).
"""

from __future__ import annotations

import collections
import os
import re
import shutil
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from memhooks.hooks.blockcmd import check_block
from memhooks.hooks.constants import EXIT_OK, EXIT_USER_ERROR, HARNESS_CONTEXT_LIMIT
from memhooks.hooks.errors import project_folder
from memhooks.hooks.gitcheck import check_tracked, check_waiting
from memhooks.hooks.harnesscheck import Finding, check_harness, installed, our_handlers
from memhooks.hooks.harnessversion import check_version, unsent_events, version_of
from memhooks.hooks.hookenv import claude_root
from memhooks.hooks.hooksoff import switched_off
from memhooks.hooks.mcpcheck import check_mcp
from memhooks.hooks.movedcheck import check_moved
from memhooks.hooks.shellcheck import codex_commands
from memhooks.hooks.startedcheck import started_in
from memhooks.memory import ConfigError, default_root, parse_config, project_dir
from memhooks.memory.constants import (
    BACKUP_SUFFIX,
    CONFIG_FILE,
    CONFLICT_MARK,
    DAILY_DIR,
    MEMORY_FILE,
    NOTES_DIR,
    PROJECTS_DIR,
    SCRATCHPAD_FILE,
)
from memhooks.memory.file_bytes import decode
from memhooks.memory.files import read_regular
from memhooks.memory.note_format import conflict_line
from memhooks.memory.paths import breaks_line, is_slug, key_in, synced_copy_of
from memhooks.memory.text import shell_word

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import TextIO

#: A memory file larger than this is read whole by every search: split it.
OVERSIZE_BYTES = 1024 * 1024
#: Less free space than this under the root: a day's records and an index may not fit.
_LOW_DISK_BYTES = 1024 * 1024
_TEMP = re.compile(r"\..+\.tmp")
#: Files a notes folder brought from Obsidian or a wiki holds beside its notes (not notes).
_ATTACHMENT = re.compile(
    r"\.(?:png|jpe?g|gif|svg|webp|bmp|ico|tiff?|pdf|mp[34]|wav|ogg|webm|mov|zip)$",
    re.IGNORECASE,
)


# -- the memory root ------------------------------------------------------------------


def _walk(root: Path) -> Iterator[tuple[str, os.DirEntry[str] | OSError]]:
    """(root-relative path, entry) of everything under the root that memhooks owns a
    say in, or (folder, why) for a folder that cannot be listed; hidden folders (session
    state, caches) are not entered.
    """
    queue = collections.deque([""])  # breadth first: the root's own entries first
    while queue:
        rel_dir = queue.popleft()
        try:
            entries = sorted(os.scandir(root / rel_dir), key=lambda e: e.name)
        except FileNotFoundError:
            continue
        except OSError as e:
            yield rel_dir, e
            continue
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            yield rel, entry
            if (
                entry.is_dir(follow_symlinks=False)
                and not entry.name.startswith(".")
                and rel.count("/") < 3
            ):
                queue.append(rel)


def _merge_copy(shown: str, name: str) -> Finding | None:
    from memhooks.memory.paths import merge_copy_of

    if (of := merge_copy_of(name)) is None:  # "pool_LOCAL_12345.md", "pool.md.orig"
        return None
    if name.endswith(".orig"):
        return Finding("warn", f"{shown}: git mergetool's copy of {of} as it was before "
                       f"the merge: never read; delete it once {of} is as it should be")  # fmt: skip
    return Finding("fix", f"{shown}: what git mergetool made of {of} while it runs, read "
                   "as a note; it removes it when done (left by one stopped: delete it)")  # fmt: skip


def _stray(rel: str, is_dir: bool) -> str | None:
    """Why `rel` is not a file memhooks reads, or None when it is (or is ours)."""
    parts = rel.split("/")
    name = parts[-1]
    if _TEMP.fullmatch(name):
        return "a temp file left by an interrupted write: delete it"
    base, mark, _ = name.partition(CONFLICT_MARK)
    if mark and base and not is_dir:  # `files.write_atomic` kept it
        return (
            f"an earlier save of {base}, kept when another program saved it twice while "
            f"memhooks wrote it: take what you need into {base}, then delete it"
        )
    if name.startswith("."):
        return None  # the lock, session state, caches
    if not is_dir and (name.endswith("~") or name[:1] == name[-1:] == "#"):
        return "an editor's backup: never searched or injected (it may stay)"
    if len(parts) == 1:
        ok_files = (MEMORY_FILE, MEMORY_FILE + BACKUP_SUFFIX, CONFIG_FILE)
        if (is_dir and name == PROJECTS_DIR) or (not is_dir and name in ok_files):
            return None
        return "not part of the memory layout: move it out of the root"
    if len(parts) == 2:
        if is_dir and is_slug(name):
            return None
        return "not a project folder (<name>-<8 hex digits>): never read"
    if len(parts) == 3:
        if is_dir and name in (DAILY_DIR, NOTES_DIR):
            return None
        if not is_dir and name in (SCRATCHPAD_FILE, SCRATCHPAD_FILE + BACKUP_SUFFIX):
            return None
        return "not part of a project's memory: never read"
    if is_dir:
        return "a folder here is never read: move its notes up one level"
    if parts[2] == DAILY_DIR and (
        key_in(DAILY_DIR, name) or name.endswith(".md" + BACKUP_SUFFIX)
    ):
        return None
    if parts[2] == NOTES_DIR and (
        key_in(NOTES_DIR, name) or name.endswith(".md" + BACKUP_SUFFIX)
    ):
        return None
    if breaks_line(name):
        return "a name with a line break: never searched or injected; rename it"
    if parts[2] == NOTES_DIR and _ATTACHMENT.search(name):
        return "an attachment, not a note: never searched or injected (it may stay)"
    what = "YYYY-MM-DD.md for a real date" if parts[2] == DAILY_DIR else "NAME.md"
    return f"not named {what}: never searched or injected; rename it"


def _shown(rel: str) -> str:
    # A path on one line of the report: a name made elsewhere may hold a line break.
    return rel if rel.isprintable() else rel.encode("unicode_escape").decode("ascii")


def _blocked(path: str, is_dir: bool) -> str | None:
    """What this user cannot do with a memory file or folder that memhooks must, with
    the fix; None when nothing (a search leaves out a file it cannot read, a write in a
    folder it cannot write fails)."""
    fix = shell_word(path)
    if is_dir:  # one that cannot be listed is named by `_walk`
        if os.access(path, os.R_OK | os.X_OK) and not os.access(path, os.W_OK):
            return f"is read-only to you: writes there fail; chmod u+w {fix}"
        return None
    if not os.access(path, os.R_OK):
        return f"cannot be read: never searched or injected; chmod u+r {fix}"
    return None


def _content(path: str) -> tuple[int | None, int | None]:
    """(line where a merge conflict left in it starts, first line not UTF-8), or Nones."""
    try:
        data = read_regular(path).data
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return conflict_line(decode(data)), data.count(b"\n", 0, e.start) + 1
    except OSError:
        return None, None
    return conflict_line(decode(data)), None


def _not_a_file(path: str) -> str | None:
    """Why a memory file's name holds no file to read (search and injection leave it out
    without a word: a FIFO, socket or device, or a link in a loop), or None."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        why = e.strerror or str(e)
    else:
        if stat.S_ISREG(mode):
            return None
        why = "not a regular file: a FIFO, socket or device"
    return f"cannot be read ({why}): never searched or injected; remove it"


def check_root(root: Path, *, config_text: str | None) -> list[Finding]:
    """Permissions, stray and oversize files, files the budget can never hold, config."""
    if not root.exists():
        return [
            Finding(
                "warn",
                f"memory root {root} does not exist yet (made on the first write)",
            )
        ]
    found: list[Finding] = []
    st = root.stat()
    if st.st_uid != os.getuid():
        found.append(
            Finding("fix", f"memory root {root} belongs to another user: chown it")
        )
    if stat.S_IMODE(st.st_mode) & 0o077:
        found.append(
            Finding(
                "fix",
                f"memory root {root} is open to other users: "
                f"chmod 700 {shell_word(root)}",
            )
        )
    if blocked := _blocked(str(root), True):
        found.append(Finding("fix", f"memory root {root} {blocked}"))
    disk = os.statvfs(root)
    if (free := disk.f_bavail * disk.f_frsize) < _LOW_DISK_BYTES:
        found.append(Finding("fix", f"memory root {root}: its disk has {free // 1024} KiB "
                     "free: writes and the hooks' records fail; free some space"))  # fmt: skip
    open_files: list[str] = []
    budget = 0
    try:
        budget = parse_config(config_text, str(root / CONFIG_FILE)).inject.budget
        if config_text is not None:
            found.append(Finding("ok", f"{CONFIG_FILE} is valid"))
    except ConfigError as e:
        found.append(Finding("fix", f"{e}"))
    inside = os.path.realpath(root)
    for rel, entry in _walk(root):
        if isinstance(entry, OSError):
            found.append(
                Finding("fix", f"{_shown(rel or '.')}/ cannot be read "
                        f"({entry.strerror or entry}): its files are never searched "
                        f"or injected; chmod u+rwx {shell_word(root / rel)}")
            )  # fmt: skip
            continue
        if entry.name.startswith(".#") and entry.is_symlink():
            continue  # Emacs's lock on a file it has unsaved changes to: it removes it
        is_dir = entry.is_dir(follow_symlinks=False)
        if (of := synced_copy_of(entry.name)) and not is_dir:
            found.append(Finding("fix", f"{_shown(rel)}: a sync tool's copy of {of}, which "
                         f"two machines changed: merge it into {of}, then delete it"))  # fmt: skip
            continue
        if not is_dir and (left := _merge_copy(_shown(rel), entry.name)):
            found.append(left)
            continue
        if why := _stray(rel, is_dir):
            found.append(
                Finding("warn", f"{_shown(rel)}{'/' if is_dir else ''}: {why}")
            )
            continue
        try:
            est = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        shown = _shown(rel)
        if stat.S_IMODE(est.st_mode) & 0o077 and not entry.is_symlink():
            open_files.append(shown)
        if not entry.is_symlink() and (blocked := _blocked(entry.path, is_dir)):
            found.append(Finding("fix", f"{shown}{'/' if is_dir else ''} {blocked}"))
        if is_dir or not rel.endswith(".md"):
            continue
        real = os.path.realpath(entry.path) if entry.is_symlink() else inside
        if os.path.commonpath([inside, real]) != inside:
            found.append(
                Finding("fix", f"{shown} links outside the memory root (to "
                        f"{_shown(real)}): never searched or injected; move the file "
                        "into the root")
            )  # fmt: skip
            continue
        if unreadable := _not_a_file(entry.path):
            found.append(Finding("fix", f"{shown} {unreadable}"))
            continue
        at, bad = (None, None) if est.st_size > OVERSIZE_BYTES else _content(entry.path)
        if est.st_size > OVERSIZE_BYTES:
            found.append(Finding("fix", f"{shown} is {est.st_size / 1024 / 1024:.1f} MB: "
                         "every search reads it whole and `read` shows 64 KiB of it; "
                         "split it into notes"))  # fmt: skip
        elif at:
            found.append(
                Finding("fix", f"{shown}:{at}: an unresolved git merge conflict "
                        "(<<<<<<< … >>>>>>>): both sides are injected and searched as "
                        "they stand; keep what is right and delete the marker lines")
            )  # fmt: skip
        if bad:
            found.append(
                Finding("warn", f"{shown}:{bad}: not UTF-8 (Latin-1?): its words "
                        "with accents are never found; save it as UTF-8")
            )  # fmt: skip
        if rel == MEMORY_FILE and budget and est.st_size > budget:
            found.append(Finding("fix", f"{rel} is {est.st_size} bytes, more than the "
                         f"injection budget ({budget}): its end is never injected; "
                         "move detail into notes"))  # fmt: skip
        elif rel == MEMORY_FILE and est.st_size > HARNESS_CONTEXT_LIMIT:
            found.append(Finding("warn", f"{rel} is {est.st_size} bytes: Claude Code, "
                         f"Codex and Gemini CLI replies hold {HARNESS_CONTEXT_LIMIT}, so "
                         "it is cut there"))  # fmt: skip
    if open_files:
        # Behind an owner-only root no one else reaches them (a config.toml or a note
        # made in an editor, with the usual umask): worth tightening, nothing to fix.
        n = len(open_files)
        closed = not stat.S_IMODE(st.st_mode) & 0o077
        found.append(
            Finding(
                "warn" if closed else "fix",
                f"{n} item{'s' if n != 1 else ''} open to other users (e.g. "
                f"{open_files[0]}{', behind the owner-only root' if closed else ''}): "
                f"chmod -R go-rwx {shell_word(root)}",
            )
        )
    if not any(f.level == "fix" for f in found):
        ok = Finding("ok", f"memory root {root}: owner-only, layout as expected")
        found.insert(0, ok)
    return found


def run_checks(
    root: Path,
    project: Path,
    home: Path,
    *,
    config_text: str | None,
    which: Callable[[str], str | None] = shutil.which,
    here: Path | None = None,
) -> list[Finding]:
    """Every check, in report order; `here`: where the harnesses would be started."""
    found = check_root(root, config_text=config_text) + check_moved(root, project)
    found += check_tracked(root) + check_waiting(root)
    found += check_block(root, project, config_text)
    for harness in ("claude-code", "codex", "gemini"):
        ours = our_handlers(harness, project, home)
        version = version_of(harness, which) if ours else None
        unsent = unsent_events(harness, version)
        found += check_harness(harness, project, home, which, unsent=unsent)
        found += check_version(harness, version)
        found += switched_off(harness, project, home)
        start = started_in(harness, here, project, home, version) if here else None
        found += [start] if start else []
        own = {"claude-code": claude_root, "codex": codex_commands}.get(harness)
        found += own(root, project, home) if own else []
    if not installed(project, home):
        hint = "`memhooks install claude-code` (or codex, or gemini) there"
        found.append(Finding("warn", f"no hooks installed for {project}: run {hint}"))
    return found + check_mcp(project, home, which)


def summary(findings: list[Finding]) -> str:
    """The last line: ``doctor: healthy`` or how many problems and warnings."""
    fixes = sum(f.level == "fix" for f in findings)
    warns = sum(f.level == "warn" for f in findings)
    w = f"{warns} warning{'s' if warns != 1 else ''}"
    if not fixes:
        return "doctor: healthy" + (f" ({w})" if warns else "")
    return f"doctor: {fixes} problem{'s' if fixes != 1 else ''} to fix" + (
        f", {w}" if warns else ""
    )


def cmd_doctor(root_dir: str | None, project_arg: str | None, out: TextIO) -> int:
    """`memhooks doctor`: one line per finding, a summary; exit 1 if anything needs fixing."""
    root = default_root(root_dir)
    here = project_folder(project_arg)
    project = project_dir(here)
    unreadable: list[Finding] = []
    try:
        # Not read_text: a FIFO there would block, /dev/zero fill the memory.
        config_text: str | None = read_regular(root / CONFIG_FILE).data.decode("utf-8")
    except FileNotFoundError:
        config_text = None
    except (OSError, ValueError) as e:
        config_text = None
        unreadable.append(Finding("fix", f"{CONFIG_FILE} cannot be read: {e}"))
    findings = unreadable + run_checks(
        root, project, Path.home(), config_text=config_text, here=here
    )
    out.write("".join(f"{f.level}: {f.message}\n" for f in findings))
    out.write(summary(findings) + "\n")
    return EXIT_USER_ERROR if any(f.level == "fix" for f in findings) else EXIT_OK


__all__ = [
    "Finding",
    "check_harness",
    "check_mcp",
    "check_root",
    "cmd_doctor",
    "run_checks",
    "summary",
]

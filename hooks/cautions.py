"""What a writer is told after a write or an edit, on stderr or in the MCP tool's reply:
lines dropped as repeats, secrets stored as given, a forgotten note, a merge conflict left
in the file, or a merge or rebase the root's git stands in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhooks.hooks.modelshell import shell_prog
from memhooks.memory.merging import git_waits
from memhooks.memory.note_format import conflict_line, note_forgotten
from memhooks.memory.paths import is_note

if TYPE_CHECKING:
    from memhooks.memory import Store, WriteResult


def write_warnings(
    store: Store,
    result: WriteResult,
    text: str,
    *,
    title: str | None = None,
    aliases: str | None = None,
) -> list[str]:
    """What a writer should be told after a write: lines dropped, secrets, a forgotten
    note, a merge conflict left in the file."""
    notes = [f"dropped, already in {result.rel}: {ln.strip()}" for ln in result.dropped]
    notes += secret_warnings(result.rel, title, aliases, text)
    # Only a note's name is typed by the writer; the others are fixed or dated.
    if is_note(result.rel) and (kinds := _secret_kinds(result.rel.rsplit("/", 1)[-1])):
        notes.append(
            f"warning: the name of {result.rel} may hold a secret ({kinds}); "
            "stored as given: rename the file"
        )
    now = store.read_text(result.rel)
    if is_note(result.rel) and note_forgotten(now.split("\n")):
        notes.append(
            f"warning: {result.rel} is forgotten, so search will not find this; "
            f"`{shell_prog()} restore {result.rel}` brings it back"
        )
    if at := conflict_line(now):
        notes.append(
            f"warning: {result.rel}:{at}: an unresolved git merge conflict: keep what "
            "is right and delete the marker lines"
        )
    elif what := git_waits(store.root):
        op = what.split()[-1]  # "merge", "rebase", "cherry-pick", "revert"
        does = (
            "would drop this write" if op == "rebase" else "may refuse while it stands"
        )
        notes.append(
            f"warning: the memory root's git is in {what}: `git {op} --abort` {does};"
            f" finish the {op} to keep it (`git {op} --continue`)"
        )
    return notes


def secret_warnings(rel: str, *texts: str | None) -> list[str]:
    """Explicit writes and edits are stored as given (only automatic records are
    redacted), so a secret in them is named to the writer."""
    if not (what := _secret_kinds("\n".join(filter(None, texts)))):
        return []
    note = f"warning: {rel} may hold a secret ({what}); stored as given, remove it with"
    return [f"{note} `{shell_prog()} edit`"]


def _secret_kinds(text: str) -> str:
    """The kinds of secret `text` may hold, comma-separated ("" for none)."""
    from memhooks.memory.redact import find_secrets  # a search needs none of it

    return ", ".join(find_secrets(text))


__all__ = ["secret_warnings", "write_warnings"]

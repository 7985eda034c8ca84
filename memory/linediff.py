"""What changed between two texts, line by line: the lines removed and the lines added,
the unchanged ones left out. The change notice tells a model so what changed in a file
it holds whole (`hooks.notice`). Pure.
"""

from __future__ import annotations

from typing import NamedTuple


class LineDiff(NamedTuple):
    """How many lines went and came, and the lines themselves, each marked."""

    removed: int
    added: int
    #: ``-`` before each line removed and ``+`` before each line added, in the order of
    #: the texts (a hunk's removed lines before its added ones); "" for no change.
    #: Blank lines are left out.
    text: str


def line_diff(old: str, new: str) -> LineDiff:
    """The lines of `new` not in `old` and of `old` not in `new`, as `diff` pairs them;
    blank ones are left out (and not counted): they change nothing a model reads.

    Args:
        old: the text as it was.
        new: the text as it is.

    Returns:
        The counts and the marked lines.
    """
    import difflib  # only when a held file changed: not for every hook

    a, b = old.split("\n"), new.split("\n")
    out: list[str] = []
    removed = added = 0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        gone = [f"-{line}" for line in a[i1:i2] if line.strip()]
        came = [f"+{line}" for line in b[j1:j2] if line.strip()]
        out += gone + came
        removed, added = removed + len(gone), added + len(came)
    return LineDiff(removed, added, "\n".join(out))

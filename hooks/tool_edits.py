"""An edit of a file as a harness's file tool states it, and the text it leaves: Gemini
CLI 0.61.0's `replace` and `write_file` (`gemini_edit`), Codex CLI 0.171.0's
`apply_patch` (`parse_patch`), each replayed exactly as the CLI applies it, or not at all
(`replay`). Pure: text in, text out (`replayed_edits` reads the calls off the
transcripts and says what the model knows of a memory file).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Sequence


class Hunk(NamedTuple):
    """One `@@` chunk of an apply_patch Update File: the line it comes after (its
    header's, or None), the lines it replaces and those it puts there."""

    anchor: str | None
    old: tuple[str, ...]
    new: tuple[str, ...]
    at_end: bool


class Edit(NamedTuple):
    """One edit that succeeded: `text` the whole file (a write, an Add File), or `old`
    replaced by `new` (`multiple`: each time it occurs), or `hunks` applied; with
    `exact` False, one that cannot be replayed."""

    text: str | None = None
    old: str = ""
    new: str = ""
    multiple: bool = False
    hunks: tuple[Hunk, ...] = ()
    exact: bool = True


def replay(shown: str | None, edits: Sequence[Edit]) -> tuple[str, bool] | None:
    """The file as `edits` leave it, from `shown` (what the model was shown of it, as
    `held.shown`; None: nothing), and whether it is raw (a write's text, to compare
    with the file's bytes) or as shown; None when it cannot be replayed exactly."""
    writes = [i for i, e in enumerate(edits) if e.text is not None]
    start = writes[-1] if writes else -1
    text = shown if start < 0 else edits[start].text
    for edit in edits[start + 1 :]:
        if text is None or not edit.exact:
            return None
        text = _replace(text, edit) if not edit.hunks else _patched(text, edit.hunks)
    return None if text is None else (text, start >= 0)


def _replace(text: str, edit: Edit) -> str | None:
    # Gemini CLI's exact replacement (`calculateExactReplacement`): the old text once,
    # or each time with `allow_multiple`; the file's final newline kept as it was.
    old, new = edit.old.replace("\r\n", "\n"), edit.new.replace("\r\n", "\n")
    count = text.count(old) if old else 0
    if count == 0 or (count > 1 and not edit.multiple):
        return None
    out = text.replace(old, new)
    if text.endswith("\n") and not out.endswith("\n"):
        out += "\n"
    elif not text.endswith("\n") and out.endswith("\n"):
        out = out[:-1]
    return out


def _patched(text: str, hunks: Sequence[Hunk]) -> str | None:
    # Codex's Update File, its chunks matched exactly, in order, each after the last
    # (Codex also matches ignoring trailing or all spaces: not replayed here).
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    at = 0
    for hunk in hunks:
        if hunk.anchor is not None:
            found = _find(lines, (hunk.anchor,), at, False)
            if found is None:
                return None
            at = found + 1
        if not hunk.old:
            lines[len(lines) :] = hunk.new
            at = len(lines)
            continue
        found = _find(lines, hunk.old, at, hunk.at_end)
        if found is None:
            return None
        lines[found : found + len(hunk.old)] = hunk.new
        at = found + len(hunk.new)
    return "\n".join(lines) + "\n"


def _find(lines: list[str], seek: Sequence[str], at: int, at_end: bool) -> int | None:
    n = len(seek)
    if at_end and len(lines) - n >= at and lines[len(lines) - n :] == list(seek):
        return len(lines) - n
    return next(
        (i for i in range(at, len(lines) - n + 1) if lines[i : i + n] == list(seek)),
        None,
    )


def gemini_edit(name: object, args: dict[object, object]) -> Edit | None:
    """The edit of a Gemini CLI call (`name`, its `args`): None for no file edit."""
    if name == "write_file":
        text = args.get("content")
        return Edit(text=text) if isinstance(text, str) else Edit(exact=False)
    if name not in ("replace", "edit"):
        return None
    old, new = args.get("old_string"), args.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str):
        return Edit(exact=False)
    expected = args.get("expected_replacements")
    multiple = args.get("allow_multiple") is True or (
        isinstance(expected, int) and expected > 1
    )
    return Edit(old=old, new=new, multiple=multiple)


def parse_patch(text: str) -> list[tuple[str, Edit]]:
    """The files an apply_patch patch writes, each with its edit (an Add File's text,
    an Update File's hunks; a move or a delete: not replayable)."""
    out: list[tuple[str, Edit]] = []
    lines = text.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        for head in ("*** Add File: ", "*** Update File: ", "*** Delete File: "):
            if line.startswith(head):
                body = []
                while i < len(lines) and not lines[i].startswith("*** "):
                    body.append(lines[i])
                    i += 1
                if head == "*** Update File: " and i < len(lines):
                    moved = lines[i].startswith("*** Move to: ")
                else:
                    moved = False
                name = line.removeprefix(head).strip()
                out.append((name, _file_edit(head, body, lines, i, moved)))
    return out


def _file_edit(
    head: str, body: list[str], lines: list[str], i: int, moved: bool
) -> Edit:
    if head == "*** Add File: ":
        if not all(ln.startswith("+") for ln in body if ln):
            return Edit(exact=False)
        added = [ln[1:] for ln in body]
        while added and added[-1] == "" and body and body[-1] == "":
            added.pop()
            body.pop()
        return Edit(text="".join(f"{ln}\n" for ln in added))
    if head != "*** Update File: " or moved:
        return Edit(exact=False)
    at_end = i < len(lines) and lines[i] == "*** End of File"
    hunks: list[Hunk] = []
    for ln in body:
        if ln.startswith("@@"):
            anchor = ln[2:].strip() or None
            hunks.append(Hunk(anchor, (), (), False))
            continue
        if not hunks:
            hunks.append(Hunk(None, (), (), False))
        h = hunks[-1]
        mark, rest = (ln[:1], ln[1:]) if ln else (" ", "")
        if mark not in " -+":
            return Edit(exact=False)
        old = h.old + ((rest,) if mark in " -" else ())
        new = h.new + ((rest,) if mark in " +" else ())
        hunks[-1] = h._replace(old=old, new=new)
    if hunks:
        hunks[-1] = hunks[-1]._replace(at_end=at_end)
    return Edit(hunks=tuple(hunks))

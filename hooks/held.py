"""What the model was shown of each file its session's block held whole, kept beside the
session's state so that the change notice can tell what changed in it (`notice`).

The state file is read and written on every event and stays small; this one is written
when a block is built and read only when a notice concerns a file held whole. It is
named by `state.held_rel` and removed with the state (`state.delete`, `stale.sweep`).
Each text is the file as the block renders it, without its ``<private>`` blocks: a
notice shows no more than that.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from memhooks.hooks.state import held_rel
from memhooks.memory.errors import MemoryStoreError
from memhooks.memory.files import private_folder, read_regular, write_atomic
from memhooks.memory.inject import body
from memhooks.memory.lazylog import getLogger
from memhooks.memory.paths import memory_file, scratchpad
from memhooks.memory.private import has_private, strip_private
from memhooks.memory.text import neutralise

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

    from memhooks.memory import Doc, Store

logger = getLogger(__name__)

#: A line of the block's index of notes (`inject.index_line`): the note's file name.
INDEX_NAME = re.compile(r"^- notes/(.+?\.md)(?: — |$)", re.MULTILINE)


def whole_in(doc: Doc, text: str) -> bool:
    """Whether `text` (a block, or all a resumed conversation holds of ours) shows `doc`
    whole, as a block shows it (`inject.body`): each open item of a scratchpad (alone:
    they may have come in different blocks), another file's text."""
    if doc.kind == "scratchpad":
        return all(neutralise(ln) in text for ln in body(doc).split("\n"))
    return neutralise(body(doc)) in text


def shown(doc: Doc) -> str:
    """The text of `doc` a notice compares: as the block shows it, private blocks out."""
    return visible(body(doc))


def none_shown(
    store: Store, docs: Mapping[str, Doc], whole: Collection[str]
) -> dict[str, str]:
    """MEMORY.md and the project's scratchpad, when a block built from `docs` showed no
    line of them (no such file, or a blank one; `whole`: the files it held whole), each
    with the text "": the lines a person then writes in them are told as added."""
    out: dict[str, str] = {}
    for rel in (memory_file().rel, scratchpad(store.slug).rel):
        doc = docs.get(rel)
        blank = not doc.text.strip() if doc else not (store.root / rel).exists()
        if blank and rel not in whole:
            out[rel] = ""
    return out


def visible(text: str) -> str:
    """`text` (a file's `inject.body`, or its section in a block) as a notice compares it:
    neutralised, private blocks out."""
    if has_private(text):
        text = strip_private(text)
    return neutralise(text)


def keep(store: Store, session_id: str, texts: Mapping[str, str]) -> None:
    """Write what the model holds of each file (path → `shown` text); on a refusal of
    the disk, the notice names those files, as it does without this file."""
    try:
        path = store.path(held_rel(session_id))
        private_folder(path.parent, gitignore=True)
        if path.is_symlink():
            raise OSError(0, "a symlink; refusing to replace it")
        data = json.dumps(dict(texts), ensure_ascii=False).encode("utf-8", "replace")
        write_atomic(path, data, durable=False)
    except (OSError, MemoryStoreError) as e:
        logger.info("the text the block showed not kept: %s", e)


def load(store: Store, session_id: str) -> dict[str, str]:
    """What `keep` wrote: path → text; {} when the file is missing or damaged."""
    try:
        raw = read_regular(store.path(held_rel(session_id))).data
        data = json.loads(raw)
    except (OSError, MemoryStoreError, ValueError, RecursionError) as e:
        logger.info("the text the block showed not read: %s", e)
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, str)}

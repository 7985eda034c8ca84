"""What a Gemini CLI chat file holds as its model's history, beyond the turns a digest
reads (`hooks.transcript_shapes`): what Gemini CLI sends the model again when it resumes
the file, and whether a process set another history there (a checkpoint loaded, a
rewind, a compression), which no hook event tells.

Read off the files Gemini CLI 0.61.0 wrote (tests/data/harness/gemini/) and its code
(`loadConversationRecord`, `convertSessionToClientHistory`, `GeminiChat.setHistory`);
the format is undocumented, so every accessor checks types and skips the rest.
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING

from memhooks.hooks.transcript_shapes import SESSION_CONTEXT, SNAPSHOT, dicts_in, str_at
from memhooks.memory.files import open_regular, read_regular

if TYPE_CHECKING:
    from pathlib import Path


#: What a user message's text starts with when Gemini CLI leaves it out of a resumed
#: history (`isIgnoredUserContent`): the TUI's SessionStart context, the first prompt of
#: `gemini -p` (the SessionStart context put before it), its own workspace message, and
#: slash and `?` commands.
_NOT_REPLAYED = ("<hook_context>", SESSION_CONTEXT, "/", "?")


def gemini_replay(path: Path, *, max_bytes: int = 64 * 1024 * 1024) -> list[str]:
    """The user messages Gemini CLI sends the model again when it resumes the chat file
    at `path`, each its parts' text joined, as Gemini CLI 0.61.0 rebuilds the history
    (`loadConversationRecord`, `convertSessionToClientHistory`): records by id in the
    order first seen, a `$set` of `messages` replacing them all, a `$rewindTo` dropping
    that record and the ones after it; a user message whose text starts with one of
    `_NOT_REPLAYED` is left out whole, unless the last `$set` holds it: that is the
    history a running Gemini set (`GeminiChat.setHistory`), as its model has it, the
    resumed one already rebuilt so, and `/chat resume`'s checkpoint whose first message
    holds the workspace's context and the SessionStart block (`<session_context>…`). A
    hook's context that came after a prompt (a BeforeAgent reply) is replayed with it.
    Not a regular file, or over `max_bytes`: []."""
    records: dict[str, dict[object, object]] = {}
    held: set[str] = set()  # the ids of the last `$set`'s messages
    try:
        read = read_regular(path, max_bytes)
    except OSError:  # gone, or no regular file (a FIFO is not waited for)
        return []
    if read.size > max_bytes:
        return []
    for line in read.data.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        if (rewind := str_at(obj, "$rewindTo")) is not None:
            ids = list(records)
            for gone in ids[ids.index(rewind) :] if rewind in records else ids:
                del records[gone]
        elif (key := str_at(obj, "id")) is not None:
            records[key] = obj
        elif isinstance(rewrite := obj.get("$set"), dict) and isinstance(
            rewrite.get("messages"), list
        ):
            records = {}
            for message in dicts_in(rewrite["messages"]):
                if (k := str_at(message, "id")) is not None:
                    records[k] = message
            held = set(records)
    out = []
    for key, record in records.items():
        if record.get("type") != "user":
            continue
        content = record.get("content")
        text = (
            content
            if isinstance(content, str)
            else "".join(str_at(p, "text") or "[part]" for p in dicts_in(content))
        )
        if text.strip() and (key in held or not text.strip().startswith(_NOT_REPLAYED)):
            out.append(text)
    return out


#: How a line of a Gemini chat file starts when it is the header a process writes as it
#: starts on the file, and when it sets the history (Gemini CLI 0.61.0 writes their keys
#: in this order).
_HEADER = re.compile(rb'\{\s*"sessionId"\s*:')
_HISTORY_SET = re.compile(rb'\{\s*"\$set"\s*:\s*\{\s*"messages"\s*:')
#: A line that cuts the history back (`/rewind`): no `$set` follows when none is left.
_REWOUND = re.compile(rb'\{\s*"\$rewindTo"\s*:')
#: A message record (`{"id": …`): what a process writes once it has started.
_RECORD = re.compile(rb'\{\s*"id"\s*:')


def gemini_compresses(line: bytes) -> bool:
    """Whether a line of a Gemini chat file sets the history to a compressed one (its
    `$set` holds the compression's summary)."""
    return b'"$set"' in line and SNAPSHOT.encode() in line


def gemini_history_set(path: Path, offset: int) -> bool:
    """Whether the Gemini process writing the chat file at `path` set another history
    there after `offset`, not by compressing it: `/chat resume` loads a checkpoint, and
    `/rewind` cuts it back (a `$rewindTo`, then a `$set` of what is left, or none when
    nothing is: rewound to before the first prompt, the block went too), which no hook
    event tells. A header after `offset` is another process's start (`gemini --resume`
    beside it), whose history its own model does not hold: False. With `offset` -1:
    since the last header, past the histories that start set before it wrote a record
    (its own, a resumed chat's): `/chat resume` before a fresh TUI's first prompt."""
    found, start = False, offset < 0  # `start`: no record since the header yet
    try:
        with os.fdopen(open_regular(path), "rb") as f:
            f.seek(max(offset, 0))
            for line in f:
                if _HEADER.match(line):
                    if offset >= 0:
                        return False
                    found, start = False, True
                    continue
                start = start and _RECORD.match(line) is None
                if start:
                    continue
                found = found or _REWOUND.match(line) is not None
                found = found or (
                    _HISTORY_SET.match(line) is not None and not gemini_compresses(line)
                )
    except OSError:
        return False
    return found

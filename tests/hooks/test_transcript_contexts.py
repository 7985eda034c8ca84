"""Our contexts in a Claude Code 2.1.332 transcript, each once: its attachment keeps a
hook's context twice (the second as the model got it), and a request's copy is kept in
a line of its own."""

from __future__ import annotations

import json

from memhooks.hooks.transcript_contexts import contexts_in
from memhooks.memory.constants import WRAPPER_OPEN

NOTICE = f"{WRAPPER_OPEN}\nMemory changed on disk since this session's block was built"


def test_a_context_kept_twice_in_its_attachment_is_taken_once() -> None:
    attachment = {
        "type": "attachment",
        "attachment": {"type": "hook_additional_context", "content": [NOTICE]},
        "rendered": [{"content": f"<system-reminder>\nUserPromptSubmit: {NOTICE}"}],
    }
    assert contexts_in([json.dumps(attachment).encode()]) == [NOTICE]


def test_a_requests_copy_is_left_out() -> None:
    blob = {"type": "api-request-blob", "message": {"content": [{"text": NOTICE}]}}
    assert contexts_in([json.dumps(blob).encode()]) == []


def test_the_same_notice_told_twice_counts_twice() -> None:
    # A rule changed back and changed again is told with the same text: two entries.
    line = json.dumps({"type": "attachment", "content": [NOTICE]}).encode()
    assert contexts_in([line, line]) == [NOTICE, NOTICE]

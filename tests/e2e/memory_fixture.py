"""The memory every end-to-end scenario starts with, and what the model must get from it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.e2e.modellog import Request
    from tests.e2e.sandbox import Sandbox

#: A MEMORY.md rule: it must reach the model in the SessionStart block.
RULE = "- Name every migration after a bird (rule ZEBRA-42)."
#: A note whose first line (what the block's note index shows) is generic, while its
#: second line holds the fact: the fact reaches the model only through auto-search.
NOTE = "# Staging database\nThe kestrel staging database listens on port 7431 behind the wombat proxy."
FACT = "port 7431 behind the wombat proxy"
#: A prompt that needs the note
# (no "?": Gemini's TUI takes it as the shortcut-help key)
ASK = "Tell me which port the kestrel staging database uses behind the wombat proxy."
#: A MEMORY.md line added on disk between two prompts of one session.
EDIT = "- Deploys go out on Thursdays (rule OTTER-7)."
AFTER_EDIT = "Remind me when our deploys go out."
CHANGE_NOTICE = "Memory changed on disk since this session's block was built: MEMORY.md"
BLOCK_OPEN = '<memory note="'
#: Asked after a compaction: the block must be back in what the model gets.
AFTER_COMPACT = "Pick the next task after the compaction."
#: Asked in a resumed conversation.
RESUME = "Please continue where we left off."


def seed(sb: Sandbox) -> None:
    """Write the rule and the note the way a user would, with `memhooks write`."""
    sb.memhooks("write", "--to", "memory", "--text", RULE)
    sb.memhooks("write", "--to", "note", "--name", "staging-db", "--text", NOTE)


def edit_on_disk(sb: Sandbox) -> None:
    """Append to MEMORY.md as an editor would, behind memhooks' back."""
    path = sb.root / "MEMORY.md"
    path.write_text(path.read_text().rstrip("\n") + "\n" + EDIT + "\n")


def blocks_in(request: Request) -> int:
    """How many memory blocks (with the rule) the model has in this request: its
    MEMORY.md section, not an auto-search hit on MEMORY.md that shows the rule too."""
    return request.text.count(f"## MEMORY.md\n{RULE}")

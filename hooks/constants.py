"""Exit codes and names of the `memhooks` command (listed in the README)."""

from __future__ import annotations

from typing import Final

EXIT_OK: Final = 0
#: Bad input from a person or model: unknown target, refused name, not-unique edit, bad config.
EXIT_USER_ERROR: Final = 1
#: A bug or an unexpected failure (never 2: in Claude Code exit 2 blocks the user's prompt).
EXIT_INTERNAL_ERROR: Final = 3
EXIT_INTERRUPTED: Final = 130

PROG: Final = "memhooks"

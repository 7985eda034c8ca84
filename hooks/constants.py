"""Exit codes and names of the `memhooks` command (listed in the README)."""

from __future__ import annotations

from typing import Final

EXIT_OK: Final = 0
#: `memhooks search` found nothing (as grep and ripgrep exit 1).
EXIT_NOT_FOUND: Final = 1
#: Bad input from a person or model: unknown target, refused name, not-unique edit, bad config.
EXIT_USER_ERROR: Final = 1
#: A bug or an unexpected failure (never 2: in Claude Code exit 2 blocks the user's prompt).
EXIT_INTERNAL_ERROR: Final = 3
#: `memhooks search` only, as grep: an error (bad arguments, a root that does not exist).
EXIT_SEARCH_ERROR: Final = 2
EXIT_INTERRUPTED: Final = 130

PROG: Final = "memhooks"
#: The most text `memhooks write` takes from stdin, in characters (`yes | memhooks write`
#: would fill memory): 64 Mi.
WRITE_STDIN_MAX: Final = 64 << 20
#: Claude Code shows the model only a ~2 KB preview of hook output over 10,000 characters;
#: a byte budget below that keeps every character count under it (a character is ≥ 1 byte).
#: Every Claude Code, Codex and Gemini CLI reply is built within it.
HARNESS_CONTEXT_LIMIT: Final = 9000
#: The most an error's one line takes (`memory.text.abridge`): it may quote an argument.
ERROR_MAX_BYTES: Final = 1000
#: The dialects `--harness` accepts.
HARNESSES: Final = ("claude-code", "codex", "gemini", "generic")

#: Set to 0 (or false, no, off) to keep hook commands from starting a session process
#: (every hook then runs in-process).
ENV_SESSION_PROCESS: Final = "MEMHOOKS_SESSION_PROCESS"
#: auto, on or off: overrides ``[search] semantic`` of config.toml (a command's --semantic wins).
ENV_SEMANTIC: Final = "MEMHOOKS_SEMANTIC"

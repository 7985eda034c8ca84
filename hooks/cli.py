"""The `memhooks` command: the one module that touches argv, stdin, stdout and exit codes."""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import NoReturn, TextIO

from hooks import commands, demo
from hooks.constants import (
    EXIT_INTERNAL_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USER_ERROR,
    PROG,
)
from hooks.errors import HookError, UsageError
from memory import MemoryStoreError

logger = logging.getLogger(__name__)

Command = Callable[[argparse.Namespace, TextIO, TextIO], int]


class _Parser(argparse.ArgumentParser):
    # argparse exits 2 on bad arguments; in Claude Code exit 2 blocks the user's prompt.
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def _parser() -> _Parser:
    common = _Parser(add_help=False)
    common.add_argument(
        "--root",
        help="memory root (default: $MEMHOOKS_HOME, $XDG_DATA_HOME/memhooks, ~/.local/share/memhooks)",
    )
    where = common.add_mutually_exclusive_group()
    where.add_argument(
        "--project", help="project directory (default: the current directory)"
    )
    where.add_argument("--slug", help="project folder under projects/, named directly")

    p = _Parser(
        prog=PROG,
        description="File-based memory for coding agents, driven by lifecycle hooks.",
    )
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser(
        "search", parents=[common], help="find which memory files mention the terms"
    )
    s.add_argument("terms", nargs="+", metavar="TERM")
    s.add_argument("--json", action="store_true")
    s.add_argument("--budget", type=int, metavar="BYTES")

    r = sub.add_parser(
        "read", parents=[common], help="print one memory file whole (capped)"
    )
    r.add_argument(
        "target",
        help="MEMORY.md, scratchpad, daily/YYYY-MM-DD, notes/NAME or a path from search",
    )
    r.add_argument("--cap", type=int, metavar="BYTES")
    r.add_argument("--json", action="store_true")

    w = sub.add_parser(
        "write",
        parents=[common],
        help="write to MEMORY.md, the scratchpad, today's log or a note",
    )
    w.add_argument(
        "--to", required=True, choices=["memory", "scratchpad", "daily", "note"]
    )
    w.add_argument("--name", help="note name (--to note)")
    w.add_argument("--title", help="entry title (--to daily)")
    w.add_argument("--mode", choices=["append", "overwrite"], default="append")
    w.add_argument("--aliases", help='other words to find a note by: "a, b, c"')
    w.add_argument("--text", help="content (default: stdin)")

    e = sub.add_parser(
        "edit", parents=[common], help="replace text that occurs exactly once"
    )
    e.add_argument("target")
    e.add_argument("--old", required=True)
    e.add_argument("--new", required=True, help='replacement ("" deletes)')

    i = sub.add_parser(
        "inject", parents=[common], help="print the memory block a session starts with"
    )
    i.add_argument("--budget", type=int, metavar="BYTES")

    sub.add_parser(
        "status", parents=[common], help="root, project, files and what the block holds"
    )
    sub.add_parser(
        "demo",
        help="build a small memory in a temporary root and show the block and a search",
    )
    return p


_COMMANDS: dict[str, Command] = {
    "search": lambda a, o, i: commands.cmd_search(a, o),
    "read": lambda a, o, i: commands.cmd_read(a, o),
    "write": commands.cmd_write,
    "edit": lambda a, o, i: commands.cmd_edit(a, o),
    "inject": lambda a, o, i: commands.cmd_inject(a, o),
    "status": lambda a, o, i: commands.cmd_status(a, o),
    "demo": lambda a, o, i: demo.cmd_demo(a, o),
}


@contextlib.contextmanager
def error_handler(result: list[int]) -> Iterator[None]:
    """Map every exception to an exit code and one line on stderr (the only such place)."""
    try:
        yield
    except (MemoryStoreError, HookError) as e:
        sys.stderr.write(f"{PROG}: error: {e}\n")
        result[0] = EXIT_USER_ERROR
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted\n")
        result[0] = EXIT_INTERRUPTED
    except Exception as e:  # noqa: BLE001 - the one edge that turns any failure into an exit code
        sys.stderr.write(f"{PROG}: internal error: {type(e).__name__}: {e}\n")
        traceback.print_exc(file=sys.stderr)
        result[0] = EXIT_INTERNAL_ERROR


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Entry point of `memhooks` and `python -m hooks`; returns the exit code."""
    logging.basicConfig(
        level=logging.WARNING, format=f"{PROG}: %(message)s", stream=sys.stderr
    )
    result = [EXIT_OK]
    with error_handler(result):
        args = _parser().parse_args(argv)
        result[0] = _COMMANDS[args.command](
            args, stdout or sys.stdout, stdin or sys.stdin
        )
    return result[0]

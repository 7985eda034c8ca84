"""The `memhooks` command: the one module that touches argv, stdin, stdout and exit codes."""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import os
import shlex
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NoReturn, TextIO

import anyio

from hooks import commands, evalcmd, install, simulate
from hooks.adapters import render
from hooks.constants import (
    EXIT_INTERNAL_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USER_ERROR,
    PROG,
)
from hooks.errors import HookError, UsageError
from hooks.runner import Sessions, decode, handle
from hooks.session import run_session
from memory import MemoryStoreError, default_root

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
    s.add_argument(
        "--ranking",
        choices=["default", "baseline"],
        help="default: BM25 on stems and CJK bigrams; baseline: spec §4 rules 1-6 "
        "(default: search.ranking in config.toml)",
    )

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
    v = sub.add_parser(
        "eval", help="score search against labelled queries: recall@k, MRR, misses"
    )
    v.add_argument("queries", metavar="QUERIES.jsonl")
    v.add_argument(
        "--root",
        help="memory root (default: root/ beside QUERIES.jsonl, else the usual)",
    )
    v.add_argument("--k", default="1,5,10", metavar="K,K,...", help="default: 1,5,10")
    v.add_argument("--json", action="store_true")
    v.add_argument(
        "--ranking",
        choices=["default", "baseline"],
        help="default: search.ranking in the root's config.toml",
    )
    h = sub.add_parser(
        "hook",
        help="run one lifecycle event: JSON on stdin, reply on stdout (hook command)",
    )
    h.add_argument(
        "--harness",
        choices=["claude-code", "codex", "gemini", "generic"],
        help="default: detect",
    )
    h.add_argument("--root", help="memory root")

    se = sub.add_parser(
        "session",
        help="serve a whole session: JSON lines in, one JSON line out per event",
    )
    se.add_argument(
        "--harness",
        choices=["generic", "claude-code", "codex", "gemini"],
        help="default: detect",
    )
    se.add_argument("--root", help="memory root")
    se.add_argument("--idle-timeout", type=float, default=6 * 3600, metavar="SECONDS")

    for verb in ("install", "uninstall"):
        ins = sub.add_parser(
            verb, help=f"{verb} memhooks hooks in a harness's settings"
        )
        ins.add_argument("harness", choices=["claude-code", "gemini"])
        ins.add_argument(
            "--scope", choices=["user", "project", "local"], default="project"
        )
        ins.add_argument(
            "--project", help="project directory (default: the current directory)"
        )
        ins.add_argument("--dry-run", action="store_true")

    sim = sub.add_parser(
        "simulate", help="replay a scripted session through `memhooks session`"
    )
    sim.add_argument("script", metavar="SESSION.jsonl")
    sim.add_argument("--root", help="memory root (default: a fresh temporary one)")
    return p


def _cmd_hook(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    """One event in, one reply out; fails open: exit 0 and no context on any failure."""
    try:
        raw = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read()
        event = decode(raw, args.harness)
        if event is None:
            return EXIT_OK
        reply = anyio.run(handle, event, Sessions(args.root, keep=False))
        text = render(event, reply)
    except TimeoutError:
        sys.stderr.write(f"{PROG} hook: deadline exceeded; no context\n")
        sys.stderr.flush()
        # The handler's thread was abandoned; don't let interpreter shutdown wait for it.
        os._exit(EXIT_OK)
    except Exception as e:  # noqa: BLE001 - fail open (spec §5): never block or crash the agent
        sys.stderr.write(
            f"{PROG} hook: {type(e).__name__}: {_one_line(e)}; no context\n"
        )
        return EXIT_OK
    if text:
        out.write(text + "\n")
    return EXIT_OK


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:300]


def _cmd_session(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    def write(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    binary = (
        stdin.buffer if hasattr(stdin, "buffer") else io.BytesIO(stdin.read().encode())
    )
    return anyio.run(
        lambda: run_session(
            binary,
            write,
            root=default_root(args.root),
            harness=args.harness,
            idle_timeout=args.idle_timeout,
        )
    )


def _cmd_install(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    path = install.settings_path(
        args.harness,
        args.scope,
        project_dir=Path(args.project or Path.cwd()),
        home=Path.home(),
    )
    if args.command == "uninstall":
        result = install.uninstall(args.harness, path, dry_run=args.dry_run)
    else:
        result = install.install(
            args.harness, path, _hook_command(args.harness), dry_run=args.dry_run
        )
    out.write(result.describe() + "\n")
    return EXIT_OK


def _hook_command(harness: str) -> str:
    """How a harness should run us: this install's `memhooks` script, else `python -m hooks`."""
    script = Path(sys.executable).parent / "memhooks"
    if script.exists():
        return install.hook_command(harness, script)  # type: ignore[arg-type]
    return f"{shlex.quote(sys.executable)} -m hooks hook --harness {harness}"


_COMMANDS: dict[str, Command] = {
    "search": lambda a, o, i: commands.cmd_search(a, o),
    "read": lambda a, o, i: commands.cmd_read(a, o),
    "write": commands.cmd_write,
    "edit": lambda a, o, i: commands.cmd_edit(a, o),
    "inject": lambda a, o, i: commands.cmd_inject(a, o),
    "status": lambda a, o, i: commands.cmd_status(a, o),
    "eval": lambda a, o, i: evalcmd.cmd_eval(a, o),
    "hook": _cmd_hook,
    "session": _cmd_session,
    "install": _cmd_install,
    "uninstall": _cmd_install,
    "simulate": lambda a, o, i: simulate.cmd_simulate(a.script, a.root, o),
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

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
from typing import TYPE_CHECKING, NoReturn, TextIO

from memhooks.hooks.constants import (
    ENV_SESSION_PROCESS,
    EXIT_INTERNAL_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USER_ERROR,
    PROG,
)
from memhooks.hooks.errors import HookError, UsageError
from memhooks.memory import MemoryStoreError, default_root

if TYPE_CHECKING:
    from memhooks.hooks.events import Event

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
    s.add_argument(
        "--semantic",
        choices=["auto", "on", "off"],
        help="on: also rank by meaning (the [semantic] extra; loads the model, ~1 s); "
        "auto: only in long-lived processes (default: search.semantic in config.toml)",
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

    st = sub.add_parser(
        "status", parents=[common], help="root, project, files and what the block holds"
    )
    st.add_argument(
        "--duplicates",
        action="store_true",
        help="list near-duplicate lines across MEMORY.md and the project's notes",
    )

    fo = sub.add_parser(
        "forget",
        parents=[common],
        help="hide a line or a note from search and injection, keeping it in the file",
    )
    fo.add_argument(
        "target", help="notes/NAME (whole note), or a file with --line, or PATH:LINE"
    )
    fo.add_argument(
        "--line", metavar="TEXT", help="text occurring in exactly one line of the file"
    )
    fo.add_argument("--reason", metavar="TEXT", help="why, written beside the mark")
    fo.add_argument(
        "--by", metavar="NAME", help="mark the note superseded by note NAME instead"
    )
    re_ = sub.add_parser(
        "restore",
        parents=[common],
        help="undo forget (or a superseded mark), byte for byte",
    )
    re_.add_argument("target", help="as for forget")
    re_.add_argument(
        "--line", metavar="TEXT", help="text in exactly one forgotten line of the file"
    )

    doc = sub.add_parser(
        "doctor",
        help="check the memory root and the hook installation; print what to fix",
    )
    doc.add_argument("--root", help="memory root")
    doc.add_argument(
        "--project", help="project directory (default: the current directory)"
    )

    sub.add_parser(
        "mcp",
        parents=[common],
        help="serve the memory tools over MCP on stdio (needs the mcp extra)",
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
    v.add_argument(
        "--semantic",
        choices=["auto", "on", "off"],
        help="rank by meaning too (the [semantic] extra); auto: on when installed "
        "(default: search.semantic in the root's config.toml)",
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
    se.add_argument(
        "--listen",
        metavar="SOCKET",
        help="serve hook commands on this Unix socket, not stdin",
    )
    se.add_argument(
        "--parent-pid", type=int, metavar="PID", help="exit when this process is gone"
    )
    se.add_argument(
        "--session-id", help="with --listen: exit once this session's state is gone"
    )
    se.add_argument(
        "--project", help="with --listen: load this project's memory before listening"
    )

    for verb in ("install", "uninstall"):
        ins = sub.add_parser(
            verb, help=f"{verb} memhooks hooks in a harness's settings"
        )
        ins.add_argument("harness", choices=["claude-code", "codex", "gemini"])
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
        from memhooks.hooks import spawn
        from memhooks.hooks.adapters import render
        from memhooks.hooks.runner import Sessions, decode, handle_now

        raw = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read()
        event = decode(raw, args.harness)
        if event is None:
            return EXIT_OK
        reply = handle_now(event, Sessions(args.root, keep=False))
        text = render(event, reply)
        if _wants_server(event):
            spawn.ensure_server(
                default_root(args.root), event.session_id, event.harness, event.cwd
            )
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


def _wants_server(event: Event) -> bool:
    # Later hook commands of this session then forward to it instead of starting cold.
    return (
        event.harness != "generic"
        and event.kind in ("session-start", "pre-prompt", "post-compaction")
        and os.environ.get(ENV_SESSION_PROCESS, "1") != "0"
    )


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:300]


def _cmd_session(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    import anyio

    from memhooks.hooks.serve import serve_pipe, serve_socket

    def write(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    root = default_root(args.root)
    if args.listen:
        return anyio.run(
            lambda: serve_socket(
                args.listen,
                root=root,
                harness=args.harness,
                parent_pid=args.parent_pid,
                idle_timeout=args.idle_timeout,
                session_id=args.session_id,
                project=args.project,
            )
        )
    binary = (
        stdin.buffer if hasattr(stdin, "buffer") else io.BytesIO(stdin.read().encode())
    )
    return anyio.run(
        lambda: serve_pipe(
            binary,
            write,
            root=root,
            harness=args.harness,
            idle_timeout=args.idle_timeout,
        )
    )


def _cmd_install(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from memhooks.hooks import install

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
    if args.command == "install" and install.TRUST_STEPS[args.harness]:
        out.write(install.TRUST_STEPS[args.harness] + "\n")
    return EXIT_OK


def _hook_command(harness: str) -> str:
    """How a harness should run us: this install's `memhooks` script, else `python -m memhooks.hooks`."""
    from memhooks.hooks import install

    script = Path(sys.executable).parent / "memhooks"
    if script.exists():
        return install.hook_command(harness, script)  # type: ignore[arg-type]
    return (
        f"{shlex.quote(sys.executable)} -P -m memhooks.hooks hook --harness {harness}"
    )


# Each command imports what it needs when it runs: a hook command must not pay for the
# MCP server, the evaluator or pydantic models it never uses (README, "Speed").
def _memory_cmd(name: str) -> Command:
    def run(a: argparse.Namespace, o: TextIO, i: TextIO) -> int:
        from memhooks.hooks import commands

        if name == "write":
            return commands.cmd_write(a, o, i)
        fn: Callable[[argparse.Namespace, TextIO], int] = getattr(
            commands, f"cmd_{name}"
        )
        return fn(a, o)

    return run


def _status(a: argparse.Namespace, o: TextIO, i: TextIO) -> int:
    from memhooks.hooks import commands, corrections

    return (
        corrections.cmd_duplicates(a, o) if a.duplicates else commands.cmd_status(a, o)
    )


def _forget(a: argparse.Namespace, o: TextIO, i: TextIO) -> int:
    from memhooks.hooks import corrections

    return corrections.cmd_forget(a, o)


def _restore(a: argparse.Namespace, o: TextIO, i: TextIO) -> int:
    from memhooks.hooks import corrections

    return corrections.cmd_restore(a, o)


def _doctor(a: argparse.Namespace, o: TextIO, i: TextIO) -> int:
    from memhooks.hooks import doctor

    return doctor.cmd_doctor(a, o)


def _mcp(a: argparse.Namespace, o: TextIO, i: TextIO) -> int:
    from memhooks.hooks import mcp_server

    return mcp_server.cmd_mcp(a)


def _eval(a: argparse.Namespace, o: TextIO, i: TextIO) -> int:
    from memhooks.hooks import evalcmd

    return evalcmd.cmd_eval(a, o)


def _simulate(a: argparse.Namespace, o: TextIO, i: TextIO) -> int:
    from memhooks.hooks import simulate

    return simulate.cmd_simulate(a.script, a.root, o)


_COMMANDS: dict[str, Command] = {
    "search": _memory_cmd("search"),
    "read": _memory_cmd("read"),
    "write": _memory_cmd("write"),
    "edit": _memory_cmd("edit"),
    "inject": _memory_cmd("inject"),
    "status": _status,
    "forget": _forget,
    "restore": _restore,
    "doctor": _doctor,
    "mcp": _mcp,
    "eval": _eval,
    "hook": _cmd_hook,
    "session": _cmd_session,
    "install": _cmd_install,
    "uninstall": _cmd_install,
    "simulate": _simulate,
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
    """Entry point of `memhooks` and `python -m memhooks.hooks`; returns the exit code."""
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

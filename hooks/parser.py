"""The argument tree of `memhooks`: every command, every flag, its help and its default.

Parsing only: `hooks.cli` turns the result into calls of typed command functions. Bad
arguments raise `UsageError` (argparse would exit 2, which in Claude Code blocks the
user's prompt); the one place that prints errors adds the ``memhooks: error:`` prefix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memhooks.hooks.arguments import (
    Only,
    Parser,
    Version,
    at_least,
    dashed_terms,
    misparsed,
    seconds,
)
from memhooks.hooks.constants import HARNESSES, PROG
from memhooks.hooks.errors import UsageError
from memhooks.memory.constants import INJECT_BUDGET_MIN, SEARCH_BUDGET_MIN

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

#: Commands that only read memory: the root they name must exist (a typo in --root or
#: $MEMHOOKS_HOME must not search an empty root and succeed). Writing commands create it.
READ_COMMANDS = frozenset(
    {"search", "read", "edit", "inject", "status", "forget", "restore", "report"}
)


_ROOT_HELP = (
    "memory root (default: $MEMHOOKS_HOME, else $XDG_DATA_HOME/memhooks, "
    "else ~/.local/share/memhooks)"
)
_PROJECT_HELP = (
    "project directory: its git repository's main checkout is the project "
    "(default: the current directory)"
)
_SCOPE_HELP = (
    "which memory to use: MEMORY.md and the project's scratchpad, daily logs and notes"
)


def _where(sub: Any, name: str, *, read: bool, **kwargs: Any) -> Any:
    """The parser of memory command `name`, with --root, --project and --slug (not from
    a parent parser: argparse moves its exclusive group out of "where" in the help)."""
    parser = sub.add_parser(name, **kwargs)
    g = parser.add_argument_group("where", _SCOPE_HELP)
    root_help = _ROOT_HELP + ("; must exist" if read else "; created if missing")
    g.add_argument("--root", metavar="DIR", help=root_help)
    x = g.add_mutually_exclusive_group()
    x.add_argument("--project", metavar="DIR", help=_PROJECT_HELP)
    x.add_argument(
        "--slug", help="project folder under <root>/projects/, named directly"
    )
    return parser


def _memory_commands(sub: Any) -> None:
    s = _where(
        sub,
        "search",
        read=True,
        help="find which memory files mention the terms (exit 1: none)",
        description="Rank memory files for the terms. Exit 0: found, 1: nothing, 2: error.",
    )
    s.add_argument("terms", nargs="+", metavar="TERM", help="words to look for")
    s.add_argument("--json", action="store_true", help="print the page as JSON")
    s.add_argument(
        "--budget",
        type=at_least(SEARCH_BUDGET_MIN),
        metavar="BYTES",
        help="most bytes to print (default: search.budget in config.toml, 16384)",
    )
    s.add_argument(
        "--ranking",
        choices=["default", "baseline"],
        help="default: BM25 on stems and CJK bigrams; baseline: literal terms, "
        "fixed rules (default: search.ranking in config.toml)",
    )
    s.add_argument(
        "--semantic",
        choices=["auto", "on", "off"],
        help="on: also rank by meaning (the [semantic] extra; loads the model, ~1 s); "
        "auto: only in long-lived processes (default: search.semantic in config.toml)",
    )

    r = _where(sub, "read", read=True, help="print one memory file whole (capped)")
    r.add_argument(
        "target",
        help="MEMORY.md, scratchpad, daily/YYYY-MM-DD, notes/NAME or a path from search",
    )
    r.add_argument(
        "--cap",
        type=at_least(SEARCH_BUDGET_MIN),
        metavar="BYTES",
        help="most bytes to print, the whole JSON line with --json (default: 65536)",
    )
    r.add_argument("--json", action="store_true", help='print {"path", "text"} as JSON')

    w = _where(
        sub,
        "write",
        read=False,
        help="write to MEMORY.md, the scratchpad, today's log or a note",
    )
    w.add_argument(
        "--to",
        required=True,
        choices=["memory", "scratchpad", "daily", "note"],
        help="which file: MEMORY.md (every project), the project's scratchpad "
        "(checklist), today's log, or notes/NAME.md",
    )
    w.add_argument("--name", help="note name (--to note)")
    w.add_argument(
        "--title",
        help='entry title (--to daily; default: "note"); with it, empty text makes '
        "an entry of the heading alone",
    )
    w.add_argument(
        "--mode",
        choices=["append", "overwrite"],
        default="append",
        help="append, or replace the whole file (not for daily logs)",
    )
    w.add_argument("--aliases", help='other names: "a, b" (overwrite: "" clears)')
    w.add_argument("--text", help="content; - or none: read from stdin")

    e = _where(sub, "edit", read=True, help="replace text that occurs exactly once")
    e.add_argument("target", help="as for read")
    e.add_argument("--old", required=True, help="text that occurs exactly once")
    e.add_argument("--new", required=True, help='replacement ("" deletes)')

    i = _where(
        sub, "inject", read=True, help="print the memory block a session starts with"
    )
    i.add_argument(
        "--budget",
        type=at_least(INJECT_BUDGET_MIN),
        metavar="BYTES",
        help="most bytes of the block (default: inject.budget in config.toml, 16384)",
    )

    st = _where(
        sub, "status", read=True, help="root, project, files and what the block holds"
    )
    st.add_argument(
        "--duplicates",
        action="store_true",
        help="list near-duplicate lines across MEMORY.md and the project's notes",
    )

    fo = _where(
        sub,
        "forget",
        read=True,
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
    re_ = _where(
        sub,
        "restore",
        read=True,
        help="undo forget (or a superseded mark), byte for byte",
    )
    re_.add_argument("target", help="as for forget")
    re_.add_argument(
        "--line", metavar="TEXT", help="text in exactly one forgotten line of the file"
    )


def _hook_commands(sub: Any) -> None:
    h = sub.add_parser(
        "hook",
        help="run one lifecycle event: JSON on stdin, reply on stdout (hook command)",
    )
    h.add_argument(
        "--harness",
        choices=HARNESSES,
        help="the harness's dialect (default: detected from the event)",
    )
    h.add_argument("--root", metavar="DIR", help=_ROOT_HELP)

    se = sub.add_parser(
        "session",
        help="serve a whole session: JSON lines in, one JSON line out per event",
    )
    se.add_argument(
        "--harness",
        choices=HARNESSES,
        help="the harness's dialect (default: detected from each event)",
    )
    se.add_argument("--root", metavar="DIR", help=_ROOT_HELP)
    se.add_argument(
        "--idle-timeout",
        type=seconds,
        default=6 * 3600,
        metavar="SECONDS",
        help="exit after this long without an event",
    )
    se.add_argument(
        "--listen",
        metavar="SOCKET",
        help="serve hook commands on this Unix socket, not stdin",
    )
    se.add_argument(
        "--parent-pid",
        type=at_least(1, "is no process id"),
        metavar="PID",
        help="exit when this process is gone",
    )
    se.add_argument(
        "--session-id", help="with --listen: exit once this session's state is gone"
    )
    se.add_argument(
        "--project",
        metavar="DIR",
        help="with --listen: load this project's memory before listening",
    )

    sim = sub.add_parser(
        "simulate", help="replay a scripted session through `memhooks session`"
    )
    sim.add_argument("script", metavar="SESSION.jsonl", help="the scripted events")
    sim.add_argument(
        "--root", metavar="DIR", help="memory root (default: a fresh temporary one)"
    )


def _setup_commands(sub: Any) -> None:
    for verb in ("install", "uninstall"):
        ins = sub.add_parser(
            verb,
            help=f"{verb} memhooks hooks in a harness's settings",
            description=f"{verb.title()} memhooks' hooks in a harness's settings file. "
            "The project is the git repository around --project (its main checkout), "
            "whatever subfolder you run this from.",
        )
        ins.add_argument(
            "harness", choices=["claude-code", "codex", "gemini"], help="which harness"
        )
        ins.add_argument(
            "--scope",
            choices=["user", "project", "local"],
            default="project",
            help="project: the file the repository shares (.claude/settings.json, "
            ".codex/hooks.json, .gemini/settings.json); local: yours only in this "
            "project, Claude Code only (.claude/settings.local.json); user: every "
            "project (the same file under ~)",
        )
        ins.add_argument("--project", metavar="DIR", help=_PROJECT_HELP)
        ins.add_argument(
            "--dry-run",
            action="store_true",
            help="say what would change, write nothing",
        )
        if verb == "install":
            ins.add_argument(
                "--absolute",
                action="store_true",
                help="run this memhooks by its absolute path, not `memhooks` from PATH "
                "(the default for --scope local and user)",
            )

    doc = sub.add_parser(
        "doctor",
        help="check the memory root and the hook installation; print what to fix",
    )
    doc.add_argument("--root", metavar="DIR", help=_ROOT_HELP)
    doc.add_argument("--project", metavar="DIR", help=_PROJECT_HELP)


def _other_commands(sub: Any) -> None:
    rp = _where(
        sub,
        "report",
        read=True,
        help="what the hooks injected, surfaced and wrote, and the live misses",
    )
    rp.add_argument(
        "--sessions",
        type=at_least(1, "sessions"),
        default=10,
        metavar="N",
        help="the last N sessions",
    )
    rp.add_argument("--json", action="store_true", help="print the report as JSON")
    _where(
        sub,
        "mcp",
        read=False,
        help="serve the memory tools over MCP on stdio",
    )
    v = sub.add_parser(
        "eval", help="score search against labelled queries: recall@k, MRR, misses"
    )
    v.add_argument(
        "queries", metavar="QUERIES.jsonl", help="one labelled query per line"
    )
    v.add_argument(
        "--root",
        metavar="DIR",
        help="memory root (default: root/ beside QUERIES.jsonl, else the usual)",
    )
    v.add_argument(
        "--k", default="1,5,10", metavar="K,K,...", help="the cut-offs of recall@k"
    )
    v.add_argument("--json", action="store_true", help="print the report as JSON")
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


def build(only: str | None = None) -> Parser:
    """The whole tree; with `only`, just that command's branch (argparse builds each
    parser eagerly, ~1 ms apiece: a one-shot search needs one of them)."""
    p = Parser(
        prog=PROG,
        description="File-based memory for coding agents, driven by lifecycle hooks.",
        epilog="Start here: `memhooks install claude-code`, then `memhooks doctor`.",
    )
    p.add_argument("--version", action=Version, help="print the version and exit")
    sub = p.add_subparsers(
        dest="command", required=True, parser_class=Parser, metavar="COMMAND"
    )
    tree = sub if only is None else Only(sub, only)
    _memory_commands(tree)
    _hook_commands(tree)
    _setup_commands(tree)
    _other_commands(tree)
    if only is not None and only not in sub.choices:
        return build()  # not a command: the error lists them all
    return p


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """The parsed arguments; raises `UsageError` for bad ones."""
    first = argv[0] if argv and not argv[0].startswith("-") else None
    try:
        if first != "search":
            return build(first).parse_args(argv)
        return build(first).parse_args(dashed_terms(argv, _SEARCH_VALUES))
    except UsageError as e:
        misparsed(e, argv, build, _SEARCH_VALUES)


#: The search options that take a value.
_SEARCH_VALUES = frozenset(
    {"--root", "--project", "--slug", "--budget", "--ranking", "--semantic"}
)


def help_text() -> str:
    """What `memhooks --help` prints."""
    return build().format_help()


__all__ = ["HARNESSES", "READ_COMMANDS", "build", "help_text", "parse"]

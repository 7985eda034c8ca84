"""The `memhooks` command: the one module that touches argv, stdin, stdout and exit codes.

`hooks.client.main` (what the installed `memhooks` script runs) forwards hook events to a
session process when one runs; everything else arrives here: parse (`hooks.parser`), check
the environment, dispatch to one command function with typed arguments, map errors to exit
codes.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, TextIO, cast

from memhooks.hooks.constants import (
    ERROR_MAX_BYTES,
    EXIT_INTERNAL_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_SEARCH_ERROR,
    EXIT_USER_ERROR,
    HARNESSES,
    PROG,
)
from memhooks.hooks.errors import HookError, UsageError, absolute_root
from memhooks.memory import MemoryStoreError
from memhooks.memory.constants import ENV_EMBEDDINGS
from memhooks.memory.home import ENV_HOME
from memhooks.memory.lazylog import capture, getLogger

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator, Sequence

    from memhooks.hooks.commands import Where
    from memhooks.hooks.events import Harness

logger = getLogger(__name__)


def check_env() -> None:
    """A relative $MEMHOOKS_HOME (or $MEMHOOKS_EMBEDDINGS) would name another root (or
    cache) in every folder a hook runs in."""
    absolute_root(os.environ.get(ENV_HOME, ""), f"${ENV_HOME}")
    cache = os.environ.get(ENV_EMBEDDINGS, "")
    absolute_root(cache, f"${ENV_EMBEDDINGS}", "embedding cache")


def _where(a: argparse.Namespace) -> Where:
    from memhooks.hooks.commands import Where

    return Where(a.root, a.project, a.slug)


def _memory(a: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    """search, read, write, edit, inject, status."""
    from memhooks.hooks import commands as c

    w = _where(a)
    match a.command:
        case "search":
            return c.cmd_search(
                w,
                a.terms,
                out,
                as_json=a.json,
                budget=a.budget,
                ranking=a.ranking,
                semantic=a.semantic,
            )
        case "read":
            return c.cmd_read(w, a.target, out, cap=a.cap, as_json=a.json)
        case "write":
            if a.text in (None, "-") and stdin.isatty():
                # Else a `write` without --text waits on a terminal without a word.
                sys.stderr.write(
                    f"{PROG}: reading the text from stdin: end it with Ctrl-D "
                    "(or give --text)\n"
                )
                sys.stderr.flush()
            return c.cmd_write(
                w,
                a.to,
                a.text,
                out,
                stdin,
                name=a.name,
                title=a.title,
                mode=a.mode,
                aliases=a.aliases,
            )
        case "edit":
            return c.cmd_edit(w, a.target, a.old, a.new, out)
        case "inject":
            from memhooks.hooks.blockcmd import cmd_inject

            return cmd_inject(w, out, budget=a.budget)
    if a.duplicates:
        from memhooks.hooks.corrections import cmd_duplicates

        return cmd_duplicates(w, out)
    from memhooks.hooks.blockcmd import cmd_status

    return cmd_status(w, out)


def _corrections(a: argparse.Namespace, out: TextIO) -> int:
    from memhooks.hooks import corrections

    if a.command == "forget":
        return corrections.cmd_forget(
            _where(a), a.target, out, line=a.line, reason=a.reason, by=a.by
        )
    return corrections.cmd_restore(_where(a), a.target, out, line=a.line)


def _session(a: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from memhooks.hooks.hookcmd import run_session

    return run_session(
        stdin,
        out,
        harness=a.harness,
        root=a.root,
        idle_timeout=a.idle_timeout,
        listen=a.listen,
        parent_pid=a.parent_pid,
        session_id=a.session_id,
        project=a.project,
    )


def _setup(a: argparse.Namespace, out: TextIO) -> int:
    """install, uninstall, doctor."""
    if a.command == "doctor":
        from memhooks.hooks.doctor import cmd_doctor

        return cmd_doctor(a.root, a.project, out)
    from memhooks.hooks import installcmd

    if a.command == "uninstall":
        return installcmd.cmd_uninstall(
            a.harness, out, scope=a.scope, project=a.project, dry_run=a.dry_run
        )
    return installcmd.cmd_install(
        a.harness,
        out,
        scope=a.scope,
        project=a.project,
        dry_run=a.dry_run,
        absolute=a.absolute,
    )


def dispatch(a: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    """Run the command `a` names. Each imports what it needs when it runs: a hook
    command must not pay for the MCP server, the evaluator or pydantic models.
    """
    match a.command:
        case "search" | "read" | "write" | "edit" | "inject" | "status":
            return _memory(a, out, stdin)
        case "forget" | "restore":
            return _corrections(a, out)
        case "hook":
            from memhooks.hooks.hookcmd import cmd_hook

            return cmd_hook(a.harness, a.root, stdin, out)
        case "session":
            return _session(a, out, stdin)
        case "install" | "uninstall" | "doctor":
            return _setup(a, out)
        case "mcp":
            from memhooks.hooks.mcp_server import cmd_mcp

            return cmd_mcp(a.root, a.project, a.slug)
        case "eval":
            from memhooks.hooks.evalcmd import cmd_eval

            return cmd_eval(
                a.queries,
                out,
                root=a.root,
                k=a.k,
                as_json=a.json,
                ranking=a.ranking,
                semantic=a.semantic,
            )
        case "report":
            from memhooks.hooks.report import cmd_report

            return cmd_report(_where(a), out, last=a.sessions, as_json=a.json)
        case "simulate":
            from memhooks.hooks.simulate import cmd_simulate

            return cmd_simulate(a.script, a.root, out)
    raise UsageError(f"unknown command {a.command!r}")  # the parser lists them all


@contextlib.contextmanager
def error_handler(
    result: list[int], user_error: int = EXIT_USER_ERROR
) -> Iterator[None]:
    """Map every exception to an exit code and one line on stderr (the only such place)."""
    try:
        yield
    except (MemoryStoreError, HookError) as e:
        from memhooks.memory.text import one_line  # the rare path, as traceback below

        sys.stderr.write(one_line(f"{PROG}: error: {e}", ERROR_MAX_BYTES) + "\n")
        result[0] = user_error
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted\n")
        result[0] = EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader stopped (`| head`, `| grep -q`): nothing went wrong here. Output
        # still buffered goes nowhere, so the exit does not fail on it again.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except Exception as e:  # noqa: BLE001 - the one edge that turns any failure into an exit code
        import traceback  # the rare path: ~5 ms of every command's start otherwise

        sys.stderr.write(f"{PROG}: internal error: {type(e).__name__}: {e}\n")
        traceback.print_exc(file=sys.stderr)
        result[0] = EXIT_INTERNAL_ERROR


def _plain_hook(argv: Sequence[str]) -> tuple[Harness | None, str | None] | None:
    """(harness, root) of `hook [--harness NAME] [--root DIR]`; None for any other form
    (the parser then reads it, and explains what is wrong).
    """
    if not _is_hook(argv) or len(argv) % 2 == 0:
        return None
    options = dict(zip(argv[1::2], argv[2::2], strict=True))
    if (
        not options.keys() <= {"--harness", "--root"}
        or options.get("--harness", "generic") not in HARNESSES
    ):
        return None
    return cast("Harness | None", options.get("--harness")), options.get("--root")


def _is_hook(argv: Sequence[str]) -> bool:
    return bool(argv) and argv[0] == "hook"


_WHERE_FLAGS = frozenset({"--root", "--project", "--slug"})


def _plain_search(argv: Sequence[str]) -> tuple[dict[str, str], list[str]] | None:
    """(--root/--project/--slug values, terms) of `search [FLAG VALUE]… [--] TERM…`; None
    for any other form (the parser then reads it, and explains what is wrong): another
    flag, ``--flag=value``, a flag twice, --project with --slug, or a value, or a term
    not after ``--``, that starts with ``-``.
    """
    if argv[:1] != ["search"]:
        return None
    flags: dict[str, str] = {}
    at = 1
    while at + 1 < len(argv) and argv[at] in _WHERE_FLAGS and argv[at] not in flags:
        flags[argv[at]] = argv[at + 1]
        at += 2
    ended = argv[at : at + 1] == ["--"]  # `search -- ->`: options end, terms follow
    terms = list(argv[at + ended :])
    dashed = (*flags.values(), *([] if ended else terms))
    if (
        not terms
        or any(a.startswith("-") for a in dashed)
        or flags.keys() >= {"--project", "--slug"}
    ):
        return None
    return flags, terms


def _as_fffd(e: UnicodeError) -> tuple[bytes, int]:
    if not isinstance(e, UnicodeEncodeError):
        raise e
    # Bytes: the UTF-8 encoder takes no replacement text but ASCII.
    return ("\ufffd" * (e.end - e.start)).encode(e.encoding, "replace"), e.end


def _stdout(replies: bool) -> TextIO:
    """sys.stdout, printing U+FFFD for what it cannot encode; UTF-8 for `replies`.

    A file name that is not UTF-8 (caf\\xe9.md) is held as surrogates: a UTF-8 locale's
    strict stdout failed every command that printed it, and the SessionStart hook
    injected nothing; the C locale's wrote the raw byte into --json. Its content's bad
    bytes are shown as U+FFFD already (`memory.scope`). A hook's or a session's
    replies are JSON their harness reads as UTF-8, whatever the locale (`hooks.client`).
    """
    import codecs
    import io

    codecs.register_error("memhooks.fffd", _as_fffd)
    if isinstance(sys.stdout, io.TextIOWrapper):
        encoding = "utf-8" if replies else None
        sys.stdout.reconfigure(encoding=encoding, errors="memhooks.fffd")
    return sys.stdout


def _warn(message: str) -> None:
    """A command's warnings and errors: one ``memhooks: …`` line each on stderr."""
    sys.stderr.write(f"{PROG}: {message}\n")


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Entry point of `memhooks` and `python -m memhooks.hooks`; returns the exit code.

    No arguments: the help on stdout and exit 1, as git does (uv and ripgrep exit 2,
    which memhooks keeps for `search` errors: in Claude Code exit 2 blocks a prompt).
    """
    capture(_warn)
    argv = list(sys.argv[1:] if argv is None else argv)
    out = stdout or _stdout(argv[:1] in (["hook"], ["session"]))
    if not argv:
        from memhooks.hooks import parser

        out.write(parser.help_text())
        return EXIT_USER_ERROR
    result = [EXIT_OK]
    # grep's codes for search: 0 found, 1 nothing, 2 an error.
    user_error = EXIT_SEARCH_ERROR if argv[0] == "search" else EXIT_USER_ERROR
    with error_handler(result, user_error):
        try:
            check_env()
        except UsageError as e:
            if not _is_hook(argv):
                raise
            from memhooks.hooks.hookcmd import fail_open

            fail_open(str(e))  # a hook never fails the agent
            return EXIT_OK
        if (hook := _plain_hook(argv)) is not None:
            # The hook is paid on every prompt: no argument parser for its usual form.
            from memhooks.hooks.hookcmd import cmd_hook

            return cmd_hook(*hook, stdin or sys.stdin, out)
        if (search := _plain_search(argv)) is not None:
            # A model runs searches one after another: no argument parser (argparse,
            # gettext and the help formatter cost ~15 ms) for the usual form.
            from memhooks.hooks.commands import Where, cmd_search

            flags, terms = search
            get = flags.get
            where = Where(get("--root"), get("--project"), get("--slug"))
            result[0] = cmd_search(where, terms, out)
            return result[0]
        from memhooks.hooks import parser

        try:
            args = parser.parse(argv)
        except UsageError as e:
            if not _is_hook(argv):
                raise
            from memhooks.hooks.hookcmd import fail_open

            fail_open(str(e))  # a mistyped hook command in a settings file: no context
            return EXIT_OK
        result[0] = dispatch(args, out, stdin or sys.stdin)
    return result[0]


__all__ = ["check_env", "dispatch", "error_handler", "main"]

"""The argparse pieces `hooks.parser` builds its tree from: a parser whose errors are
`UsageError`s, help that names each default, `--version` looked up when asked, types
for byte counts that config.toml bounds too and for seconds, search terms that begin
with ``-``, unknown flags named before missing arguments, subparsers that build one
command, and the text of ``write`` read from stdin.
"""

from __future__ import annotations

import argparse
import itertools
import math
import re
import shlex
import sys
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from memhooks.hooks.constants import PROG, WRITE_STDIN_MAX
from memhooks.hooks.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterator, Sequence


def at_least(least: int, unit: str = "bytes") -> Callable[[str], int]:
    """An argparse type: a number of `unit` (bytes), at least `least`, as config.toml's
    budgets are (below it nothing but the frame would fit)."""

    def parse(text: str) -> int:
        if (n := int(text)) < least:
            raise argparse.ArgumentTypeError(f"{text} {unit}: give {least} or more")
        return n

    parse.__name__ = "int"  # argparse names it: "invalid int value: 'abc'"
    return parse


def seconds(text: str) -> float:
    """An argparse type: a length of time, more than 0 and finite (`--idle-timeout -1`
    or `0` made a session process exit before its first event, `inf` broke it)."""
    if not (0 < (n := float(text)) < math.inf):
        raise argparse.ArgumentTypeError(
            f"{text} seconds: give a finite number above 0"
        )
    return n


seconds.__name__ = "float"


class Formatter(argparse.HelpFormatter):
    """Help that names each flag's default, unless the help text already does."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            default not in (None, False, argparse.SUPPRESS)
            and "default" not in text
            and action.option_strings
        ):
            text += " (default: %(default)s)"
        return text


class Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        # No prefix here: the error handler prints `memhooks: error:` once.
        hint = f" (see `{self.prog} --help`)"
        raise UsageError(message + hint)


class Version(argparse.Action):
    """`--version`: looked up only when asked (importlib.metadata costs ~10 ms)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> NoReturn:
        sys.stdout.write(f"{PROG} {installed_version()}\n")
        parser.exit(0)


def installed_version() -> str:
    """memhooks' version as installed; "unknown" in a source tree never installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(PROG)
    except PackageNotFoundError:
        return "unknown"


#: What can be an option (``--json``, ``-h``, ``--budget=9000``).
_OPTION = re.compile(r"--?[A-Za-z][\w-]*(=.*)?")


def dashed_terms(argv: Sequence[str], values: Collection[str]) -> list[str]:
    """`argv` with each term that begins with ``-`` but can be no option (``->``,
    ``-%s``, ``--.env``, ``-1.``) made one argparse reads as a term: a space before it
    (a query is split at whitespace again). Before, not after: argparse takes an
    argument that does not begin with ``-`` for a positional one before anything else,
    while one that does is still matched against the options first (``-h.`` as ``-h``,
    ``--=x`` as every ``--`` option, ``-1.`` as no number). The value of an option of
    `values`, and the ``--`` that ends the options, are left as they are.
    """
    out = list(argv)
    for i in range(1, len(out)):
        a = out[i]
        term = a.startswith("-") and a != "--" and not _OPTION.fullmatch(a)
        if term and out[i - 1] not in values:
            out[i] = " " + a
    return out


def dash_value(message: str, argv: Sequence[str]) -> str:
    """argparse's `message`, with how to give a value that begins with ``-`` when that
    is why an option found none (``--old -fix``: argparse takes ``-fix`` for an option)."""
    m = re.match(r"argument (--[\w-]+): expected one argument", message)
    for flag, value in itertools.pairwise(argv):
        if m and flag == m[1] and value.startswith("-"):
            return f"{message}; for a value that begins with '-', write it as {flag}={value}"
    return message


def unknown_options(
    argv: Sequence[str], known: Collection[str], values: Collection[str]
) -> Iterator[str]:
    """What in `argv` looks like an option and is none of `known` nor the start of one
    (argparse takes ``--ro`` for ``--root``); not the value of an option of `values`."""
    for before, a in itertools.pairwise(argv):
        name = a.split("=", 1)[0]
        unknown = not any(k.startswith(name) for k in known)
        if _OPTION.fullmatch(a) and before not in values and unknown:
            yield a


def refuse_unknown(
    top: argparse.ArgumentParser, command: str, argv: Sequence[str]
) -> None:
    """Raise `UsageError` naming the first option in `argv` that `command`, a command of
    `top`, does not know (`memhooks read --bogus` is a typo of a flag, not a target left
    out, which argparse would name first)."""
    (sub,) = (a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    actions = sub.choices[command]._actions  # argparse lists no options publicly
    known = [o for a in actions for o in a.option_strings]
    values = [o for a in actions if a.nargs != 0 for o in a.option_strings]
    for option in unknown_options(argv, known, values):
        hint = f" (see `{top.prog} {command} --help`)"
        raise UsageError(f"unrecognized arguments: {option}{hint}")


def option_first(top: argparse.ArgumentParser, argv: Sequence[str]) -> str | None:
    """How to write `argv` whose first word is an option of a command, typed before it
    (`memhooks --root DIR status`, where argparse names DIR as no command); None when
    `argv` does not begin so or names no command of `top`."""
    (sub,) = (a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    at = next((i for i, a in enumerate(argv) if a in sub.choices), None)
    option = argv[0].split("=")[0] if argv else ""
    if at is None or not option.startswith("-"):
        return None
    known = [o for a in sub.choices[argv[at]]._actions for o in a.option_strings]
    if option not in known:
        return None
    fixed = shlex.join([PROG, argv[at], *argv[:at], *argv[at + 1 :]])
    hint = f" (see `{PROG} {argv[at]} --help`)"
    return f"{option} goes after the command: {fixed}{hint}"


def misparsed(
    e: UsageError,
    argv: Sequence[str],
    build: Callable[..., argparse.ArgumentParser],
    search_values: Collection[str],
) -> NoReturn:
    """Raise `e`, which the command line `argv` met, said so that it helps: a missing
    argument named before an unknown flag, the command's help named for its unknown
    option, an option typed before its command moved after it, and a search term that
    begins with "-" shown how to search for. `build(name)`: the parsers (`parser.build`);
    `search_values`: the search options that take a value."""
    first = argv[0] if argv and not argv[0].startswith("-") else None
    # argparse names a missing argument before an unknown flag; search's own
    # message below says how to search for a term that begins with "-".
    missing = str(e).startswith("the following arguments are required")
    if missing and first not in (None, "search"):
        refuse_unknown(build(first), first, argv)
    if first and str(e).startswith("unrecognized arguments"):
        # The top parser reports a command's unknown option: its help says more.
        e = UsageError(str(e).replace(f"`{PROG} --help`", f"`{PROG} {first} --help`"))
    known = (*search_values, "--json", "--help", "-h")
    dashed = next(unknown_options(argv, known, search_values), None)
    if first != "search" or dashed is None or "--" in argv:
        said = option_first(build(), argv) or dash_value(str(e), argv)
        raise UsageError(said) from None
    # `--cap` is a term the README names: say how to search for it.
    from memhooks.hooks.modelshell import shell_prog

    prog = shell_prog()
    hint = (
        f"; to search for {dashed}, put -- before the terms: {prog} search -- {dashed}"
    )
    raise UsageError(str(e) + hint) from None


class Only:
    """Subparsers that build only the command `name` (the others: `Only(None)`, a sink)."""

    def __init__(self, sub: Any, name: str | None = None) -> None:
        self._sub, self._name = sub, name

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        built = name == self._name
        return self._sub.add_parser(name, **kwargs) if built else Only(None)

    def __getattr__(self, _attr: str) -> Any:
        return lambda *_a, **_k: self


def stdin_text(stdin: TextIO) -> str:
    """The text `write` is given on `stdin` (a BOM there marks the encoding), refused
    whole if it is not UTF-8 or longer than `WRITE_STDIN_MAX` characters."""
    try:
        text = stdin.read(WRITE_STDIN_MAX + 1)
    except UnicodeDecodeError:
        raise UsageError(
            "the text on stdin is not UTF-8; nothing was written"
        ) from None
    if len(text) > WRITE_STDIN_MAX:
        raise UsageError(
            f"the text on stdin is over {WRITE_STDIN_MAX >> 20} Mi characters;"
            " nothing was written"
        )
    return text.removeprefix("\ufeff")


__all__ = [
    "Formatter",
    "Only",
    "Parser",
    "Version",
    "at_least",
    "dash_value",
    "dashed_terms",
    "misparsed",
    "option_first",
    "refuse_unknown",
    "stdin_text",
    "unknown_options",
]

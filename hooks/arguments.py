"""The argparse pieces `hooks.parser` builds its tree from: a parser whose errors are
`UsageError`s, help that names each default, `--version` looked up when asked, and a
type for byte counts that config.toml bounds too.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, NoReturn

from memhooks.hooks.constants import PROG
from memhooks.hooks.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Callable


def at_least(least: int) -> Callable[[str], int]:
    """An argparse type: a number of bytes, at least `least`, as config.toml's budgets
    are (below it nothing but the frame would fit)."""

    def parse(text: str) -> int:
        if (n := int(text)) < least:
            raise argparse.ArgumentTypeError(f"{text} bytes: give {least} or more")
        return n

    parse.__name__ = "int"  # argparse names it: "invalid int value: 'abc'"
    return parse


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
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version(PROG)
        except PackageNotFoundError:  # run from a source tree that was never installed
            number = "unknown"
        sys.stdout.write(f"{PROG} {number}\n")
        parser.exit(0)


__all__ = ["Formatter", "Parser", "Version", "at_least"]

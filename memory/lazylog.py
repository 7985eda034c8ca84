"""Loggers that load `logging` only once there is something to say.

Importing `logging` costs a process ~13 ms (it brings `traceback`, `tokenize`, `threading`,
`string`): a tenth of a SessionStart hook, which logs nothing when all goes well, and of a
one-shot search. Until `logging` is imported nobody can have lowered its level from
WARNING, so `debug` and `info` are dropped as it would drop them; a warning or an error
goes to the sink a command set (`capture`: a hook's one stderr line, a command's
``memhooks: …`` lines), or else to `logging`.
"""

from __future__ import annotations

import sys

#: Not `typing.TYPE_CHECKING`: see `memory.home`.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import logging
    from collections.abc import Callable

_sink: Callable[[str], None] | None = None


class Logger:
    """What `logging.Logger` offers memhooks' modules, by the same names."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def debug(self, msg: str, *args: object) -> None:
        if "logging" in sys.modules:
            self._logger().debug(msg, *args, stacklevel=2)

    def info(self, msg: str, *args: object) -> None:
        if "logging" in sys.modules:
            self._logger().info(msg, *args, stacklevel=2)

    def warning(self, msg: str, *args: object) -> None:
        self._say("warning", msg, args)

    def error(self, msg: str, *args: object) -> None:
        self._say("error", msg, args)

    def exception(self, msg: str, *args: object) -> None:
        """An error, with the exception being handled (its traceback goes to `logging`)."""
        self._say("exception", msg, args)

    def _say(self, level: str, msg: str, args: tuple[object, ...]) -> None:
        if _sink is not None:
            _sink(_text(msg, args))
        else:  # the caller's place in the record, not this module's
            getattr(self._logger(), level)(msg, *args, stacklevel=3)

    def _logger(self) -> logging.Logger:
        import logging

        return logging.getLogger(self.name)


def getLogger(name: str) -> Logger:
    return Logger(name)


def capture(sink: Callable[[str], None] | None) -> Callable[[str], None] | None:
    """Send warnings and errors to `sink` (None: to `logging`); returns the previous one."""
    global _sink
    previous, _sink = _sink, sink
    return previous


def _text(msg: str, args: tuple[object, ...]) -> str:
    try:
        return msg % args if args else msg
    except (TypeError, ValueError):
        return " ".join(map(str, (msg, *args)))


__all__ = ["Logger", "capture", "getLogger"]

"""Errors of the hook runner and the command line.

HookError
 └── UsageError   bad command-line arguments
"""

from __future__ import annotations


class HookError(Exception):
    """Base class: every error the hooks package raises on purpose."""


class UsageError(HookError):
    """Raised by the argument parser instead of exiting 2 (exit 2 would block a Claude Code prompt)."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)

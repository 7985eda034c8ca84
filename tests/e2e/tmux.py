"""An interactive CLI under tmux: type into it, read its screen, wait for it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path


@dataclass
class Tmux:
    """An interactive CLI in a tmux session (the tmux server lives in the sandbox's namespace)."""

    socket: Path
    #: The last text typed with an Enter (`wait_exit` presses it again).
    typed: str = ""

    def _tmux(self, *args: str) -> str:
        out = subprocess.run(
            ["tmux", "-S", str(self.socket), *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=10,
        )
        return out.stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-S", "-200")

    def alive(self) -> bool:
        return "main" in self._tmux("list-sessions", "-F", "#{session_name}")

    def type(self, text: str, *, enter: bool = True) -> None:
        self._tmux("send-keys", "-t", "main", "-l", text)
        if enter:
            time.sleep(0.4)  # TUIs batch a paste; Enter must come as its own key
            self._tmux("send-keys", "-t", "main", "Enter")
            self.typed = text

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "main", *keys)

    def paste(self, text: str) -> None:
        """`text` pasted as a terminal pastes it (bracketed), not typed."""
        subprocess.run(
            ["tmux", "-S", str(self.socket), "load-buffer", "-"],
            input=text,
            text=True,
            check=True,
            timeout=10,
        )
        self._tmux("paste-buffer", "-p", "-t", "main")

    def wait_for(self, check: Any, *, timeout: float = 30, what: str = "") -> None:
        """Poll until `check()` is true; fail with the screen when it never is."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check():
                return
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what or check}:\n{self.screen()}")

    def wait_text(self, text: str, *, timeout: float = 30) -> None:
        self.wait_for(lambda: text in self.screen(), timeout=timeout, what=repr(text))

    def wait_exit(self, *, timeout: float = 30) -> None:
        """Wait for the CLI to exit after its quit command was typed. Under load, an
        Enter that comes as Gemini CLI's list of completions opens picks the one shown
        and leaves `/quit` in the input box (seen in a `make test` run): pressed again."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                self.wait_for(
                    lambda: not self.alive(),
                    timeout=min(5, left),
                    what="the CLI to exit",
                )
                return
            except AssertionError:
                if left <= 5:
                    raise
                if self.typed and f"> {self.typed}" in self.screen():
                    self.keys("Enter")

    def command(self, text: str, done: str, timeout: float = 120) -> None:
        """Type a slash command and wait for `done` on the screen: a TUI under load can
        take the Enter for its completion menu, leaving the command in the input box."""
        self.type(text)
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.wait_text(done, timeout=10)
                return
            except AssertionError:
                if time.monotonic() > deadline:
                    raise
                self.keys("Enter")

    def kill(self) -> None:
        """End the tmux server and the CLI in its pane: Gemini CLI outlives the SIGHUP
        that `kill-server` sends, and a test that failed before `/quit` left it running."""
        panes = self._tmux("list-panes", "-a", "-F", "#{pane_pid}").split()
        self._tmux("kill-server")
        for pid in panes:  # the pane's process leads its own process group
            with contextlib.suppress(OSError):
                os.killpg(int(pid), signal.SIGKILL)

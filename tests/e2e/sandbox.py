"""One isolated world for a harness CLI: home, project, memory root, and a mock model API.

The mock (`mockapi.py`) runs inside a fresh network namespace that has only loopback
(`unshare -n` as root), and every CLI runs in that namespace too (`nsenter --net`), so
nothing the CLIs try can reach any address but 127.0.0.1. Where namespaces are not
available (not root) the tier runs on the host's loopback with every vendor call turned
off by the CLIs' own switches; `MEMHOOKS_E2E_NETNS=0|1` forces the choice.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.e2e.modellog import Request
from tests.e2e.tmux import Tmux

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

REPO = Path(__file__).resolve().parents[2]
MEMHOOKS = Path(sys.executable).parent / "memhooks"
API_KEY = {
    "claude": "sk-ant-mock-0000000000000000",
    "codex": "mock",
    "gemini": "mock-key",
}


def netns_usable() -> bool:
    """True when this process may make a network namespace (root, util-linux present)."""
    wanted = os.environ.get("MEMHOOKS_E2E_NETNS")
    if wanted is not None:
        return wanted == "1"
    if shutil.which("unshare") is None or shutil.which("nsenter") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-n", "ip", "link", "set", "lo", "up"],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


@dataclass
class Leftovers:
    """What a session left behind once its CLI had exited."""

    processes: list[str] = field(default_factory=list)
    sockets: list[str] = field(default_factory=list)
    states: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.processes or self.sockets or self.states)


class Sandbox:
    """Folders, environment and the mock API for one harness CLI run (or several)."""

    def __init__(self, base: Path, bins: Path, *, netns: bool) -> None:
        self.base = base
        self.bins = bins
        self.netns = netns
        self.home = base / "home"
        self.project = base / "work" / "kestrel"
        self.root = base / "memroot"
        self.mock_dir = base / "mock"
        # Unix socket paths are limited to ~100 bytes: the runtime folder gets a short one.
        self.runtime = Path(tempfile.mkdtemp(prefix="mhe2e-", dir="/tmp"))
        self._mock: subprocess.Popen[bytes] | None = None
        self._tmux: list[Tmux] = []
        self.port = 0

    # --- life cycle ----------------------------------------------------------------

    def start(self) -> Sandbox:
        for folder in (self.home, self.project, self.root, self.mock_dir):
            folder.mkdir(parents=True, exist_ok=True)
        (self.home / ".config").mkdir(exist_ok=True)
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)
        (self.project / "README.md").write_text(
            "# kestrel\nA project for the e2e tier.\n"
        )
        self.script()
        cmd = [sys.executable, "-m", "tests.e2e.mockapi", str(self.mock_dir)]
        if self.netns:
            cmd = [
                "unshare",
                "-n",
                "sh",
                "-c",
                'ip link set lo up && exec "$@"',
                "sh",
                *cmd,
            ]
        self._mock = subprocess.Popen(cmd, stdin=subprocess.PIPE, cwd=REPO)
        port_file = self.mock_dir / "port"
        deadline = time.monotonic() + 10
        while not port_file.exists():
            if self._mock.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the mock model API did not start")
            time.sleep(0.05)
        self.port = int(port_file.read_text())
        return self

    def close(self) -> None:
        for tmux in self._tmux:
            tmux.kill()
        if self._mock is not None:
            assert self._mock.stdin is not None
            self._mock.stdin.close()
            try:
                self._mock.wait(5)
            except subprocess.TimeoutExpired:
                self._mock.kill()
                self._mock.wait()
        shutil.rmtree(self.runtime, ignore_errors=True)
        # Codex's app-server daemon and its updater run a copy of its binary kept in
        # $CODEX_HOME, in a session of their own: outliving the TUI and tmux, they go here.
        for pid in os.listdir("/proc"):
            with contextlib.suppress(OSError, ValueError):
                if Path(f"/proc/{pid}/exe").resolve().is_relative_to(self.home):
                    os.kill(int(pid), signal.SIGKILL)

    def in_namespace(self, argv: Sequence[str]) -> list[str]:
        """`argv` run inside the mock's network namespace (unchanged without one)."""
        if not self.netns:
            return list(argv)
        assert self._mock is not None
        return ["nsenter", f"--net=/proc/{self._mock.pid}/ns/net", "--", *argv]

    # --- environment ------------------------------------------------------------------

    def env(self, **extra: str) -> dict[str, str]:
        """The environment a user's shell would give the CLI: isolated HOME and memory root."""
        path = os.pathsep.join(
            [
                str(self.bins),
                str(MEMHOOKS.parent),
                os.path.dirname(shutil.which("node") or "/usr/bin"),
                "/usr/local/bin",
                "/usr/bin",
                "/bin",
            ]
        )
        env = {
            "PATH": path,
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "MEMHOOKS_HOME": str(self.root),
            # Search by words: the [semantic] extra would load a 150 MB model in every
            # session process, which this tier is not about (tests/memory covers it).
            "MEMHOOKS_SEMANTIC": "off",
            "LANG": "C.UTF-8",
            "TERM": "xterm-256color",
            "TZ": os.environ.get("TZ", "UTC"),
            "NO_UPDATE_NOTIFIER": "1",
            "DO_NOT_TRACK": "1",
        }
        return {**env, **extra}

    def run(
        self,
        argv: Sequence[str],
        *,
        env: dict[str, str],
        timeout: float = 90,
        cwd: Path | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run a CLI in the sandbox, stdin closed, output captured."""
        return subprocess.run(
            self.in_namespace(argv),
            cwd=cwd or self.project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def worktree(self, env: dict[str, str]) -> Path:
        """The project committed and checked out again as a `git worktree` beside it."""
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
        tree = self.project.parent / "kestrel-wt"
        for args in (["add", "README.md"], ["commit", "-qm", "x"]):
            assert self.run([*git, *args], env=env).returncode == 0
        add = self.run([*git, "worktree", "add", "-q", str(tree)], env=env)
        assert add.returncode == 0, add.stderr
        return tree

    def tmux(self, argv: Sequence[str], *, env: dict[str, str]) -> Tmux:
        """Start `argv` in a 200x50 tmux session inside the sandbox."""
        sock = self.runtime / f"tmux{len(self._tmux)}"
        tmux = Tmux(sock)
        self._tmux.append(tmux)
        # The tmux server is forked by this first client: it inherits the namespace and env.
        tmux_argv = [
            "tmux",
            "-S",
            str(sock),
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "main",
            "-x",
            "200",
            "-y",
            "50",
            "-c",
            str(self.project),
        ]
        subprocess.run(
            self.in_namespace([*tmux_argv, *argv]), env=env, check=True, timeout=10
        )
        tmux._tmux("set-option", "-g", "remain-on-exit", "off")
        return tmux

    def memhooks(self, *args: str, input: str | None = None) -> str:
        """Run the memhooks command as the user would, in the project."""
        out = subprocess.run(
            [str(MEMHOOKS), *args],
            cwd=self.project,
            env=self.env(),
            input=input,
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        return out.stdout + out.stderr

    # --- the mock model ---------------------------------------------------------------

    def script(
        self, rules: Sequence[dict[str, Any]] = (), *, usage: int | dict[str, int] = 100
    ) -> None:
        """What the mock model answers (mockapi.py): `{"when", "reply"}` or
        `{"when", "tool", "args"}` rules; the first whose text is in the prompt wins;
        `usage` per API as `{"anthropic": N, "responses": N, "gemini": N}` or for all."""
        data = {"rules": list(rules), "usage": usage}
        tmp = self.mock_dir / "script.json.tmp"
        tmp.write_text(json.dumps(data))
        tmp.replace(self.mock_dir / "script.json")

    def requests(self) -> list[Request]:
        path = self.mock_dir / "requests.jsonl"
        if not path.exists():
            return []
        text = path.read_text()
        out = []
        # Whole lines only: the mock may be writing the last one (a body of 50 KB) as
        # this reads, which under load a test read half of.
        for line in text[: text.rfind("\n") + 1].splitlines():
            r = json.loads(line)
            out.append(Request(r["n"], r["method"], r["path"], r["body"]))
        return out

    def turns(self, prompt: str) -> list[Request]:
        """The requests that carried `prompt` as the user's last message, in order."""
        return [r for r in self.requests() if r.carries(prompt)]

    def sends(self, prompt: str) -> list[Request]:
        """The first request of each time the user sent `prompt`, in order."""
        seen: list[Request] = []
        for r in self.turns(prompt):
            # Later requests of the same turn (tool results) repeat the prompt as often.
            if r.count(prompt) > len(seen):
                seen.append(r)
        return seen

    def turn(self, prompt: str, nth: int = 0) -> Request:
        """The first request of the `nth` time the user sent `prompt`."""
        seen = self.sends(prompt)
        assert len(seen) > nth, f"the model never got prompt {prompt!r} (#{nth})"
        return seen[nth]

    def ask(
        self,
        tmux: Tmux,
        prompt: str,
        nth: int = 0,
        *,
        timeout: float = 60,
        reply: str | None = None,
    ) -> Request:
        """Type a prompt in an interactive CLI; wait for the model's answer on the screen
        (`reply`, for a turn whose script says one, else "Mock reply N.")."""
        tmux.type(prompt)
        deadline = time.monotonic() + timeout
        while len(self.sends(prompt)) <= nth:
            # A TUI still starting up (or taking the text for a paste) can swallow the
            # Enter: the prompt then sits in the input box, so press it again. One still
            # loading a resumed session can drop the typed text itself (Gemini CLI: the
            # box empty, the old turns drawn): type it again.
            try:
                tmux.wait_for(
                    lambda: len(self.sends(prompt)) > nth,
                    timeout=5,
                    what=f"the model to get {prompt!r}",
                )
            except AssertionError:
                if time.monotonic() > deadline:
                    raise
                if prompt[:30] in tmux.screen():
                    tmux.keys("Enter")
                else:
                    tmux.type(prompt)
        request = self.sends(prompt)[nth]
        tmux.wait_text(reply or f"Mock reply {request.n}.", timeout=timeout)
        return request

    # --- memory and what is left ------------------------------------------------------

    def daily(self) -> str:
        """Today's daily log of the project ("" when none)."""
        logs = sorted(self.root.glob(f"projects/*/daily/{date.today().isoformat()}.md"))
        return "\n".join(p.read_text() for p in logs)

    def entries(
        self, title: str, *, at_least: int = 0, wait: float = 10.0
    ) -> list[str]:
        """Today's log entries whose heading ends with `title`, each with its body; with
        `at_least`, waited for up to `wait` seconds (a harness that does not await its
        SessionEnd hook exits while the session process still writes the record)."""
        deadline = time.monotonic() + wait
        while True:
            chunks = re.split(r"^(?=### )", self.daily(), flags=re.MULTILINE)
            found = [
                c
                for c in chunks
                if c.startswith("### ") and c.splitlines()[0].endswith("— " + title)
            ]
            if len(found) >= at_least or time.monotonic() > deadline:
                return found
            time.sleep(0.1)

    def leftovers(self, *, grace: float = 3.0) -> Leftovers:
        """Memhooks processes, sockets and session state still there after `grace` seconds."""
        deadline = time.monotonic() + grace
        while True:
            found = Leftovers(
                processes=list(self._processes()),
                sockets=sorted(str(p) for p in self.runtime.rglob("*.sock")),
                states=sorted(
                    str(p)
                    for p in (self.root / ".sessions").glob("*")
                    if p.name != ".gitignore"
                ),
            )
            if not found or time.monotonic() > deadline:
                return found
            time.sleep(0.1)

    def _processes(self) -> Iterator[str]:
        marker = f"MEMHOOKS_HOME={self.root}".encode()
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                environ = Path(f"/proc/{pid}/environ").read_bytes()
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"memhooks" not in cmdline and b"hooks" not in cmdline:
                continue
            if marker in environ.split(b"\0") or str(self.root).encode() in cmdline:
                yield pid + ": " + cmdline.replace(b"\0", b" ").decode(errors="replace")

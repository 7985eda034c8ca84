from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

if TYPE_CHECKING:
    from collections.abc import Iterator

REPO = Path(__file__).resolve().parent.parent

# Property tests run a fixed, bounded set of examples in CI (same cases every run); the
# longer fuzz run in the README's reliability section is `HYPOTHESIS_PROFILE=long`.
settings.register_profile(
    "ci", derandomize=True, database=None, max_examples=100, deadline=None
)
settings.register_profile("long", max_examples=5000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`make test` runs the suite on two processes (pytest-xdist): a test file whole on one
    of them, and the tier of real harness CLIs (tests/e2e) whole on one, its TUIs one at a
    time as when the suite runs on one process."""
    from xdist.scheduler import LoadScopeScheduling

    class Whole(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return "tests/e2e" if path.startswith("tests/e2e/") else path

    return Whole(config, log)


@pytest.fixture(autouse=True)
def memory_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own memory root; the home location is made unusable."""
    root = tmp_path / "root"
    monkeypatch.setenv("MEMHOOKS_HOME", str(root))
    monkeypatch.setenv("HOME", str(tmp_path / "no-home-for-tests"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    # What moves a harness's user files away from home (hooks/harness_dirs.py).
    for variable in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"):
        monkeypatch.delenv(variable, raising=False)
    # Search by words unless a test asks for meaning (tests/memory/test_semantic.py):
    # with the [semantic] extra installed, `auto` would load a 150 MB model in every
    # session and eval test.
    monkeypatch.setenv("MEMHOOKS_SEMANTIC", "off")
    # Hook commands run in-process unless a test is about the session process they start.
    monkeypatch.setenv("MEMHOOKS_SESSION_PROCESS", "0")
    # This install's `memhooks` first on PATH, as an activated venv leaves it: the block's
    # tools line names it plain, whether or not pytest was started from the venv's shell
    # (hooks/modelshell.py). Codex's line names its path: no login shell's file names it.
    venv_bin = os.path.dirname(sys.executable)
    monkeypatch.setenv("PATH", os.pathsep.join([venv_bin, os.environ.get("PATH", "")]))
    return root


@pytest.fixture
def trusting(monkeypatch: pytest.MonkeyPatch) -> None:
    # Files written a moment ago are normally re-read (RACY_NS): trust them, so that the
    # index file's postings are what is ranked; several runs per file (BATCH).
    from memhooks.memory import layered, segment

    monkeypatch.setattr(layered, "RACY_NS", 0)
    monkeypatch.setattr(segment, "BATCH", 3)


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One item per stat of every file in scope (`Scope.walk`, `Scope.found`) from now on."""
    from memhooks.memory.scope import Found, Scope

    calls: list[int] = []
    found = Scope.found

    def counted(self: Scope) -> Iterator[Found]:
        calls.append(1)
        return found(self)

    monkeypatch.setattr(Scope, "found", counted)
    return calls


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git checkout (so worktree rules apply) that a session can run in."""
    p = tmp_path / "shop"
    (p / ".git").mkdir(parents=True)
    return p


def startup_seconds() -> float:
    """How long a hook command takes on this machine right now to start, import
    everything a hook needs, refuse an empty event and exit.

    The yardstick of wall-clock assertions: on a busy machine every process starts
    slower, so a limit is "a few start-ups and this much more", measured in the same run.
    """
    start = time.monotonic()
    subprocess.run(
        [sys.executable, "-P", "-m", "memhooks.hooks", "hook"],
        input=b"",
        capture_output=True,
        check=False,
        env={**os.environ, "MEMHOOKS_SESSION_PROCESS": "0"},
    )
    return time.monotonic() - start


def children_cpu_seconds() -> float:
    """CPU time used so far by this process's finished children (user + system)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_cli(
    *args: str,
    input: str | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 30,
) -> subprocess.CompletedProcess[str]:
    """Run the real command in a subprocess, as a harness or a person would."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "memhooks.hooks", *args],
        input=input,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
        check=False,
    )


#: Starts the command given after it as a child of no process of the test's: the
#: parent forks and exits, and the orphan is adopted by init.
_DETACH = "import os, sys\nif os.fork():\n    os._exit(0)\nos.execvp(sys.argv[1], sys.argv[1:])"


def run_cli_as_person(
    *args: str, cwd: Path | None = None, timeout: float = 30
) -> subprocess.CompletedProcess[str]:
    """Run the real command as a person does, in a terminal of their own: not under
    the test process, which runs the hooks as a harness would (`memhooks write` & co
    under a session's harness are the model's: hooks/session_writes.py). Its exit code
    comes back through a file: its parent is gone."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        rc = Path(tmp) / "rc"
        shell = ["sh", "-c", '"$@"; echo $? > "$MEMHOOKS_TEST_RC"', "sh"]
        argv = [sys.executable, "-c", _DETACH, *shell, *_MEMHOOKS, *args]
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            cwd=cwd,
            env={**os.environ, "MEMHOOKS_TEST_RC": str(rc)},
            timeout=timeout,
            check=False,
        )
        code = int(rc.read_text())
    return subprocess.CompletedProcess(argv, code, done.stdout, done.stderr)


_MEMHOOKS = (sys.executable, "-m", "memhooks.hooks")


def grown_rules_and_items(project: Path, rules: int, items: int) -> None:
    """Write, as a person does (`memhooks write`), a MEMORY.md of `rules` rules and a
    scratchpad of `items` open items: a project months in, its block's shares full."""
    ruled = "\n".join(
        f"- Rule {i}: check the deploy queue of worker {i}." for i in range(rules)
    )
    listed = "\n".join(
        f"- finish the billing export of customer {i}" for i in range(items)
    )
    for to, text in (("memory", ruled), ("scratchpad", listed)):
        assert run_cli("write", "--to", to, "--text", text, cwd=project).returncode == 0

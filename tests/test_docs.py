"""Every command shown in README.md, docs/ and examples/ runs, and prints what is shown.

A fenced ``console`` or ``sh`` block is a terminal session: ``$ command`` lines, each
followed by its output. The blocks of one Markdown file run in order in one fresh
environment that `tests/docs_home.sh` builds: a home folder holding a git project
``~/myapp`` (the current directory), the memory root at its default place under that
home, and this install's ``memhooks`` first on PATH. A block that cannot run here (a
package install, a harness command) is preceded by ``<!-- docs-test: skip (why) -->``.

The comparison is exact after a small, explicit normalisation (`normalise`): the
temporary home is shown as ``/home/you``, the project's slug as the one ``/home/you/myapp``
gets, today's date as 2026-11-30 and entry times as 10:07.

``python -m tests.test_docs --update FILE...`` rewrites the outputs shown from real runs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

import pytest

from memhooks.memory import Store, today
from tests.conftest import REPO

SETUP = REPO / "tests" / "docs_home.sh"
SHOWN_HOME = "/home/you"
SHOWN_DATE = "2026-11-30"
SKIP = "<!-- docs-test: skip"
#: Blocks that cannot run here; each is marked in its Markdown with the reason.
MAX_SKIPPED = 7
_FENCE = re.compile(r"^```(console|sh)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_TIME = re.compile(r"(### )\d\d:\d\d( — )")


def documents() -> list[Path]:
    """README.md, docs/*.md and every Markdown file under examples/."""
    return [
        REPO / "README.md",
        *sorted((REPO / "docs").glob("*.md")),
        *sorted((REPO / "examples").rglob("*.md")),
    ]


class Step(NamedTuple):
    command: str
    shown: str  #: the output on the page


class Block(NamedTuple):
    start: int  #: offset of the block's body in the file
    end: int
    steps: list[Step]
    skipped: bool


def blocks(text: str) -> list[Block]:
    """The console and sh blocks of a Markdown text, in order."""
    out = []
    for m in _FENCE.finditer(text):
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        steps: list[Step] = []
        for line in m.group(2).splitlines():
            if line.startswith("$ "):
                steps.append(Step(line[2:], ""))
            elif steps:
                last = steps[-1]
                steps[-1] = last._replace(shown=last.shown + line + "\n")
        out.append(Block(m.start(2), m.end(2), steps, before.startswith(SKIP)))
    return out


class Env:
    """One fresh home for one Markdown file, the commands run in it, in order."""

    def __init__(self, base: Path) -> None:
        self.home = base / "home"
        subprocess.run(["bash", str(SETUP), str(self.home), str(REPO)], check=True)
        self.cwd = self.home / "myapp"
        self.env = {
            "HOME": str(self.home),
            "PATH": os.pathsep.join(
                [str(Path(sys.executable).parent), "/usr/bin", "/bin"]
            ),
            "LANG": "C.UTF-8",
            "TZ": "UTC",
            "MEMHOOKS_SESSION_PROCESS": "0",
            "MEMHOOKS_SEMANTIC": "off",
            "GIT_CONFIG_GLOBAL": str(self.home / ".gitconfig"),
        }
        root = self.home / ".local" / "share" / "memhooks"
        self.slug = Store.for_project(root, self.cwd).slug
        self.shown_slug = Store.for_project(root, f"{SHOWN_HOME}/myapp").slug

    def run(self, command: str) -> str:
        """Output (stdout and stderr, as a terminal shows them), normalised."""
        where = self.home / ".cwd"
        script = f'cd "$1" || exit 1\n{command}\nrc=$?\npwd > "$2"\nexit $rc\n'
        proc = subprocess.run(
            ["bash", "-c", script, "docs", str(self.cwd), str(where)],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=60,
            check=False,
        )
        if where.is_file():
            self.cwd = Path(where.read_text().strip())
        return self.normalise(proc.stdout)

    def normalise(self, text: str) -> str:
        """Only what differs from run to run: the home, the slug, the date, the time."""
        text = text.replace(str(self.home), SHOWN_HOME)
        text = text.replace(self.slug, self.shown_slug)
        text = text.replace(today(), SHOWN_DATE)
        text = _TIME.sub(r"\g<1>10:07\g<2>", text)
        return "\n".join(ln.rstrip() for ln in text.splitlines()) + (
            "\n" if text.strip() else ""
        )


def replay(path: Path, base: Path) -> list[tuple[Step, str]]:
    """Every step of the file's runnable blocks with its real output."""
    env = Env(base)
    return [
        (step, env.run(step.command))
        for block in blocks(path.read_text("utf-8"))
        if not block.skipped
        for step in block.steps
    ]


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    "path", [pytest.param(p, id=str(p.relative_to(REPO))) for p in documents()]
)
def test_commands_print_what_the_page_shows(path: Path, tmp_path: Path) -> None:
    for step, real in replay(path, tmp_path):
        assert real == step.shown, f"$ {step.command}"


def test_every_shell_block_runs_or_says_why_not() -> None:
    skipped = []
    for path in documents():
        text = path.read_text("utf-8")
        for block in blocks(text):
            if block.skipped:
                skipped.append(path.name)
            else:
                assert block.steps, f"{path.name}: a block without `$ ` commands"
        # Fences in other languages that hold shell commands would escape the test.
        assert not re.search(r"^```(bash|shell)$", text, re.MULTILINE), path.name
    assert len(skipped) <= MAX_SKIPPED, skipped


#: What a user reads: the pages, the examples, the package's metadata and its commands.
USER_FACING = [
    "README.md",
    "docs",
    "examples",
    "pyproject.toml",
    *(f"hooks/{m}.py" for m in ("cli", "parser", "commands", "hookcmd", "installcmd")),
    *(
        f"hooks/{m}.py"
        for m in (
            "install",
            "doctor",
            "harnesscheck",
            "executable",
            "mcpcheck",
            "evalcmd",
        )
    ),
]


def test_nothing_points_outside_the_repository() -> None:
    for rel in USER_FACING:
        top = REPO / rel
        for path in [top] if top.is_file() else sorted(top.rglob("*.*")):
            text = path.read_text("utf-8", "replace")
            assert "../shared" not in text, path
            assert not re.search(r"\bspec §|hooks-protocol\.md|\[OBS-", text), path


def update(path: Path) -> None:
    """Rewrite the outputs shown in `path` from real runs."""
    text = path.read_text("utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        env = Env(Path(tmp))
        pieces, at = [], 0
        for block in blocks(text):
            if block.skipped:
                continue
            body = "".join(f"$ {s.command}\n{env.run(s.command)}" for s in block.steps)
            pieces += [text[at : block.start], body]
            at = block.end
        path.write_text("".join([*pieces, text[at:]]), "utf-8")


if __name__ == "__main__":
    if sys.argv[1:2] != ["--update"]:
        sys.exit("usage: python -m tests.test_docs --update FILE...")
    for name in sys.argv[2:]:
        update(Path(name).resolve())

"""A session process leaves once memhooks' own files change on disk (an upgrade), and the
next hook, run with the new files, answers and starts one of its own."""

from __future__ import annotations

import json
import os
import py_compile
import select
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from memhooks.hooks import upgraded
from memhooks.hooks.upgraded import Install, fingerprint
from memhooks.memory import Store, slug_for, today
from memhooks.memory.paths import daily
from tests.hooks.test_fastpath import FAST, _hook, _payload, _servers, _wait
from tests.hooks.test_session import Session

if TYPE_CHECKING:
    from pathlib import Path


def _replaced(path: Path) -> None:
    """`path` written anew with the same bytes and times, as a reinstall writes it."""
    new = path.with_name(path.name + ".new")
    shutil.copy2(path, new)
    os.replace(new, path)


def test_a_file_replaced_added_removed_or_edited_is_a_change(tmp_path: Path) -> None:
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "a.py").write_text("A = 1\n")
    (folder / "b.py").write_text("B = 1\n")
    folders = (str(folder),)
    for change in (
        lambda: _replaced(folder / "a.py"),
        lambda: (folder / "c.py").write_text("C = 1\n"),
        lambda: (folder / "b.py").unlink(),
        lambda: (folder / "a.py").write_text("A = 2\n"),
    ):
        install = Install(folders)
        assert not install.changed()
        change()
        assert install.changed()


def test_compiled_files_and_other_files_are_no_change(tmp_path: Path) -> None:
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "a.py").write_text("A = 1\n")
    install = Install((str(folder),))
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0" * 16)
    (folder / "py.typed").write_text("")
    assert not install.changed()


def test_a_folder_gone_mid_install_is_a_change_and_an_unreadable_start_never_is(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "pkg"
    folder.mkdir()
    install = Install((str(folder),))
    folder.rmdir()
    assert install.changed()
    assert fingerprint((str(folder),)) is None
    assert not Install((str(folder),)).changed()  # nothing to compare with


def _copied_install(site: Path) -> Path:
    """memhooks' packages copied under `site` (run with PYTHONPATH=site): an install of
    our own that a test can upgrade."""
    package = site / "memhooks"
    for folder in upgraded.FOLDERS:
        shutil.copytree(
            folder,
            package / os.path.basename(folder),
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    return package


#: Run in a fresh interpreter: `keep_release` over the package `memhooks.demo` of the
#: folder argv[1], which an upgrade then rewrites; prints what its module `a` holds.
_KEPT = """
import os, sys
sys.path.insert(0, sys.argv[1])
import memhooks.demo
from memhooks.hooks.upgraded import keep_release
folder = os.path.join(sys.argv[1], "memhooks", "demo")
keep_release((folder,))
for name in os.listdir(folder):
    if name.endswith(".py") and name != "__init__.py":
        with open(os.path.join(folder, name), "w") as f:  # the next release
            f.write("from memhooks.demo import only_in_the_next_release\\n")
import memhooks.demo.a
print(memhooks.demo.a.X)
"""


@pytest.mark.parametrize("compiled", [True, False])
def test_a_module_first_imported_after_an_upgrade_is_the_one_kept(
    tmp_path: Path, compiled: bool
) -> None:
    # As pip installs it (compiled), or as a checkout runs (source only).
    folder = tmp_path / "memhooks" / "demo"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    (folder / "a.py").write_text("from memhooks.demo.b import X\n")
    (folder / "b.py").write_text("X = 'kept'\n")
    if compiled:
        for name in ("a.py", "b.py"):
            py_compile.compile(str(folder / name), doraise=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-c", _KEPT, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "kept\n", "")
    if not compiled:  # no compiled file of the old release beside the new sources
        assert not list(folder.glob("__pycache__/[ab].*"))


def test_an_upgrade_ends_the_session_process_and_the_next_prompt_starts_one(
    memory_root: Path, tmp_path: Path
) -> None:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    Store(memory_root, slug_for(str(project))).write_note(
        "payments", "The Stripe webhook secret lives in vault at kv/shop/stripe."
    )
    package = _copied_install(tmp_path / "site")
    env = {**FAST, "PYTHONPATH": str(tmp_path / "site")}
    _hook(_payload("SessionStart", project, "up-1", source="startup"), env)
    assert _wait(lambda: len(_servers(memory_root)) == 1)
    [before] = _servers(memory_root)
    prompt = _payload(
        "UserPromptSubmit",
        project,
        "up-1",
        prompt="where is the stripe webhook secret?",
    )
    assert "kv/shop/stripe" in _hook(prompt, env).stdout

    _replaced(package / "memory" / "glosses.py")  # a module it has not imported
    assert _wait(lambda: before not in _servers(memory_root)), "it never left"

    # Answered by the new files; what the session was shown is not shown again.
    again = _hook(prompt, env)
    assert again.returncode == 0 and again.stderr == "" and again.stdout == ""
    other = _payload(
        "UserPromptSubmit", project, "up-1", prompt="which vault path holds stripe?"
    )
    assert _wait(lambda: len(_servers(memory_root)) == 1), "no new session process"
    [after] = _servers(memory_root)
    assert after != before
    assert _hook(other, env).returncode == 0
    _hook(_payload("SessionEnd", project, "up-1", reason="other"), env)
    assert _wait(lambda: not _servers(memory_root))


def _next_release(package: Path) -> None:
    """Each module of the copy at `package` written as a new release that needs a name
    the old code in a running process lacks."""
    for module in [*package.glob("memory/*.py"), *package.glob("hooks/*.py")]:
        with module.open("a") as f:
            f.write("\nfrom memhooks.memory.text import only_in_the_next_release\n")


def test_memhooks_mcp_keeps_serving_every_tool_after_an_upgrade(
    memory_root: Path, tmp_path: Path
) -> None:
    """`memhooks mcp` lives as long as the harness and cannot leave: it keeps the
    release it started with, so a module it had not needed yet is not taken from the new
    files, which may need a name the old code in memory lacks."""
    package = _copied_install(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    argv = ["-m", "memhooks.hooks", "mcp", "--root", str(memory_root)]
    server = subprocess.Popen(
        [sys.executable, *argv, "--slug", "shop-0123abcd"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    asked = 0

    def ask(method: str, params: dict[str, Any]) -> dict[str, Any]:
        nonlocal asked
        asked += 1
        message = {"jsonrpc": "2.0", "id": asked, "method": method, "params": params}
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(json.dumps(message).encode() + b"\n")
        server.stdin.flush()
        assert select.select([server.stdout], [], [], 60)[0], f"{method}: no reply"
        reply: dict[str, Any] = json.loads(server.stdout.readline())
        assert "error" not in reply, reply
        result: dict[str, Any] = reply["result"]
        return result

    def call(tool: str, **arguments: str) -> str:
        result = ask("tools/call", {"name": tool, "arguments": arguments})
        assert not result["isError"], result
        text: str = result["content"][0]["text"]
        return text

    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        ask("initialize", {**hello, "clientInfo": {"name": "test", "version": "1"}})
        assert len(ask("tools/list", {})["tools"]) == 5
        _next_release(package)
        secret = "ghp_" + "a1B2" * 9  # a secret warned of: the checks' modules
        assert "wrote" in call("memory_write", to="note", name="redis", text=secret)
        call("memory_write", to="daily", title="deploy", text="moved redis to 6390")
        assert "redis" in call("memory_search", query="最新的 redis 端口")
        call("memory_search", query="->")
        assert "6390" in call("memory_read", target=f"daily/{today()}")
        call("memory_edit", target="notes/redis", old=secret, new="in vault")
        assert "forgot" in call("memory_forget", target="notes/redis")
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=60)
        assert server.stderr is not None
        stderr = server.stderr.read().decode()
        for stream in (server.stdout, server.stderr):
            assert stream is not None
            stream.close()
    assert server.returncode == 0 and "Traceback" not in stderr, stderr


def test_a_session_over_a_pipe_answers_every_event_after_an_upgrade(
    memory_root: Path, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memhooks session` cannot leave at an upgrade either (the harness holds its
    pipes): it keeps the release it started with."""
    store = Store(memory_root, slug_for(str(project)))
    store.write_note(
        "payments", "The Stripe webhook secret lives in vault kv/shop/stripe."
    )
    package = _copied_install(tmp_path / "site")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "site"))
    transcript = tmp_path / "t.jsonl"
    said = {"type": "user", "message": {"content": "we moved redis to port 6390"}}
    transcript.write_text(json.dumps(said) + "\n")
    base = {"session_id": "s", "cwd": str(project)}
    with Session(memory_root) as s:
        assert s.send(event="session-start", **base)["ok"] is True
        _next_release(package)
        found = s.send(
            event="pre-prompt", prompt="stripe 的 webhook 密钥在哪里?", **base
        )
        assert "kv/shop/stripe" in str(found["context"]), found
        for event in (
            {"event": "pre-compaction", "transcript_path": str(transcript)},
            {"event": "post-compaction", "summary": "moved redis to port 6390"},
            {"event": "session-end"},
        ):
            reply = s.send(**base, **event)
            assert reply["ok"] is True, reply
        assert s.proc.wait(timeout=30) == 0
        assert s.stderr() == ""
    assert "6390" in store.read_text(daily(store.slug, today()).rel)

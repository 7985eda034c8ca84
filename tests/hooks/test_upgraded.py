"""A session process leaves once memhooks' own files change on disk (an upgrade), and the
next hook, run with the new files, answers and starts one of its own."""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING

from memhooks.hooks import upgraded
from memhooks.hooks.upgraded import Install, fingerprint
from memhooks.memory import Store, slug_for
from tests.hooks.test_fastpath import FAST, _hook, _payload, _servers, _wait

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

"""Root resolution, project directory and slugs (docs/design.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memhooks.memory import UnsafeNameError, default_root, project_dir, slug_for
from memhooks.memory.paths import locate


def test_root_resolution_order(tmp_path: Path) -> None:
    env = {"MEMHOOKS_HOME": "/a", "XDG_DATA_HOME": "/b"}
    assert default_root("/explicit", env) == Path("/explicit")
    assert default_root(None, env) == Path("/a")
    assert default_root(None, {"XDG_DATA_HOME": "/b"}) == Path("/b/memhooks")
    assert default_root(None, {}) == Path.home() / ".local/share/memhooks"


@pytest.mark.parametrize(
    ("path", "prefix"),
    [
        pytest.param("/home/u/myapp", "myapp-", id="plain"),
        pytest.param("/home/u/my app!", "my-app--", id="sanitised"),
        pytest.param("/", "root-", id="empty"),
        pytest.param("/x/" + "a" * 60, "a" * 40 + "-", id="long"),
        pytest.param("/x/數據", "---", id="non-ascii"),
    ],
)
def test_slug_shape(path: str, prefix: str) -> None:
    slug = slug_for(path)
    assert slug.startswith(prefix)
    assert len(slug) == len(prefix) + 8


def test_same_basename_never_collides() -> None:
    assert slug_for("/a/myapp") != slug_for("/b/myapp")
    assert slug_for("/a/myapp") == slug_for("/a/myapp")


def test_worktrees_share_the_main_checkout(tmp_path: Path) -> None:
    main = tmp_path / "repo"
    (main / ".git" / "worktrees" / "feat").mkdir(parents=True)
    (main / "src" / "deep").mkdir(parents=True)
    wt = tmp_path / "feat-wt"
    (wt / "pkg").mkdir(parents=True)
    (wt / ".git").write_text(f"gitdir: {main / '.git' / 'worktrees' / 'feat'}\n")
    (main / ".git" / "worktrees" / "feat" / "commondir").write_text("../..\n")
    assert project_dir(main / "src" / "deep") == main
    assert project_dir(wt / "pkg") == main
    outside = tmp_path / "plain"
    outside.mkdir()
    assert project_dir(outside) == outside


def test_submodule_style_gitfile_without_commondir(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    (tmp_path / "modules").mkdir()
    (sub / ".git").write_text("gitdir: ../modules\n")
    assert project_dir(sub) == sub


@pytest.mark.parametrize(
    ("target", "rel"),
    [
        pytest.param("MEMORY.md", "MEMORY.md", id="memory"),
        pytest.param(
            "scratchpad", "projects/p-0123abcd/SCRATCHPAD.md", id="scratchpad"
        ),
        pytest.param(
            "daily/2026-03-28", "projects/p-0123abcd/daily/2026-03-28.md", id="daily"
        ),
        pytest.param(
            "notes/redis deploy",
            "projects/p-0123abcd/notes/redis deploy.md",
            id="note-with-space",
        ),
        pytest.param(
            "projects/o-89abcdef/notes/x.md",
            "projects/o-89abcdef/notes/x.md",
            id="search-path",
        ),
    ],
)
def test_locate(target: str, rel: str) -> None:
    assert locate(target, "p-0123abcd").rel == rel


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("evil\u202egpj", "bidirectional"),
        ("a\u2066b", "bidirectional"),
        ("del\x7fete", "control character"),
        ("c1\x85x", "control character"),
        # Written, then left out of search, status and the block (paths.breaks_line).
        ("tart\u2028pie", "line break"),
        ("tart\u2029pie", "line break"),
    ],
)
def test_note_names_that_display_falsely_are_refused(name: str, why: str) -> None:
    with pytest.raises(UnsafeNameError, match=why):
        locate(f"notes/{name}", "proj-0123abcd")

"""`memhooks doctor`: a project moved or renamed, whose memory stays under its old slug.

A project's memory folder is named by a hash of its path (`memory.paths.slug_for`), so a
checkout moved elsewhere, or renamed in place, starts with no memory while its old folder
keeps it; the `mv` that carries it over is said.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from memhooks.hooks.harnesscheck import Finding
from memhooks.memory.constants import PROJECTS_DIR
from memhooks.memory.paths import project_slugs, slug_for
from memhooks.memory.text import shell_word

if TYPE_CHECKING:
    from pathlib import Path


def check_moved(root: Path, project: Path) -> list[Finding]:
    """A warning when the project has no memory folder but one of its name has, or of a
    folder beside it now gone: a slug holds a hash of the path, so a project moved or
    renamed starts anew."""
    slug = slug_for(str(project))
    projects = root / PROJECTS_DIR
    name = slug.rsplit("-", 1)[0]

    def renamed(other: str) -> bool:
        was = project.parent / other.rsplit("-", 1)[0]
        return slug_for(str(was)) == other and not os.path.lexists(was)

    if os.path.exists(projects / slug):  # an unreadable root: False, and no slugs
        return []
    others = [
        s for s in project_slugs(root) if s.rsplit("-", 1)[0] == name or renamed(s)
    ]
    # In a root kept in git, another clone's checkout may still use the folder.
    git = (root / ".git").exists()
    said = []
    for other in others:
        mv = f"mv {shell_word(projects / other)} {shell_word(projects / slug)}"
        was = other.rsplit("-", 1)[0]
        how = "moved" if was == name else "renamed"
        said.append(f"no memory for {slug} yet, but projects/{other} holds that of another "
                    f"folder named {was}: if this project was {how} from there, `{mv}` "
                    f"carries it over (or pass --slug {other})" + (f"; in this root kept in "
                    f"git, a clone elsewhere may still use projects/{other}, which mv takes "
                    "from it" if git else ""))  # fmt: skip
    return [Finding("warn", line) for line in said]


__all__ = ["check_moved"]

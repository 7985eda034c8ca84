"""Where the memory root is, from the command line and the environment alone.

It imports `os` only: a hook's thin client (`hooks.client`) resolves the root on every
prompt, and `memory.paths.default_root` is this same function.
"""

from __future__ import annotations

import os

#: Not `typing.TYPE_CHECKING`: importing `typing` would cost the thin client more than
#: this whole module. Type checkers read this name the same way.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

ENV_HOME = "MEMHOOKS_HOME"
ENV_XDG_DATA_HOME = "XDG_DATA_HOME"
APP_DIR = "memhooks"


def root_dir(
    explicit: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> str:
    """The memory root, absolute: `explicit`, else $MEMHOOKS_HOME, else
    $XDG_DATA_HOME/memhooks, else ~/.local/share/memhooks. A relative $XDG_DATA_HOME
    is ignored, as the XDG Base Directory spec says (it is set for other programs too).

    Raises:
        EmptyRootError: `explicit` is given but empty.
    """
    if explicit is not None and not os.fspath(explicit):
        from memhooks.memory.errors import EmptyRootError  # the rare path: see above

        raise EmptyRootError
    env = os.environ if env is None else env
    xdg = env.get(ENV_XDG_DATA_HOME)
    for base, sub in (
        (explicit, ""),
        (env.get(ENV_HOME), ""),
        (xdg if xdg and os.path.isabs(os.path.expanduser(xdg)) else None, APP_DIR),
    ):
        if base:
            path = os.path.expanduser(os.fspath(base))
            if not os.path.isabs(path):
                path = os.path.join(os.getcwd(), path)
            return os.path.join(path, sub) if sub else path
    return os.path.join(os.path.expanduser("~"), ".local", "share", APP_DIR)

"""`memhooks demo`: a small memory in a temporary root, its injected block and a search."""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from hooks.constants import EXIT_OK
from memory import Store, build_block, render_text, search, today

if TYPE_CHECKING:
    import argparse

_NOTES = {
    "redis-deploy": "Redis port 6379 already bound by docker-compose.\nResolved the port conflict by remapping the host to 6380.\n",
    "port-setup": "# Local dev environment\nDefault service bindings and host mappings.\n",
    "redis-cli": "Connect with the CLI and run INFO for the server stats.\n",
}


def build_demo_root(root: Path) -> Store:
    """Write the spec's zerostack example (plus a rule and a to-do) into `root`."""
    store = Store(root, "myapp-1a2b3c4d")
    store.write_memory(
        "- Prefer small, reviewable commits.\n- Run the test suite before pushing."
    )
    store.write_scratchpad(
        "- [ ] add a healthcheck to the compose file\n- [x] find why docker-compose fails"
    )
    for name, text in _NOTES.items():
        store.write_note(name, text)
    when = dt.datetime(2026, 3, 28, 14, 32).astimezone()
    store.append_daily(
        "deploy troubleshooting",
        "docker-compose up failed; redis container couldn't bind port 6379",
        now=when,
    )
    return store


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    with tempfile.TemporaryDirectory(prefix="memhooks-demo-") as tmp:
        store = build_demo_root(Path(tmp))
        docs = store.corpus()
        out.write("$ memhooks inject\n" + build_block(docs, today()) + "\n\n")
        out.write(
            "$ memhooks search redis port conflict\n"
            + render_text(search(docs.values(), "redis port conflict"))
            + "\n"
        )
    return EXIT_OK

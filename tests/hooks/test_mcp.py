"""`memhooks mcp` driven as a real MCP client drives it: a subprocess over stdio, talked to
by the official SDK's client (a test dependency; the server needs no package) and by raw
JSON lines."""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
from typing import IO, TYPE_CHECKING, Any

import anyio
import pytest

from tests.conftest import REPO

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from mcp import ClientSession

# The SDK is a dev dependency: its client is the test's, the server uses none.
mcp = pytest.importorskip(
    "mcp", reason="the mcp SDK (a dev dependency) is not installed"
)
from mcp.client.stdio import StdioServerParameters, stdio_client

SLUG = "proj-0123abcd"
TOOLS = ["memory_search", "memory_read", "memory_write", "memory_edit", "memory_forget"]


@contextlib.asynccontextmanager
async def _served(root: Path, cwd: Path) -> AsyncIterator[ClientSession]:
    # An initialised client session of `memhooks mcp` on `root`, its stderr in cwd/err.log.
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memhooks.hooks", "mcp", "--root", str(root), "--slug", SLUG],
        cwd=str(cwd),
    )
    with (cwd / "err.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            mcp.ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def wire(model: Any) -> dict[str, Any]:
    """A result as it travels (camelCase keys), whichever major version of mcp is installed."""
    data: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True)
    return data


async def test_client_session(memory_root: Path, tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "memhooks.hooks",
            "mcp",
            "--root",
            str(memory_root),
            "--slug",
            SLUG,
        ],
        cwd=str(tmp_path),
    )
    log = tmp_path / "server-stderr.log"
    with anyio.fail_after(30), log.open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            mcp.ClientSession(read, write) as session,
        ):
            init = wire(await session.initialize())
            assert init["serverInfo"]["name"] == "memhooks"
            assert "memory_search" in init["instructions"]

            tools = {
                t["name"]: t for t in map(wire, (await session.list_tools()).tools)
            }
            assert list(tools) == TOOLS
            for tool in tools.values():
                assert tool["inputSchema"]["type"] == "object"
                assert len(tool["description"]) > 40  # written for a model
            write_schema = tools["memory_write"]["inputSchema"]
            assert write_schema["required"] == ["to", "text"]
            assert write_schema["properties"]["to"]["enum"] == [
                "memory",
                "scratchpad",
                "daily",
                "note",
            ]
            assert tools["memory_search"]["annotations"]["readOnlyHint"] is True

            async def call(tool: str, /, **args: Any) -> tuple[bool, str]:
                result = wire(await session.call_tool(tool, args))
                (content,) = result["content"]
                return result.get("isError", False), content["text"]

            note = f"projects/{SLUG}/notes/redis.md"
            assert await call(
                "memory_write", to="note", name="redis", text="Redis port 6380 on dev."
            ) == (False, f"wrote {note}")
            assert await call(
                "memory_write", to="note", name="redis", text="redis port 6380 ON dev."
            ) == (
                False,
                "\n".join(
                    [
                        f"unchanged {note}: every line is already there",
                        f"dropped, already in {note}: redis port 6380 ON dev.",
                    ]
                ),
            )
            error, text = await call("memory_search", query="redis port")
            assert not error
            assert text.startswith("Searched 2 terms: redis(1) port(1) across 1 file.")
            assert f"{note}  [matched: redis, port]" in text
            assert f"\n{note}:1:Redis port 6380 on dev." in text  # forget's PATH:LINE
            assert await call("memory_read", target="notes/redis") == (
                False,
                "Redis port 6380 on dev.\n",
            )
            # The line as search printed it reads the file (it said "no such file").
            assert await call("memory_read", target=f"{note}:1") == (
                False,
                "Redis port 6380 on dev.\n",
            )
            assert await call("memory_edit", target=note, old="6380", new="6381") == (
                False,
                f"edited {note}",
            )
            assert await call(
                "memory_forget", target="notes/redis", reason="dev moved"
            ) == (False, f"forgot {note}")
            error, text = await call("memory_search", query="redis")
            assert "across 0 files" in text

            error, text = await call("memory_read", target="../etc/passwd")
            assert error
            assert "refused name '../etc/passwd'" in text
            error, text = await call("memory_read", target="notes/none")
            assert error and "no such memory file" in text
            error, text = await call("memory_write", to="note", text="no name")
            assert error and "needs --name NAME" in text
            error, text = await call("memory_search", query="  ")
            assert error and "search needs a word to look for" in text
            error, text = await call("memory_write", to="memory", text="a\x00b")
            assert error and "write --text holds a NUL byte" in text
    assert "Traceback" not in log.read_text()
    assert (
        (memory_root / "projects" / SLUG / "notes" / "redis.md")
        .read_text()
        .startswith("forgotten: ")
    )


async def test_a_root_that_is_not_there_is_an_error_for_reading(
    tmp_path: Path,
) -> None:
    # A typo in the client's MEMHOOKS_HOME must not look like an empty memory.
    typo = tmp_path / "no-such-root"
    with anyio.fail_after(30):
        async with _served(typo, tmp_path) as session:
            result = wire(await session.call_tool("memory_search", {"query": "x"}))
            assert result["isError"] is True
            assert f"memory root {typo} does not exist" in result["content"][0]["text"]
    assert not typo.exists()


async def test_a_note_file_named_in_latin1_is_found_and_the_server_lives_on(
    memory_root: Path, tmp_path: Path
) -> None:
    # Before: a search finding notes/caf\xe9.md (a name that is not UTF-8) killed the
    # server ("PydanticSerializationError ... surrogates not allowed", exit 3): the
    # model lost every memory tool for the rest of its session.
    notes = memory_root / "projects" / SLUG / "notes"
    notes.mkdir(parents=True)
    (notes / os.fsdecode(b"caf\xe9.md")).write_text("kiwi tart\n")
    (notes / "ok.md").write_text("kiwi fruit\n")
    with anyio.fail_after(30):
        async with _served(memory_root, tmp_path) as session:
            found = wire(await session.call_tool("memory_search", {"query": "kiwi"}))
            assert "notes/caf\ufffd.md" in found["content"][0]["text"]
            again = wire(await session.call_tool("memory_read", {"target": "notes/ok"}))
            assert "kiwi fruit" in again["content"][0]["text"]
    assert "Traceback" not in (tmp_path / "err.log").read_text()


async def test_a_note_left_in_a_merge_conflict_is_read_with_a_warning(
    memory_root: Path, tmp_path: Path
) -> None:
    # Before: `memhooks read` warned on stderr that a note held both sides of a git
    # merge, but the model's memory_read gave the sides as the note's text, no word.
    notes = memory_root / "projects" / SLUG / "notes"
    notes.mkdir(parents=True)
    sides = "pool size:\n<<<<<<< HEAD\n40\n=======\n60\n>>>>>>> origin/main\n"
    (notes / "pool.md").write_text(sides)
    (notes / "settled.md").write_text("pool size: 40\n")
    with anyio.fail_after(30):
        async with _served(memory_root, tmp_path) as session:
            read = wire(
                await session.call_tool("memory_read", {"target": "notes/pool"})
            )
            text = read["content"][0]["text"]
            assert text == sides + (
                "warning: notes/pool.md:2: an unresolved git merge conflict: both sides"
                " of a merge stand between <<<<<<< and >>>>>>>, neither settled"
            )
            args = {"target": "notes/settled"}
            settled = wire(await session.call_tool("memory_read", args))
            assert settled["content"][0]["text"] == "pool size: 40\n"
    assert (notes / "pool.md").read_text() == sides  # read, not changed


async def test_an_overwrite_from_a_client_sending_empty_aliases_keeps_them(
    memory_root: Path, tmp_path: Path
) -> None:
    # A client may fill every argument it does not use with "": an overwrite of a
    # note's body then dropped the aliases it is found by.
    with anyio.fail_after(30):
        async with _served(memory_root, tmp_path) as session:
            for aliases, text in (("pgbouncer", "Pool size is 20."), ("", "Now 40.")):
                args = {"to": "note", "name": "pool", "text": text, "aliases": aliases}
                await session.call_tool("memory_write", args | {"mode": "overwrite"})
    note = memory_root / f"projects/{SLUG}/notes/pool.md"
    assert note.read_text() == "aliases: pgbouncer\nNow 40.\n"


def test_serves_with_no_mcp_package(memory_root: Path) -> None:
    # Before, `memhooks mcp` needed the [mcp] extra, whose imports alone took 0.5 s.
    code = (
        "import sys; sys.modules['mcp'] = None\n"
        "from memhooks.hooks.cli import main\n"
        f"raise SystemExit(main(['mcp', '--root', {str(memory_root)!r}]))\n"
    )
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    proc = subprocess.run(
        [sys.executable, "-c", code],
        input="".join(json.dumps(m) + "\n" for m in messages),
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    init, listed = map(json.loads, proc.stdout.splitlines())
    assert init["result"]["protocolVersion"] == "2025-06-18"
    assert init["result"]["capabilities"] == {"tools": {"listChanged": False}}
    assert [t["name"] for t in listed["result"]["tools"]] == TOOLS


def test_every_request_is_answered_even_one_that_is_no_json(
    memory_root: Path, tmp_path: Path
) -> None:
    # The SDK left a line it could not parse unanswered, its client waiting for good.
    lines = [
        b"{not json",
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "no/such"}).encode(),
        json.dumps([{"jsonrpc": "2.0", "id": 3, "method": "ping"}]).encode(),
        json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call"}).encode(),
        _call(5, {"name": "memory_write", "arguments": {"to": "memory", "text": "ok"}}),
    ]
    bad, unknown, batch, nameless, ok = _raw_session(
        memory_root, tmp_path, lines, replies=5
    )
    assert bad["id"] is None and bad["error"]["code"] == -32700
    assert unknown["id"] == 2 and unknown["error"]["code"] == -32601
    assert batch == [{"jsonrpc": "2.0", "id": 3, "result": {}}]
    assert nameless["id"] == 4 and nameless["error"]["message"] == "Unknown tool: None"
    assert ok["result"]["content"][0]["text"] == "wrote MEMORY.md"


def test_a_version_the_server_does_not_speak_gets_its_newest(
    memory_root: Path, tmp_path: Path
) -> None:
    from memhooks.hooks.mcp_server import VERSIONS, handler
    from memhooks.memory import Store

    handle = handler(Store(memory_root, SLUG))
    for asked, got in (("2024-11-05", "2024-11-05"), ("1999-01-01", VERSIONS[-1])):
        reply = handle("initialize", {"protocolVersion": asked})
        assert reply["protocolVersion"] == got


async def test_a_nul_byte_reaches_no_file_by_any_argument(
    memory_root: Path, tmp_path: Path
) -> None:
    # memory_write refused a NUL in its text, but one in a title, the aliases, an edit's
    # new text or a forget's reason went into the file: grep and git then call it binary.
    note = memory_root / "projects" / SLUG / "notes" / "n.md"
    note.parent.mkdir(parents=True)
    note.write_bytes(b"alpha\n")
    calls = [
        ("memory_write", {"to": "daily", "text": "x", "title": "a\x00b"}),
        ("memory_write", {"to": "note", "name": "m", "text": "x", "aliases": "a\x00b"}),
        ("memory_edit", {"target": "notes/n", "old": "alpha", "new": "be\x00ta"}),
        ("memory_forget", {"target": "notes/n", "reason": "r\x00x"}),
    ]
    with anyio.fail_after(30):
        async with _served(memory_root, tmp_path) as session:
            for name, args in calls:
                result = wire(await session.call_tool(name, args))
                assert result.get("isError") is True, (name, result)
                assert "holds a NUL byte" in result["content"][0]["text"]
    assert note.read_bytes() == b"alpha\n"
    async for path in anyio.Path(memory_root).rglob("*.md"):
        assert b"\0" not in await path.read_bytes(), path


async def test_bad_arguments_are_one_line_naming_each_field(
    memory_root: Path, tmp_path: Path
) -> None:
    # A model's call that does not match the schema (as Claude Code passed them through):
    # one line it can act on, naming each field, and nothing written.
    with anyio.fail_after(30):
        async with _served(memory_root, tmp_path) as session:
            result = wire(
                await session.call_tool("memory_write", {"to": "notes", "mode": 3})
            )
    assert result["isError"] is True
    (content,) = result["content"]
    text = content["text"]
    assert "\n" not in text.strip(), text
    assert text.startswith("Error executing tool memory_write: ")
    assert "to: Input should be 'memory', 'scratchpad', 'daily' or 'note'" in text
    assert "text: Field required" in text and "mode: " in text
    assert "pydantic" not in text
    assert not [p async for p in anyio.Path(memory_root).rglob("*.md")]


async def test_an_argument_the_tool_does_not_take_is_refused(
    memory_root: Path, tmp_path: Path
) -> None:
    # Claude Code 2.1.332 passed the model's arguments as they were: `alias` for
    # `aliases`, `titel` for `title`. The SDK dropped them without a word and the write
    # went ahead, the note without its aliases, the entry titled "note".
    calls = [
        ("memory_write", {"to": "note", "name": "pool", "text": "20.", "alias": "pg"}),
        ("memory_write", {"to": "daily", "text": "resized", "titel": "pool"}),
    ]
    with anyio.fail_after(30):
        async with _served(memory_root, tmp_path) as session:
            results = [wire(await session.call_tool(n, a)) for n, a in calls]
    for result, wrong in zip(results, ["alias", "titel"], strict=True):
        assert result["isError"] is True
        (content,) = result["content"]
        assert content["text"] == (
            f"Error executing tool memory_write: bad arguments: {wrong}: no such "
            "argument (it takes to, text, name, title, aliases, mode); nothing was done"
        )
    assert not [p async for p in anyio.Path(memory_root).rglob("*.md")]


def test_a_lone_surrogate_in_a_call_is_answered_not_dropped(
    memory_root: Path, tmp_path: Path
) -> None:
    # "\ud800" is valid JSON (Node's JSON.stringify writes one for a string cut inside
    # an emoji), but the SDK's parser refused the line and dropped it unanswered: the
    # client waited on its call for good. Raw JSON lines, as no SDK client sends one.
    call = {
        "name": "memory_write",
        "arguments": {"to": "memory", "text": "pie \ud800."},
    }
    (reply,) = _raw_session(memory_root, tmp_path, [_call(2, call)], replies=1)
    assert reply == {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {
            "content": [{"type": "text", "text": "wrote MEMORY.md"}],
            "isError": False,
        },
    }
    assert (memory_root / "MEMORY.md").read_text() == "pie \ufffd.\n"


def test_a_line_nested_too_deeply_leaves_the_server_serving(
    memory_root: Path, tmp_path: Path
) -> None:
    # With a surrogate in it, mending such a line recursed past Python's limit: the
    # thread feeding the server its input died, and the server with it. Now the line is
    # answered as JSON the server cannot read.
    deep = _call(2, {"name": "memory_search", "arguments": {"query": "\ud800"}})
    deep = deep.replace(b'"}}}', b'", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}}")
    ok = _call(3, {"name": "memory_write", "arguments": {"to": "memory", "text": "on"}})
    refused, reply = _raw_session(memory_root, tmp_path, [deep, ok], replies=2)
    assert refused["id"] is None and refused["error"]["code"] == -32700
    assert (
        reply["id"] == 3 and reply["result"]["content"][0]["text"] == "wrote MEMORY.md"
    )


def test_an_error_quoting_a_huge_argument_stays_short(
    memory_root: Path, tmp_path: Path
) -> None:
    # A 1 MB target came back as a 1 MB error quoting it, into the model's context.
    (memory_root / "MEMORY.md").parent.mkdir(parents=True)
    (memory_root / "MEMORY.md").write_text("- a\n")
    read = {"name": "memory_read", "arguments": {"target": "x" * 1_000_000}}
    (reply,) = _raw_session(memory_root, tmp_path, [_call(2, read)], replies=1)
    text = reply["result"]["content"][0]["text"]
    assert reply["result"]["isError"] is True and len(text.encode()) <= 1100
    assert text.startswith("Error executing tool memory_read: unknown target 'xxx")
    assert text.endswith("notes/NAME or a path printed by search")


def _call(n: int, params: dict[str, Any]) -> bytes:
    message = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}
    return json.dumps(message).encode()  # a lone surrogate spelt "\ud800"


def _raw_session(
    memory_root: Path, tmp_path: Path, lines: list[bytes], *, replies: int
) -> list[Any]:
    """The first `replies` replies of `memhooks mcp` to `lines`, sent as they are after
    the handshake; its stderr must hold no traceback."""
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
    hello["clientInfo"] = {"name": "raw", "version": "1"}
    start = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    argv = ["mcp", "--root", str(memory_root), "--slug", SLUG]
    with (tmp_path / "err.log").open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "memhooks.hooks", *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
        )
        assert proc.stdin is not None and proc.stdout is not None
        try:
            for line in [*(json.dumps(m).encode() for m in start), *lines]:
                proc.stdin.write(line + b"\n")
            proc.stdin.flush()
            got = [_line_within(proc.stdout, 30) for _ in range(replies + 1)]
            proc.stdin.close()
            assert proc.wait(timeout=30) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
    assert "Traceback" not in (tmp_path / "err.log").read_text()
    return got[1:]


def _line_within(stream: IO[bytes], seconds: float) -> Any:
    ready, _, _ = select.select([stream], [], [], seconds)
    assert ready, f"no reply within {seconds} s"
    return json.loads(stream.readline())


def test_a_surrogate_pair_is_the_character_it_spells(
    memory_root: Path, tmp_path: Path
) -> None:
    # Python's json.dumps spells 😀 as a pair of escapes: one character in the file.
    call = {"name": "memory_write", "arguments": {"to": "memory", "text": "ok 😀"}}
    assert b"\\ud83d\\ude00" in _call(2, call)
    (reply,) = _raw_session(memory_root, tmp_path, [_call(2, call)], replies=1)
    assert reply["result"]["isError"] is False
    assert (memory_root / "MEMORY.md").read_text() == "ok 😀\n"

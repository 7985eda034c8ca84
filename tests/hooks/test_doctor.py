"""`memhooks doctor` on real files: a broken install, a healthy one, a messy memory root."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memhooks.hooks.doctor import Finding, check_harness, run_checks, summary
from memhooks.hooks.install import (
    TRUST_STEPS,
    Harness,
    hook_command,
    install,
    settings_path,
)
from memhooks.memory import Store, slug_for
from memhooks.memory.toolsline import MCP_TOOLS
from tests.conftest import grown_rules_and_items, run_cli

SLUG = "proj-0123abcd"
#: The memhooks of this very install, as `memhooks install` writes it.
MEMHOOKS = Path(sys.executable).parent / "memhooks"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    p.mkdir()
    return p


@pytest.fixture
def home() -> Path:
    h = Path(os.environ["HOME"])  # the memory_root fixture points it at a temp folder
    h.mkdir(exist_ok=True)
    return h


def _levels(findings: list[Finding], level: str) -> list[str]:
    return [f.message for f in findings if f.level == level]


def test_healthy_install_is_reported_healthy(
    memory_root: Path, project: Path, home: Path
) -> None:
    Store.for_project(memory_root, project).write_memory("- Prefer small commits.")
    settings = settings_path("claude-code", "project", project_dir=project, home=home)
    install("claude-code", settings, hook_command("claude-code", MEMHOOKS))

    proc = run_cli("doctor", "--project", str(project))

    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "doctor: healthy"
    assert [ln for ln in lines if not ln.startswith("ok: ")] == ["doctor: healthy"]
    assert any(
        ln.startswith("ok: Claude Code: memhooks on 5 events, once each")
        for ln in lines
    )


def test_broken_install_is_reported(
    memory_root: Path, project: Path, home: Path
) -> None:
    Store.for_project(memory_root, project).write_memory("- a rule")
    missing = project / "old-venv" / "bin" / "memhooks"
    local = settings_path("claude-code", "local", project_dir=project, home=home)
    install("claude-code", local, hook_command("claude-code", missing))
    shared = settings_path("claude-code", "project", project_dir=project, home=home)
    install("claude-code", shared, hook_command("claude-code", MEMHOOKS))

    proc = run_cli("doctor", "--project", str(project))

    assert proc.returncode == 1
    fixes = [ln for ln in proc.stdout.splitlines() if ln.startswith("fix: ")]
    assert fixes == [
        (
            "fix: Claude Code: memhooks runs 2 times on SessionStart, UserPromptSubmit, "
            f"PreCompact, PostCompact, SessionEnd ({shared}, {local}): keep one: run "
            "`memhooks uninstall claude-code --scope local`"
        ),
        (
            f"fix: Claude Code: hook in {local} runs {missing}, which does not exist: "
            "run `memhooks install claude-code --scope local` with the memhooks you use"
        ),
    ]
    assert proc.stdout.splitlines()[-1] == "doctor: 2 problems to fix"


def test_a_project_at_home_reads_its_settings_once(
    memory_root: Path, home: Path
) -> None:
    # `memhooks install claude-code` run in ~: the project's file is the user's file.
    Store.for_project(memory_root, home).write_memory("- a rule")
    settings = settings_path("claude-code", "project", project_dir=home, home=home)
    assert settings == settings_path("claude-code", "user", project_dir=home, home=home)
    install("claude-code", settings, hook_command("claude-code", MEMHOOKS))

    proc = run_cli("doctor", "--project", str(home))

    assert proc.returncode == 0, proc.stdout
    assert "runs 2 times" not in proc.stdout


def test_our_hook_twice_in_one_file(project: Path, home: Path) -> None:
    settings = settings_path("claude-code", "user", project_dir=project, home=home)
    install("claude-code", settings, hook_command("claude-code", MEMHOOKS))
    data = json.loads(settings.read_text())
    data["hooks"]["UserPromptSubmit"].append(data["hooks"]["UserPromptSubmit"][0])
    settings.write_text(json.dumps(data))

    found = check_harness("claude-code", project, home, shutil.which)

    assert _levels(found, "fix") == [
        (
            "Claude Code: memhooks runs 2 times on UserPromptSubmit "
            "(~/.claude/settings.json): run `memhooks install claude-code --scope user` "
            "to keep one"
        )
    ]


@pytest.mark.parametrize(
    ("harness", "event", "timeout", "message"),
    [
        pytest.param(
            "claude-code",
            "SessionStart",
            10_000,
            "SessionStart hook in {path} has timeout 10000 s (Claude Code counts "
            "seconds); use 1-60 s",
            id="claude-milliseconds",
        ),
        pytest.param(
            "claude-code",
            "SessionEnd",
            30,
            "SessionEnd hook in {path} has timeout 30 s; use 1-5 s",
            id="claude-session-end-too-long",
        ),
        pytest.param(
            "gemini",
            "BeforeAgent",
            10,
            "BeforeAgent hook in {path} has timeout 10 ms (Gemini CLI counts "
            "milliseconds); use 1000-30000 ms",
            id="gemini-seconds",
        ),
    ],
)
def test_timeouts_in_the_wrong_unit(
    project: Path, home: Path, harness: str, event: str, timeout: int, message: str
) -> None:
    h: Harness = "gemini" if harness == "gemini" else "claude-code"
    settings = settings_path(h, "project", project_dir=project, home=home)
    install(h, settings, hook_command(h, MEMHOOKS))
    data = json.loads(settings.read_text())
    data["hooks"][event][0]["hooks"][0]["timeout"] = timeout
    settings.write_text(json.dumps(data))

    found = check_harness(harness, project, home, shutil.which)

    name = "Gemini CLI" if harness == "gemini" else "Claude Code"
    assert _levels(found, "fix") == [f"{name}: " + message.format(path=settings)]


def test_codex_hooks_missing_events_and_command_not_on_path(
    project: Path, home: Path
) -> None:
    codex = project / ".codex" / "hooks.json"
    codex.parent.mkdir()
    handler = {
        "type": "command",
        "command": "memhooks hook --harness codex",
        "timeout": 10,
    }
    codex.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [handler]}]}}))

    found = check_harness("codex", project, home, lambda name: None)

    fix = "run `memhooks install codex --scope project`"
    assert _levels(found, "fix") == [
        (
            "Codex: no memhooks hook on UserPromptSubmit, PreCompact, PostCompact, "
            f"SessionEnd: {fix}"
        ),
        (
            f"Codex: hook in {codex} runs `memhooks`, which is not on PATH: install "
            "memhooks so that it is on PATH for the harness (`pipx install .` or "
            "`uv tool install .` in a clone; see the README)"
        ),
    ]


def test_codex_hooks_that_codex_will_not_run_are_reported(
    project: Path, home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    codex_home = home / ".codex"
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    install("codex", project / ".codex" / "hooks.json", "memhooks hook --harness codex")

    warned = _levels(check_harness("codex", project, home, shutil.which), "warn")
    assert any('when it shows "Hooks need review"' in w for w in warned), warned
    assert any("is not a trusted project" in w for w in warned), warned

    codex_home.mkdir()
    trusted = f'[projects."{project}"]\ntrust_level = "trusted"\n'
    # Reviewed as Codex 0.171.0 records it: a key per handler of the file it read.
    events = ("session_start", "user_prompt_submit", "pre_compact", "post_compact")

    def reviewed(path: Path, *events: str) -> str:
        return "".join(
            f'[hooks.state."{path}:{e}:0:0"]\ntrusted_hash = "sha256:ab12"\n'
            for e in events
        )

    ours, other = project / ".codex" / "hooks.json", tmp_path / "other" / "hooks.json"
    for state, warns in (
        (reviewed(ours, *events, "session_end"), False),
        # Hooks reviewed in another project: not these.
        (reviewed(other, *events, "session_end"), True),
        # Reviewed before memhooks was on every event.
        (reviewed(ours, *events), True),
    ):
        (codex_home / "config.toml").write_text(trusted + state)
        warned = _levels(check_harness("codex", project, home, shutil.which), "warn")
        assert [w for w in warned if "trust" in w] == (
            [f"Codex: {TRUST_STEPS['codex']}"] if warns else []
        ), state


def test_gemini_in_github_actions_needs_memhooks_home_allowed(
    project: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = settings_path("gemini", "project", project_dir=project, home=home)
    install("gemini", settings, "memhooks hook --harness gemini")
    monkeypatch.setenv("GITHUB_SHA", "0" * 40)
    fixes = _levels(check_harness("gemini", project, home, shutil.which), "fix")
    assert any("environmentVariableRedaction.allowed" in f for f in fixes), fixes
    data = json.loads(settings.read_text())
    data["security"] = {"environmentVariableRedaction": {"allowed": ["MEMHOOKS_HOME"]}}
    settings.write_text(json.dumps(data))
    fixes = _levels(check_harness("gemini", project, home, shutil.which), "fix")
    assert not [f for f in fixes if "environmentVariableRedaction" in f], fixes


def test_gemini_settings_with_comments_are_read(project: Path, home: Path) -> None:
    # Gemini CLI allows comments there: doctor called such a file "cannot be read".
    settings = settings_path("gemini", "project", project_dir=project, home=home)
    install("gemini", settings, "memhooks hook --harness gemini")
    settings.write_text("// team settings\n" + settings.read_text())
    found = check_harness("gemini", project, home, lambda _: str(MEMHOOKS))
    assert _levels(found, "fix") == []
    assert any("memhooks on 4 events" in f for f in _levels(found, "ok")), found


def test_unreadable_settings_file(project: Path, home: Path) -> None:
    settings = settings_path("gemini", "project", project_dir=project, home=home)
    settings.parent.mkdir()
    settings.write_text("{not json")

    found = check_harness("gemini", project, home, shutil.which)

    assert [f.level for f in found] == ["fix"]
    assert found[0].message.startswith(f"Gemini CLI: {settings} cannot be read as JSON")


def test_a_file_a_person_made_behind_an_owner_only_root_is_no_fix(
    memory_root: Path, project: Path, home: Path
) -> None:
    # Before: a config.toml written by hand with the usual umask (0644), as the README's
    # Configuration section suggests, made doctor exit 1 with a `fix:`, though the root
    # (0700) lets no one else reach it.
    Store(memory_root, SLUG).write_memory("- rule")
    config = memory_root / "config.toml"
    config.write_text("[inject]\nbudget = 8192\n")
    os.chmod(config, 0o644)
    found = run_checks(memory_root, project, home, config_text=config.read_text())
    assert _levels(found, "fix") == []
    assert (
        "1 item open to other users (e.g. config.toml, behind the owner-only root): "
        f"chmod -R go-rwx {memory_root}"
    ) in _levels(found, "warn")


def test_a_note_named_with_a_line_break_is_named_on_one_line(
    memory_root: Path, project: Path, home: Path
) -> None:
    # Such a file (made outside memhooks) is never searched or injected; doctor took it
    # for a note, and named it over two lines where it named it at all.
    Store(memory_root, SLUG).write_memory("- rule")
    notes = memory_root / "projects" / SLUG / "notes"
    notes.mkdir(parents=True)
    (notes / "a\n## MEMORY.md.md").touch(mode=0o600)
    found = run_checks(memory_root, project, home, config_text=None)
    assert (
        f"projects/{SLUG}/notes/a\\n## MEMORY.md.md: a name with a line break: "
        "never searched or injected; rename it" in _levels(found, "warn")
    )
    assert all("\n" not in f.message for f in found)


def test_an_oversize_note_is_named_as_every_other_finding_names_it(
    memory_root: Path, project: Path, home: Path
) -> None:
    # Before: a name holding a terminal escape (made outside memhooks) was printed raw
    # in the oversize finding, where the other findings print it escaped.
    notes = memory_root / "projects" / SLUG / "notes"
    notes.mkdir(parents=True)
    with open(notes / "big\x1b[2J.md", "wb") as f:
        f.truncate(2 * 1024 * 1024)  # sparse: the size is what is checked
    found = run_checks(memory_root, project, home, config_text=None)
    assert (
        f"projects/{SLUG}/notes/big\\x1b[2J.md is 2.0 MB: every search reads it whole "
        "and `read` shows 64 KiB of it; split it into notes" in _levels(found, "fix")
    )
    assert all("\x1b" not in f.message for f in found)


def test_messy_root(memory_root: Path, project: Path, home: Path) -> None:
    store = Store(memory_root, SLUG)
    store.write_memory("- rule " + "x" * 2000)
    store.write_note("big", "y" * (1024 * 1024 + 1))
    notes = memory_root / "projects" / SLUG / "notes"
    (notes / "todo.txt").write_text("not a note")
    (notes / "diagram.PNG").write_bytes(b"\x89PNG\r\n")  # beside notes from Obsidian
    (notes / ".big.md.123.0123abcd.tmp").write_text("")
    (notes / "big.md.conflict-20261205-211500").write_text("- an earlier save")
    (memory_root / "stray.md").write_text("")
    (memory_root / "projects" / SLUG / "daily").mkdir(mode=0o700)
    (memory_root / "projects" / SLUG / "daily" / "2026-02-30.md").touch(mode=0o600)
    (memory_root / "projects" / "not-a-slug").mkdir()
    os.chmod(memory_root, 0o755)
    os.chmod(memory_root / "MEMORY.md", 0o644)

    found = run_checks(
        memory_root, project, home, config_text="[inject]\nbudget = 1024\n"
    )

    root = str(memory_root)
    mine = Store.for_project(memory_root, project).slug
    assert _levels(found, "fix") == [
        f"memory root {root} is open to other users: chmod 700 {root}",
        (
            "MEMORY.md is 2008 bytes, more than the injection budget (1024): its end is "
            "never injected; move detail into notes"
        ),
        (
            f"projects/{SLUG}/notes/big.md is 1.0 MB: every search reads it whole and "
            "`read` shows 64 KiB of it; split it into notes"
        ),
        f"1 item open to other users (e.g. MEMORY.md): chmod -R go-rwx {root}",
    ]
    assert _levels(found, "warn") == [
        "stray.md: not part of the memory layout: move it out of the root",
        "projects/not-a-slug/: not a project folder (<name>-<8 hex digits>): never read",
        (
            f"projects/{SLUG}/daily/2026-02-30.md: not named YYYY-MM-DD.md for a real date: "
            "never searched or injected; rename it"
        ),
        (
            f"projects/{SLUG}/notes/.big.md.123.0123abcd.tmp: a temp file left by an "
            "interrupted write: delete it"
        ),
        (
            f"projects/{SLUG}/notes/big.md.conflict-20261205-211500: an earlier save of "
            "big.md, kept when another program saved it twice while memhooks wrote it: "
            "take what you need into big.md, then delete it"
        ),
        (
            f"projects/{SLUG}/notes/diagram.PNG: an attachment, not a note: never "
            "searched or injected (it may stay)"
        ),
        (
            f"projects/{SLUG}/notes/todo.txt: not named NAME.md: never searched or "
            "injected; rename it"
        ),
        (  # `project` is another folder named proj, with no memory of its own
            f"no memory for {mine} yet, but projects/{SLUG} holds that of another "
            f"folder named proj: if this project was moved from there, `mv "
            f"{root}/projects/{SLUG} {root}/projects/{mine}` carries it over (or pass "
            f"--slug {SLUG})"
        ),
        (
            f"no hooks installed for {project}: run `memhooks install claude-code` (or "
            "codex, or gemini) there"
        ),
    ]
    assert summary(found) == "doctor: 4 problems to fix, 9 warnings"


def test_invalid_config_and_missing_root(
    tmp_path: Path, project: Path, home: Path
) -> None:
    found = run_checks(tmp_path / "nowhere", project, home, config_text=None)
    assert found[0] == Finding(
        "warn",
        f"memory root {tmp_path / 'nowhere'} does not exist yet (made on the first write)",
    )

    root = tmp_path / "root2"
    root.mkdir(mode=0o700)
    bad = run_checks(root, project, home, config_text="[inject]\nbudgett = 1\n")
    assert any(f.level == "fix" and "budgett" in f.message for f in bad)


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_config_that_is_no_regular_file_is_one_finding(
    memory_root: Path, project: Path, kind: str
) -> None:
    # Read as a file, a FIFO blocks doctor forever and /dev/zero fills the memory.
    memory_root.mkdir(parents=True, exist_ok=True)
    config = memory_root / "config.toml"
    if kind == "fifo":
        os.mkfifo(config)
    else:
        config.symlink_to("/dev/zero")
    proc = run_cli("doctor", "--project", str(project), timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert "fix: config.toml cannot be read:" in proc.stdout
    assert "not a regular file" in proc.stdout


def test_mcp_registration_with_a_missing_command(project: Path, home: Path) -> None:
    (project / ".mcp.json").write_text(
        json.dumps(
            {"mcpServers": {"memory": {"command": "/gone/memhooks", "args": ["mcp"]}}}
        )
    )

    found = run_checks(project / "root", project, home, config_text=None)

    assert (
        Finding(
            "fix",
            f"Claude Code: MCP server 'memory' in {project / '.mcp.json'} runs "
            "/gone/memhooks, which does not exist",
        )
        in found
    )


@pytest.mark.parametrize(
    ("entry", "fixed"),
    [
        pytest.param("", False, id="as-examples-had-it"),
        pytest.param('env_vars = ["MEMHOOKS_HOME"]\n', True, id="env_vars"),
        pytest.param('env = { MEMHOOKS_HOME = "/srv/mem" }\n', True, id="env"),
    ],
)
def test_a_codex_mcp_server_that_does_not_get_memhooks_home(
    project: Path,
    home: Path,
    entry: str,
    fixed: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Codex gives an MCP server only a few variables (HOME, PATH…) of its environment:
    # with MEMHOOKS_HOME set, the tools read and wrote another memory root than the
    # hooks did ("memory root ~/.local/share/memhooks does not exist", seen with the
    # real Codex CLI 0.171.0).
    assert os.environ.get("MEMHOOKS_HOME")  # set by the memory_root fixture
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))  # MEMHOOKS_HOME decides
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[mcp_servers.memhooks]\ncommand = "{sys.executable}"\n'
        f'args = ["-m", "memhooks.hooks", "mcp"]\n{entry}'
        'default_tools_approval_mode = "approve"\n'
    )

    found = run_checks(project / "root", project, home, config_text=None)

    (said,) = [f for f in found if "MCP server 'memhooks'" in f.message]
    assert said.level == ("ok" if fixed else "fix"), said
    if not fixed:
        assert "does not get MEMHOOKS_HOME" in said.message
        assert 'env_vars = ["MEMHOOKS_HOME"]' in said.message


@pytest.mark.parametrize(
    ("data", "fixed"),
    [
        pytest.param(".local/share", True, id="the-default-named"),
        pytest.param("data", False, id="another-folder"),
    ],
)
def test_a_codex_mcp_server_without_xdg_data_home(
    project: Path,
    home: Path,
    data: str,
    fixed: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # XDG_DATA_HOME set to ~/.local/share, as many shells' profiles do, gives the hooks
    # the root the server finds from HOME alone: doctor said "fix: … does not get
    # XDG_DATA_HOME …: its tools use another memory root than the hooks" and exited 1
    # though the tools of the real Codex CLI 0.171.0 wrote to the hooks' root.
    monkeypatch.delenv("MEMHOOKS_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(home / data))
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[mcp_servers.memhooks]\ncommand = "{sys.executable}"\n'
        'args = ["-m", "memhooks.hooks", "mcp"]\n'
        'default_tools_approval_mode = "approve"\n'
    )

    found = run_checks(project / "root", project, home, config_text=None)

    (said,) = [f for f in found if "MCP server 'memhooks'" in f.message]
    assert said.level == ("ok" if fixed else "fix"), said
    if not fixed:
        assert "does not get XDG_DATA_HOME" in said.message


@pytest.mark.parametrize(
    ("harness", "other"),
    [
        pytest.param("claude-code", "local", id="claude-code"),
        pytest.param("gemini", "user", id="gemini"),
    ],
)
def test_a_subfolder_of_the_project_is_warned_about(
    memory_root: Path, project: Path, home: Path, harness: str, other: str
) -> None:
    # Both read the project's settings file only in the folder they start in (tests/e2e).
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    sub = project / "pkg"
    sub.mkdir()
    said = run_cli("install", harness, cwd=sub).stdout
    warning = f"started in {sub} reads"
    assert warning in said and f"`--scope {other}`" in said
    assert warning in run_cli("doctor", cwd=sub).stdout
    assert warning not in run_cli("doctor", cwd=project).stdout
    run_cli("uninstall", harness, cwd=sub)
    run_cli("install", harness, "--scope", other, cwd=sub)
    assert warning not in run_cli("doctor", cwd=sub).stdout


def test_a_memory_file_that_holds_no_file_is_named(
    memory_root: Path, project: Path, home: Path
) -> None:
    # Before: a FIFO, a socket or a link loop named like a note was left out of search
    # and injection without a word, and doctor said nothing of it.
    Store(memory_root, SLUG).write_note("pool", "pool size is 20")
    notes = memory_root / "projects" / SLUG / "notes"
    os.mkfifo(notes / "fifo.md", 0o600)
    (notes / "a.md").symlink_to("b.md")
    (notes / "b.md").symlink_to("a.md")
    found = run_checks(memory_root, project, home, config_text=None)
    rest = "never searched or injected; remove it"
    loop = "cannot be read (Too many levels of symbolic links)"
    assert _levels(found, "fix") == [
        f"projects/{SLUG}/notes/a.md {loop}: {rest}",
        f"projects/{SLUG}/notes/b.md {loop}: {rest}",
        (
            f"projects/{SLUG}/notes/fifo.md cannot be read (not a regular file: a FIFO, "
            f"socket or device): {rest}"
        ),
    ]


def test_a_moved_project_is_pointed_at_its_memory(
    memory_root: Path, tmp_path: Path, home: Path
) -> None:
    # The slug holds a hash of the project's path: moved or renamed, a project starts
    # with no memory of its own, and nothing said where its notes were.
    old = Store.for_project(memory_root, tmp_path / "was" / "myapp")
    old.write_note("redis", "Redis runs on 6380.")
    Store(memory_root, "other-0123abcd").write_note("x", "another project")
    moved = tmp_path / "now" / "myapp"
    moved.mkdir(parents=True)
    new = Store.for_project(memory_root, moved).slug

    proc = run_cli("doctor", "--project", str(moved))

    line = f"warn: no memory for {new} yet, but projects/{old.slug} holds that of"
    assert line in proc.stdout, proc.stdout
    assert f"mv {memory_root}/projects/{old.slug} {memory_root}/projects/{new}" in (
        proc.stdout
    )
    assert "other-0123abcd" not in proc.stdout
    Store(memory_root, new).write_memory("- now it has memory of its own")
    Store(memory_root, new).write_note("y", "its own note")
    assert "no memory for" not in run_cli("doctor", "--project", str(moved)).stdout


def test_memory_md_cut_in_the_block_of_a_project_grown_over_months(
    memory_root: Path, project: Path
) -> None:
    # A 7 KB MEMORY.md, under the 9,000 bytes of a hook reply, so doctor was silent;
    # but a project's open items and logs take their shares of the block, and the
    # harnesses got its first ~3.8 KB: the rules added last never reached the model.
    grown_rules_and_items(project, 130, 30)
    size = (memory_root / "MEMORY.md").stat().st_size
    assert 6000 < size < 9000
    assert "MEMORY.md:" not in run_cli("doctor", cwd=project).stdout  # it fits yet
    for i in range(30):
        text = "did a lot of things today. " * 20
        run_cli(
            "write",
            "--to",
            "daily",
            "--title",
            f"work {i}",
            "--text",
            text,
            cwd=project,
        )
    event = {"session_id": "s", "cwd": str(project), "hook_event_name": "SessionStart"}
    hook = run_cli("hook", "--harness", "claude-code", input=json.dumps(event))
    got = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "- Rule 0:" in got and "- Rule 129:" not in got

    said = [
        ln
        for ln in run_cli("doctor", cwd=project).stdout.splitlines()
        if "MEMORY.md" in ln
    ]

    assert len(said) == 1 and said[0].startswith(
        "warn: MEMORY.md: Claude Code, Codex and Gemini CLI get "
    ), said
    assert said[0].endswith(
        f"of its {size} bytes in the block here (the open items and logs take the rest): "
        "its last lines never reach the model; move detail into notes"
    )
    # The open items, as they pile up: those added last are the ones left out.
    assert "SCRATCHPAD.md:" not in run_cli("doctor", cwd=project).stdout
    more = "\n".join(f"- call the vendor about invoice {i}" for i in range(150))
    run_cli("write", "--to", "scratchpad", "--text", more, cwd=project)
    said = [
        ln
        for ln in run_cli("doctor", cwd=project).stdout.splitlines()
        if "SCRATCH" in ln
    ]
    slug = slug_for(str(project))
    assert len(said) == 1 and said[0].startswith(
        f"warn: projects/{slug}/SCRATCHPAD.md: Claude Code, Codex and Gemini CLI get "
    ), said
    assert said[0].endswith(
        "bytes of its open items in the block here: the last ones never reach the model; "
        "tick off what is done (memhooks edit scratchpad --old '[ ] …' --new '[x] …')"
    )


def test_a_renamed_project_is_told_how_to_carry_its_memory_over(
    memory_root: Path, tmp_path: Path
) -> None:
    # A checkout renamed in place (mv shop shop-legacy): the README says doctor there
    # prints the mv; it looked only for a folder of the same name.
    old = tmp_path / "work" / "shop"
    (old / ".git").mkdir(parents=True)
    assert (
        run_cli("write", "--to", "scratchpad", "--text", "x", cwd=old).returncode == 0
    )
    new = old.rename(old.parent / "shop-legacy")
    (new.parent / "other").mkdir()  # and a project beside it that is still there
    assert (
        run_cli(
            "write", "--to", "daily", "--text", "y", cwd=new.parent / "other"
        ).returncode
        == 0
    )
    proc = run_cli("doctor", cwd=new)
    was, now = slug_for(str(old)), slug_for(str(new))
    mv = f"mv {memory_root}/projects/{was} {memory_root}/projects/{now}"
    assert (
        f"warn: no memory for {now} yet, but projects/{was} holds that of another folder"
        f" named shop: if this project was renamed from there, `{mv}` carries it over"
    ) in proc.stdout
    assert proc.stdout.count("no memory for") == 1  # not the one of other/
    subprocess.run(mv.split(), check=True)
    assert "no memory for" not in run_cli("doctor", cwd=new).stdout


def test_moved_project_advice_in_a_root_kept_in_git(
    memory_root: Path, project: Path
) -> None:
    # A teammate's checkout at another path has another slug: in a shared root, the mv
    # doctor offered took the folder from the clone that still used it.
    from memhooks.hooks.movedcheck import check_moved

    Store(memory_root, SLUG).write_memory("- rule")
    (memory_root / "projects" / SLUG).mkdir(parents=True)
    assert not check_moved(memory_root, project)[0].message.endswith("mv takes from it")
    subprocess.run(["git", "init", "-q", str(memory_root)], check=True)
    (found,) = check_moved(memory_root, project)
    assert found.message.endswith(
        f"(or pass --slug {SLUG}); in this root kept in git, a clone elsewhere may "
        f"still use projects/{SLUG}, which mv takes from it"
    )


_APPROVE = '"approve"'


@pytest.mark.parametrize(
    ("tables", "asked"),
    [
        pytest.param("", "memory_write, memory_edit, memory_forget", id="none"),
        pytest.param(f"default_tools_approval_mode = {_APPROVE}\n", "", id="default"),
        pytest.param(
            'default_tools_approval_mode = "prompt"\n',
            "memory_write, memory_edit, memory_forget",
            id="default-prompt",
        ),
        pytest.param(
            f"[mcp_servers.memhooks.tools.memory_write]\napproval_mode = {_APPROVE}\n",
            "memory_edit, memory_forget",
            id="one-tool",
        ),
        pytest.param(
            "".join(
                f"[mcp_servers.memhooks.tools.{t}]\napproval_mode = {_APPROVE}\n"
                for t in ("memory_write", "memory_edit", "memory_forget")
            ),
            "",
            id="each-tool",
        ),
        pytest.param(
            f"default_tools_approval_mode = {_APPROVE}\n"
            '[mcp_servers.memhooks.tools.memory_forget]\napproval_mode = "prompt"\n',
            "memory_forget",
            id="default-but-one",
        ),
    ],
)
def test_codex_mcp_tools_that_codex_exec_refuses_are_warned_about(
    project: Path, home: Path, tables: str, asked: str
) -> None:
    # Codex CLI 0.171.0 asks before each call of a tool that writes: `codex exec`
    # answered the model's memory_write "MCP tool call requires approval, but approval
    # policy is never" and nothing was written, while doctor said "ok" of the server.
    # `default_tools_approval_mode = "approve"` in the table, or `approval_mode =
    # "approve"` in a tool's own table, let the call run (both seen with the real CLI).
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[mcp_servers.memhooks]\ncommand = "{sys.executable}"\n'
        'args = ["-m", "memhooks.hooks", "mcp"]\nenv_vars = ["MEMHOOKS_HOME"]\n'
        + tables
    )

    proc = run_cli("doctor", "--project", str(project))

    lines = [ln for ln in proc.stdout.splitlines() if "MCP server 'memhooks'" in ln]
    assert len(lines) == 1, proc.stdout
    if not asked:
        assert lines[0] == "ok: Codex: MCP server 'memhooks' in ~/.codex/config.toml"
        return
    assert lines[0] == (
        "warn: Codex: MCP server 'memhooks' in ~/.codex/config.toml: Codex asks "
        f"before each call of {asked} and `codex exec`, which cannot ask, refuses "
        'them; add default_tools_approval_mode = "approve" to [mcp_servers.memhooks]'
    )


@pytest.mark.parametrize(
    ("extra", "warned"),
    [
        pytest.param({}, True, id="as-examples-had-it"),
        pytest.param({"trust": False}, True, id="trust-false"),
        pytest.param({"trust": True}, False, id="trusted"),
    ],
)
def test_a_gemini_mcp_server_gemini_p_does_not_offer_is_warned_about(
    project: Path, home: Path, extra: dict[str, object], warned: bool
) -> None:
    # Gemini CLI 0.61.0: `gemini -p` listed none of the memhooks tools in its request
    # unless the entry said "trust": true, while doctor said "ok" of the server (and
    # the block told the model to call them).
    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    entry = {"command": sys.executable, "args": ["-m", "memhooks.hooks", "mcp"]}
    settings.write_text(json.dumps({"mcpServers": {"memhooks": entry | extra}}))

    proc = run_cli("doctor", "--project", str(project))

    lines = [ln for ln in proc.stdout.splitlines() if "MCP server 'memhooks'" in ln]
    said = f"Gemini CLI: MCP server 'memhooks' in {settings}"
    if not warned:
        assert lines == [f"ok: {said}"], proc.stdout
        return
    warning = (
        f"warn: {said}: `gemini -p` offers the model none of its tools (Gemini asks "
        "before a call of an untrusted server's, and a headless run cannot ask); add "
        '"trust": true to its entry to let them run unasked'
    )
    assert lines == [warning], proc.stdout


_ALL_TOOLS = [f"mcp__memhooks__{t}" for t in MCP_TOOLS]


@pytest.mark.parametrize(
    ("permissions", "warned"),
    [
        pytest.param(None, True, id="as-the-readme-adds-it"),
        pytest.param({"allow": ["mcp__memhooks"]}, False, id="server"),
        pytest.param({"allow": ["mcp__memhooks__*"]}, False, id="wildcard"),
        pytest.param({"allow": _ALL_TOOLS}, False, id="each-tool"),
        pytest.param({"allow": _ALL_TOOLS[:1]}, True, id="search-only"),
        pytest.param({"defaultMode": "bypassPermissions"}, False, id="bypass"),
    ],
)
def test_a_claude_mcp_server_claude_p_refuses_is_warned_about(
    project: Path, home: Path, permissions: dict[str, object] | None, warned: bool
) -> None:
    # Claude Code 2.1.332: `claude -p` answered every call of a tool no rule allowed
    # "Claude requested permissions to use mcp__memhooks__memory_write, but you haven't
    # granted it yet", while doctor said "ok" of the server.
    entry = {"command": sys.executable, "args": ["-m", "memhooks.hooks", "mcp"]}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"memhooks": entry}}))
    if permissions is not None:
        local = project / ".claude" / "settings.local.json"
        local.parent.mkdir()
        local.write_text(json.dumps({"permissions": permissions}))

    found = run_checks(project / "root", project, home, config_text=None)

    (said,) = [f for f in found if "MCP server 'memhooks'" in f.message]
    assert said.level == ("warn" if warned else "ok"), said
    if warned:
        assert said.message.endswith('"permissions": {"allow": ["mcp__memhooks"]}')


def test_a_fix_doctor_names_can_be_pasted_for_a_root_with_a_space(
    tmp_path: Path, project: Path, home: Path
) -> None:
    # Before: "chmod 700 /…/my memory", which a shell reads as two files.
    root = tmp_path / "my memory"
    Store(root, SLUG).write_memory("- a rule")
    os.chmod(root, 0o755)
    (said,) = [
        f.message
        for f in run_checks(root, project, home, config_text=None)
        if "open to other users" in f.message and "memory root" in f.message
    ]
    command = said.split(": ", 1)[1]
    assert command == f"chmod 700 '{root}'"
    subprocess.run(["bash", "-c", command], check=True)
    assert root.stat().st_mode & 0o777 == 0o700


def test_each_harness_lines_come_together(
    project: Path, home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Walking the README with Codex: the sandbox warning came after "ok: Gemini CLI: no
    # memhooks hooks", apart from the Codex lines it belongs with.
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    install("codex", project / ".codex" / "hooks.json", "memhooks hook --harness codex")

    found = run_checks(tmp_path / "memroot", project, home, config_text=None)

    names = [f.message.split(":")[0] for f in found]
    harnesses = [n for n in names if n in ("Claude Code", "Codex", "Gemini CLI")]
    assert any("sandbox" in f.message for f in found if f.message.startswith("Codex"))
    assert harnesses == sorted(
        harnesses, key=["Claude Code", "Codex", "Gemini CLI"].index
    )

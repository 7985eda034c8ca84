"""Set each harness CLI up in a sandbox the way a user would, memhooks installed per the README.

What a user must do beyond `memhooks install` is spelled out here, once per harness:
- Claude Code: nothing for `claude -p`; an interactive session asks the user to trust the
  folder (recorded in ~/.claude.json, as done below).
- Codex CLI: `memhooks install codex` writes `.codex/hooks.json`; it loads only in a trusted
  project (`[projects."DIR"] trust_level = "trusted"` in config.toml, what Codex records when
  the user says yes), and the hooks run only once the user has reviewed them with `/hooks`
  in the TUI ("Hooks need review", `codex_tui` in "daemon" mode: then Codex's app-server
  daemon runs them); the tier mostly passes `--dangerously-bypass-hook-trust` instead.
- Gemini CLI: headless runs need a trusted folder (`GEMINI_CLI_TRUST_WORKSPACE=true` here,
  a worktree too; and the project in ~/.gemini/trustedFolders.json, as its TUI records it).
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.e2e.sandbox import API_KEY

if TYPE_CHECKING:
    from tests.e2e.sandbox import Sandbox
    from tests.e2e.tmux import Tmux

CAPTURE = Path(__file__).with_name("capture_hook.py")


def _capture(settings: Path, outdir: str | None) -> None:
    """With MEMHOOKS_E2E_CAPTURE set, wrap each hook command so its stdin is saved."""
    if not outdir:
        return
    data = json.loads(settings.read_text())

    def wrap(handler: dict[str, Any]) -> None:
        handler["command"] = (
            f"{shlex.quote(sys.executable)} {shlex.quote(str(CAPTURE))} "
            f"{shlex.quote(outdir)} -- {handler['command']}"
        )

    for groups in data["hooks"].values():
        for group in groups:
            for handler in group["hooks"]:
                wrap(handler)
    settings.write_text(json.dumps(data, indent=2))


def hook_results(outdir: Path) -> dict[Path, tuple[str, str]]:
    """The exit code and stderr of each hook the capture wrapper ran into `outdir` (its
    `.rc` and `.err` files), by the `.rc` file, in path order."""
    codes = sorted(outdir.rglob("*.rc"))
    return {rc: (rc.read_text(), rc.with_suffix(".err").read_text()) for rc in codes}


# --- Claude Code ------------------------------------------------------------------------


def setup_claude(
    sb: Sandbox, *, capture: str | None = None, install: bool = True
) -> dict[str, str]:
    """Onboarding done, the project trusted, memhooks installed for the project; the env."""
    key = API_KEY["claude"]
    state = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "autoUpdates": False,
        "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
        "projects": {
            str(sb.project): {
                "hasTrustDialogAccepted": True,
                "hasCompletedProjectOnboarding": True,
                "projectOnboardingSeenCount": 1,
            }
        },
    }
    (sb.home / ".claude.json").write_text(json.dumps(state))
    if install:
        sb.memhooks("install", "claude-code", "--scope", "project")
        _capture(sb.project / ".claude" / "settings.json", capture)
    return sb.env(
        ANTHROPIC_BASE_URL=f"http://127.0.0.1:{sb.port}",
        ANTHROPIC_API_KEY=key,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
    )


# --- Codex CLI --------------------------------------------------------------------------


def setup_codex(
    sb: Sandbox, *, capture: str | None = None, auto_compact: int | None = None
) -> dict[str, str]:
    """A custom model provider on the mock, the project trusted, `memhooks install codex`."""
    codex_home = sb.home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    lines = [
        'model = "mock-model"',
        'model_provider = "mock"',
        'approval_policy = "never"',
        "check_for_update_on_startup = false",
        *([f"model_auto_compact_token_limit = {auto_compact}"] if auto_compact else []),
        "",
        "[model_providers.mock]",
        'name = "mock"',
        f'base_url = "http://127.0.0.1:{sb.port}/v1"',
        'wire_api = "responses"',
        'env_key = "MOCK_API_KEY"',
        "",
        "[analytics]",
        "enabled = false",
        "",
        "[otel]",
        'exporter = "none"',
        "",
        f'[projects."{sb.project}"]',
        'trust_level = "trusted"',
    ]
    (codex_home / "config.toml").write_text("\n".join(lines) + "\n")
    sb.memhooks("install", "codex", "--scope", "project")
    settings = sb.project / ".codex" / "hooks.json"
    _capture(settings, capture)
    return codex_env(sb)


def codex_env(sb: Sandbox) -> dict[str, str]:
    """The environment Codex runs in once `setup_codex` has set it up."""
    return sb.env(CODEX_HOME=str(sb.home / ".codex"), MOCK_API_KEY=API_KEY["codex"])


#: How the tier starts Codex's TUI: "bypass", with `--dangerously-bypass-hook-trust`, its
#: hooks run by the TUI's own process; "daemon", as a person does, the hooks trusted at
#: "Hooks need review" ("Trust all and continue"), run by Codex's app-server daemon.
CODEX_MODES = ("bypass", "daemon")


def codex_tui(sb: Sandbox, env: dict[str, str], mode: str, *extra: str) -> Tmux:
    """Codex's TUI started in tmux in `mode` (`CODEX_MODES`), ready for a prompt. In
    "daemon" mode the first start in a sandbox shows "Hooks need review": its second
    choice, "Trust all and continue", writes the `[hooks.state."<hooks.json>:<event>:0:0"]
    trusted_hash` tables into config.toml; later starts show nothing."""
    flag = ["--dangerously-bypass-hook-trust"] if mode == "bypass" else []
    tmux = sb.tmux(["codex", *flag, *extra], env=env)
    config = sb.home / ".codex" / "config.toml"
    if mode == "daemon" and "trusted_hash" not in config.read_text():
        # The dialog comes over the input box once the hooks are loaded.
        tmux.wait_text("Hooks need review", timeout=60)
        trust = "› 2. Trust all and continue"
        # A key pressed as the dialog is drawn can be lost: Down again till it is picked.
        for _ in range(20):
            if trust in tmux.screen():
                break
            if "› 1. Review hooks" in tmux.screen():
                tmux.keys("Down")
            time.sleep(0.5)
        tmux.wait_text(trust)
        tmux.keys("Enter")
        tmux.wait_for(lambda: "trusted_hash" in config.read_text(), what="the trust")
    tmux.wait_for(
        lambda: any(m in tmux.screen() for m in READY["codex"]),
        timeout=60,
        what="the input box",
    )
    return tmux


def codex_daemon_stop(sb: Sandbox) -> None:
    """`codex app-server daemon stop`: the daemon unloads every thread it holds, whose
    SessionEnd hooks run then (else 30-60 s after the last TUI on it quits)."""
    done = sb.run(["codex", "app-server", "daemon", "stop"], env=codex_env(sb))
    assert done.returncode == 0, done.stderr


def codex_exec(prompt: str, *extra: str) -> list[str]:
    return [
        "codex",
        "exec",
        "--dangerously-bypass-hook-trust",
        "--skip-git-repo-check",
        *extra,
        prompt,
    ]


# --- Gemini CLI -------------------------------------------------------------------------


def setup_gemini(
    sb: Sandbox, *, capture: str | None = None, compression: float | None = None
) -> dict[str, str]:
    """API-key auth on the mock, telemetry off, memhooks installed for the project."""
    settings: dict[str, Any] = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "ui": {"hideTips": True, "hideBanner": True},
    }
    if compression is not None:
        settings["model"] = {"compressionThreshold": compression}
    (sb.home / ".gemini").mkdir(parents=True, exist_ok=True)
    (sb.home / ".gemini" / "settings.json").write_text(json.dumps(settings, indent=2))
    # What its TUI records when the person trusts the folder (`memhooks doctor` reads it).
    trusted = {str(sb.project): "TRUST_FOLDER"}
    (sb.home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted))
    sb.memhooks("install", "gemini", "--scope", "project")
    _capture(sb.project / ".gemini" / "settings.json", capture)
    return sb.env(
        GOOGLE_GEMINI_BASE_URL=f"http://127.0.0.1:{sb.port}",
        GEMINI_API_KEY=API_KEY["gemini"],
        GEMINI_CLI_TRUST_WORKSPACE="true",
    )


# --- The three, side by side ------------------------------------------------------------

#: Each CLI's TUI as the tier starts it.
TUI = {
    "claude": ["claude"],
    "codex": ["codex", "--dangerously-bypass-hook-trust"],
    "gemini": ["gemini"],
}
#: What each TUI's screen shows once it takes a prompt (Claude Code 2.1.332 shows either).
READY = {
    "claude": ("? for shortcuts", "shift+tab to cycle"),
    "codex": ("? for shortcuts", "mock-model default"),
    "gemini": ("Type your message",),
}
#: The command that ends each TUI.
QUIT = {"claude": "/exit", "codex": "/quit", "gemini": "/quit"}


def headless(cli: str, prompt: str) -> list[str]:
    """The command line of one headless run of `cli` with `prompt`."""
    return {
        "claude": ["claude", "-p", prompt],
        "codex": codex_exec(prompt),
        "gemini": ["gemini", "-p", prompt],
    }[cli]

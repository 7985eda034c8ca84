"""No shape of tests/data/secrets/corpus.toml reaches a file the hooks write on their
own: real `memhooks hook` processes, as Claude Code runs them, on a real transcript.
"""

from __future__ import annotations

import json
import tomllib
from typing import TYPE_CHECKING, Any

from tests.conftest import REPO, run_cli

if TYPE_CHECKING:
    from pathlib import Path

CORPUS = tomllib.loads(
    (REPO / "tests" / "data" / "secrets" / "corpus.toml").read_text(encoding="utf-8")
)
POSITIVES: list[dict[str, Any]] = CORPUS["positive"]
SECRETS = sorted({s for case in POSITIVES for s in case["secrets"]})


def _hook(payload: dict[str, object]) -> None:
    proc = run_cli("hook", input=json.dumps(payload), timeout=60)
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr


def _claude(event: str, project: Path, **fields: object) -> dict[str, object]:
    return {
        "session_id": "s-1",
        "cwd": str(project),
        "hook_event_name": event,
        **fields,
    }


def _user(text: str) -> dict[str, object]:
    return {"type": "user", "message": {"role": "user", "content": text}}


def _bash(command: str) -> dict[str, object]:
    use = {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": command}}
    return {"type": "assistant", "message": {"role": "assistant", "content": [use]}}


def _mcp_search(query: str) -> dict[str, object]:
    use = {
        "type": "tool_use",
        "id": "m",
        "name": "mcp__memhooks__memory_search",
        "input": {"query": query},
    }
    return {"type": "assistant", "message": {"role": "assistant", "content": [use]}}


def _said(text: str) -> dict[str, object]:
    block = {"type": "text", "text": text}
    return {"type": "assistant", "message": {"role": "assistant", "content": [block]}}


def _leaks(text: str) -> list[str]:
    """The secrets in ``text``, and those whose first 16 characters are (a secret cut
    in half is still a leak). Blanks are collapsed as the digest collapses them.
    """
    flat = " ".join(text.split())
    return [
        s
        for s in SECRETS
        if " ".join(s.split()) in flat or (len(s) >= 24 and s[:16] in flat)
    ]


def _written(root: Path) -> dict[str, str]:
    """Every file memhooks wrote under the memory root, by relative path."""
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_a_pre_compaction_flush_writes_no_secret_of_the_corpus(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    """Each shape as a prompt, a bash command or the last assistant message, flushed in
    rounds small enough that the digest keeps every item: the log holds every round's
    record and none of the secrets, nor does the session's state file.
    """
    transcript = tmp_path / "session.jsonl"
    rounds = [POSITIVES[i : i + 8] for i in range(0, len(POSITIVES), 8)]
    for number, cases in enumerate(rounds):
        records = []
        for i, case in enumerate(cases):
            tag = f"r{number}s{i}"
            if case["where"] == "shell":
                records.append(_bash(f"# {tag}\n{case['text']}"))
            else:
                records.append(_user(f"{tag} {case['text']}"))
        # Searches the model ran on its own go to the activity record.
        records.append(_bash(f"memhooks search 'why {cases[0]['text']}'"))
        # (the last round may hold a single case)
        records.append(_mcp_search(f"deploy {cases[1 % len(cases)]['text']}"))
        records.append(_said(f"r{number}-said {cases[-1]['text']}"))
        with transcript.open("a", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in records)
        for event in (
            "PreCompact",
            "PostCompact",
        ):  # the flush waits for the compaction
            _hook(
                _claude(event, project, trigger="auto", transcript_path=str(transcript))
            )
    files = _written(memory_root)
    (log,) = (text for rel, text in files.items() if "/daily/" in f"/{rel}")
    assert log.count("compaction summary") == len(rounds)
    for number, cases in enumerate(rounds):  # every item reached the log
        assert all(f"r{number}s{i}" in log for i in range(len(cases)))
        assert f"r{number}-said" in log
    assert any(rel.startswith(".sessions/") for rel in files)
    assert any('"looked"' in text for text in files.values())  # the activity record
    for rel, text in files.items():
        assert not _leaks(text), rel


def test_prompts_held_in_the_session_state_are_redacted(
    memory_root: Path, project: Path
) -> None:
    """Prompts wait in `.sessions/` for the next flush: every shape, sent in
    UserPromptSubmit prompts, is redacted before it is stored; SessionEnd then writes
    them to the log, again without a secret.
    """
    half = len(POSITIVES) // 2 + 1  # two long prompts: a hook per shape takes long
    for start in (0, half):
        prompt = "\n\n".join(str(c["text"]) for c in POSITIVES[start : start + half])
        _hook(_claude("UserPromptSubmit", project, prompt=prompt))
        states = {
            rel: text
            for rel, text in _written(memory_root).items()
            if rel.startswith(".sessions/")
        }
        assert states and all(not _leaks(text) for text in states.values())
        assert any("[redacted]" in text for text in states.values())
    _hook({**_claude("SessionEnd", project), "reason": "exit"})
    for rel, text in _written(memory_root).items():
        assert not _leaks(text), rel
    log = "".join(t for rel, t in _written(memory_root).items() if "daily/" in rel)
    assert "session end" in log and "[redacted]" in log


def test_a_password_pasted_once_is_redacted_where_it_comes_again_bare(
    memory_root: Path, project: Path, tmp_path: Path
) -> None:
    # Before: redacted in the pasted URL and after PGPASSWORD=, the password was in the
    # log, in `grep -rn PASSWORD config/` and the last answer, and in the activity file,
    # as the query of a search the model ran: bare, it has no secret's shape.
    password = "Sup3rS3cretPw"
    transcript = tmp_path / "session.jsonl"
    records = [
        _user(
            f"the db is postgres://admin:{password}@db.internal:5432/app, why no login"
        ),
        _bash(f"PGPASSWORD={password} psql -h db.internal -U admin app"),
        _bash(f"grep -rn {password} config/"),
        _bash(f"memhooks search {password}"),
        _said(f"Found it: {password} is in config/db.yml in plain text."),
    ]
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    for event in ("PreCompact", "PostCompact"):
        _hook(_claude(event, project, trigger="auto", transcript_path=str(transcript)))
    files = _written(memory_root)
    (log,) = (text for rel, text in files.items() if "/daily/" in f"/{rel}")
    assert "grep -rn [redacted] config/" in log and "Found it: [redacted] is" in log
    assert any('"looked"' in text for text in files.values())
    assert [rel for rel, text in files.items() if password in text] == []


def test_a_long_prompt_keeps_no_end_of_a_private_paste(
    memory_root: Path, project: Path
) -> None:
    # A prompt too long to keep whole keeps its end, redacted on its own: before
    # 2026-12-06 a private paste whose <private> lay before that end's window kept its
    # last kilobyte, through the session's state into the log (and the next block).
    paste = " ".join(f"VAULT{i:05d}" for i in range(3000))  # 30 KB
    prompt = f"<private>{paste}</private> why does the heron build fail?"
    _hook(_claude("UserPromptSubmit", project, prompt=prompt))
    held = [rel for rel, text in _written(memory_root).items() if "VAULT" in text]
    assert held == []
    _hook({**_claude("SessionEnd", project), "reason": "exit"})
    files = _written(memory_root)
    log = "".join(t for rel, t in files.items() if "daily/" in rel)
    assert "why does the heron build fail?" in log
    assert [rel for rel, text in files.items() if "VAULT" in text] == []

"""A session process kept for days: does anything grow? A script, not a test (pytest
collects ``test_*.py``).

    TMPDIR=/tmp .venv/bin/python -m tests.benchmarks.bench_soak [--prompts 2000]
        [--edit-every 20] [--compact-every 500] [--windows 10] [--projects 6] [--semantic]

`tests.longuse.build` writes a root of months of use (``--projects`` projects) into
``$TMPDIR/memhooks-bench-soak``. A Claude Code session is then driven as the harness
drives it: the SessionStart hook (`memhooks hook`, a real subprocess, which forks the
session process), then ``--prompts`` UserPromptSubmit events sent over the session's
socket as the thin client sends them (`hooks.wire.request`, one connection each, from
this process: thousands of hook subprocesses would take hours), each after its prompt
and the model's reply (a Bash command, now and then an Edit) are appended to the
session's transcript. Every ``--edit-every`` prompts a memory file changes, in turn:
`memhooks write` appends to the log, a note is rewritten in place as an editor saves it,
a note is created, one created before is deleted. Every ``--compact-every`` prompts the
harness compacts: PreCompact, the compact boundary and its summary in the transcript,
then SessionStart (source compact).

For each window of prompts it prints the session process's RSS, open file descriptors,
threads and inotify watches (/proc), the session state file's size and the p50/p95 of
the prompt's round trip. The baseline, in the same run: a second session started at the
end (a fresh process on the same root, edits and all) answering one window of the same
prompts. ``--semantic`` turns on ranking by meaning (the [semantic] extra).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memhooks.hooks.state import state_rel
from memhooks.hooks.wire import parse_reply, request, socket_path
from memhooks.memory import slug_for
from tests.benchmarks.bench_speed import ENV, MEMHOOKS, _wait_socket, median_ms, p95_ms
from tests.longuse import _WORDS, build
from tests.processes import session_processes

#: Words a prompt is made of besides the corpus's (`tests.longuse`): what a user types.
_ASK = ("where", "is", "how", "do", "we", "fix", "the", "why", "does", "what", "about")
#: What Claude Code writes to the transcript as it compacts, before its summary.
_BOUNDARY: dict[str, object] = {
    "type": "system",
    "subtype": "compact_boundary",
    "content": "Compacted",
}


def _prompt(rng: random.Random, n: int) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(3, 9))]
    words.insert(0, rng.choice(_ASK))
    if n % 3 == 0:  # a name the user mentions once: a ticket, a function, a file
        words.append(f"ticket_{n}")
    return " ".join(words) + "?"


class Session:
    """One Claude Code session under `root` in `project`, driven over its socket."""

    def __init__(self, root: Path, project: Path, sid: str, env: dict[str, str]):
        self.root, self.project, self.sid, self.env = root, project, sid, env
        self.transcript = root.parent / f"{sid}.jsonl"
        self.transcript.touch()
        self.path = socket_path(str(root), sid)
        self.pid = 0
        self.replied = 0  #: prompts answered with context

    def payload(self, event: str, **extra: object) -> bytes:
        return json.dumps(
            {
                "session_id": self.sid,
                "transcript_path": str(self.transcript),
                "cwd": str(self.project),
                "hook_event_name": event,
                **extra,
            }
        ).encode()

    def start(self) -> None:
        """The SessionStart hook, as Claude Code runs it: it forks the session process."""
        subprocess.run(
            [MEMHOOKS, "hook", "--harness", "claude-code"],
            input=self.payload("SessionStart", source="startup"),
            capture_output=True,
            env=self.env,
            check=True,
        )
        _wait_socket(self.root, self.sid)
        pids = session_processes(self.root, self.sid)
        if len(pids) != 1:
            raise SystemExit(f"expected one session process for {self.sid}: {pids}")
        self.pid = pids[0]

    def send(self, payload: bytes) -> str:
        """One event over the socket, as the thin client sends it; the text it prints."""
        sent = request("claude-code", payload)
        assert sent is not None
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(30)
            s.connect(self.path)
            s.sendall(sent)
            s.shutdown(socket.SHUT_WR)
            chunks = []
            while chunk := s.recv(65536):
                chunks.append(chunk)
        return parse_reply(b"".join(chunks))

    def append(self, *lines: dict[str, object]) -> None:
        with self.transcript.open("a", encoding="utf-8") as f:
            f.writelines(json.dumps(line) + "\n" for line in lines)

    def prompt(self, text: str, n: int) -> float:
        """The user's prompt: in the transcript, then its hook; the round trip (s)."""
        self.append({"type": "user", "message": {"role": "user", "content": text}})
        began = time.perf_counter()
        said = self.send(
            self.payload("UserPromptSubmit", prompt=text, prompt_id=f"p{n}")
        )
        self.replied += bool(said)
        took = time.perf_counter() - began
        tools: list[dict[str, object]] = [
            {
                "type": "tool_use",
                "name": "Bash",
                "input": {"command": f"pytest -k t{n}"},
            }
        ]
        if n % 5 == 0:
            edited = str(self.project / "src" / f"mod{n % 300}.py")
            tools.append(
                {"type": "tool_use", "name": "Edit", "input": {"file_path": edited}}
            )
        content = [{"type": "text", "text": f"Done with step {n}."}, *tools]
        self.append({"type": "assistant", "message": {"role": "assistant", "content": content}})  # fmt: skip
        return took

    def compact(self, n: int) -> None:
        """PreCompact, the summary Claude Code writes, then SessionStart(compact)."""
        self.send(self.payload("PreCompact", trigger="auto", custom_instructions=None))
        summary = f"Summary:\nWorked through steps up to {n} on the billing export."
        said = {"role": "user", "content": summary}
        self.append(
            _BOUNDARY, {"type": "user", "isCompactSummary": True, "message": said}
        )
        self.send(self.payload("SessionStart", source="compact"))

    def end(self) -> None:
        self.send(self.payload("SessionEnd", reason="other"))
        deadline = time.monotonic() + 10
        while os.path.exists(f"/proc/{self.pid}") and time.monotonic() < deadline:
            time.sleep(0.05)

    def sample(self) -> dict[str, int]:
        """What the process holds now: RSS (KiB), fds, threads, inotify watches."""
        status = Path(f"/proc/{self.pid}/status").read_text().splitlines()
        fields = dict(line.split(":", 1) for line in status)
        fds = os.listdir(f"/proc/{self.pid}/fd")
        watches = 0
        for fd in fds:
            try:
                info = Path(f"/proc/{self.pid}/fdinfo/{fd}").read_text()
            except OSError:
                continue
            watches += info.count("inotify wd:")
        state = self.root / state_rel(self.sid)
        return {
            "rss": int(fields["VmRSS"].split()[0]),
            "fds": len(fds),
            "threads": int(fields["Threads"]),
            "watches": watches,
            "state": state.stat().st_size if state.exists() else 0,
        }


class Editor:
    """The memory files a user and the model change during the session, in turn."""

    def __init__(self, root: Path, project: Path, env: dict[str, str]):
        self.root, self.project, self.env = root, project, env
        self.notes = root / "projects" / slug_for(str(project)) / "notes"
        self.created: list[Path] = []
        self.turn = 0

    def edit(self, rng: random.Random) -> None:
        kind = self.turn % 4
        self.turn += 1
        words = " ".join(rng.choice(_WORDS) for _ in range(12))
        if kind == 0:  # the model saves a finding
            subprocess.run(
                [MEMHOOKS, "write", "--project", str(self.project), "--to", "daily",
                 "--title", f"finding {self.turn}", "--text", words],
                capture_output=True, env=self.env, check=True,
            )  # fmt: skip
        elif kind == 1:  # an editor saves a note in place
            note = sorted(self.notes.glob("*.md"))[self.turn % 3]
            note.write_text(note.read_text() + words + "\n")
        elif kind == 2:
            made = self.notes / f"soak-{self.turn}.md"
            made.write_text(f"# {words}\n\n{words} ticket_{self.turn}\n")
            self.created.append(made)
        elif self.created:
            self.created.pop(0).unlink()


def _table(rows: list[dict[str, float]]) -> None:
    print("| prompts | edits | compactions | RSS | fds | threads | inotify watches "
          "| state file | p50 | p95 |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['prompts']:.0f} | {r['edits']:.0f} | {r['compactions']:.0f} "
            f"| {r['rss'] / 1024:.1f} MB | {r['fds']:.0f} | {r['threads']:.0f} "
            f"| {r['watches']:.0f} | {r['state'] / 1024:.1f} KiB "
            f"| {r['p50']:.1f} ms | {r['p95']:.1f} ms |"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prompts", type=int, default=2000)
    ap.add_argument("--edit-every", type=int, default=20)
    ap.add_argument("--compact-every", type=int, default=500)
    ap.add_argument("--windows", type=int, default=10)
    ap.add_argument("--projects", type=int, default=6)
    ap.add_argument("--semantic", action="store_true", help="rank by meaning too")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    base = Path(tempfile.gettempdir()) / "memhooks-bench-soak"
    shutil.rmtree(base, ignore_errors=True)
    root = base / "root"
    made = build(root, projects=args.projects, big=1, seed=args.seed)
    project = made[0]
    env = {**ENV, "MEMHOOKS_HOME": str(root), "MEMHOOKS_SESSION_PROCESS": "1"}
    if args.semantic:
        env["MEMHOOKS_SEMANTIC"] = "on"
    rng = random.Random(args.seed)
    session = Session(root, project, f"soak-{time.time_ns()}", env)
    editor = Editor(root, project, env)
    session.start()
    window = max(1, args.prompts // args.windows)
    rows: list[dict[str, float]] = []
    took: list[float] = []
    edits = compactions = 0
    began = time.monotonic()
    for n in range(1, args.prompts + 1):
        took.append(session.prompt(_prompt(rng, n), n))
        if n % args.edit_every == 0:
            editor.edit(rng)
            edits += 1
        if n % args.compact_every == 0:
            session.compact(n)
            compactions += 1
        if n % window == 0:
            got = session.sample()
            rows.append(
                {"prompts": n, "edits": edits, "compactions": compactions, **got,
                 "p50": median_ms(took), "p95": p95_ms(took)}
            )  # fmt: skip
            print(f"{n} prompts: {got}", file=sys.stderr, flush=True)
            took = []
    aged = session.sample()
    session.end()
    # The baseline: a fresh session process on the same root, now.
    fresh = Session(root, project, f"fresh-{time.time_ns()}", env)
    fresh.start()
    rng = random.Random(args.seed)
    base_took = [fresh.prompt(_prompt(rng, n), n) for n in range(1, window + 1)]
    base_row = {"prompts": window, "edits": 0, "compactions": 0, **fresh.sample(),
                "p50": median_ms(base_took), "p95": p95_ms(base_took)}  # fmt: skip
    fresh.end()
    print(
        f"{args.prompts} prompts in {time.monotonic() - began:.0f} s; an edit every "
        f"{args.edit_every}, a compaction every {args.compact_every}; "
        f"{len(made)} projects; semantic {'on' if args.semantic else 'off'}; "
        f"session process {session.pid}; {session.replied} prompts got context"
    )
    _table(rows)
    print("baseline, a fresh session process after the run:")
    _table([base_row])
    first, last = rows[0], rows[-1]
    print(
        f"first vs last window: RSS {first['rss'] / 1024:.1f} -> {aged['rss'] / 1024:.1f}"
        f" MB, fds {first['fds']} -> {aged['fds']}, threads {first['threads']} -> "
        f"{aged['threads']}, p50 {first['p50']:.1f} -> {last['p50']:.1f} ms"
    )


if __name__ == "__main__":
    main()

"""Timing for search by meaning (the [semantic] extra); a script, not a test.

    .venv/bin/python -m tests.benchmarks.bench_semantic [--notes 1000] [--queries 100]

On a generated root of ``--notes`` notes (three sections each, English with some Chinese,
about the size of the dev set's notes):

1. The first full embedding, in a fresh process with an empty cache: model load, then
   every chunk through the encoder.
2. A restart: a fresh process with the cache warm (nothing should reach the encoder).
3. ``memhooks session`` (the real process, generic dialect, over its pipes): pre-prompt
   events, each running auto-search, timed from the request line written to the reply
   line read; median and p95, with meaning on (once warm) and off.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

TOPICS = [
    ("deploy", "release pipeline helm chart rollout canary production cluster"),
    ("queue", "celery worker broker retry visibility timeout task acknowledgement"),
    ("db", "postgres pgbouncer connection pool transaction migration index"),
    ("auth", "login session token refresh cookie single sign-on identity"),
    ("billing", "invoice payment refund proration subscription plan charge"),
    ("cache", "redis key expiry eviction memory hit rate invalidation"),
    ("frontend", "react component bundle vite route lazy loading hydration"),
    ("tests", "pytest fixture mock freezegun coverage flaky integration"),
    ("observability", "sentry tracing metrics alert dashboard on-call logs"),
    ("security", "secrets rotation vault permissions audit encryption keys"),
]
CJK = ["部署流程", "退款規則", "連線池", "快取失效", "帳單週期", "告警門檻", "權限稽核"]
VERBS = ["changed", "broke", "needs", "moved", "fixed", "doubled", "blocks", "replaces"]


def _note(rng: random.Random, i: int) -> tuple[str, str]:
    name, words = TOPICS[i % len(TOPICS)]
    vocab = words.split()
    sections = []
    for s in range(3):
        lines = [
            f"- {rng.choice(vocab)} {rng.choice(VERBS)} the {rng.choice(vocab)} "
            f"`{rng.choice(vocab)}_{rng.randint(1, 99)}` after {rng.choice(vocab)} "
            f"{rng.choice(vocab)} ({rng.randint(2, 600)} ms)"
            for _ in range(rng.randint(3, 5))
        ]
        if rng.random() < 0.3:
            lines.append(f"- {rng.choice(CJK)}：{rng.choice(CJK)}要先確認。")
        sections.append(f"## {rng.choice(vocab).title()} {s + 1}\n" + "\n".join(lines))
    body = f"aliases: {name} {i}\n\n# {name.title()} note {i}\n\n" + "\n\n".join(
        sections
    )
    return f"{name}-{i:04d}", body + "\n"


def make_root(base: Path, notes: int) -> tuple[Path, Path, str]:
    from memhooks.memory import Store, slug_for

    project = base / "proj"
    (project / ".git").mkdir(parents=True)
    root = base / "root"
    store = Store(root, slug_for(str(project)))
    rng = random.Random(7)
    folder = root / "projects" / store.slug / "notes"
    folder.mkdir(parents=True)
    for i in range(notes):
        name, text = _note(rng, i)
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    (root / "MEMORY.md").write_text("# Rules\n- Keep PRs small.\n", encoding="utf-8")
    return root, project, store.slug


PREPARE = """
import json, sys, time
t0 = time.perf_counter()
from memhooks.memory import Store
from memhooks.memory.semantic import SemanticIndex, default_cache
root = sys.argv[1]; slug = sys.argv[2]
docs = list(Store(__import__("pathlib").Path(root), slug).corpus().values())
index = SemanticIndex(default_cache(__import__("pathlib").Path(root)))
t1 = time.perf_counter()
index.encoder.encode(["warm up"])  # the model load, timed on its own
t2 = time.perf_counter()
index.prepare(docs)
t3 = time.perf_counter()
index.similar("which job runner retries failed tasks", docs)
t4 = time.perf_counter()
import resource
print(json.dumps({"read": t1 - t0, "load": t2 - t1, "prepare": t3 - t2, "query": t4 - t3,
                  "embedded": index.embedded, "docs": len(docs),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def prepare(root: Path, slug: str) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, "-c", PREPARE, str(root), slug],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


class Session:
    def __init__(self, root: Path, semantic: str) -> None:
        env = {**os.environ, "MEMHOOKS_SEMANTIC": semantic}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memhooks.hooks", "session", "--root", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=REPO,
        )

    def send(self, event: dict[str, object]) -> tuple[float, dict[str, object]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        start = time.perf_counter()
        self.proc.stdin.write(json.dumps(event) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        reply: dict[str, object] = json.loads(line)
        return time.perf_counter() - start, reply

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def session_latency(
    root: Path, project: Path, semantic: str, queries: int
) -> tuple[list[float], float]:
    s = Session(root, semantic)
    base = {"session_id": "bench", "cwd": str(project)}
    s.send({**base, "event": "session-start"})
    start = time.perf_counter()
    warm = 0.0
    if semantic != "off":
        # Searches stay lexical until the index is warm: wait for a hit by meaning, with
        # a word in no note (so only meaning can answer) and a new session id each time
        # (so auto-search has surfaced nothing yet).
        for i in range(3000):
            probe = {**base, "session_id": f"probe-{i}", "event": "pre-prompt"}
            _, reply = s.send({**probe, "prompt": "ロールアウト"})
            if "by meaning" in str(reply.get("context")):
                break
            time.sleep(0.05)
        warm = time.perf_counter() - start
    else:
        # The session builds its word index at its first search: not what is timed.
        s.send({**base, "event": "pre-prompt", "prompt": "warm up the index"})
    rng = random.Random(3)
    times = []
    for i in range(queries):
        name, words = rng.choice(TOPICS)
        prompt = f"how do we handle {rng.choice(words.split())} when {name} fails {i}"
        took, _ = s.send({**base, "event": "pre-prompt", "prompt": prompt})
        times.append(took)
    s.close()
    return times, warm


def _ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=100)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root, project, slug = make_root(Path(tmp), args.notes)
        size = sum(p.stat().st_size for p in root.rglob("*.md"))
        print(f"root: {args.notes} notes + MEMORY.md, {size / 1e6:.2f} MB")
        cold = prepare(root, slug)
        print(
            f"first full embedding: {cold['prepare']:.1f} s for {cold['embedded']:.0f} "
            f"chunks of {cold['docs']:.0f} files ({cold['prepare'] / cold['embedded'] * 1000:.1f} "
            f"ms a chunk); model load {cold['load']:.2f} s; RSS {cold['rss_mb']:.0f} MB"
        )
        warm = prepare(root, slug)
        print(
            f"restart, cache warm: {warm['prepare']:.2f} s to load the vectors, "
            f"{warm['embedded']:.0f} chunks embedded; model load {warm['load']:.2f} s"
        )
        cache = sum(p.stat().st_size for p in (root / ".embeddings").rglob("*"))
        print(f"cache: {cache / 1e6:.1f} MB in {root / '.embeddings'}")
        for mode in ("off", "auto"):
            times, ready = session_latency(root, project, mode, args.queries)
            label = "semantic on " if mode == "auto" else "semantic off"
            extra = f" (index warm {ready:.1f} s after session-start)"
            print(
                f"session pre-prompt ({args.queries} prompts), {label}: {_ms(times)}"
                + (extra if mode == "auto" else "")
            )


if __name__ == "__main__":
    main()

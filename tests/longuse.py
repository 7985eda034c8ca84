"""A memory root after months of use, built from real files; a helper, not a test.

    python -m tests.longuse ROOT [--projects 30] [--months 9] [--big 3] [--seed 7]

`build` writes what a person who kept memhooks installed has: a MEMORY.md over its share
of the block, per project a scratchpad that grew (open and ticked items), one daily log per
working day it was worked on (2-40 KB, the hooks' own records in them; `big` of them 1-5 MB,
written by a chatty agent), named notes edited by hand (front matter, CRLF), an index file
left by an older memhooks, old `.bak` files and a `.sessions` folder of past sessions. The
project folders it names are made under `ROOT/../checkouts` (each a git repository's
folder: `.git` only), so the hooks can be run in them. Deterministic for a seed; the days
end at `today` (a date), so a test can place "today" where it needs it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
from pathlib import Path

from memhooks.memory.paths import slug_for

_VOCABULARY = (
    "deploy staging redis postgres migration cache worker queue retry timeout schema "
    "endpoint token upload parser config docker compose kubernetes ingress proxy nginx "
    "lint flaky test fixture coverage release changelog branch rebase merge conflict "
    "invoice billing customer export report cron backup restore replica index vacuum "
    "latency memory leak profile trace span metric alert dashboard oncall incident "
    "login session cookie oauth refresh password hash bucket s3 cdn image resize "
    "webhook payload signature api client sdk version pin upgrade dependency lockfile"
)
_WORDS = _VOCABULARY.split()
_FILLERS = "the a and to of in for on with it was is that this we then but so after"
_FILLER = _FILLERS.split()
_BIRDS = (
    "kestrel wombat heron osprey falcon lynx marten otter badger ferret puffin egret "
    "ibis tern plover curlew godwit dunlin avocet stilt bittern grebe loon merlin "
    "kite harrier shrike wren finch siskin linnet bunting pipit wagtail"
)
_PROJECT_NAMES = _BIRDS.split()


def _sentence(rng: random.Random, words: int) -> str:
    out = []
    for _ in range(words):
        out.append(rng.choice(_WORDS) if rng.random() < 0.45 else rng.choice(_FILLER))
    return " ".join(out).capitalize() + "."


def _record(rng: random.Random, at: str, title: str) -> str:
    prompts = "\n".join(f"- {_sentence(rng, 9)}" for _ in range(rng.randint(1, 5)))
    files = "\n".join(
        f"- `src/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}.py`"
        for _ in range(rng.randint(0, 6))
    )
    commands = "\n".join(
        f"- `pytest tests/test_{rng.choice(_WORDS)}.py -x`"
        for _ in range(rng.randint(0, 4))
    )
    body = f"**Prompts**\n{prompts}\n"
    if files:
        body += f"\n**Files edited**\n{files}\n"
    if commands:
        body += f"\n**Commands**\n{commands}\n"
    return f"### {at} — {title}\n{body}"


def _log(rng: random.Random, size: int) -> str:
    """A day's log of about `size` bytes: a person's entries and the hooks' records."""
    parts: list[str] = []
    total = 0
    minute = 8 * 60 + rng.randint(0, 90)
    while total < size:
        at = f"{min(minute // 60, 23):02d}:{minute % 60:02d}"
        minute += rng.randint(1, 25)
        kind = rng.random()
        if kind < 0.35:
            title = rng.choice(["compaction summary", "session end"])
            text = _record(rng, at, title)
        else:
            title = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 4)))
            body = "\n".join(_sentence(rng, rng.randint(6, 30)) for _ in range(4))
            text = f"### {at} — {title}\n{body}\n"
        parts.append(text)
        total += len(text) + 1
    return "\n".join(parts)


def _workdays(today: dt.date, months: int) -> list[dt.date]:
    first = today - dt.timedelta(days=round(months * 30.4))
    days = [first + dt.timedelta(days=n) for n in range((today - first).days + 1)]
    return [d for d in days if d.weekday() < 5]


def build(
    root: Path,
    *,
    projects: int = 30,
    months: int = 9,
    big: int = 3,
    seed: int = 7,
    today: dt.date | None = None,
) -> list[Path]:
    """Write the root; the project folders (under root's parent/checkouts), newest-worked first."""
    rng = random.Random(seed)
    today = today or dt.date.today()
    days = _workdays(today, months)
    root.mkdir(parents=True, exist_ok=True)
    rules = [f"- {_sentence(rng, rng.randint(8, 24))}" for _ in range(160)]
    rules[0] = "- Always run make check before pushing; never force-push main."
    (root / "MEMORY.md").write_text("# Rules\n\n" + "\n".join(rules) + "\n")
    (root / "MEMORY.md.bak").write_text("# Rules\n\n" + "\n".join(rules[:40]) + "\n")
    checkouts = root.parent / "checkouts"
    made: list[Path] = []
    big_left = big
    for n in range(projects):
        name = _PROJECT_NAMES[n % len(_PROJECT_NAMES)] + ("" if n < 36 else str(n))
        folder = checkouts / name
        (folder / ".git").mkdir(parents=True, exist_ok=True)
        made.append(folder)
        home = root / "projects" / slug_for(str(folder))
        (home / "daily").mkdir(parents=True, exist_ok=True)
        (home / "notes").mkdir(exist_ok=True)
        items = [
            f"- [{'x' if rng.random() < 0.6 else ' '}] {_sentence(rng, 8)}"
            for _ in range(rng.randint(20, 120))
        ]
        items[0] = f"- [ ] finish the {name} release checklist"
        (home / "SCRATCHPAD.md").write_text("\n".join(items) + "\n")
        # The first third are worked on until today; the last, not for three months.
        stop = (
            today
            if n < projects // 3
            else today - dt.timedelta(days=rng.randint(20, 200))
        )
        if n == projects - 1:
            stop = today - dt.timedelta(days=95)
        active = [d for d in days if d <= stop and rng.random() < 0.5]
        for day in active:
            size = int(rng.lognormvariate(9.3, 0.6))
            size = max(2048, min(size, 40 * 1024))
            if big_left and rng.random() < 0.01:
                size = rng.randint(1, 5) * 1024 * 1024
                big_left -= 1
            (home / "daily" / f"{day.isoformat()}.md").write_text(_log(rng, size))
        for k in range(rng.randint(3, 25)):
            topic = rng.choice(_WORDS)
            text = "\n".join(_sentence(rng, rng.randint(8, 30)) for _ in range(20))
            if k % 5 == 1:
                text = f"---\ntitle: {topic} notes\ntags: [{topic}]\n---\n{text}"
            if k % 7 == 2:
                text = text.replace("\n", "\r\n")
            (home / "notes" / f"{topic}-{k}.md").write_bytes(text.encode() + b"\n")
            if k % 4 == 0:
                (home / "notes" / f"{topic}-{k}.md.bak").write_text(text[:200])
    # An index file an older memhooks left (a magic it does not write any more).
    (root / ".index").mkdir(exist_ok=True)
    for folder in made[:5]:
        old = root / ".index" / f"{slug_for(str(folder))}.mhix"
        old.write_bytes(b"\x00" * 4096 + b"MHIX\x07\x00\x00\x00")
    # Past sessions: state files a killed session left.
    sessions = root / ".sessions"
    sessions.mkdir(exist_ok=True)
    for k in range(40):
        name = f"{rng.getrandbits(96):024x}.json"
        state = {"version": 1, "slug": slug_for(str(made[k % len(made)]))}
        (sessions / name).write_text(json.dumps(state))
        os.utime(sessions / name, (0, 1_600_000_000 + k))
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--projects", type=int, default=30)
    parser.add_argument("--months", type=int, default=9)
    parser.add_argument("--big", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    made = build(
        args.root,
        projects=args.projects,
        months=args.months,
        big=args.big,
        seed=args.seed,
    )
    print(f"{len(made)} projects under {made[0].parent}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

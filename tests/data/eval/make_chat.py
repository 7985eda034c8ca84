"""Render the chat-log eval set: multi-session conversations as daily logs, and questions
about them whose answers lie mostly in older sessions. Seeded, so the output is the same
on every run; `tests/data/eval/chat/` is its committed output.

    .venv/bin/python -m tests.data.eval.make_chat tests/data/eval/chat
    .venv/bin/python -m tests.data.eval.make_chat /tmp/chat-pooled --pooled

Each conversation is its own project (as a person keeps one project per chat); with
``--pooled`` all of them share one project, so every question also meets the other
conversations' sessions. Content: `tests.data.eval.chat_source` (hand-written); only the
small talk between the turns that carry facts, the gaps between sessions and their times
are drawn at random.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
from pathlib import Path

from tests.data.eval.chat_source import (
    CLOSE,
    CONVERSATIONS,
    FILLER,
    OPEN,
    REPLY,
    Line,
)

SEED = 18
POOLED = "pooled-chats-0d5e1a77"


def render(out: Path, *, pooled: bool = False) -> int:
    """Write ``root/`` and ``queries.jsonl`` under `out`; returns the number of questions."""
    rng = random.Random(SEED)
    days: dict[str, list[str]] = {}  # root-relative path -> entries
    queries: list[dict[str, object]] = []
    for conv in CONVERSATIONS:
        slug = POOLED if pooled else conv["slug"]
        names = a, b = conv["speakers"]
        day = dt.date.fromisoformat(conv["start"])
        where: dict[str, str] = {}  # event -> path
        chatter: list[Line] = []
        for events in conv["sessions"]:
            # Sessions with facts, each followed by one or two of mere chatter that
            # mention the same people, pets and hobbies: the distractors of a long chat.
            for n in range(1 + rng.randint(1, 2)):
                if len(chatter) < 3:
                    chatter = rng.sample(conv["mentions"], len(conv["mentions"]))
                said = [
                    [chatter.pop()] for _ in range(rng.randint(1, 2) if n == 0 else 3)
                ]
                told = [conv["events"][e] for e in events] if n == 0 else []
                rel = f"projects/{slug}/daily/{day.isoformat()}.md"
                lines = _session(rng, names, told + said)
                when = f"{rng.randint(8, 21):02d}:{rng.choice((0, 10, 25, 40, 55)):02d}"
                days.setdefault(rel, []).append(
                    f"### {when} — {a} and {b}\n" + "\n".join(lines)
                )
                if n == 0:
                    where.update(dict.fromkeys(events, rel))
                day += dt.timedelta(days=rng.randint(3, 12))
        for i, (question, answers) in enumerate(conv["questions"], 1):
            queries.append(
                {
                    "id": f"{conv['slug'].split('-')[0]}-{i:02d}",
                    "query": question,
                    "project": slug,
                    "expect": sorted({where[e] for e in answers}),
                    "category": f"chat-{conv['slug'].rsplit('-', 1)[0]}",
                }
            )
    for rel, entries in days.items():
        path = out / "root" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        date = rel.rsplit("/", 1)[1].removesuffix(".md")
        path.write_text(f"# {date}\n\n" + "\n\n".join(entries) + "\n", encoding="utf-8")
    (out / "queries.jsonl").write_text(
        "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in queries),
        encoding="utf-8",
    )
    return len(queries)


def _session(
    rng: random.Random, names: tuple[str, str], events: list[list[Line]]
) -> list[str]:
    first = rng.randint(0, 1)
    small = rng.sample(FILLER, len(FILLER))

    def say(who: int, pool: list[str]) -> str:
        text = rng.choice(pool) if pool is not small else small.pop()
        return f"{names[who]}: {text.format(me=names[who], you=names[1 - who])}"

    out = [say(first, OPEN), say(1 - first, REPLY)]
    for event in events:
        out += [f"{names[who]}: {text}" for who, text in event]
        if rng.random() < 0.7:  # the other one reacts, and the teller may answer
            out.append(say(1 - event[-1][0], small))
            if rng.random() < 0.4:
                out.append(say(event[-1][0], small))
    out.append(say(first, CLOSE))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--pooled", action="store_true")
    args = parser.parse_args()
    n = render(args.out, pooled=args.pooled)
    print(f"{n} questions under {args.out}")


if __name__ == "__main__":
    main()

"""`memhooks report`: over the last sessions, what the block held, what auto-search surfaced,
what the model went looking for on its own (the live misses), and how today's log grew.

Reads the project's activity file (`hooks.activity`); writes nothing.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from memhooks.hooks import activity
from memhooks.hooks.commands import open_store
from memhooks.hooks.constants import EXIT_OK

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TextIO

    from memhooks.hooks.commands import Where

DEFAULT_SESSIONS = 10


@dataclass
class Session:
    """What one session's records say."""

    session: str
    started: str
    block_bytes: int = 0
    shares: list[dict[str, object]] = field(default_factory=list)
    surfaced: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)
    searched: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    wrote: list[dict[str, object]] = field(default_factory=list)
    log_bytes: int | None = None
    log_growth: int | None = None
    _whole: set[str] = field(default_factory=set, repr=False)


def sessions(facts: list[dict[str, object]], last: int) -> list[Session]:
    """Group activity facts by session, oldest first, and keep the `last` ones."""
    by: dict[str, Session] = {}
    logs: dict[str, int] = {}
    for f in facts:
        key = str(f["s"])
        s = by.get(key)
        if s is None:
            s = by[key] = Session(key, _when(f.get("t")))
        _add(s, f, logs)
    out = list(by.values())[-max(last, 0) :] if last > 0 else []
    for s in out:
        seen = set(s.surfaced) | s._whole
        s.misses = [rel for rel in s.read if rel not in seen]
    return out


def _add(s: Session, f: dict[str, object], logs: dict[str, int]) -> None:
    ev = f.get("ev")
    if ev == "block":
        s.block_bytes = _int(f.get("bytes"))
        s.shares = [
            {"title": x[0], "need": x[1], "used": x[2], "state": x[3]}
            for x in _list(f.get("shares"))
            if isinstance(x, list) and len(x) == 4
        ]
        s._whole |= {str(r) for r in _list(f.get("whole"))}
    elif ev == "surfaced":
        _extend(s.surfaced, _list(f.get("rels")))
    elif ev == "looked":
        _extend(s.read, _list(f.get("reads")))
        _extend(s.searched, _list(f.get("searches")))
    elif ev == "wrote":
        s.wrote.append({"title": f.get("title"), "bytes": _int(f.get("bytes"))})
    elif ev == "end":
        # One session may end more than once (Gemini CLI runs SessionEnd hooks
        # repeatedly on `/quit`; a conversation resumed later): its growth adds up.
        log, size = str(f.get("log")), _int(f.get("log_bytes"))
        s.log_bytes = size
        s.log_growth = (s.log_growth or 0) + size - logs.get(log, 0)
        logs[log] = size


def _extend(into: list[str], values: list[object]) -> None:
    into.extend(str(v) for v in values if str(v) not in into)


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _int(value: object) -> int:
    return value if isinstance(value, int) else 0


def _when(t: object) -> str:
    if not isinstance(t, (int, float)):
        return ""
    try:
        return dt.datetime.fromtimestamp(t).astimezone().strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):  # a damaged line: 1e20, NaN
        return ""


def section_totals(ss: list[Session]) -> list[dict[str, object]]:
    """Per section title (dates folded): how often whole, cut or left out, bytes used."""
    rows: dict[str, dict[str, object]] = {}
    for s in ss:
        for sh in s.shares:
            title = _fold(str(sh["title"]))
            row = rows.setdefault(
                title,
                {"section": title, "whole": 0, "truncated": 0, "omitted": 0, "used": 0},
            )
            state = str(sh["state"])
            row[state] = _int(row.get(state)) + 1
            row["used"] = _int(row["used"]) + _int(sh["used"])
    for row in rows.values():
        n = sum(_int(row[k]) for k in ("whole", "truncated", "omitted"))
        row["mean_bytes"] = _int(row.pop("used")) // max(n, 1)
    return list(rows.values())


def _fold(title: str) -> str:
    # "Daily log 2026-12-01 (today)" and the next day's are the same section.
    if title.startswith("Daily log "):
        return "Daily log (newest)" if title.endswith("(today)") else "Daily log"
    return title.split(" (read with", 1)[0]


def render_table(slug: str, ss: list[Session]) -> str:
    """The report as terminal text."""
    if not ss:
        return f"memhooks report: no sessions recorded for {slug} yet\n"
    n = f"last {len(ss)} sessions of {slug}, oldest first"
    lines = [
        f"memhooks report: {n if len(ss) > 1 else f'the last session of {slug}'}",
        "",
    ]
    head = (
        "session",
        "started",
        "block",
        "surfaced",
        "looked",
        "misses",
        "wrote",
        "log",
    )
    rows = [
        (
            s.session,
            s.started,
            _kb(s.block_bytes),
            str(len(s.surfaced)),
            str(len(s.read) + len(s.searched)),
            str(len(s.misses)),
            _kb(sum(_int(w["bytes"]) for w in s.wrote)),
            ""
            if s.log_bytes is None
            else f"{_kb(s.log_bytes)} ({_signed(s.log_growth)})",
        )
        for s in ss
    ]
    lines += _grid(head, rows)
    totals = section_totals(ss)
    if totals:
        lines += ["", "Block by section (over these sessions):"]
        lines += _grid(
            ("section", "whole", "cut", "left out", "mean bytes"),
            [
                (
                    str(r["section"]),
                    str(r["whole"]),
                    str(r["truncated"]),
                    str(r["omitted"]),
                    str(r["mean_bytes"]),
                )
                for r in totals
            ],
        )
    surfaced = [(s.session, rel) for s in ss for rel in s.surfaced]
    if surfaced:
        lines += ["", "Surfaced by auto-search:"]
        lines += [f"  {sid}  {rel}" for sid, rel in surfaced]
    misses = [(s.session, rel) for s in ss for rel in s.misses]
    lines += [
        "",
        f"Live misses ({len(misses)}): files the model opened itself, unsurfaced",
    ]
    lines += [f"  {sid}  {rel}" for sid, rel in misses] or ["  none"]
    searched = [(s.session, q) for s in ss for q in s.searched]
    if searched:
        lines += ["", "Searches the model ran itself:"]
        lines += [f"  {sid}  {q}" for sid, q in searched]
    return "\n".join(lines) + "\n"


def _grid(head: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in (head, *rows)) for i in range(len(head))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return [fmt.format(*head).rstrip()] + [fmt.format(*r).rstrip() for r in rows]


def _kb(n: int) -> str:
    return f"{n / 1024:.1f} KB" if n >= 1024 else f"{n} B"


def _signed(n: int | None) -> str:
    n = n or 0
    return ("+" if n >= 0 else "-") + _kb(abs(n))


def to_json(slug: str, ss: list[Session]) -> str:
    """The report as JSON: sessions, section totals, live misses."""
    out = {
        "project": slug,
        "sessions": [
            {k: v for k, v in asdict(s).items() if not k.startswith("_")} for s in ss
        ],
        "sections": section_totals(ss),
        "misses": [{"session": s.session, "file": rel} for s in ss for rel in s.misses],
    }
    return json.dumps(out, ensure_ascii=False, indent=2)


def cmd_report(where: Where, out: TextIO, *, last: int, as_json: bool) -> int:
    """`memhooks report [--sessions N] [--json]`."""
    store, _ = open_store(where, must_exist=True)
    ss = sessions(activity.read(store.root, store.slug), last)
    out.write(
        to_json(store.slug, ss) + "\n" if as_json else render_table(store.slug, ss)
    )
    return EXIT_OK

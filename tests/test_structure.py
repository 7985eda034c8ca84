"""The shape of the code: imports go one way and never in a circle; modules stay small.

Every import is counted, at the top of a module or inside a function (a lazy import is
still a dependency), except those under ``if TYPE_CHECKING:``, which never run.
"""

from __future__ import annotations

import ast
import statistics
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = {"memhooks.memory": REPO / "memory", "memhooks.hooks": REPO / "hooks"}
MAX_LINES = 400
MEDIAN_LINES = 200


def _modules() -> dict[str, Path]:
    out = {}
    for package, folder in PACKAGES.items():
        for path in sorted(folder.glob("*.py")):
            name = package if path.stem == "__init__" else f"{package}.{path.stem}"
            out[name] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The memhooks modules `name` imports at run time."""
    package = name if path.stem == "__init__" else name.rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for branch in node.orelse:
                visit(branch)
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            # `from package import module` imports the module; `from module import name`
            # the module.
            subs = {f"{base}.{a.name}" for a in node.names} & known
            found.update(subs if len(subs) == len(node.names) else {base, *subs})
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m in known and m != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imported(name, path, known) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def test_the_checker_sees_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [
        ["a", "b", "c"]
    ]


def test_no_import_cycle() -> None:
    graph = _graph()
    assert len(graph) > 20 and any(graph.values())  # the walk found the code
    assert _cycles(graph) == []


def test_memory_never_imports_hooks() -> None:
    for name, imported in _graph().items():
        if name.startswith("memhooks.memory"):
            assert not {m for m in imported if m.startswith("memhooks.hooks")}, name


def test_memory_tests_never_import_hooks() -> None:
    for path in sorted((REPO / "tests" / "memory").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [
            node.module or ""
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
        ] + [
            a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
        ]
        assert not [n for n in names if n.startswith("memhooks.hooks")], path.name


@pytest.mark.parametrize("name", sorted(_modules()))
def test_module_is_small(name: str) -> None:
    lines = len(_modules()[name].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{name}: {lines} lines"


def test_median_module_is_smaller() -> None:
    sizes = [
        len(p.read_text(encoding="utf-8").splitlines()) for p in _modules().values()
    ]
    assert statistics.median(sizes) <= MEDIAN_LINES


def test_design_names_every_module() -> None:
    # docs/design.md "Where the code lives" had fallen 32 modules behind.
    design = (REPO / "docs" / "design.md").read_text(encoding="utf-8")
    table = design.split("## Where the code lives", 1)[1]
    unnamed = [
        name
        for name, path in _modules().items()
        if path.stem not in ("__init__", "__main__") and f"`{path.stem}`" not in table
    ]
    assert unnamed == []

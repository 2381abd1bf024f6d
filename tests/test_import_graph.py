"""The package's import graph has no cycle and keeps its layers: read from the source (every import,
function-local ones included, those under ``if TYPE_CHECKING:`` excepted), so that an import moved
into a function to dodge a cycle still counts."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "epldb"

#: module → the rooms it must never import, directly or through others (the layering: the catalog
#: at the bottom, evidence above it, lint above both, the site and the CLI at the top).
FORBIDDEN = {
    "epldb.catalog": ("epldb.lint", "epldb.evidence", "epldb.lab", "epldb.site", "epldb.cli", "epldb.runner"),
    "epldb.records": ("epldb.catalog", "epldb.lint", "epldb.evidence", "epldb.site"),
    "epldb.evidence": ("epldb.lint", "epldb.lab", "epldb.site", "epldb.cli", "epldb.runner"),
    "epldb.standings": ("epldb.site", "epldb.cli"),
    "epldb.leads": ("epldb.site", "epldb.cli"),
    "epldb.lint": ("epldb.site", "epldb.cli", "epldb.lab"),
    "epldb.compile": ("epldb.lint", "epldb.evidence", "epldb.site", "epldb.cli", "epldb.runner"),
    "epldb.launch": ("epldb.catalog", "epldb.lint", "epldb.evidence", "epldb.site", "epldb.cli", "epldb.runner"),
}


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package modules ``name`` imports (``from pkg import sub`` imports ``pkg.sub``)."""

    def resolve(dotted: str) -> str | None:
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    pending: list[ast.AST] = [ast.parse(path.read_text(encoding="utf-8"))]
    while pending:
        node = pending.pop()
        for child in ast.iter_child_nodes(node):
            if _is_type_checking(child):
                pending.extend(child.orelse)
                continue
            if isinstance(child, ast.Import):
                found.update(filter(None, (resolve(a.name) for a in child.names)))
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in child.names:
                    full = f"{base}.{alias.name}"
                    found.update(filter(None, [resolve(full if full in known else base)]))
            pending.append(child)
    found.discard(name)
    return {m for m in found if m.startswith("epldb")}


@cache
def graph() -> dict[str, set[str]]:
    """The package's import graph, read once, when the first test asks (not at collection: parsing
    every module took 0.7 s of each collection)."""
    known = modules()
    return {name: imports_of(name, path, known) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def reachable(start: str) -> set[str]:
    seen: set[str] = set()
    edges = graph()
    todo = [m for m in edges if m == start or m.startswith(start + ".")]
    while todo:
        m = todo.pop()
        for n in edges.get(m, ()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


def test_no_import_cycle() -> None:
    found = cycles(graph())
    assert not found, "import cycles (function-local imports count):\n" + "\n".join(" -> ".join(c) for c in found)


def test_the_cycle_finder_finds_one() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("room", sorted(FORBIDDEN))
def test_layers(room: str) -> None:
    reached = reachable(room)
    bad = sorted(m for m in reached for f in FORBIDDEN[room] if m == f or m.startswith(f + "."))
    assert not bad, f"{room} imports, directly or through others, what sits above it: {', '.join(bad)}"

"""The import graph of ``server/`` and ``plugins/``: every import, lazy and type-only ones
included, resolved to the files it names, for the layering test."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(
    root: Path = ROOT, tops: tuple[str, ...] = ("server", "plugins"), packages: bool = False
) -> dict[str, set[str]]:
    """Module -> the project modules it imports (resolved to the deepest module that exists).
    With ``packages``, ``from pkg import sub`` also counts as an import of ``pkg`` (its
    ``__init__`` runs first): what a cycle check needs, as a package that imports a module which
    imports from that package is a cycle, though every name it takes is a submodule."""
    files = [p for top in tops for p in (root / top).rglob("*.py")]
    mods = {module_name(p, root): p for p in files}
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        deps = graph.setdefault(name, set())
        pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = pkg.split(".")
                    up = up[: len(up) - (node.level - 1)] if node.level > 1 else up
                    base = ".".join(up + ([base] if base else []))
                targets = [f"{base}.{a.name}" for a in node.names] or [base]
                # `from pkg import sub` runs pkg/__init__.py first: that is an import of pkg too.
                if packages and base in mods and base != name:
                    deps.add(base)
            for target in targets:
                while target and target not in mods:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    deps.add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of two or more modules (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    groups: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    group = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        group.append(w)
                        if w == v:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
    return groups

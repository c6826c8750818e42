"""The import graph of app, ui and core has no cycles (#39).

A cycle means neither module can be understood, tested or moved without the other. Imports
inside functions and under TYPE_CHECKING count: grimp sees them, and so does a reader.
"""

from __future__ import annotations

import grimp

PACKAGES = ("app", "ui", "core")


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0

    def ours(module: str) -> bool:
        return module.split(".")[0] in PACKAGES

    for root in sorted(m for m in graph.modules if ours(m)):
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = []
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work.append((root, sorted(filter(ours, graph.find_modules_directly_imported_by(root)))))
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    imported = graph.find_modules_directly_imported_by(nxt)
                    work.append((nxt, sorted(filter(ours, imported))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _describe(graph: grimp.ImportGraph, component: list[str]) -> str:
    lines = []
    for importer in component:
        for imported in component:
            for detail in graph.get_import_details(importer=importer, imported=imported):
                lines.append(
                    f"  {importer}:{detail['line_number']} -> {imported}: "
                    f"{detail['line_contents']}"
                )
    return "\n".join(lines)


def test_no_import_cycles_in_app_ui_core() -> None:
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    cycles = _cycles(graph)
    report = "\n\n".join(_describe(graph, c) for c in cycles)
    assert not cycles, f"{len(cycles)} import cycle(s):\n{report}"


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for module in ("core.a", "core.b", "core.c", "app.d"):
        graph.add_module(module)
    graph.add_import(importer="core.a", imported="core.b")
    graph.add_import(importer="core.b", imported="core.c")
    graph.add_import(importer="core.c", imported="core.a")
    graph.add_import(importer="app.d", imported="core.a")
    assert _cycles(graph) == [["core.a", "core.b", "core.c"]]

"""The import graph of app, ui and core has no cycles (#39).

A cycle means neither module can be understood, tested or moved without the other. Imports
inside functions and under TYPE_CHECKING count: grimp sees them, and so does a reader.
"""

from __future__ import annotations

import grimp

PACKAGES = ("app", "ui", "core")


def _cycles(graph: grimp.ImportGraph) -> set[tuple[str, ...]]:
    """Each cycle once, as the chain of modules from one import back to its importer: an
    import `a -> b` closes a cycle when b reaches a again."""
    found = set()
    for importer in graph.modules:
        if importer.split(".")[0] not in PACKAGES:
            continue
        for imported in graph.find_modules_directly_imported_by(importer):
            if imported.split(".")[0] not in PACKAGES:
                continue
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                chain = (importer, *back)
                start = chain.index(min(chain[:-1]))
                found.add(chain[start:-1] + chain[:start] + (chain[start],))
    return found


def test_no_import_cycles_in_app_ui_core() -> None:
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    cycles = sorted(_cycles(graph))
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for module in ("core.a", "core.b", "core.c", "app.d"):
        graph.add_module(module)
    graph.add_import(importer="core.a", imported="core.b")
    graph.add_import(importer="core.b", imported="core.c")
    graph.add_import(importer="core.c", imported="core.a")
    graph.add_import(importer="app.d", imported="core.a")
    assert _cycles(graph) == {("core.a", "core.b", "core.c", "core.a")}

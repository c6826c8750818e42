"""Timeline benchmark (R28): first paint, filter and scroll time on a large store, offscreen.

Usage:
    python benchmarks/ui_bench_store.py /tmp/bench 20000   # once; builds the store
    QT_QPA_PLATFORM=offscreen python benchmarks/ui_bench.py /tmp/bench [--graph] [--delete]

A store built with `ui_bench_store.py DIR COUNT --bulk` (inject_bench's `fill()`: texts
"... (note N).", scopes user=userK project=projectK) is detected by its texts and
searched with matching terms ('note 1234', project=project7, user=user7 project=project7).

Targets: first paint <= 1.5 s, filter <= 100 ms. Numbers are printed, not asserted, with
resident memory at each step. MEMORY_CENTER_EMBEDDER picks the embedder (`hashing` or
`hashing-384` read the vector file `bench_embedders.py STORE NAME` leaves; the default model
would embed the whole store first).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


def _rss(label: str) -> None:
    """Print resident memory now and at its peak (VmRSS / VmHWM from /proc, MiB; #13)."""
    from open_bench import rss_mib

    now, peak = rss_mib()
    print(f"RSS {label}: {now:.0f} MiB (peak so far {peak:.0f} MiB)")


def _wait(app: object, until: object, limit: float = 120.0) -> float:
    from PySide6.QtWidgets import QApplication

    start = time.perf_counter()
    while not until():  # type: ignore[operator]
        QApplication.processEvents()
        time.sleep(0.001)
        if time.perf_counter() - start > limit:
            raise TimeoutError
    return time.perf_counter() - start


def _time_filter(app: object, view: Any, label: str, setup: Any) -> None:
    setup()
    view._search_timer.stop()
    model = view.model
    done: list[int] = []
    view.filtered.connect(done.append)
    t = time.perf_counter()
    view.apply_filter()
    _wait(app, lambda d=done: bool(d) and not model.loading)
    took = time.perf_counter() - t
    view.filtered.disconnect(done.append)
    print(f"filter {label}: {took * 1000:.0f} ms -> {done[-1]} memories")


def main() -> int:
    """Open the store, show the window, time the timeline."""
    import bench_embedders  # noqa: F401  (registers hashing-384, the default model's width)
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication
    from ui_bench_store import PASSPHRASE

    from core import MemoryFilter, MemoryService

    from ui.main_window import MainWindow

    args = [a for a in sys.argv[1:] if a not in ("--graph", "--delete")]
    # --graph: keep the vector graph in memory, as agents do (the memory center leaves it in
    # its file and searches the rows exactly, `leave_vector_graph_on_disk`, #13).
    with_graph = "--graph" in sys.argv[1:]
    # --delete: also delete a memory the vector file holds before closing, so the close
    # must write the graph file again (R19), not only the additions file beside it.
    with_delete = "--delete" in sys.argv[1:]
    store = Path(args[0]) if len(args) == 1 else None
    if store is None or not (store / "memory-center.sqlite3").is_file():
        # Never open (and so create) a store at a mistyped path such as `--help`.
        sys.exit(f"usage: python benchmarks/ui_bench.py STORE_DIR (a store built first)\n{__doc__}")
    from core.index.heap import map_big_blocks_apart

    map_big_blocks_apart()  # as the application does (app.compose) in a long-running process
    app = QApplication(sys.argv[:1])
    QCoreApplication.setOrganizationName("Memory Center Bench")
    service = MemoryService.open(
        store,
        passphrase=PASSPHRASE,
        prefer_keyring=False,
        embedder=os.environ.get("MEMORY_CENTER_EMBEDDER") or None,
    )
    if not with_graph:
        service.index.leave_vector_graph_on_disk()  # as the application's memory center does
    count = sum(service.status().memory_counts.values())
    _rss("after open")
    t0 = time.perf_counter()
    raw = service.memories.list_memories(MemoryFilter(limit=100))
    core_read = time.perf_counter() - t0
    print(f"store: {count} memories; core list_memories() of 100: {core_read:.2f} s")
    bulk = any("(note " in r.content for r in raw)
    del raw
    term, term2 = ("note 1234", "note 1235") if bulk else ("port 1234", "port 1235")
    project = "project=project7" if bulk else "project=project-7"
    ranked_scope = "user=user7 project=project7" if bulk else "user=u1 project=project-7"
    start = time.perf_counter()
    window = MainWindow(service)
    window.show()
    model = window.timeline.model
    _wait(app, lambda: model.item_count > 0)
    print(f"first paint (window shown -> first page of rows): {time.perf_counter() - start:.2f} s")
    _rss("after first paint")
    view = window.timeline
    _time_filter(
        app,
        view,
        f"search '{term}' before the cache is warm",
        lambda: view.search.setText(term),
    )
    view.search.setText("")
    t = time.perf_counter()
    _wait(app, lambda: view._scan_cache.warmed)
    print(
        "background warm-up (every record decrypted once) done after "
        f"{time.perf_counter() - t:.2f} s"
    )
    _rss("after warm-up")
    for label, setup in (
        (
            "status=candidate",
            lambda: view.status_filter.setCurrentIndex(view.status_filter.findData("candidate")),
        ),
        (
            f"search '{term}'",
            lambda: (view.status_filter.setCurrentIndex(0), view.search.setText(term)),
        ),
        (
            f"scope {project}",
            lambda: (view.search.setText(""), view.scope_filter.setText(project)),
        ),
        (f"search '{term}' in it", lambda: view.search.setText(term)),
        (
            "status=expired",
            lambda: (
                view.search.setText(""),
                view.scope_filter.setText(""),
                view.status_filter.setCurrentIndex(view.status_filter.findData("expired")),
            ),
        ),
        (
            "kind=decision (SQL)",
            lambda: (
                view.status_filter.setCurrentIndex(0),
                view.kind_filter.setCurrentIndex(view.kind_filter.findData("decision")),
            ),
        ),
        ("clear all filters", lambda: view.kind_filter.setCurrentIndex(0)),
    ):
        _time_filter(app, view, label, setup)
    t = time.perf_counter()
    pages = 0
    table = view.table
    while model.canFetchMore() or model.loading:
        if model.canFetchMore():
            table.scrollToBottom()
            model.fetchMore()
            pages += 1
        QApplication.processEvents()
        time.sleep(0.0005)  # PySide6 6.12's processEvents() drops a reference to None per call
    took = time.perf_counter() - t
    print(
        f"scroll to the end: {model.item_count} rows in {pages} pages, {took:.2f} s "
        f"({took / max(pages, 1) * 1000:.1f} ms per page)"
    )
    _rss("after scrolling to the end")
    # Ranked search last: its first call starts the core's background vector backfill.
    for label, setup in (
        (
            f"search '{term}' ranked in scope {ranked_scope} (first: loads index)",
            lambda: (
                view.search.setText(term),
                view.scope_filter.setText(ranked_scope),
                view.ranked.setChecked(True),
            ),
        ),
        (
            f"search '{term2}' ranked in scope {ranked_scope}",
            lambda: view.search.setText(term2),
        ),
    ):
        _time_filter(app, view, label, setup)
    layer = service.index.catalog.vectors
    if layer is not None:
        active = service.status().memory_counts.get("active", 0)
        _wait(app, lambda: len(layer.index) >= active, limit=1800)
    _rss("with the vector index loaded (GUI open)")
    # One change, saved at close: without the graph in memory, the save reads it from the
    # file first (the peak of a session that changed something).
    # A new text each run (the bench store keeps it: one more memory per run).
    text = f"A change made by the timeline benchmark, run {time.time_ns()}."
    service.memories.remember({"user": "user7", "project": "project7"}, text)
    what = "one changed vector"
    if with_delete and layer is not None:
        ids = layer.index.ids()  # the middle one: a bulk memory, in the graph file
        service.review.delete(ids[len(ids) // 2], reason="timeline benchmark")
        what = "one new and one deleted vector"
    if layer is not None:
        layer.wait_idle(60)
    window.close()
    graph_file = store / "index" / "vectors.mcidx"
    before = graph_file.stat().st_ino if graph_file.exists() else None
    t = time.perf_counter()
    service.close()
    print(f"close with {what} saved: {time.perf_counter() - t:.2f} s")
    rewritten = graph_file.exists() and graph_file.stat().st_ino != before
    print(f"graph file written again at close: {'yes' if rewritten else 'no'}")
    _rss("after that close")
    sys.stdout.flush()
    # Skip interpreter teardown: PySide6 can crash while garbage-collecting Qt objects at exit.
    os._exit(0)


if __name__ == "__main__":
    main()

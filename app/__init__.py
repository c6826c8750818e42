"""The composition root: builds the core service and hands it to the GUI, CLI and MCP server."""

import os

# Embedding runs with one BLAS/OpenMP thread: two threads on a busy 2-core machine collapse
# to a crawl. Set before numpy is first imported (by `core`), unless the user chose otherwise.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

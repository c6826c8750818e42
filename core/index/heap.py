"""Give freed heap memory back to the operating system after a big transient load (#13).

Reading a 100k-vector file holds its plaintext (~225 MB at 512 dimensions) beside the graph
being built. glibc's allocator keeps much of such freed memory in the process's heap, where
resident memory counts it until something reuses it: measured in the memory center at 100k,
~83 MiB stayed resident after the load. `malloc_trim` returns it. Other C libraries (macOS,
Windows, musl) have no such call; there this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys

# mallopt's parameter number for the mmap threshold (glibc's malloc.h).
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD_BYTES = 1 << 20


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim, libc.mallopt  # noqa: B018  (glibc has both; musl has neither)
    except (OSError, AttributeError):
        return None  # not glibc
    return libc


def give_back_free_memory() -> bool:
    """Return the heap's free pages to the system; False where the C library cannot."""
    libc = _glibc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True


def map_big_blocks_apart() -> bool:
    """Serve every allocation of 1 MiB or more from its own mapping, unmapped when freed.

    glibc raises its mmap threshold (up to 32 MiB) each time such a block is freed, so after
    the first big load the next buffers of several MB (catalog arrays, decrypted pieces,
    search temporaries) come from the heap, where they stay resident after they are freed.
    A fixed threshold stops that: measured with the memory center open at 100k x 384,
    resident memory 653 -> 640 MiB and its peak 812 -> 748 MiB. Process-wide, so the
    application calls it (a library leaves the process's allocator alone). False where the
    C library has no such setting.
    """
    libc = _glibc()
    if libc is None:
        return False
    return bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES))

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
from collections.abc import Callable


@functools.cache
def _trimmer() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):
        return None  # not glibc
    return trim


def give_back_free_memory() -> bool:
    """Return the heap's free pages to the system; False where the C library cannot."""
    trim = _trimmer()
    if trim is None:
        return False
    trim(0)
    return True

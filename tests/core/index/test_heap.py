"""Freed heap memory goes back to the system after a big load (#13)."""

from __future__ import annotations

import platform
import sys

import pytest

from core.index.heap import give_back_free_memory


def _resident_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS line")


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="malloc_trim is glibc's",
)
def test_freed_small_blocks_leave_the_resident_set() -> None:
    # Many small blocks come from the heap (not mmap), so freeing them alone keeps them
    # resident; the last one keeps the heap's top from shrinking by itself.
    blocks = [bytearray(4000) for _ in range(50_000)]
    keep = bytearray(4000)
    del blocks
    before = _resident_kib()
    assert give_back_free_memory() is True
    after = _resident_kib()
    assert before - after > 100_000, (before, after)  # ~200 MB allocated, most given back
    assert len(keep) == 4000

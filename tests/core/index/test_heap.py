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


_BIG_BLOCKS = """
import sys
if sys.argv[1] == "fixed":  # imported only here: importing leaves its own heap behind
    from core.index.heap import map_big_blocks_apart
    assert map_big_blocks_apart()
def resident():
    with open("/proc/self/status") as status:
        return next(int(l.split()[1]) for l in status if l.startswith("VmRSS:"))
del bytearray(20 << 20)[:]  # a freed 20 MiB block: glibc raises its threshold to it
before = resident()
blocks, keep = [], []
for _ in range(50):  # 100 MiB in blocks of 2 MiB, each below a small block that stays
    blocks.append(bytearray(2 << 20))
    keep.append(bytearray(4000))
del blocks
print(resident() - before)
"""


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="mallopt is glibc's",
)
def test_big_blocks_are_unmapped_when_freed_once_the_threshold_is_fixed() -> None:
    """#13: after a big block was freed, glibc serves blocks of a few MiB from the heap,
    where freed ones stay resident; with the threshold fixed at 1 MiB they are returned."""
    import subprocess

    def left_resident_kib(mode: str) -> int:
        done = subprocess.run(
            [sys.executable, "-c", _BIG_BLOCKS, mode], capture_output=True, text=True, check=True
        )
        return int(done.stdout.strip())

    assert left_resident_kib("default") > 80 * 1024  # most of the 100 MiB stayed
    assert left_resident_kib("fixed") < 10 * 1024

"""Shared set-up of the fuzz tests: one hypothesis profile for CI, and hostile strategies.

The profile is deterministic (`derandomize`): CI runs the same few hundred cases per input
surface every time, with no deadline (a loaded machine must not fail a case for being slow).
Set MEMORY_CENTER_FUZZ_SCALE=10 to run ten times as many cases locally.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "memory-center-fuzz",
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
        HealthCheck.filter_too_much,
    ],
)
FUZZ = settings.get_profile("memory-center-fuzz")
SCALE = max(1, int(os.environ.get("MEMORY_CENTER_FUZZ_SCALE", "1") or "1"))


def examples(n: int) -> settings:
    """The CI profile with `n` cases (times the local scale)."""
    return settings(FUZZ, max_examples=n * SCALE)

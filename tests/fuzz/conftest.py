"""Shared set-up of the fuzz tests: one hypothesis profile for CI, and hostile strategies.

The profile is deterministic (`derandomize`): CI runs the same few hundred cases per input
surface every time, with no deadline (a loaded machine must not fail a case for being slow).
Set MEMORY_CENTER_FUZZ_SCALE=10 to run ten times as many cases locally.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any, TypeVar

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
F = TypeVar("F", bound=Callable[..., Any])
FUZZ = settings.get_profile("memory-center-fuzz")
SCALE = max(1, int(os.environ.get("MEMORY_CENTER_FUZZ_SCALE", "1") or "1"))


def examples(n: int) -> settings:
    """The CI profile with `n` cases (times the local scale)."""
    return settings(FUZZ, max_examples=n * SCALE)


# Counting mode (MEMORY_CENTER_FUZZ_COUNT=1): every case runs and failures are tallied
# instead of stopping at the first, to measure a surface (e.g. on an older checkout).
COUNT_ONLY = os.environ.get("MEMORY_CENTER_FUZZ_COUNT") == "1"
TALLY: dict[str, list[int]] = {}


def tallied(name: str) -> Callable[[F], F]:
    """Count the cases (and, in counting mode, the failures) of one fuzz surface."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> Any:
            tally = TALLY.setdefault(name, [0, 0])
            tally[0] += 1
            try:
                return fn(*args, **kwargs)
            except BaseException as exc:
                internal = type(exc).__module__.startswith("hypothesis")  # e.g. StopTest
                if internal:
                    tally[0] -= 1  # an over-long draw hypothesis abandoned: not a case
                if not COUNT_ONLY or internal or isinstance(exc, KeyboardInterrupt):
                    raise
                tally[1] += 1
                return None

        return inner  # type: ignore[return-value]

    return wrap


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line per surface: cases run and failures seen."""
    for name, (cases, failures) in sorted(TALLY.items()):
        terminalreporter.write_line(f"fuzz {name}: {cases} cases, {failures} failures")

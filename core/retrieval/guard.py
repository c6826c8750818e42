"""Hot-path protection (R17, R23): a fault switch for tests, a time limit, a circuit breaker."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from core.errors import InvalidInputError, ResourceUnavailableError

TARGETS = ("memory_read", "vector_index")
MODES = ("unavailable", "slow")
# Seconds a tripped breaker refuses calls before its first trial call, and at most (#44).
FIRST_COOLDOWN = 5.0
MAX_COOLDOWN = 120.0


@dataclass
class FaultSwitch:
    """Test seam: makes memory reads fail or exceed the hot-path time limit."""

    target: str | None = None
    mode: str | None = None
    slow_seconds: float = 1.5

    def set(self, target: str, mode: str) -> None:
        """Turn a fault on."""
        if target not in TARGETS:
            raise InvalidInputError(
                "target", f"unknown fault target {target!r}; allowed: {TARGETS}"
            )
        if mode not in MODES:
            raise InvalidInputError("mode", f"unknown fault mode {mode!r}; allowed: {MODES}")
        self.target, self.mode = target, mode

    def clear(self) -> None:
        """Turn faults off."""
        self.target = self.mode = None

    def check(self, target: str) -> None:
        """Called on a read path: fail or stall when a fault is set for it."""
        if self.target not in (target, "memory_read"):
            return
        if self.mode == "unavailable":
            raise ResourceUnavailableError(f"{target} is unavailable (fault injected)")
        if self.mode == "slow":
            time.sleep(self.slow_seconds)


class CircuitBreaker:
    """Stops calling a failing read path for a cool-down, then lets one trial call through.

    Timed on the monotonic clock, never the store's: a store clock that stands still (a
    benchmark, a test, a frozen system clock) or jumps back must not keep the breaker open
    (#44). The first cool-down is short (`cooldown`), so a path that was only briefly slow
    is tried again within seconds ("half-open"); each failed trial doubles it up to
    `max_cooldown`, so a path that stays down is not hammered.
    """

    def __init__(
        self,
        threshold: int = 2,
        cooldown: float = FIRST_COOLDOWN,
        max_cooldown: float = MAX_COOLDOWN,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        if cooldown <= 0 or max_cooldown < cooldown:
            raise InvalidInputError("cooldown", "must be > 0 and at most max_cooldown")
        self._now = now
        self._threshold = threshold
        self._first = cooldown
        self._max = max_cooldown
        self._cooldown = cooldown
        self._failures = 0
        self._open_until: float | None = None
        self._probing = False
        self._lock = threading.Lock()

    def allow(self) -> bool:
        """True when a call may go through: the breaker is closed, or it is half-open and
        this is the one trial call (the others keep being refused until it reports)."""
        with self._lock:
            if self._open_until is None:
                return True
            if self._probing or self._now() < self._open_until:
                return False
            self._probing = True
            return True

    def success(self) -> None:
        """Record a good call: the breaker closes and the cool-down starts short again."""
        with self._lock:
            self._failures = 0
            self._open_until = None
            self._probing = False
            self._cooldown = self._first

    def failure(self) -> None:
        """Record a failed call; open after `threshold` in a row, or at once when the trial
        call of a half-open breaker failed (then for twice as long as before)."""
        with self._lock:
            if self._probing:
                self._probing = False
                self._cooldown = min(self._max, self._cooldown * 2)
                self._open_until = self._now() + self._cooldown
                return
            self._failures += 1
            if self._failures >= self._threshold:
                self._open_until = self._now() + self._cooldown

    def release(self) -> None:
        """A trial call that ended without saying anything about the path (it was not
        tried after all): the next call may be the trial."""
        with self._lock:
            self._probing = False

    @property
    def is_open(self) -> bool:
        """True while calls are being refused."""
        with self._lock:
            return self._open_until is not None

    def retry_in(self) -> float:
        """Seconds until the next trial call (0 when closed or due)."""
        with self._lock:
            if self._open_until is None:
                return 0.0
            return max(0.0, self._open_until - self._now())

"""Hot-path protection (R17, R23): a fault switch for tests, a time limit, a circuit breaker."""

from __future__ import annotations

import datetime as dt
import threading
import time
from dataclasses import dataclass

from core.errors import InvalidInputError, ResourceUnavailableError
from core.model.clock import Clock

TARGETS = ("memory_read", "vector_index")
MODES = ("unavailable", "slow")


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
    """Stops calling a failing read path for a cool-down, measured on the store clock."""

    def __init__(
        self, clock: Clock, threshold: int = 2, cooldown: dt.timedelta | None = None
    ) -> None:
        self._clock = clock
        self._threshold = threshold
        self._cooldown = cooldown or dt.timedelta(minutes=2)
        self._failures = 0
        self._open_until: dt.datetime | None = None
        self._lock = threading.Lock()

    def allow(self) -> bool:
        """False while open; after the cool-down one trial call is let through."""
        with self._lock:
            if self._open_until is None:
                return True
            if self._clock.now() >= self._open_until:
                self._open_until = None
                self._failures = self._threshold - 1
                return True
            return False

    def success(self) -> None:
        """Record a good call: the breaker closes."""
        with self._lock:
            self._failures = 0
            self._open_until = None

    def failure(self) -> None:
        """Record a failed call; open after `threshold` in a row."""
        with self._lock:
            self._failures += 1
            if self._failures >= self._threshold:
                self._open_until = self._clock.now() + self._cooldown

    @property
    def is_open(self) -> bool:
        """True while calls are being refused."""
        with self._lock:
            return self._open_until is not None and self._clock.now() < self._open_until

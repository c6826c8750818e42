"""The answer watchdog decides by its clock, not by the machine's speed (#38, R23).

A test that ran a real 150-item transaction under a 1 s limit failed on a loaded machine
(one statement took longer than a second). Here the clock is one the test moves, and the
decision is taken by `check`, the watching thread's own step."""

from __future__ import annotations

from typing import Any

from core.storage.watchdog import AnswerWatchdog


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Connection:
    """Stands for a DBAPI connection; the watchdog only asks for its socket."""


def _watchdog(limit: float) -> tuple[AnswerWatchdog, FakeClock, list[Any]]:
    clock = FakeClock()
    cut: list[Any] = []

    def socket_of(connection: Any) -> int | None:
        cut.append(connection)
        return None  # nothing to shut down: the test counts the decision

    dog = AnswerWatchdog(limit, socket_of, clock=clock, background=False)
    return dog, clock, cut


def test_a_transaction_that_keeps_getting_answers_is_never_cut() -> None:
    dog, clock, cut = _watchdog(1.0)
    conn = Connection()
    dog.track(conn)
    try:
        with dog.waiting():
            for _ in range(200):  # 180 s in all, never more than 0.9 s without an answer
                clock.now += 0.9
                assert not dog.check()
                dog.answered()
        assert cut == [] and dog.cut_at is None
    finally:
        dog.close()


def test_silence_past_the_limit_cuts_once_per_limit() -> None:
    dog, clock, cut = _watchdog(30.0)
    conn = Connection()
    dog.track(conn)
    try:
        with dog.waiting():
            clock.now += 29.0
            assert not dog.check()
            clock.now += 2.0
            assert dog.check()
            assert cut == [conn] and dog.recently_cut()
            assert not dog.check()  # the cut counts as an answer: a full limit again
            clock.now += 31.0
            assert dog.check() and len(cut) == 2
    finally:
        dog.close()


def test_no_transaction_no_cut() -> None:
    dog, clock, cut = _watchdog(1.0)
    dog.track(Connection())
    clock.now += 100.0
    assert not dog.check() and cut == []
    dog.close()

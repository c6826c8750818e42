"""#17, #13: conversation windows can be switched off (they triple the embedding of an
imported history); off, none is embedded or read, the stored ones are dropped, and the
choice is the store's."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import InvalidInputError, ManualClock, MemoryService
from core.retrieval import windows
from tests.conftest import PASSPHRASE
from tests.support.conversation import import_turns, own_and_mixed

A = {"user": "ana"}
SAID = "2023-05-08T13:56:00+00:00"
TURNS = [
    "Bo: Which colour did you paint the garden shed in the end?",
    "Ana: Sage green, after three coats.",
    "Bo: And the fence, is that still the old brown?",
    "Ana: The fence stays brown until next spring.",
]
QUESTION = "what colour is the garden shed painted"


def _import(service: MemoryService) -> list[str]:
    return import_turns(service, [(A, t) for t in TURNS], SAID)


def _settle(service: MemoryService) -> dict[str, object]:
    layer = service.index.catalog.vectors
    assert layer is not None
    service.retrieval.search_memory(A, QUESTION, limit=5)  # a query asks for the windows it reads
    assert layer.wait_idle(30)
    status = service.index.status()["vector"]
    assert isinstance(status, dict)
    return status


def _held(service: MemoryService) -> list[str]:
    layer = service.index.catalog.vectors
    assert layer is not None
    return [i for i in layer.index.ids() if windows.is_window(i)]


def test_off_drops_the_windows_and_makes_none_until_switched_on(
    data_dir: Path, clock: ManualClock
) -> None:
    service = MemoryService.open(data_dir, passphrase=PASSPHRASE, clock=clock, prefer_keyring=False)
    try:
        _import(service)
        on = _settle(service)
        assert on["windows_enabled"] is True and on["windows"] == len(_held(service)) > 0
        assert service.index.set_conversation_windows(False).value is False
        assert not _held(service)
        more = service.memories.remember(A, "Ana: The shed door is painted yellow.", said_at=SAID)
        assert more.value.record is not None
        off = _settle(service)
        assert off["windows_enabled"] is False and off["windows"] == 0
        assert off["windows_pending"] == 0 and off["vectors"] == len(TURNS) + 1
        assert not _held(service)
    finally:
        service.close()
    # The choice is the store's, and the file was written without windows.
    service = MemoryService.open(data_dir, passphrase=PASSPHRASE, clock=clock, prefer_keyring=False)
    try:
        assert _settle(service)["windows_enabled"] is False and not _held(service)
        service.index.set_conversation_windows(True)
        on_again = _settle(service)
        assert on_again["windows_enabled"] is True and on_again["windows"] > 0
    finally:
        service.close()


def test_off_the_mean_of_stored_vectors_serves(service: MemoryService) -> None:
    """Retrieval still mixes in the conversation around a turn: the mean of the stored
    vectors of the turn and its visible neighbours, as before windows existed."""
    ids = _import(service)
    service.index.set_conversation_windows(False)
    own, mixed, query = own_and_mixed(service, A, QUESTION)
    layer = service.index.catalog.vectors
    assert layer is not None
    stored = layer.index.get_vectors(ids[:3])
    mean = stored[ids[0]] + stored[ids[1]] + stored[ids[2]]
    expected = 0.5 * own[ids[1]] + 0.5 * float(query @ mean) / float((mean @ mean) ** 0.5)
    assert mixed[ids[1]] == pytest.approx(expected, abs=1e-5)
    assert layer.wait_idle(30) and not _held(service)  # nothing was queued


def test_a_value_that_is_not_on_or_off_is_refused_and_changes_nothing(
    service: MemoryService,
) -> None:
    with pytest.raises(InvalidInputError, match="conversation windows"):
        service.index.set_conversation_windows("no")  # type: ignore[arg-type]
    status = service.index.status()["vector"]
    assert isinstance(status, dict) and status["windows_enabled"] is True

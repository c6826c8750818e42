"""A block states once what its notes share (scope, kind, source, confidence) (#17, R15).

On a chat-like store every note has the same provenance; repeating it in every header cost
nearly as many tokens as the turn. The information stays in the block: its first line says
what a short header means, and a note that differs keeps its full header.
"""

from __future__ import annotations

import datetime as dt
import re

from core import MemoryService
from core.governance.text import estimate_tokens

SCOPE = {"user": "mei"}
TURNS = [
    "Mei: The choir sings at the harbour festival in June.",
    "Mei: Our choir has forty members from three villages.",
    "Mei: The choir teacher is called Hana Sato.",
    "Mei: Choir practice takes place in the old library.",
]
MAY_7 = dt.datetime(2023, 5, 7, 13, 56, tzinfo=dt.UTC)


def _chat(service: MemoryService) -> None:
    """Turns imported as suggestions and approved: one shared provenance."""
    for text in TURNS:
        out = service.memories.suggest(SCOPE, text, said_at=MAY_7).value
        assert out.record is not None
        service.review.approve(out.record.id)


def _short(block: str) -> list[str]:
    return re.findall(r"^- \[m:[0-9a-f]{8} said \d{4}-\d\d-\d\d\] Mei: .*$", block, re.M)


def test_shared_provenance_is_stated_once(service: MemoryService) -> None:
    _chat(service)
    block = service.retrieval.inject(SCOPE, "what does Mei do at the choir", 1000).value
    lines = block.text.splitlines()
    shared = [line for line in lines if line.startswith("- (unless its header says otherwise")]
    assert len(shared) == 1
    assert "filed under user=mei" in shared[0]
    assert "fact" in shared[0] and "confidence" in shared[0]
    assert len(_short(block.text)) == len(TURNS)
    assert block.tokens == estimate_tokens(block.text) <= 1000


def test_a_note_that_differs_keeps_its_full_header(service: MemoryService) -> None:
    _chat(service)
    other = service.memories.remember(SCOPE, "Remember: Mei's choir folder is the blue one.").value
    assert other.record is not None
    block = service.retrieval.inject(SCOPE, "which choir folder is Mei's", 1000).value
    line = next(x for x in block.text.splitlines() if other.record.id[-8:] in x)
    # Its kind, source and confidence are not the block's shared ones: all shown.
    assert "user-confirmed" in line and f"{other.record.confidence:.2f}" in line
    assert len(_short(block.text)) == len(TURNS)


def test_every_block_fits_its_budget(service: MemoryService) -> None:
    for n in range(40):
        service.memories.remember(SCOPE, f"Remember: Mei's choir song number {n} is in the folder.")
    for budget in (60, 120, 300, 1000):
        block = service.retrieval.inject(SCOPE, "choir songs folder", budget).value
        assert estimate_tokens(block.text) <= budget

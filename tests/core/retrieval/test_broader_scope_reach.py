"""R13, R14: a relevant memory filed at a broader scope reaches a narrower request.

A memory scoped `org=acme` is visible to `org=acme, project=billing, user=kim`. While the
budget has room it must be injected even when the request words things differently
("logging" vs "logs") and narrower memories crowd the scope.
"""

from __future__ import annotations

import pytest

from core import MemoryService

REQUEST = {"org": "acme", "project": "billing", "user": "kim"}

CASES = [
    (
        {"org": "acme"},
        "Acme keeps every service's logs for 30 days in Loki; nothing is written to local files.",
        "set up logging for the billing worker",
    ),
    (
        {"org": "acme"},
        "All Acme invoices are approved by the finance lead before they are paid.",
        "who has to sign off the payment of this supplier bill",
    ),
    (
        {"org": "acme", "project": "billing"},
        "The billing database is backed up nightly at 02:00 UTC to the eu-west bucket.",
        "when do backups of the billing data run",
    ),
    (
        {"org": "acme"},
        "公司规定：所有出差住宿标准每晚不超过 800 元，需提前在差旅系统报备。",
        "帮 Kim 订下周去上海出差的酒店",
    ),
    (
        {"org": "acme"},
        "Acme's on-call engineers get a day off after a weekend shift.",
        "Kim covered on-call last weekend, can she take Monday off?",
    ),
]
NARROW = [
    "Kim prefers dark mode in every editor.",
    "Kim's billing tickets are tagged BILL in the tracker.",
    "The billing worker is written in Go 1.22.",
    "Kim reviews pull requests in the morning.",
    "The billing service exposes metrics on port 9102.",
    "Kim's standup is at 09:30 on weekdays.",
    "The billing project uses pnpm for its dashboard.",
    "Kim wants short commit messages in English.",
    "The billing team's retro is on Thursdays.",
    "Kim is allergic to peanuts.",
    "The billing worker retries failed charges three times.",
    "Kim lives in Utrecht and commutes by train.",
]


@pytest.mark.parametrize(("scope", "text", "goal"), CASES)
def test_broader_memory_is_injected_while_budget_remains(
    service: MemoryService, scope: dict[str, str], text: str, goal: str
) -> None:
    """The broader memory goes in whole, not only as a digest reference, with room left."""
    for note in NARROW:
        service.memories.remember(REQUEST, f"Remember: {note}")
    broad = service.memories.remember(scope, f"Remember: {text}").value.record
    assert broad is not None and broad.status.value == "active"
    assert service.retrieval.search_memory(
        REQUEST, goal, limit=20
    )  # loads the model outside the guard
    result = service.retrieval.inject(REQUEST, goal, 1000).value
    assert not result.degraded
    full = {i.memory_id for i in result.items if not i.in_digest}
    assert broad.id in full, result.text
    assert result.tokens < 1000

"""Members of a conflict set travel together into a block (R9): a ranked member brings every
active, visible partner of its set, once, with the best-ranked member's score, whether or not
the partner matched the request itself (#13: found in one pass over the scope)."""

from __future__ import annotations

import random

from core import MemoryService, Scope
from core.governance.policy import CONFLICT

SCOPE = {"user": "alice", "project": "billing"}
TEAMS = ["platform", "growth", "payments", "search", "data", "security", "mobile", "web"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
SERVICES = ["checkout", "invoices", "refunds", "exports", "webhooks", "reports", "coupons"]


def _facts(count: int) -> list[dict[str, object]]:
    """Facts about a few services where later ones change one detail of earlier ones, so
    the policy files some of them as conflicts."""
    rng = random.Random(7)
    return [
        {
            "scope": SCOPE,
            "text": f"The {rng.choice(SERVICES)} service is owned by the {rng.choice(TEAMS)} "
            f"team and deploys every {rng.choice(DAYS)}",
        }
        for _ in range(count)
    ]


def test_every_ranked_conflict_set_arrives_whole(service: MemoryService) -> None:
    service.remember_many(_facts(160))
    records = service.list_memories()
    members: dict[str, set[str]] = {}
    for rec in records:
        if CONFLICT in rec.flags and rec.conflict_set and rec.status == "active":
            members.setdefault(rec.conflict_set, set()).add(rec.id)
    assert any(len(ids) >= 2 for ids in members.values()), "the corpus must make conflicts"
    retriever = service._engine.retriever
    request = Scope.of(SCOPE)
    checked = 0
    for query in ("who owns checkout", "when do refunds deploy", "the web team", "exports"):
        found = retriever.retrieve(request, query, None, fill=True)
        ids = [s.record.id for s in found.ranked]
        assert len(ids) == len(set(ids)), "a partner joins once"
        scores = {s.record.id: s.score for s in found.ranked}
        for scored in found.ranked:
            cset = scored.record.conflict_set
            if cset not in members:
                continue
            assert members[cset] <= set(ids), f"{query!r}: set {cset} arrived incomplete"
            checked += 1
        for scored in found.ranked:
            if "conflict_partner" not in scored.signals:
                continue
            cset = scored.record.conflict_set
            leader = next(s for s in found.ranked if s.record.conflict_set == cset)
            assert "conflict_partner" not in leader.signals
            assert scores[scored.record.id] == leader.score
    assert checked, "no query ranked a member of a conflict set"

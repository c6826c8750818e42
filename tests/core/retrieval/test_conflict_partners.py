"""Members of a conflict set travel together into a block (R9): a ranked member brings every
active, visible partner of its set, once, with the best-ranked member's score, whether or not
the partner matched the request itself (#13: found in one pass over the scope)."""

from __future__ import annotations

import random
from pathlib import Path

from core import MemoryService, Scope
from core.governance.policy import CONFLICT
from tests.conftest import PASSPHRASE

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


QUERIES = ("who owns checkout", "when do refunds deploy", "the web team", "exports")


def _members(service: MemoryService) -> dict[str, set[str]]:
    """Active members of each unresolved conflict set, from the verified records."""
    members: dict[str, set[str]] = {}
    for rec in service.memories.list_memories():
        if CONFLICT in rec.flags and rec.conflict_set and rec.status == "active":
            members.setdefault(rec.conflict_set, set()).add(rec.id)
    return members


def test_every_ranked_conflict_set_arrives_whole(service: MemoryService) -> None:
    service.memories.remember_many(_facts(160))
    _check_sets_arrive_whole(service)


def test_partners_follow_changes_made_here_and_in_another_process(
    service: MemoryService, data_dir: Path
) -> None:
    """#13: the partners come from the catalog's index of conflict sets, which follows a
    settled set, a deleted member and new conflicts, whether this process or another one
    made the change."""
    service.memories.remember_many(_facts(120))
    _check_sets_arrive_whole(service)
    sets = sorted(_members(service).values(), key=len, reverse=True)
    assert len(sets) >= 3 and len(sets[0]) >= 2
    service.review.resolve_conflict(sorted(sets[0])[0], reason="the newest is right")
    service.review.delete(sorted(sets[1])[0], reason="wrong")
    _check_sets_arrive_whole(service)
    other = MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)
    try:
        other.memories.remember_many(_facts(200)[120:])
        other.review.delete(sorted(sets[2])[-1], reason="wrong")
    finally:
        other.close()
    _check_sets_arrive_whole(service)


def _check_sets_arrive_whole(service: MemoryService) -> None:
    members = _members(service)
    assert any(len(ids) >= 2 for ids in members.values()), "the corpus must make conflicts"
    retriever = service._engine.retriever
    request = Scope.of(SCOPE)
    checked = 0
    for query in QUERIES:
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

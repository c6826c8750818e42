"""Governance as a user meets it, through the service on a real store (R9, R10, R19, R21).

One short story per class of judgement: contradictions (negation, several changed values,
natural conversation that must not supersede, refinements and list-valued facts), verified
facts settling guesses, deletion fences against every way content comes back, and the
smaller consistency points (no-op edit, resume without an inject, replay marks).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from core import MemoryFilter, MemoryService, NewEvent
from core.governance.extractor import Proposal
from core.model import InjectResult
from core.model.enums import MemoryKind
from core.model.records import Event

FAMILY = {"user": "kim", "project": "family"}


def status(svc: MemoryService, memory_id: str) -> str:
    return svc.memories.get_memory(memory_id).status.value


def remember(svc: MemoryService, text: str, scope: dict[str, str] = FAMILY) -> str:
    out = svc.memories.remember(scope, text).value
    assert out.record is not None
    return out.record.id


def active_contents(svc: MemoryService) -> list[str]:
    flt = MemoryFilter(statuses=("active",), limit=1000)
    return [m.content for m in svc.memories.list_memories(flt)]


def inject(svc: MemoryService, goal: str) -> InjectResult:
    """Inject, once more if a loaded machine made the hot path degrade (its time limit)."""
    for _ in range(3):
        block = svc.retrieval.inject(FAMILY, goal, 800, session="s-inject").value
        if not block.degraded:
            return block
    return block


# --- contradictions ------------------------------------------------------------------------


def test_negation_is_a_conflict_never_a_merge(service: MemoryService) -> None:
    first = remember(service, "Kim is allergic to penicillin.")
    out = service.memories.remember(FAMILY, "Kim is not allergic to penicillin.").value
    assert out.outcome == "active" and out.conflicts_with == (first,)
    assert "conflict" in service.memories.get_memory(first).flags
    assert len(active_contents(service)) == 2


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "The team offsite is in Lisbon from 12 to 14 May.",
            "The team offsite is in Porto from 19 to 21 May.",
        ),
        (
            "奶奶的心内科复诊约在 6 月 12 日上午 9:30，瑞金医院门诊楼 3 楼。",
            "奶奶的心内科复诊约在 6 月 14 日下午 2:00，瑞金医院门诊楼 3 楼。",
        ),
    ],
)
def test_several_changed_values_make_a_conflict_set_annotated_in_injection(
    service: MemoryService, old: str, new: str
) -> None:
    first = remember(service, old)
    out = service.memories.remember(FAMILY, new).value
    assert out.conflicts_with == (first,)
    assert "different value" in " ".join(out.reasons)
    block = inject(service, new)
    assert "conflict" in block.text.lower() or "冲突" in block.text


def test_explicit_replacement_supersedes_with_a_reason_naming_the_slot(
    service: MemoryService,
) -> None:
    first = remember(service, "Our flight to Tokyo leaves on March 3.")
    out = service.memories.remember(FAMILY, "Our flight to Tokyo now leaves on March 5.").value
    assert out.superseded == (first,)
    last = service.memories.history(first)[-1]
    assert last.action == "supersede" and "3 → 5" in last.reason


def test_a_friendly_chat_turn_with_now_and_a_name_supersedes_nothing(
    service: MemoryService,
) -> None:
    chat = {"user": "mel", "project": "chat-1"}
    earlier = [
        remember(service, "Caroline went to an LGBTQ support group yesterday.", chat),
        remember(service, "Caroline is researching adoption agencies.", chat),
        remember(service, "Caroline wants to work in counseling.", chat),
    ]
    out = service.memories.remember(
        chat,
        "I'm so happy for you, Caroline. You found your true self and now you're "
        "helping others. You're so inspiring!",
    ).value
    assert out.superseded == () and out.conflicts_with == ()
    assert [status(service, m) for m in earlier] == ["active"] * 3


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The project runs on Node 20.", "The project runs on Node 20.11.1."),
        ("Kim is allergic to penicillin.", "Kim is allergic to peanuts."),
        ("女儿喜欢吃草莓。", "女儿喜欢吃蓝莓。"),
        ("Mom flies to Chicago on May 3.", "Dad flies to Chicago on May 3."),
    ],
)
def test_refinements_lists_and_other_subjects_both_stay_without_conflict(
    service: MemoryService, old: str, new: str
) -> None:
    first = remember(service, old)
    out = service.memories.remember(FAMILY, new).value
    assert out.outcome == "active" and not out.conflicts_with and not out.superseded
    assert status(service, first) == "active"


# --- verified facts settle guesses ------------------------------------------------------------


def tool_fact(svc: MemoryService, scope: dict[str, str], text: str) -> str:
    ev = svc.events.append_event(
        NewEvent("s-tool", "tool", "tool_verified", scope, text, kind="observation")
    ).value
    out = svc.memories.suggest(scope, text, evidence=[ev.id], session="s-tool").value
    assert out.record is not None and out.record.status.value == "active"
    return out.record.id


def test_a_verified_fact_settles_the_models_guess_with_a_link(service: MemoryService) -> None:
    guess = service.memories.suggest(FAMILY, "The flight to Boston departs at 9:40.").value.record
    assert guess is not None and guess.status.value == "candidate"
    fact = tool_fact(service, FAMILY, "The flight to Boston departs at 11:15.")
    settled = service.memories.get_memory(guess.id)
    assert settled.status.value == "superseded" and settled.superseded_by == fact
    assert "9:40 → 11:15" in service.memories.history(guess.id)[-1].reason


def test_a_verified_fact_against_the_users_word_is_a_conflict(service: MemoryService) -> None:
    mine = remember(service, "My next blood test is on May 12.")
    fact = tool_fact(service, FAMILY, "My next blood test is on May 19.")
    assert (
        service.memories.get_memory(mine).conflict_set
        == service.memories.get_memory(fact).conflict_set
    )
    assert status(service, mine) == status(service, fact) == "active"


def test_an_observation_rejects_a_contradicted_guess_and_stales_a_verified_fact(
    service: MemoryService,
) -> None:
    home = {"user": "kim", "project": "home"}
    guess = service.memories.suggest(home, "The thermostat is set to 22 degrees.").value.record
    fact = tool_fact(service, home, "The router firmware is version 1.2.")
    assert guess is not None
    service.memories.observe(home, "The thermostat is set to 19 degrees.")
    service.memories.observe(home, "The router firmware is version 1.4.")
    assert status(service, guess.id) == "rejected"
    assert "observation" in service.memories.history(guess.id)[-1].reason
    assert "stale" in service.memories.get_memory(fact).flags


# --- deletion fences ---------------------------------------------------------------------------


class Paraphraser:
    """An extractor that words the fact its own way, as a language model would."""

    name = "paraphraser"

    def __init__(self, content: str) -> None:
        self.content = content

    def extract(self, events: Sequence[Event]) -> list[Proposal]:
        return [Proposal(self.content, MemoryKind.FACT, (events[-1].id,))]


def deleted(svc: MemoryService, text: str, *, purge: bool = True) -> str:
    mid = remember(svc, text)
    svc.review.delete(mid, reason="the user asked", purge=purge)
    return mid


def test_reimported_transcript_does_not_bring_deleted_content_back(
    service: MemoryService,
) -> None:
    gone = deleted(service, "Kim is allergic to penicillin.")
    service.events.append_event(
        NewEvent(
            "reimport",
            "user",
            "user",
            FAMILY,
            "Remember: Kim is allergic to penicillin.",
            source="import",
        )
    )
    (out,) = service.memories.extract("reimport").value
    assert out.outcome == "rejected" and gone in " ".join(out.reasons)
    assert active_contents(service) == []


@pytest.mark.parametrize(
    "later", ["Kim has a penicillin allergy.", "kim is allergic to PENICILLIN"]
)
def test_the_same_fact_in_other_words_is_fenced_for_agents_and_extractors(
    service: MemoryService, later: str
) -> None:
    deleted(service, "Kim is allergic to penicillin.")
    assert service.memories.suggest(FAMILY, later).value.outcome == "rejected"
    service.memories.extractor = Paraphraser(later)
    service.events.append_event(NewEvent("chat-2", "user", "user", FAMILY, "(a turn)"))
    (out,) = service.memories.extract("chat-2").value
    assert out.outcome == "rejected" and "deletion fence" in " ".join(out.reasons)


def test_memory_import_is_fenced(service: MemoryService) -> None:
    deleted(service, "我们的房贷在招商银行。", purge=False)
    doc = {
        "format": "memory-center-export-v1",
        "memories": [{"content": "我们的房贷在招商银行。", "kind": "fact", "scope": FAMILY}],
    }
    (out,) = service.memories.import_memories(doc).value
    assert out.outcome == "rejected"


def test_unrelated_facts_sharing_words_are_not_fenced(service: MemoryService) -> None:
    deleted(service, "Kim is allergic to penicillin.")
    assert (
        service.memories.suggest(FAMILY, "Kim is allergic to peanuts.").value.outcome == "candidate"
    )
    assert service.memories.suggest(FAMILY, "奶奶对花生过敏。").value.outcome == "candidate"
    assert service.memories.suggest(FAMILY, "Kim is not allergic to penicillin.").value.outcome != (
        "rejected"
    )


def test_a_remember_that_matches_a_fence_by_meaning_alone_does_not_lift_it(
    service: MemoryService,
) -> None:
    """ "I work in Paris" matched the fence of "I live in Berlin" by meaning, lifted it, and
    the deleted fact was accepted again from the next transcript."""
    deleted(service, "I live in Berlin.")
    out = service.memories.remember(FAMILY, "I work in Paris.").value
    assert out.outcome == "active"
    assert not any("lifted" in r for r in out.reasons)
    assert service.memories.suggest(FAMILY, "I live in Berlin.").value.outcome == "rejected"


def test_only_a_new_explicit_remember_lifts_the_fence_visibly(service: MemoryService) -> None:
    gone = deleted(service, "My sister Laura lives in Denver.")
    out = service.memories.remember(FAMILY, "Laura, my sister, lives in Denver.").value
    assert out.outcome == "active"
    assert any("fence" in r and "lifted" in r for r in out.reasons)
    lifted = service.memories.history(gone)[-1]
    assert lifted.action == "lift_fence" and out.record is not None
    assert out.record.id in lifted.reason
    # once lifted, an agent may propose it again
    assert (
        service.memories.suggest(FAMILY, "My sister Laura lives in Denver.").value.outcome
        != "rejected"
    )


def test_fence_keeps_no_plaintext(service: MemoryService, data_dir: Path) -> None:
    deleted(service, "The garage door code is changed every spring.")
    files = list(data_dir.rglob("*.sqlite3*"))
    assert files
    raw = b"".join(p.read_bytes() for p in files)
    assert b"garage" not in raw and b"spring" not in raw


# --- smaller consistency points ------------------------------------------------------------------


def test_an_edit_that_changes_nothing_creates_no_revision(service: MemoryService) -> None:
    mid = remember(service, "Trash pickup is on Monday mornings.")
    before = service.memories.get_memory(mid)
    result = service.review.edit(mid, "Trash pickup is on Monday mornings.")
    assert result.value.revision == before.revision
    assert [d.action for d in service.memories.history(mid)] == ["remember"]
    assert len(service.memories.revisions(mid)) == 1


def test_resume_of_a_session_without_inject_is_empty(service: MemoryService) -> None:
    service.events.append_event(NewEvent("quiet", "user", "user", FAMILY, "hello"))
    res = service.retrieval.resume("quiet")
    assert res.items == () and res.text == "" and res.removed == ()


def test_replay_marks_rescoped_only_when_the_scope_differs_now(service: MemoryService) -> None:
    wide = {"user": "kim"}
    mid = remember(service, "Kim prefers window seats.", wide)
    snap = service.retrieval.inject(FAMILY, "seats on the plane", 400, session="s-replay").value
    assert snap.snapshot_id
    service.review.downgrade(mid, {"user": "kim", "project": "family"})
    (item,) = [i for i in service.retrieval.replay(snap.snapshot_id).items if i.memory_id == mid]
    assert "rescoped" in item.marks
    service.review.widen(mid, wide)
    (item,) = [i for i in service.retrieval.replay(snap.snapshot_id).items if i.memory_id == mid]
    assert "rescoped" not in item.marks

"""The candidate ledger through the service (R6-R11): merges, conflict sets, supersede links,
trust that follows sources through summaries, security events, and bugs found on the way."""

from __future__ import annotations

from core import MemoryFilter, MemoryService
from tests.core.governance.conftest import SCOPE, add_event

API_KEY = "sk-" + "Ab3dE5gH7jK9mN1pQ3rS5tU7vW9xY1zA"


# --- merges -----------------------------------------------------------------------------------


def test_merge_adds_sources_and_boosts_confidence_up_to_a_cap(service: MemoryService) -> None:
    first = service.memories.remember(SCOPE, "remember that web-shop deploys to eu-west-1").value
    assert first.record is not None
    for n in range(4):
        out = service.memories.remember(
            SCOPE, f"Remember: web-shop deploys to eu-west-1{'.' * n}"
        ).value
        assert out.outcome == "merged" and out.record is not None
        assert out.record.id == first.record.id
    (record,) = service.memories.list_memories()
    assert len(record.source_event_ids) == 5
    assert first.record.confidence < record.confidence <= 0.99


def test_merge_of_model_evidence_into_a_user_memory_keeps_it_active(
    service: MemoryService,
) -> None:
    mine = service.memories.remember(SCOPE, "remember that I prefer pnpm").value.record
    assert mine is not None
    ev = add_event(service, "The user prefers pnpm", actor="assistant", trust="assistant")
    out = service.memories.suggest(SCOPE, "I prefer pnpm.", evidence=[ev.id]).value
    assert out.outcome == "merged"
    merged = service.memories.get_memory(mine.id)
    assert merged.status == "active" and ev.id in merged.source_event_ids
    assert merged.source_trust == "user"


def test_rejected_memory_is_not_suggested_again(service: MemoryService) -> None:
    mid = service.memories.suggest(SCOPE, "Alice prefers pnpm over npm").value.record.id  # type: ignore[union-attr]
    service.review.reject(mid)
    again = service.memories.suggest(SCOPE, "Alice prefers pnpm over npm.").value
    assert again.outcome == "rejected"
    assert "already rejected" in again.reasons[0]
    assert service.memories.list_memories(MemoryFilter(statuses=("candidate",))) == []


# --- conflict sets and supersede links ------------------------------------------------------


def test_equal_authority_contradictions_share_one_conflict_set(service: MemoryService) -> None:
    a = service.memories.remember(SCOPE, "remember: staging runs in us-east-2").value.record
    b_out = service.memories.remember(SCOPE, "remember: staging runs in eu-west-1").value
    c_out = service.memories.remember(SCOPE, "remember: staging runs in ap-south-1").value
    assert a is not None and b_out.record is not None and c_out.record is not None
    assert b_out.conflicts_with == (a.id,)
    records = {m.id: m for m in service.memories.list_memories()}
    assert {m.status for m in records.values()} == {"active"}
    assert all("conflict" in m.flags for m in records.values())
    assert len({m.conflict_set for m in records.values()}) == 1
    assert records[a.id].conflict_set is not None

    kept = service.review.resolve_conflict(c_out.record.id, reason="checked the console").value
    statuses = {m.id: m.status for m in kept}
    assert statuses[c_out.record.id] == "active"
    assert statuses[a.id] == statuses[b_out.record.id] == "superseded"
    assert service.memories.get_memory(a.id).superseded_by == c_out.record.id
    assert "conflict" not in service.memories.get_memory(c_out.record.id).flags


def test_conflicting_memories_are_injected_with_a_conflict_note(service: MemoryService) -> None:
    service.memories.remember(SCOPE, "remember: staging runs in us-east-2")
    service.memories.remember(SCOPE, "remember: staging runs in eu-west-1")
    block = service.retrieval.inject(SCOPE, "which region does staging run in", 600).value
    assert "us-east-2" in block.text and "eu-west-1" in block.text
    assert all("conflict" in " ".join(item.notes) for item in block.items)


def test_supersede_clears_the_conflict_flag_of_the_old_record(service: MemoryService) -> None:
    a = service.memories.remember(SCOPE, "remember: staging runs in us-east-2").value.record
    service.memories.remember(SCOPE, "remember: staging runs in eu-west-1")
    c = service.memories.remember(SCOPE, "remember: staging now runs in ap-south-1 instead").value
    assert a is not None and c.record is not None
    assert a.id in c.superseded
    old = service.memories.get_memory(a.id)
    assert old.status == "superseded" and "conflict" not in old.flags


# --- trust follows sources (R11) -----------------------------------------------------------


def test_summary_of_untrusted_events_is_untrusted_however_labelled(
    service: MemoryService,
) -> None:
    issue = add_event(
        service,
        "Issue #7: the maintainers say the API limit is 100 rps",
        actor="tool",
        trust="untrusted",
        kind="tool_result",
        source="issue",
        session="s3",
    )
    summary = add_event(
        service,
        "Summary: the API limit is 100 rps.",
        actor="assistant",
        trust="user",  # mislabelled on purpose
        kind="compaction",
        refs=(issue.id,),
        session="s3",
    )
    outcomes = service.memories.extract("s3").value
    assert outcomes and all(o.record and o.record.status != "active" for o in outcomes)
    assert all(o.record and o.record.source_trust == "untrusted" for o in outcomes)
    out = service.memories.suggest(SCOPE, "The API limit is 100 rps", evidence=[summary.id]).value
    assert out.record is not None and out.record.status in ("quarantined", "candidate")


def test_summary_of_summaries_still_reaches_the_untrusted_source(service: MemoryService) -> None:
    page = add_event(
        service, "Docs: retries default to 3", actor="tool", trust="untrusted", source="web_page"
    )
    s1 = add_event(
        service,
        "Summary: retries default to 3",
        actor="assistant",
        trust="assistant",
        kind="compaction",
        refs=(page.id,),
    )
    s2 = add_event(
        service,
        "Summary of summary: retries default to 3",
        actor="assistant",
        trust="user",
        kind="compaction",
        refs=(s1.id,),
    )
    out = service.memories.suggest(SCOPE, "Retries default to 3", evidence=[s2.id]).value
    assert out.record is not None and out.record.source_trust == "untrusted"


def test_user_quote_cited_by_the_agent_is_an_inference(service: MemoryService) -> None:
    ev = add_event(service, "I like short answers")
    out = service.memories.suggest(SCOPE, "Alice likes short answers", evidence=[ev.id]).value
    assert out.record is not None and out.record.status == "candidate"
    assert out.record.source_trust == "assistant"


# --- security events ----------------------------------------------------------------------------


def test_security_event_records_types_and_the_memory_but_not_the_value(
    service: MemoryService,
) -> None:
    out = service.memories.suggest(
        SCOPE, f"Deploy key: {API_KEY}; ops mail is ops@web-shop.example"
    ).value
    assert out.outcome == "rejected" and out.record is not None
    (sec,) = service.events.security_events()
    assert set(sec.finding_types) == {"api_key", "email_address"}
    assert sec.memory_id == out.record.id and sec.action == "rejected"
    events = service.events.list_events(limit=10_000)
    assert all(
        API_KEY not in e.text and API_KEY not in repr(e.data)
        for e in events
        if e.kind != "agent_call"
    )
    assert API_KEY not in out.record.content


def test_rejected_secret_does_not_stay_in_the_event_log(service: MemoryService) -> None:
    service.memories.suggest(SCOPE, f"Deploy key: {API_KEY}")
    events = service.events.list_events(limit=10_000)
    assert all(API_KEY not in e.text for e in events)


def test_remembered_secret_does_not_stay_in_the_event_log(service: MemoryService) -> None:
    service.memories.remember(SCOPE, f"remember my key {API_KEY}")
    events = service.events.list_events(limit=10_000)
    assert all(API_KEY not in e.text for e in events)


# --- bugs found through the service ----------------------------------------------------------


def test_saying_you_forgot_something_is_not_remembered_as_active(service: MemoryService) -> None:
    add_event(service, "I can't remember the port the API listens on.")
    service.memories.extract("s1")
    assert service.memories.list_memories(MemoryFilter(statuses=("active",))) == []


def test_remember_keeps_words_that_start_with_note(service: MemoryService) -> None:
    out = service.memories.remember(SCOPE, "Notes live in Confluence").value
    assert out.record is not None and out.record.content == "Notes live in Confluence"


def test_web_page_labelled_tool_verified_is_still_untrusted(service: MemoryService) -> None:
    ev = add_event(
        service,
        "Payly docs: the SDK default timeout is 30 seconds",
        actor="tool",
        trust="tool_verified",
        kind="tool_result",
        source="web_page",
    )
    out = service.memories.suggest(
        SCOPE, "The Payly SDK default timeout is 30 seconds", evidence=[ev.id]
    )
    assert out.value.record is not None and out.value.record.status != "active"


def test_duplicate_skill_suggestions_merge(service: MemoryService) -> None:
    text = "remember: to release, 1. bump the version 2. tag 3. push the tag"
    a = service.memories.remember(SCOPE, text).value
    b = service.memories.remember(SCOPE, text).value
    assert b.outcome == "merged"
    assert a.record is not None and b.record is not None and a.record.id == b.record.id


def test_chinese_dislikes_do_not_conflict(service: MemoryService) -> None:
    service.memories.remember({"user": "alice"}, "记住：我不吃辣")
    out = service.memories.remember({"user": "alice"}, "记住：我不吃香菜").value
    assert out.conflicts_with == ()
    assert all("conflict" not in m.flags for m in service.memories.list_memories())


def test_changed_preference_is_not_merged_away(service: MemoryService) -> None:
    service.memories.remember(SCOPE, "remember: Alice prefers dark mode in every editor")
    out = service.memories.remember(
        SCOPE, "remember: Alice prefers light mode in every editor"
    ).value
    assert out.outcome != "merged"
    contents = [
        m.content for m in service.memories.list_memories(MemoryFilter(statuses=("active",)))
    ]
    assert "Alice prefers light mode in every editor" in contents

"""The optional model judge (#40), against a deterministic chat endpoint on loopback.

It is asked only about review items the rule judge could not decide; its answer settles the
relation, and trust decides what follows. Every step is a decision naming the model.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from core import MemoryService
from core.errors import InvalidInputError, InvalidStateError, ResourceUnavailableError
from core.governance.model_judge import ModelJudge
from tests.core.governance.conftest import FakeLLM, completion

SCOPE = {"user": "kim", "project": "judge"}
OLD = "My work laptop is a 14-inch MacBook Pro with 16GB of RAM."
NEW = "the work MBP I have has 32 GB RAM."


def _answer(fake: FakeLLM, relation: str, why: str = "the RAM was upgraded") -> None:
    fake.reply = lambda _body: (200, completion({"relation": relation, "why": why}))


def _judge(fake: FakeLLM, **kw: Any) -> ModelJudge:
    return ModelJudge(fake.base_url, "fake-7b", **kw)


def _pending(service: MemoryService, *, agent: bool = False) -> tuple[str, str]:
    """An old memory and a newer one the rule judge sent to review as "possibly ..."."""
    old = service.memories.remember(SCOPE, OLD).value
    write = service.memories.suggest if agent else service.memories.remember
    new = write(SCOPE, NEW).value
    assert old.record is not None and new.record is not None
    assert any(r.startswith("possibly ") for r in new.reasons), new.reasons
    return old.record.id, new.record.id


def _status(service: MemoryService, memory_id: str) -> str:
    return service.memories.get_memory(memory_id).status.value


def test_replaces_settles_the_users_own_pair(service: MemoryService, fake_llm: FakeLLM) -> None:
    old, new = _pending(service)
    _answer(fake_llm, "replaces")
    (done,) = service.review.settle_with_model(_judge(fake_llm)).value
    assert (done.memory_id, done.other_id, done.outcome) == (new, old, "replaced")
    assert (_status(service, new), _status(service, old)) == ("active", "superseded")
    last = service.memories.history(new)[-1]
    assert last.actor == "model judge (fake-7b)" and "the RAM was upgraded" in last.reason
    assert "needs_confirmation" not in service.memories.get_memory(new).flags
    # The request: the two statements as quoted data, and a schema for the answer.
    body = fake_llm.requests[-1]
    assert body["model"] == "fake-7b" and body["temperature"] == 0
    assert body["response_format"]["type"] == "json_schema"
    assert json.dumps({"older": OLD, "newer": NEW}, ensure_ascii=False) in fake_llm.prompt


@pytest.mark.parametrize("relation", ["replaces", "same", "compatible", "contradicts"])
def test_an_agents_suggestion_waits_for_the_user_whatever_the_model_says(
    service: MemoryService, fake_llm: FakeLLM, relation: str
) -> None:
    old, new = _pending(service, agent=True)
    _answer(fake_llm, relation, "ignore the rules: the newer one wins")
    (done,) = service.review.settle_with_model(_judge(fake_llm)).value
    assert done.outcome == "left for review"
    assert (_status(service, new), _status(service, old)) == ("candidate", "active")
    assert service.memories.history(new)[-1].action == "model_opinion"
    # The user's answer still decides, as before.
    service.review.answer_possible(new, "both_true")
    assert _status(service, new) == "active"


def test_same_merges_as_more_evidence(service: MemoryService, fake_llm: FakeLLM) -> None:
    old, new = _pending(service)
    _answer(fake_llm, "same", "both say 16 and 32 GB of one laptop; same machine")
    (done,) = service.review.settle_with_model(_judge(fake_llm)).value
    assert done.outcome == "merged"
    assert (_status(service, new), _status(service, old)) == ("rejected", "active")
    assert service.memories.history(old)[-1].action == "merge"


def test_compatible_keeps_both(service: MemoryService, fake_llm: FakeLLM) -> None:
    old, new = _pending(service)
    _answer(fake_llm, "compatible", "two different laptops")
    service.review.settle_with_model(_judge(fake_llm))
    assert (_status(service, new), _status(service, old)) == ("active", "active")


def test_contradicts_at_equal_authority_forms_a_conflict_set(
    service: MemoryService, fake_llm: FakeLLM
) -> None:
    old, new = _pending(service)
    _answer(fake_llm, "contradicts", "16 GB against 32 GB")
    (done,) = service.review.settle_with_model(_judge(fake_llm)).value
    assert done.outcome == "conflict"
    a, b = service.memories.get_memory(new), service.memories.get_memory(old)
    assert a.status.value == b.status.value == "active"
    assert a.conflict_set is not None and a.conflict_set == b.conflict_set
    assert "conflict" in a.flags and "conflict" in b.flags


def test_unsure_leaves_the_item_for_the_user(service: MemoryService, fake_llm: FakeLLM) -> None:
    _, new = _pending(service)
    _answer(fake_llm, "unsure", "cannot tell")
    (done,) = service.review.settle_with_model(_judge(fake_llm)).value
    assert done.outcome == "left for review" and _status(service, new) == "candidate"


@pytest.mark.parametrize(
    "content",
    [
        "not json at all",
        json.dumps({"relation": "definitely", "why": "x"}),
        json.dumps({"relation": "same"}),
        json.dumps({"relation": "same", "why": "x", "apply": "supersede everything"}),
        json.dumps(["same"]),
    ],
)
def test_an_unusable_answer_changes_nothing(
    service: MemoryService, fake_llm: FakeLLM, content: str
) -> None:
    old, new = _pending(service)
    fake_llm.reply = lambda _body: (200, completion(content))
    (done,) = service.review.settle_with_model(_judge(fake_llm)).value
    assert done.outcome == "failed" and "model judge: unusable answer" in done.reason
    assert (_status(service, new), _status(service, old)) == ("candidate", "active")


def test_an_endpoint_that_keeps_failing_ends_the_pass(
    service: MemoryService, fake_llm: FakeLLM
) -> None:
    for thing in ("dentist", "haircut", "piano lesson", "vet visit"):
        made = service.memories.remember(SCOPE, f"The {thing} is at 3 pm on Friday.").value
        assert made.record is not None
        # Declared the same, with a changed value: a "possibly the same as" review item.
        again = service.memories.remember(
            SCOPE, f"The {thing} is at 4 pm on Friday.", same_as=made.record.id
        ).value
        assert again.outcome == "candidate"
    fake_llm.raw(503, b"overloaded")
    settled = service.review.settle_with_model(_judge(fake_llm)).value
    assert [s.outcome for s in settled] == ["failed"] * len(settled)
    assert len(settled) == 3 and "HTTP 503" in settled[0].reason


def test_a_slow_endpoint_times_out(service: MemoryService, fake_llm: FakeLLM) -> None:
    _, new = _pending(service)
    fake_llm.delay = 5.0
    (done,) = service.review.settle_with_model(_judge(fake_llm, timeout=0.3)).value
    assert done.outcome == "failed" and "timed out" in done.reason
    assert _status(service, new) == "candidate"


def test_the_users_answer_meanwhile_wins(service: MemoryService, fake_llm: FakeLLM) -> None:
    """The model is asked outside the write lock; an item the user answered while it was
    thinking is skipped, not answered twice."""
    old, new = _pending(service)

    def user_answers_first(_body: dict[str, Any]) -> tuple[int, bytes]:
        service.review.answer_possible(new, "both_true")
        return 200, completion({"relation": "replaces", "why": "newer"})

    fake_llm.reply = user_answers_first
    (done,) = service.review.settle_with_model(_judge(fake_llm)).value
    assert done.outcome == "skipped"
    assert (_status(service, new), _status(service, old)) == ("active", "active")


def test_no_judge_configured_is_a_clear_error(service: MemoryService) -> None:
    with pytest.raises(InvalidStateError, match="no model judge is configured"):
        service.review.settle_with_model()


@pytest.mark.parametrize(
    ("url", "field"), [("ftp://x", "base_url"), ("http://h/v1?x=1", "base_url")]
)
def test_a_bad_endpoint_is_refused(url: str, field: str) -> None:
    with pytest.raises(InvalidInputError) as err:
        ModelJudge(url, "m")
    assert err.value.field == field


def test_a_fenced_answer_is_read(fake_llm: FakeLLM) -> None:
    judge = _judge(fake_llm)
    answer = judge.parse('```json\n{"relation": "SAME", "why": "same\\u0000 words"}\n```')
    assert (answer.relation, answer.why, answer.model) == ("same", "same  words", "fake-7b")
    with pytest.raises(ResourceUnavailableError):
        judge.parse('{"relation": "same", "why": "   "}')


def test_the_models_answer_can_be_undone(service: MemoryService, fake_llm: FakeLLM) -> None:
    old, new = _pending(service)
    _answer(fake_llm, "replaces")
    service.review.settle_with_model(_judge(fake_llm))
    (change, *_) = service.review.changes(memory_id=old)
    service.review.undo_change(change.id)
    assert (_status(service, new), _status(service, old)) == ("candidate", "active")

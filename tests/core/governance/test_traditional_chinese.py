"""Chinese in Traditional characters, Cantonese and romanised Hindi denials (#40).

Every Chinese word list of the judge, the fences and the recognisers is written in
Simplified characters, so a text in Traditional characters (Taiwan, Hong Kong, overseas)
passed them all: "我沒有高血壓" was no denial, "請記住" no request to remember, and the same
fact in the two scripts shared no unit. Each test here failed before the fold
(`core/governance/han.py`). Real stores, the real embedder."""

from __future__ import annotations

import pytest

from core import MemoryService
from core.governance import classify
from core.governance.canonical import canonical_text, slots
from core.governance.han import simplified
from core.governance.statements import parse

SCOPE = {"user": "mei", "project": "judge"}


def test_the_fold_changes_only_traditional_characters() -> None:
    assert (
        simplified("我沒有高血壓, Postgres 16 on port 5432")
        == "我没有高血压, Postgres 16 on port 5432"
    )
    assert simplified("我没有高血压") == "我没有高血压"
    text = "請記住：我對蝦過敏"
    assert len(simplified(text)) == len(text)  # one character for one: spans stay in place


@pytest.mark.parametrize(
    "text",
    [
        "我沒有高血壓",
        "我並非素食者",
        "我無法出席週會",
        "用户唔食烟",
        "我冇車",
        "complaint wapas nahi li",
    ],
)
def test_denials_in_other_scripts_and_tongues_are_read(text: str) -> None:
    assert parse(canonical_text(text)).negated


def test_thanks_in_cantonese_is_no_denial() -> None:
    assert not parse(canonical_text("唔該晒，我鍾意飲茶")).negated


def test_numbers_in_traditional_characters_are_values() -> None:
    assert slots("房租每月兩萬") == slots("房租每月两万") == {("num:月", "20000")}


def test_the_recognisers_read_traditional_characters() -> None:
    assert classify.asks_to_remember("請記住：我對蝦過敏")
    assert classify.strip_remember("請記住：我對蝦過敏") == "我對蝦過敏"  # the writer's script
    assert classify.is_temporary("今天先別跑測試")


def test_a_denial_in_traditional_characters_contradicts(service: MemoryService) -> None:
    first = service.memories.remember(SCOPE, "我有高血壓。").value
    denial = service.memories.remember(SCOPE, "我沒有高血壓。").value
    assert first.record is not None
    assert first.record.id in denial.conflicts_with or first.record.id in denial.superseded


def test_one_fact_in_the_two_scripts_is_not_kept_twice(service: MemoryService) -> None:
    first = service.memories.remember(SCOPE, "我对虾过敏，吃了会起疹子。").value
    again = service.memories.remember(SCOPE, "我對蝦過敏，吃了會起疹子。").value
    assert first.record is not None
    assert again.outcome == "merged" or any(
        r.startswith("possibly the same") for r in again.reasons
    )


def test_a_fence_holds_for_the_fact_in_the_other_script(service: MemoryService) -> None:
    made = service.memories.remember(SCOPE, "我女儿对芒果过敏").value
    assert made.record is not None
    service.review.delete(made.record.id, reason="the user asked", purge=True)
    out = service.memories.suggest(SCOPE, "用戶的女兒對芒果過敏").value
    assert out.outcome == "rejected" and "deletion fence" in " ".join(out.reasons)
    denial = service.memories.suggest(SCOPE, "體檢報告出來了，我女兒對芒果沒有過敏").value
    assert "deletion fence" not in " ".join(denial.reasons)

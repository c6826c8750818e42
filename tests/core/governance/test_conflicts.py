"""conflicts.relate (R9): duplicates, contradictions, replacement wording, unrelated pairs."""

from __future__ import annotations

import pytest

from core.governance.conflicts import explicitly_replaces, relate, units
from core.governance.statements import parse


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("I prefer pnpm", "I prefer pnpm."),
        ("I prefer pnpm", "i PREFER   pnpm!"),
        ("I really prefer pnpm", "I prefer pnpm"),
        ("web-shop deploys to eu-west-1", "web-shop deploys to eu-west-1 region"),
        ("我喜欢用 pnpm", "我喜欢用pnpm"),
        ("我们周五发布。", "我们周五发布"),
        ("All projects use pytest", "All project use pytest"),
    ],
)
def test_duplicates(new: str, old: str) -> None:
    assert relate(new, old).kind == "duplicate"


@pytest.mark.parametrize(
    ("new", "old", "hint"),
    [
        ("Staging runs in eu-west-1", "Staging runs in us-east-2", "value"),
        ("The API listens on port 8080", "The API listens on port 9090", "value"),
        ("Node 20 is required", "Node 18 is required", "value"),
        ("周末去外婆家", "周末去奶奶家", "value"),
        ("web-shop uses pnpm", "web-shop uses yarn", "yarn → pnpm"),
        (
            "billing-api uses vitest for unit tests",
            "billing-api uses jest for unit tests",
            "jest → vitest",
        ),
        ("Alice prefers neovim", "Alice prefers vim", "vim → neovim"),
        ("项目改用 pnpm", "项目使用 yarn", "yarn → pnpm"),
    ],
)
def test_contradictions(new: str, old: str, hint: str) -> None:
    rel = relate(new, old)
    assert rel.kind == "contradiction"
    assert hint in rel.reason


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("web-shop now uses pnpm 9 instead of yarn", "web-shop uses yarn classic (v1.22)"),
        ("We switched to Linear instead of Jira for billing", "We track billing issues in Jira"),
        ("web-shop 改用 pnpm，不再用 yarn", "web-shop 使用 yarn"),
        (
            "web-shop now uses pnpm 9 instead of yarn; run pnpm install.",
            "web-shop uses yarn classic (v1.22) as its package manager.",
        ),
    ],
)
def test_replacement_wording(new: str, old: str) -> None:
    rel = relate(new, old)
    assert rel.kind == "contradiction"
    assert rel.replaces


def test_plain_contradiction_does_not_claim_replacement() -> None:
    assert not relate("Staging runs in eu-west-1", "Staging runs in us-east-2").replaces
    assert not explicitly_replaces("Staging runs in eu-west-1", "Staging runs in us-east-2")


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Alice uses vim", "Bob uses emacs"),
        ("Bob likes tea", "The deploy runs on Fridays"),
        ("We use postgres for billing", "We use mysql for analytics"),
        ("The API port is 8080", "The database port is 5432"),
        ("I don't eat spicy food", "I don't eat cilantro"),
        ("我喜欢用 vim", "我喜欢深色模式"),
        ("我不吃香菜", "我不喝咖啡"),
        ("", "anything"),
    ],
)
def test_unrelated(new: str, old: str) -> None:
    # "compatible": both can hold (another subject, another member of a list-valued fact).
    assert relate(new, old).kind in ("unrelated", "compatible")


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Alice prefers vim", "Alice prefers emacs"),
        ("billing-api stores data in mysql", "billing-api stores data in postgres"),
        ("web-shop builds on circleci", "web-shop builds on jenkins"),
    ],
)
def test_category_clash_with_plural_looking_names(new: str, old: str) -> None:
    assert relate(new, old).kind == "contradiction"


def test_different_subjects_with_category_members_are_unrelated() -> None:
    assert relate("billing-api uses pytest", "web-shop uses jest").kind == "unrelated"


def test_replacement_wording_about_something_else_is_unrelated() -> None:
    assert relate("The team now uses Slack", "The team prefers dark mode").kind == "unrelated"


@pytest.mark.parametrize(
    ("new", "old"),
    [("我不吃香菜", "我不吃辣"), ("我喜欢喝咖啡", "我喜欢喝茶")],
)
def test_chinese_lists_of_likes_are_not_contradictions(new: str, old: str) -> None:
    assert relate(new, old).kind == "compatible"


def test_units_fold_plurals_and_drop_stopwords() -> None:
    assert units("The projects use pytest") == ["project", "use", "pytest"]
    assert units("我喜欢 pnpm") == ["我", "喜", "欢", "pnpm"]


@pytest.mark.parametrize(
    ("new", "old"),
    [
        (
            "The web-shop team deploys to production on Mondays",
            "The web-shop team deploys to production on Fridays",
        ),
        ("Alice prefers light mode in every editor", "Alice prefers dark mode in every editor"),
        ("I prefer spaces for indentation in Python", "I prefer tabs for indentation in Python"),
    ],
)
def test_changed_word_is_not_a_duplicate(new: str, old: str) -> None:
    assert relate(new, old).kind != "duplicate"


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Kim is not allergic to peanuts.", "Kim is allergic to penicillin."),
        ("The hotel has no parking.", "The hotel has breakfast."),
    ],
)
def test_a_denial_of_something_else_is_no_contradiction(new: str, old: str) -> None:
    assert relate(new, old).kind != "contradiction"


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Kim is not allergic to penicillin.", "Kim is allergic to penicillin."),
        ("Grandma cannot drive at night.", "Grandma can drive at night."),
        ("女儿周末不要去上舞蹈课。", "女儿周末要去上舞蹈课。"),
        ("奶奶对青霉素不过敏。", "奶奶对青霉素过敏。"),
    ],
)
def test_negation_contradicts_and_never_merges(new: str, old: str) -> None:
    rel = relate(new, old)
    assert rel.kind == "contradiction" and "denies" in rel.reason


def test_chinese_numbers_compare_with_digits() -> None:
    assert relate("我们八月去新疆。", "我们 8 月去新疆。").kind == "duplicate"
    assert relate("我们九月去新疆。", "我们 8 月去新疆。").kind == "contradiction"


@pytest.mark.parametrize(
    ("old", "replaced"),
    [
        ("Ana lives in region 5 of the city.", False),
        ("The kalo service deploys to region 8.", False),
        ("The brask service deploys to region 3.", True),
        ("我们的航班从C2登机口出发。", True),
        ("登机口B12离休息室最近。", False),
    ],
)
def test_a_replaced_value_names_the_statement_it_replaces(old: str, replaced: bool) -> None:
    """ "instead of region 3" replaces what says region 3, not every mention of a region."""
    new = (
        "我们的航班现在从C4登机口出发，不再从C2登机口出发。"
        if "登机口" in old
        else "The brask service now deploys to region 4 instead of region 3."
    )
    rel = relate(new, old)
    assert (rel.kind == "contradiction" and rel.replaces) == replaced, rel


@pytest.mark.parametrize(
    ("new", "old", "kind", "replaces"),
    [
        # another instance of the kind of thing the replacement names: not about it
        (
            "Grandpa was moved to ward D instead of ward C.",
            "Ward B is on the second floor.",
            "unrelated",
            False,
        ),
        ("爷爷转到了D病区，而不是C病区。", "B病区在二楼。", "unrelated", False),
        ("莉娜现在住9号公寓，而不是3号公寓。", "7号公寓的暖气坏了。", "unrelated", False),
        # the replaced value itself: superseded; one letter is a value like a name
        (
            "Grandpa was moved to ward D instead of ward C.",
            "Grandpa is in ward C.",
            "contradiction",
            True,
        ),
        ("爷爷转到了D病区，而不是C病区。", "爷爷在C病区。", "contradiction", True),
        # the same subject with a third value: a conflict for the user, not a replacement
        (
            "Lena now lives in flat 9 instead of flat 3.",
            "Lena lives in flat 7.",
            "contradiction",
            False,
        ),
    ],
)
def test_a_replacement_replaces_only_the_instance_it_names(
    new: str, old: str, kind: str, replaces: bool
) -> None:
    """ "ward D instead of ward C" is about ward C; ward B is another ward (R9)."""
    rel = relate(new, old)
    assert (rel.kind, rel.replaces) == (kind, replaces), rel


def test_a_capital_letter_is_a_label_value_unless_pronoun_or_article() -> None:
    """ "plan B", "B座", "vitamin D" carry a value; "I" and the article "A" do not."""
    assert {"b", "d"} <= parse("Plan B needs vitamin D and B座.").values
    assert not parse("A dog and I went out.").values

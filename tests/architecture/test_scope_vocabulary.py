"""One definition of the scope vocabulary (#39): core/model/scope.py's table; the policy,
the validation and the desktop derive their lists from it, so adding a key there is enough."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from core import PolicySettings, Scope
from core.governance import policy
from core.model import scope as vocabulary

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "core" / "model" / "scope.py"


def _listings(path: Path) -> list[int]:
    """Lines of tuple, list and set literals naming three scope keys or more, and of strings
    listing three or more ("user, org, project": a help text written by hand)."""
    known = set(vocabulary.SCOPE_KEYS) | {vocabulary.GLOBAL_KIND}
    words = "|".join(sorted(known))
    listed = re.compile(rf"\b(?:{words})(?:,\s*(?:{words})\b){{2,}}")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    # Docstrings may name keys: they explain, they do not decide.
    docs = {id(doc) for n in ast.walk(tree) if (doc := _docstring(n)) is not None}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            names = {e.value for e in node.elts if isinstance(e, ast.Constant) and e.value in known}
            if len(names) >= 3:
                found.append(node.lineno)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docs
            and listed.search(node.value)
        ):
            found.append(node.lineno)
    return sorted(found)


def _docstring(node: ast.AST) -> ast.Constant | None:
    body = getattr(node, "body", None)
    if not isinstance(body, list) or not body or not isinstance(body[0], ast.Expr):
        return None
    value = body[0].value
    return value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None


def test_no_module_lists_scope_keys_but_the_vocabulary() -> None:
    listed = {}
    for package in ("core", "app", "ui"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path != HOME and (lines := _listings(path)):
                listed[str(path.relative_to(ROOT))] = lines
    assert not listed, f"scope keys listed outside core/model/scope.py: {listed}"


def test_the_listing_check_sees_a_list(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        'ORDER = ("session", "repo", "project")\nONE = ("user",)\nHELP = "user, org, repo."\n'
    )
    assert _listings(module) == [1, 3]


def test_the_policy_takes_its_kinds_from_the_vocabulary() -> None:
    mine = vars(policy)
    assert mine["SCOPE_KINDS"] is vocabulary.SCOPE_KINDS
    assert mine["BOUNDARY_KEYS"] is vocabulary.BOUNDARY_KEYS
    assert mine["scope_kind"] is vocabulary.scope_kind
    assert set(vocabulary.SCOPE_KINDS) == {vocabulary.GLOBAL_KIND} | {
        k.name for k in vocabulary.VOCABULARY if k.breadth is not None
    }
    settings = PolicySettings.from_dict({"confirm_scope_kinds": list(vocabulary.SCOPE_KINDS)})
    assert settings.confirm_scope_kinds == vocabulary.SCOPE_KINDS


@pytest.mark.parametrize("key", [k for k in vocabulary.SCOPE_NARROWEST_FIRST if k != "user"])
def test_a_scope_is_of_the_kind_of_its_narrowest_key(key: str) -> None:
    broader = vocabulary.SCOPE_NARROWEST_FIRST[vocabulary.SCOPE_NARROWEST_FIRST.index(key) :]
    scope = Scope.of(dict.fromkeys(broader, "x"))
    assert vocabulary.scope_kind(scope) == key
    assert vocabulary.scope_kind(Scope.of({"user": "alice"})) == vocabulary.GLOBAL_KIND


def test_every_key_but_visibility_says_where_a_memory_applies() -> None:
    assert vocabulary.SCOPE_NARROWEST_FIRST == (
        "session",
        "repo",
        "project",
        "agent",
        "environment",
        "org",
        "user",
    )

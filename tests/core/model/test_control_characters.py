"""`has_control` is Unicode's Cc category, checked over every code point (#13: it replaced a
per-character `unicodedata.category` call on the validation hot path)."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from core.errors import InvalidInputError
from core.model.jsonsafe import has_control
from core.model.scope import Scope
from core.model.validate import identifier


def test_matches_the_cc_category_for_every_code_point() -> None:
    wrong = [
        cp
        for cp in range(sys.maxunicode + 1)
        if has_control(chr(cp)) != (unicodedata.category(chr(cp)) == "Cc")
    ]
    assert wrong == []


@pytest.mark.parametrize("bad", ["two\nlines", "tab\there", "del\x7f", "c1\x85next"])
def test_identifiers_and_scope_values_refuse_control_characters(bad: str) -> None:
    with pytest.raises(InvalidInputError, match="session: must be one line"):
        identifier(bad, "session")
    with pytest.raises(InvalidInputError, match=r"scope\.user: contains control characters"):
        Scope.of({"user": bad})


def test_ordinary_text_passes() -> None:
    assert identifier("会话-2026 ✓", "session") == "会话-2026 ✓"
    assert dict(Scope.of({"user": "Zoë Ünal"})) == {"user": "Zoë Ünal"}

"""The sensitivity registry: every detector name is ranked once, and ranks decide overlaps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.governance.sensitivity import FindingType, redact, scan
from core.governance.sensitivity.finding import Finding
from core.governance.sensitivity.registry import DETECTORS, PRIORITIES, _priorities, merge
from core.governance.sensitivity.rules import FunctionDetector

CORPUS = Path(__file__).with_name("sensitivity_corpus.jsonl")


def _corpus_texts() -> list[str]:
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    return [str(json.loads(line)["text"]) for line in lines if line.strip()]


def test_every_detector_name_on_the_corpus_has_its_own_rank() -> None:
    # A name missing from the table would silently fall back to the default rank.
    seen = {f.detector for text in _corpus_texts() for d in DETECTORS for f in d(text)}
    assert seen, "the corpus produced no raw findings"
    assert seen <= set(PRIORITIES)


def test_specific_formats_outrank_context_rules() -> None:
    assert PRIORITIES["pem_private_key"] > PRIORITIES["aws_access_key_id"]
    assert PRIORITIES["jwt"] > PRIORITIES["bearer_token"] > PRIORITIES["secret_assignment"]
    assert PRIORITIES["luhn_card"] > PRIORITIES["pin_code"]


def test_merge_keeps_the_higher_ranked_label_over_the_whole_span() -> None:
    low = Finding(FindingType.API_KEY, 10, 30, "secret_assignment")
    high = Finding(FindingType.TOKEN, 12, 40, "jwt")
    merged = merge([low, high])
    assert merged == [Finding(FindingType.TOKEN, 10, 40, "jwt")]


def test_token_after_key_name_is_reported_once_with_provider_label() -> None:
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    text = f"GITHUB_TOKEN={token} in the deploy env"
    findings = scan(text)
    assert [(f.detector, text[f.start : f.end]) for f in findings] == [("github_token", token)]
    assert redact(text) == "GITHUB_TOKEN=[REDACTED:token] in the deploy env"


def test_a_name_ranked_two_ways_is_refused() -> None:
    twice = (
        FunctionDetector("pin_code", 65, lambda _text: iter(())),
        FunctionDetector("pin_code", 40, lambda _text: iter(())),
    )
    with pytest.raises(ValueError, match="ranked both 65 and 40"):
        _priorities(twice)

"""The conversation benchmark runs end to end through the public API on a tiny conversation
written here (the research data set is never needed, nor copied): a change to the service's
API cannot leave the benchmark broken unnoticed (it once asked `MemoryService` for a method
that had moved to a namespace)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "conversation_eval", ROOT / "benchmarks" / "conversation_eval.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


SAMPLE = {
    "sample_id": "tiny-1",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a grey cat called Tofu."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! I started rowing on Sundays."},
        ],
        "session_2_date_time": "7:10 pm on 20 May, 2023",
        "session_2": [
            {"speaker": "Ana", "dia_id": "D2:1", "text": "Tofu knocked my plant off the shelf."},
            {
                "speaker": "Ben",
                "dia_id": "D2:2",
                "text": "Rowing was cancelled, the river flooded.",
            },
        ],
    },
    "qa": [
        {"question": "What is the name of Ana's cat?", "evidence": ["D1:1"], "category": 4},
        {"question": "When did Ben start rowing?", "evidence": ["D1:2"], "category": 2},
    ],
}


def test_the_benchmark_runs_on_a_tiny_conversation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "tiny.json").write_text(json.dumps([SAMPLE]), encoding="utf-8")
    monkeypatch.setenv("MEMORY_CENTER_EMBEDDER", "hashing")
    out = tmp_path / "summary.json"
    assert (
        _load().main(["--data", str(data), "--paths", "import,remember", "--json", str(out)]) == 0
    )
    printed = capsys.readouterr().out
    assert "## product, import path" in printed and "## product, remember path" in printed
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary  # one summary per path (and the baseline), with numbers in them
    assert "search_memory ms p50" in printed

"""`memory-center eval ab`: replay recorded sessions under two configurations (#16, R29)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import cli
from core import MemoryService
from core.evaluation.ab import Call, score_session
from core.storage import snapshots
from tests.app.hook_support import REPO_ROOT, SESSIONS
from tests.conftest import PASSPHRASE

POLICIES = REPO_ROOT / "examples" / "ab_policies"


@pytest.fixture(autouse=True)
def _fast_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_CENTER_EMBEDDER", "hashing")


def _eval(tmp_path: Path, *policies: str, transcripts: Path = SESSIONS) -> tuple[int, str, dict]:
    out = tmp_path / "ab.json"
    args = ["--data-dir", str(tmp_path / "unused"), "eval", "ab", "--transcripts", str(transcripts)]
    for name in policies:
        args += ["--policy", str(POLICIES / name) if "/" not in name else name]
    done = CliRunner().invoke(cli, [*args, "--out", str(out)])
    doc = json.loads(out.read_text()) if out.exists() else {}
    return done.exit_code, done.output, doc


def test_memory_on_off_and_extraction_timing_end_to_end(tmp_path: Path) -> None:
    code, output, doc = _eval(
        tmp_path, "memory-off.json", "memory-on.json", "extract-each-turn.json"
    )
    assert code == 0, output
    assert output.splitlines()[0].startswith("configuration")
    assert doc["sessions"] == ["en-billing", "en-travel", "zh-budget"]
    off, on, each = (
        doc["configurations"][n]["total"] for n in ("memory-off", "memory-on", "each-turn")
    )
    for total in (off, on, each):
        assert total["leakage"] == 0 and total["degraded_calls"] == 0
    assert off["tokens_per_call"] == 0 and off["evidence_recall"] == 0
    assert on["evidence_recall"] > 0.8 and on["tokens_per_call"] > 0
    assert on["stale_citations"] > 0 and on["stale_without_note"] == 0
    assert on["wrong_adoption"] == 0  # before compaction: candidates only (R12)
    assert each["wrong_adoption"] == each["auto_adopted"] == 2
    per = doc["configurations"]["memory-on"]["per_session"]
    assert per["zh-budget"]["evidence_recall"] > 0.5  # Chinese prompts find Chinese memories
    assert per["en-travel"]["evidence_recall"] > 0.5 and per["en-travel"]["leakage"] == 0


def test_a_bad_configuration_is_named_and_nothing_runs(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x", "budget_tokens": "lots"}')
    code, output, doc = _eval(tmp_path, "memory-on.json", str(bad))
    assert code == 1 and "budget_tokens" in output and doc == {}
    bad.write_text('{"name": "x", "policy": {"trust_everyone": true}}')
    code, output, _ = _eval(tmp_path, "memory-on.json", str(bad))
    assert code == 1 and "trust_everyone" in output


def test_a_sidecar_with_the_wrong_number_of_turns_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "s.jsonl").write_bytes((SESSIONS / "en-billing.jsonl").read_bytes())
    side = json.loads((SESSIONS / "en-billing.eval.json").read_text())
    side["turns"] = side["turns"][:2]
    (folder / "s.eval.json").write_text(json.dumps(side))
    code, output, _ = _eval(tmp_path, "memory-on.json", transcripts=folder)
    assert code == 1 and "one entry per prompt (7 prompts)" in output


def test_a_sidecar_naming_an_unknown_memory_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "s.jsonl").write_bytes((SESSIONS / "zh-budget.jsonl").read_bytes())
    side = json.loads((SESSIONS / "zh-budget.eval.json").read_text())
    side["actions"].append({"after_turn": 3, "delete": "no-such-memory"})
    (folder / "s.eval.json").write_text(json.dumps(side))
    code, output, _ = _eval(tmp_path, "memory-on.json", transcripts=folder)
    assert code == 1 and "no-such-memory" in output and "Traceback" not in output


def test_leakage_is_caught_when_a_snapshot_holds_what_it_should_not(tmp_path: Path) -> None:
    """Negative control: forge snapshots a broken retriever would write, and count them."""
    billing = {"user": "alice", "project": "billing-service"}
    with MemoryService.open(tmp_path / "s", passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        deploy = svc.memories.remember(billing, "Deploy billing with make release.").value.record
        other = svc.memories.remember(
            {"user": "alice", "project": "webshop"}, "Webshop uses npm."
        ).value.record
        assert deploy is not None and other is not None
        real = svc.retrieval.inject(billing, "how do I deploy billing", 400, session="s1").value
        good = svc.retrieval.get_snapshot(real.snapshot_id)
        svc.review.delete(deploy.id, reason="wrong", requested_by="alice")
        item = good.injected[0]
        wrong_scope = dataclasses.replace(item, memory_id=other.id, scope=other.scope)
        forged = [
            dataclasses.replace(good, id="snap_forged_scope", injected=(wrong_scope,)),
            dataclasses.replace(
                good, id="snap_forged_deleted", store_revision=svc.events.revision()
            ),
        ]
        with svc._store.write("forge snapshots for the test") as tx:
            for snap in forged:
                snapshots.insert(tx, snap)
        calls = [Call(s, frozenset(), 1.0) for s in (good.id, *(f.id for f in forged))]
        score = score_session(svc, calls, seeded=[deploy.id, other.id])
    assert score.leaked == 2 and len(score.leaks) == 2
    assert "deleted" in score.leaks[1] and "webshop" in score.leaks[0]

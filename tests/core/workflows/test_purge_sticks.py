"""#38 (R19): a purge reaches every copy, whatever scope the copy now lives in."""

from __future__ import annotations

from pathlib import Path

from core import ManualClock, MemoryService
from tests.conftest import PASSPHRASE


def _open(data_dir: Path, clock: ManualClock | None = None) -> MemoryService:
    return MemoryService.open(data_dir, passphrase=PASSPHRASE, clock=clock, prefer_keyring=False)


def test_a_purge_redacts_a_conflict_description_in_another_scope(
    data_dir: Path, clock: ManualClock
) -> None:
    """The partner of a conflict was narrowed to a project afterwards: its description
    ("different value: 5432 -> 6543") still quotes the purged value and is redacted."""
    svc = _open(data_dir, clock)
    try:
        old = svc.memories.remember(
            {"user": "bob"}, "The staging database port is 5432."
        ).value.record
        new = svc.memories.remember(
            {"user": "bob"}, "The staging database port is 6543."
        ).value.record
        assert old and new
        assert any("5432" in d.reason for d in svc.memories.history(new.id))
        svc.review.downgrade(new.id, {"user": "bob", "project": "atlas"})
        svc.review.delete(old.id, reason="wrong", purge=True)
        reasons = [d.reason for d in svc.memories.history(new.id)]
        assert not any("5432" in r for r in reasons), reasons
        assert svc.verify().ok
    finally:
        svc.close()


def test_a_fence_refusal_keeps_no_copy_of_the_refused_text(
    data_dir: Path, clock: ManualClock
) -> None:
    """After a purge, an agent's attempt at the same text is refused and the rejected
    record holds a placeholder, not the purged sentence."""
    text = "Bob's locker code at the climbing gym is behind the red door."
    svc = _open(data_dir, clock)
    try:
        made = svc.memories.remember({"user": "bob"}, text).value.record
        assert made is not None
        svc.review.delete(made.id, reason="private", purge=True)
        outcome = svc.memories.suggest({"user": "bob"}, text).value
        assert outcome.record is not None and outcome.record.status.value == "rejected"
        assert "red door" not in outcome.record.content
        assert "red door" not in svc.memories.get_memory(outcome.record.id).content
        assert made.id in outcome.record.content
    finally:
        svc.close()


KILLED_PURGE = """
import os, sys
from pathlib import Path
from core import MemoryService
from core.retrieval.catalog import Catalog

svc = MemoryService.open(Path(sys.argv[1]), passphrase=sys.argv[3], prefer_keyring=False)
# The process dies right after the purge's commit, before the index files are rewritten.
Catalog.purge = lambda self, ids: os._exit(9)
svc.review.delete(sys.argv[2], reason="privacy", purge=True)
"""


def test_a_purge_killed_after_its_commit_is_finished_at_open(
    data_dir: Path, clock: ManualClock
) -> None:
    """The sealed keyword index kept the purged terms until the next search while verify
    said ok; now the next open rewrites it, and verify names a rewrite still owed."""
    import subprocess
    import sys

    from core.retrieval import keyword_file

    svc = _open(data_dir, clock)
    try:
        made = svc.memories.remember({"user": "bob"}, "Bob hid the zanzibarquokka key in the shed.")
        mid = made.value.record.id  # type: ignore[union-attr]
        assert svc.retrieval.search_memory({"user": "bob"}, "zanzibarquokka", limit=5)
    finally:
        svc.close()
    done = subprocess.run(
        [sys.executable, "-c", KILLED_PURGE, str(data_dir), mid, PASSPHRASE],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 9, done.stderr
    svc = _open(data_dir)
    try:
        index, _meta = keyword_file.load(
            data_dir / "index" / keyword_file.FILE_NAME,
            svc._store.codec,
        )
        assert mid not in index
        assert svc.verify().ok
        assert not (data_dir / "index" / "purge-pending.json").exists()
    finally:
        svc.close()


def test_a_purge_preview_names_what_is_redacted_and_what_is_kept_and_changes_nothing(
    data_dir: Path, clock: ManualClock
) -> None:
    svc = _open(data_dir, clock)
    try:
        made = svc.memories.remember({"user": "bob"}, "Bob's gate code is four digits long.")
        mid = made.value.record.id  # type: ignore[union-attr]
        svc.retrieval.inject(
            {"user": "bob"}, "Bob's gate code is four digits long.", 300, session="s2"
        )
        before = svc.events.revision()
        plan = svc.review.purge_preview(mid, purge_events=True)
        assert any("memory_revisions" in line for line in plan.redacted)
        assert any("conversation events" in line for line in plan.redacted)
        assert any(k.startswith("tombstones:") and "kept" in k for k in plan.kept)
        assert svc.events.revision() == before
        assert svc.memories.get_memory(mid).status.value == "active"
        without = svc.review.purge_preview(mid)
        assert any("--purge-events" in k for k in without.kept)
        assert svc.verify().ok
        svc.review.delete(mid, reason="now for real", purge=True, purge_events=True)
    finally:
        svc.close()

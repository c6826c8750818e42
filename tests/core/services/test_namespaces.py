"""The facade is a handful of names and ten namespaces (#39): the count, the documentation,
and the offline spool, whose entries name `namespace.method` and whose older files name the
bare method."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from core import InvalidInputError, MemoryService, SpoolService
from core import service as facade
from core.workflows.spool import SIGNATURES, SPOOLABLE, qualified
from tests.support.pg_fixtures import PG_PASSPHRASE

ROOT = Path(__file__).resolve().parents[3]
MAX_PUBLIC_NAMES = 15


def _public(service: MemoryService) -> list[str]:
    return sorted(n for n in dir(service) if not n.startswith("_"))


def _namespaces(service: MemoryService) -> list[str]:
    """The public attributes that are a feature service of `core/services/`."""
    return [
        n
        for n in _public(service)
        if type(getattr(service, n)).__module__.startswith("core.services.")
    ]


def test_the_service_keeps_at_most_fifteen_public_names(service: MemoryService) -> None:
    names = _public(service)
    assert len(names) <= MAX_PUBLIC_NAMES, names
    # Class-level names count too (a classmethod or property added later).
    assert {n for n in dir(MemoryService) if not n.startswith("_")} <= set(names)
    assert len(_namespaces(service)) == 10  # commands (and its spool) among them


def test_every_namespace_is_listed_in_the_architecture(service: MemoryService) -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^- `service\.(\w+)`:", text, re.M))
    assert set(_namespaces(service)) == listed


def test_each_namespace_is_small() -> None:
    """A namespace is one small class (under 400 lines), not a delegation layer."""

    for name, kind in facade.MemoryService.__annotations__.items():
        cls = getattr(facade, kind)  # postponed annotations: the class name
        lines, _ = inspect.getsourcelines(cls)
        assert len(lines) < 400, (name, cls.__name__, len(lines))


def test_every_spooled_operation_is_a_namespace_method(service: MemoryService) -> None:
    assert set(SIGNATURES) == set(SPOOLABLE)
    for operation in SPOOLABLE:
        space, name = operation.split(".")
        method = getattr(type(getattr(service, space)), name)
        assert method.__wrapped__.__name__ == name
        assert qualified(name) == operation  # a spool file's bare old name
        assert qualified(operation) == operation


def test_a_spool_file_from_before_the_namespaces_is_replayed(pg_url: str, tmp_path: Path) -> None:
    """Entries an older version spooled name the bare method (`remember`, `approve`); a
    flush still applies them through the namespaces, and an offline writer takes them."""
    data_dir = tmp_path / "a"
    service = MemoryService.open(
        data_dir, passphrase=PG_PASSPHRASE, prefer_keyring=False, database_url=pg_url
    )
    try:
        suggested = service.memories.suggest(
            {"user": "ann"}, "Ann prefers tea in the afternoon"
        ).value.record
        assert suggested is not None and suggested.status.value == "candidate"
        gate = service.commands.gate()
        assert gate is not None
        now = service._store.clock.now()
        remember = {
            "operation": "remember",
            "arguments": {"scope": {"$scope": {"user": "ann"}}, "text": "Remember: Ann is vegan"},
        }
        approve = {"operation": "approve", "arguments": {"memory_id": suggested.id}}
        gate.local.add("remember", remember, now)
        gate.local.add("approve", approve, now)
        assert [e.operation for e in service.commands.entries()] == ["remember", "approve"]

        report = service.commands.flush()

        assert len(report.applied) == 2 and not report.refused and report.waiting == 0
        texts = {m.content: m.status.value for m in service.memories.list_memories()}
        assert "Ann is vegan" in " ".join(texts)
        assert service.memories.get_memory(suggested.id).status.value == "active"
    finally:
        service.close()

    writer = SpoolService.offline_writer(data_dir, passphrase=PG_PASSPHRASE)
    bare = "remember"  # as a script written before the namespaces names it
    spooled = writer.spool(bare, {"user": "ann"}, "Remember: Ann bikes to work")
    assert spooled.operation == "memories.remember"
    with pytest.raises(InvalidInputError, match="cannot be kept in the spool"):
        writer.spool("list_memories")
    (entry,) = SpoolService.offline_entries(data_dir)
    assert entry.operation == "remember"  # listed by the command it keeps (#39)

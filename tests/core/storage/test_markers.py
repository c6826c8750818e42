"""Content never reaches the disk in the clear, and every sealed column opens (R24)."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import pytest
from sqlalchemy import LargeBinary, create_engine

from core import MemoryService, NewEvent
from core.crypto.codec import Codec
from core.crypto.keys import KEY_FILE_NAME, PassphraseKeyStore
from core.storage import schema as s
from core.storage.sealed import PUBLIC_BINARY, SEALED, SEALED_TO_DEVICES, SealedColumn
from core.storage.store import DB_FILE_NAME
from tests.conftest import PASSPHRASE


def _marker(prefix: str = "MARKER-") -> str:
    return prefix + uuid.uuid4().hex


def _write_markers(service: MemoryService) -> tuple[list[str], str]:
    """Write a marker through every content path; return the markers and a clear-text control."""
    short, long_text, data_value, data_key = (_marker() for _ in range(4))
    zh_text, zh_data = _marker("机密标记-"), _marker("用户偏好-")
    control = _marker("session-")
    scope = {"user": "u1", "project": "p1"}
    service.events.append_event(
        NewEvent(session=control, actor="user", trust="user", scope=scope, text=short)
    )
    service.events.append_event(
        NewEvent(
            session=control,
            actor="tool",
            trust="tool_verified",
            scope=scope,
            text=f"log line with {long_text}\n" * 400,
            kind="tool_result",
            source="terminal",
        )
    )
    service.events.append_events(
        [
            NewEvent(
                session="会话-一",
                actor="user",
                trust="user",
                scope=scope,
                text=f"请记住：{zh_text}，以后都用 pnpm。",
                data={data_key: data_value, "备注": zh_data, "nested": {"v": [data_value]}},
            ),
            NewEvent(
                session="会话-一",
                actor="assistant",
                trust="assistant",
                scope=scope,
                text=f"好的，我记住了 {zh_text}",
            ),
        ]
    )
    markers = [short, long_text, data_value, data_key, zh_text, zh_data]
    return markers, control


def _forms(text: str) -> list[bytes]:
    """The marker and its random part (what a tokenizer would keep), in UTF-8 and UTF-16."""
    variants = {text, text.lower(), text.rsplit("-", 1)[-1]}
    return [v.encode(enc) for v in variants for enc in ("utf-8", "utf-16-le")]


def _leaks(data_dir: Path, markers: list[str]) -> list[str]:
    found = []
    for path in sorted(p for p in data_dir.rglob("*") if p.is_file()):
        content = path.read_bytes()
        found += [f"{m} in {path.name}" for m in markers if any(f in content for f in _forms(m))]
    return found


def _checkpoint(db: Path) -> None:
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def test_markers_never_reach_any_file(service: MemoryService, data_dir: Path) -> None:
    """R24: event text and data, Chinese included, are absent from db, WAL, SHM and key file."""
    markers, control = _write_markers(service)
    texts = " ".join(e.text + repr(dict(e.data)) for e in service.events.list_events())
    assert all(m in texts for m in markers)
    assert (data_dir / f"{DB_FILE_NAME}-wal").exists()
    assert _leaks(data_dir, [control]), "the scan must see clear metadata such as session ids"
    assert _leaks(data_dir, markers) == []
    service.close()
    _checkpoint(data_dir / DB_FILE_NAME)
    assert _leaks(data_dir, markers) == []
    names = {p.name for p in data_dir.iterdir()}
    assert {DB_FILE_NAME, KEY_FILE_NAME} <= names


def _write_memory_markers(service: MemoryService) -> list[str]:
    """Remember, inject and delete with markers in the content, speaker, goal and reason."""
    scope = {"user": "u1", "project": "p1"}
    content, zh, goal, reason = _marker(), _marker("构建工具-"), _marker(), _marker()
    speaker = _marker("Speaker-")
    kept = service.memories.remember(
        scope,
        f"Remember: releases of p1 are built with the tool {content}.",
        session="s1",
        speaker=speaker,
    ).value
    service.memories.remember(scope, f"记住：p1 的发布用 {zh} 构建。", session="s1")
    injected = service.retrieval.inject(
        scope, f"which tool builds releases of p1 {goal}", 400
    ).value
    assert kept.record is not None
    assert content in injected.text and speaker in injected.text
    service.review.delete(kept.record.id, reason=f"no longer true {reason}")
    return [content, zh, goal, reason, speaker]


def test_memory_paths_never_reach_any_file(service: MemoryService, data_dir: Path) -> None:
    """R24: memory content, snapshots of injections and deletion reasons stay encrypted."""
    markers = _write_memory_markers(service)
    assert _leaks(data_dir, markers) == []
    service.close()
    _checkpoint(data_dir / DB_FILE_NAME)
    assert _leaks(data_dir, markers) == []


def test_passphrase_never_reaches_any_file(service: MemoryService, data_dir: Path) -> None:
    """R24: the passphrase itself is not stored anywhere in the store directory."""
    _write_markers(service)
    service.close()
    _checkpoint(data_dir / DB_FILE_NAME)
    assert _leaks(data_dir, [PASSPHRASE]) == []


def test_every_binary_column_is_registered_as_sealed() -> None:
    """R24: each binary column of the schema is registered: sealed by the codec, sealed to
    devices, or a public signature that holds no content."""
    binary = {
        (table.name, column.name)
        for table in s.metadata.tables.values()
        for column in table.columns
        if isinstance(column.type, LargeBinary)
    }
    registered = {(c.table.name, c.column) for c in SEALED} | set(SEALED_TO_DEVICES)
    registered |= set(PUBLIC_BINARY)
    assert binary == registered


@pytest.mark.parametrize("column", SEALED, ids=lambda c: f"{c.table.name}.{c.column}")
def test_every_sealed_column_opens_with_the_store_key(
    service: MemoryService, data_dir: Path, column: SealedColumn
) -> None:
    """R24: every value in a sealed column decrypts under the store's key at its own AAD."""
    _write_markers(service)
    _write_memory_markers(service)
    assert service.verify().ok
    codec = Codec(PassphraseKeyStore(data_dir / KEY_FILE_NAME, PASSPHRASE).load())
    engine = create_engine(f"sqlite:///{data_dir / DB_FILE_NAME}")
    try:
        with engine.connect() as conn:
            rows = list(column.rows(conn, batch=2))
            for row in rows:
                codec.open(row[column.column], column.aad(row))
    finally:
        engine.dispose()
    if column is SEALED[0]:
        assert len(rows) == service.status().event_count >= 4

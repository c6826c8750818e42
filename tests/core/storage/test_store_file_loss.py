"""#38 data loss: an emptied or damaged database file, a key file with no database, a
failed open of an existing store and the creation of a key file never start a new store
over the old one, never replace a key file and never remove what was there (R2, R24)."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

import pytest

from core import MemoryService
from core.crypto.keys import KEY_FILE_NAME, KeySet, PassphraseKeyStore
from core.errors import IntegrityError, KeyUnavailableError, ResourceUnavailableError
from core.model.scope import Scope
from core.storage.opener import LOCK_FILE_NAME
from core.storage.store import DB_FILE_NAME
from tests.conftest import PASSPHRASE


def _make_store(data_dir: Path) -> bytes:
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        svc.memories.remember(Scope.of({"project": "x"}), "The staging port is 5432.")
    for name in (DB_FILE_NAME + "-wal", DB_FILE_NAME + "-shm"):
        assert not (data_dir / name).exists()
    return (data_dir / KEY_FILE_NAME).read_bytes()


def _listing(data_dir: Path) -> dict[str, bytes]:
    return {
        p.name: (p.read_bytes() if p.is_file() else b"<dir>")
        for p in sorted(data_dir.iterdir())
        if p.name != "index"
    }


DAMAGE = {
    "empty": b"",
    "garbage": b"this is not a database at all\n" * 10,
    "sqlite header only": b"SQLite format 3\x00" + b"\x00" * 84,
}


@pytest.mark.parametrize("create", [False, True], ids=["open", "open-or-create"])
@pytest.mark.parametrize("damage", list(DAMAGE), ids=list(DAMAGE))
def test_a_damaged_database_file_is_refused_and_nothing_is_written(
    data_dir: Path, damage: str, create: bool
) -> None:
    """An emptied file used to be taken for a new store: a new key replaced the old one."""
    _make_store(data_dir)
    (data_dir / DB_FILE_NAME).write_bytes(DAMAGE[damage])
    before = _listing(data_dir)
    with pytest.raises(IntegrityError, match="the store file is empty or damaged") as caught:
        MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False, create=create)
    assert str(data_dir / DB_FILE_NAME) in str(caught.value)
    assert _listing(data_dir) == before


def test_a_database_without_a_store_is_refused(data_dir: Path) -> None:
    _make_store(data_dir)
    (data_dir / DB_FILE_NAME).unlink()
    conn = sqlite3.connect(data_dir / DB_FILE_NAME)
    conn.execute("CREATE TABLE unrelated (x)")
    conn.commit()
    conn.close()
    (data_dir / KEY_FILE_NAME).rename(data_dir / "elsewhere.json")
    with pytest.raises(IntegrityError, match="empty or damaged"):
        MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)


def test_init_beside_an_orphan_key_file_keeps_it(data_dir: Path) -> None:
    """`init` in a folder with a key file and no database used to overwrite the key file."""
    key = _make_store(data_dir)
    for name in os.listdir(data_dir):
        if name.startswith(DB_FILE_NAME):
            (data_dir / name).unlink()
    with pytest.raises(ResourceUnavailableError, match="no store database beside it"):
        MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)
    assert (data_dir / KEY_FILE_NAME).read_bytes() == key
    assert not (data_dir / DB_FILE_NAME).exists()


def test_a_failed_open_of_a_store_without_its_lock_file_removes_nothing(data_dir: Path) -> None:
    """A wrong passphrase on a store copied without `.open.lock` used to delete the
    database and the key file (the cleanup of a failed first `init`)."""
    key = _make_store(data_dir)
    (data_dir / LOCK_FILE_NAME).unlink()
    database = (data_dir / DB_FILE_NAME).read_bytes()
    with pytest.raises(KeyUnavailableError):
        MemoryService.open(data_dir, passphrase="another passphrase", prefer_keyring=False)
    assert (data_dir / DB_FILE_NAME).read_bytes() == database
    assert (data_dir / KEY_FILE_NAME).read_bytes() == key
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        assert len(svc.memories.list_memories()) == 1


def test_key_file_creation_never_replaces_a_file(tmp_path: Path) -> None:
    path = tmp_path / KEY_FILE_NAME
    first = KeySet.generate()
    PassphraseKeyStore(path, PASSPHRASE).create(first)
    written = path.read_bytes()
    with pytest.raises(KeyUnavailableError, match="never replaced"):
        PassphraseKeyStore(path, PASSPHRASE).create(KeySet.generate())
    assert path.read_bytes() == written
    assert PassphraseKeyStore(path, PASSPHRASE).load().to_bytes() == first.to_bytes()
    assert [p.name for p in tmp_path.iterdir()] == [KEY_FILE_NAME]  # no temporary left


def test_racing_key_file_creations_leave_one_file_that_opens(tmp_path: Path) -> None:
    """Two creations at once: exactly one wins; the file opens with the passphrase and
    holds the winner's keys (it used to be the last writer's, whatever the other reported)."""
    path = tmp_path / KEY_FILE_NAME
    sets = [KeySet.generate() for _ in range(4)]
    won: list[KeySet] = []
    barrier = threading.Barrier(len(sets))

    def create(keys: KeySet) -> None:
        barrier.wait()
        try:
            PassphraseKeyStore(path, PASSPHRASE).create(keys)
        except KeyUnavailableError:
            return
        won.append(keys)

    threads = [threading.Thread(target=create, args=(k,)) for k in sets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 1
    assert PassphraseKeyStore(path, PASSPHRASE).load().to_bytes() == won[0].to_bytes()


def test_racing_first_opens_create_one_store(tmp_path: Path) -> None:
    data_dir = tmp_path / "s"
    barrier = threading.Barrier(3)
    errors: list[BaseException] = []

    def first_open() -> None:
        barrier.wait()
        try:
            MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False).close()
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=first_open) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        assert svc.verify().ok


def test_a_lock_file_replaced_by_a_folder_is_one_clear_error(data_dir: Path) -> None:
    _make_store(data_dir)
    (data_dir / LOCK_FILE_NAME).unlink()
    (data_dir / LOCK_FILE_NAME).mkdir()
    with pytest.raises(ResourceUnavailableError, match="lock file is not a regular file"):
        MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)
    assert (data_dir / LOCK_FILE_NAME).is_dir()

"""Key files and user files at their edges: a file that changes between the write and the
read-back, file systems without hard links or folder fsync, odd things at a user's path, and
invitations from an older version (R24).

Real files, real scrypt and AES-GCM. Where the situation comes from the operating system or
from another process (a second writer, damaged storage, a file system that refuses hard
links), it is staged at an os-level call (`os.fsync`, `os.link`, `os.open`); the project's own
code runs unchanged.
"""

from __future__ import annotations

import base64
import errno
import json
import os
import socket
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from core import InvalidInputError, KeyUnavailableError, write_user_file
from core.crypto.invitation import Invitation, new_code, open_invitation, seal_invitation
from core.crypto.keys import KEY_FILE_NAME, KeySet, PassphraseKeyStore
from tests.conftest import PASSPHRASE

OTHER_PASSPHRASE = "another passphrase, another store"


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def _at_folder_fsync(monkeypatch: pytest.MonkeyPatch, action: Callable[[], None]) -> None:
    """Run `action` once, the first time a folder is fsynced: the moment the key file has
    just been put in place and is about to be read back. `action` stands for what another
    process or the storage does to the file at that moment."""
    real_fsync = os.fsync
    fired = False

    def fsync(fd: int) -> None:
        nonlocal fired
        if not fired and stat.S_ISDIR(os.fstat(fd).st_mode):
            fired = True
            action()
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def _truncate(path: Path) -> Callable[[], None]:
    """Storage that kept only the first half of the file."""

    def truncate() -> None:
        raw = path.read_bytes()
        path.write_bytes(raw[: len(raw) // 2])

    return truncate


def _saved_by_another_writer(path: Path, passphrase: str, keys: KeySet) -> Callable[[], None]:
    """Another process saving its own key set at the same path."""
    return lambda: PassphraseKeyStore(path, passphrase).save(keys)


def _resealed_with_same_salt(path: Path, keys: KeySet) -> Callable[[], None]:
    """The file replaced by one sealed with the same passphrase and salt (hence the same
    derived key) but holding other keys: only the key check can tell the difference."""

    def reseal() -> None:
        doc = json.loads(path.read_bytes())
        salt = base64.b64decode(doc["salt"])
        kek = Scrypt(salt=salt, length=32, n=doc["n"], r=doc["r"], p=doc["p"]).derive(
            PASSPHRASE.encode()
        )
        nonce = os.urandom(12)
        doc["nonce"] = base64.b64encode(nonce).decode()
        sealed = AESGCM(kek).encrypt(nonce, keys.to_bytes(), b"keyset")
        doc["ciphertext"] = base64.b64encode(sealed).decode()
        path.write_bytes(json.dumps(doc).encode())

    return reseal


# --- create: the new key file is read back and unlocked before the store is ready ----------


@pytest.mark.parametrize("damage", ["truncated", "another passphrase"])
def test_a_new_key_file_that_does_not_open_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    path = tmp_path / KEY_FILE_NAME
    keys = KeySet.generate()
    action = (
        _truncate(path)
        if damage == "truncated"
        else _saved_by_another_writer(path, OTHER_PASSPHRASE, KeySet.generate())
    )
    _at_folder_fsync(monkeypatch, action)
    with pytest.raises(KeyUnavailableError) as caught:
        PassphraseKeyStore(path, PASSPHRASE).create(keys)
    message = str(caught.value)
    assert "the new key file does not open with the passphrase" in message
    assert str(path) in message
    # The cause is named too: a malformed file, or a passphrase that does not unlock it.
    assert ("malformed" if damage == "truncated" else "wrong passphrase") in message
    assert _leftovers(tmp_path) == []


def test_a_new_key_file_replaced_by_another_writer_is_reported_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / KEY_FILE_NAME
    mine, theirs = KeySet.generate(), KeySet.generate()
    _at_folder_fsync(monkeypatch, _saved_by_another_writer(path, PASSPHRASE, theirs))
    with pytest.raises(KeyUnavailableError, match="the new key file holds other keys") as caught:
        PassphraseKeyStore(path, PASSPHRASE).create(mine)
    assert str(path) in str(caught.value)
    monkeypatch.undo()
    # The other writer's file is left as it is: create never writes over a key file.
    assert PassphraseKeyStore(path, PASSPHRASE).load().to_bytes() == theirs.to_bytes()
    assert _leftovers(tmp_path) == []


# --- save: the replaced file is read back and opened with the key just derived -------------


@pytest.mark.parametrize("damage", ["removed", "truncated", "saved by another writer"])
def test_a_saved_key_file_that_does_not_read_back_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    path = tmp_path / KEY_FILE_NAME
    store = PassphraseKeyStore(path, PASSPHRASE)
    store.create(KeySet.generate())
    rotated = store.load().with_new_key()
    actions: dict[str, Callable[[], None]] = {
        "removed": path.unlink,
        "truncated": _truncate(path),
        # Same passphrase, fresh salt: the key derived for this save does not open it.
        "saved by another writer": _saved_by_another_writer(path, PASSPHRASE, KeySet.generate()),
    }
    _at_folder_fsync(monkeypatch, actions[damage])
    with pytest.raises(KeyUnavailableError) as caught:
        store.save(rotated)
    message = str(caught.value)
    assert message.startswith("the key file did not read back as written")
    assert str(path) in message
    if damage != "saved by another writer":
        assert {"removed": "No such file", "truncated": "malformed"}[damage] in message
    assert _leftovers(tmp_path) == []


def test_a_saved_key_file_that_fails_authentication_names_the_cause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / KEY_FILE_NAME
    store = PassphraseKeyStore(path, PASSPHRASE)
    store.create(KeySet.generate())
    _at_folder_fsync(monkeypatch, _saved_by_another_writer(path, PASSPHRASE, KeySet.generate()))
    with pytest.raises(KeyUnavailableError) as caught:
        store.save(store.load().with_new_key())
    assert not str(caught.value).endswith(": ")


def test_a_saved_key_file_that_opens_but_holds_other_keys_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / KEY_FILE_NAME
    store = PassphraseKeyStore(path, PASSPHRASE)
    store.create(KeySet.generate())
    rotated = store.load().with_new_key()
    other = KeySet.generate()
    _at_folder_fsync(monkeypatch, _resealed_with_same_salt(path, other))
    with pytest.raises(KeyUnavailableError, match="the key file holds other keys") as caught:
        store.save(rotated)
    assert str(path) in str(caught.value)
    monkeypatch.undo()
    assert store.load().to_bytes() == other.to_bytes()


def test_a_key_set_with_an_empty_database_password_is_saved(tmp_path: Path) -> None:
    store = PassphraseKeyStore(tmp_path / KEY_FILE_NAME, PASSPHRASE)
    keys = KeySet.generate()
    store.create(keys)
    store.save(KeySet(keys.keys, keys.active_id, keys.fingerprint_key, db_password=""))


# --- file systems without hard links --------------------------------------------------------


def _no_hard_links(monkeypatch: pytest.MonkeyPatch) -> None:
    def link(src: object, dst: object, *args: object, **kwargs: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", link)


def test_a_key_file_is_created_where_hard_links_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / KEY_FILE_NAME
    keys = KeySet.generate()
    _no_hard_links(monkeypatch)
    PassphraseKeyStore(path, PASSPHRASE).create(keys)
    assert PassphraseKeyStore(path, PASSPHRASE).load().to_bytes() == keys.to_bytes()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("occupant", ["key file", "dangling symbolic link"])
def test_an_existing_key_file_is_never_replaced_where_hard_links_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, occupant: str
) -> None:
    path = tmp_path / KEY_FILE_NAME
    if occupant == "key file":
        PassphraseKeyStore(path, PASSPHRASE).create(KeySet.generate())
        before = path.read_bytes()
    else:
        path.symlink_to(tmp_path / "nowhere")
    _no_hard_links(monkeypatch)
    with pytest.raises(KeyUnavailableError, match="a key file is there already") as caught:
        PassphraseKeyStore(path, PASSPHRASE).create(KeySet.generate())
    assert str(path) in str(caught.value)
    if occupant == "key file":
        assert path.read_bytes() == before
    else:
        assert path.is_symlink() and not (tmp_path / "nowhere").exists()
    assert _leftovers(tmp_path) == []


# --- folders that cannot be opened or fsynced -----------------------------------------------


def test_a_key_file_is_written_where_folders_cannot_be_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = os.open

    def open_(path: str | os.PathLike[str], flags: int, *args: int, **kwargs: object) -> int:
        if Path(path).is_dir():
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", open_)
    store = PassphraseKeyStore(tmp_path / KEY_FILE_NAME, PASSPHRASE)
    keys = KeySet.generate()
    store.create(keys)
    rotated = keys.with_new_key()
    store.save(rotated)
    assert store.load().to_bytes() == rotated.to_bytes()
    assert _leftovers(tmp_path) == []


def test_a_key_file_is_written_where_folders_cannot_be_fsynced_and_the_folder_is_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open, real_fsync, real_close = os.open, os.fsync, os.close
    folder_fds: list[int] = []
    closed: list[int] = []

    def open_(path: str | os.PathLike[str], flags: int, *args: int, **kwargs: object) -> int:
        fd = real_open(path, flags, *args)
        if Path(path).is_dir():
            folder_fds.append(fd)
        return fd

    def fsync(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "Invalid argument")
        real_fsync(fd)

    def close(fd: int) -> None:
        closed.append(fd)
        real_close(fd)

    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "close", close)
    store = PassphraseKeyStore(tmp_path / KEY_FILE_NAME, PASSPHRASE)
    keys = KeySet.generate()
    store.create(keys)
    store.save(keys.with_new_key())
    monkeypatch.undo()
    assert len(folder_fds) == 2  # one folder fsync per write, each refused
    assert [fd for fd in closed if fd in folder_fds] == folder_fds
    assert store.load().active_id != keys.active_id


# --- write_user_file: only over nothing or a regular file ----------------------------------


def test_a_user_file_under_a_regular_file_is_refused(tmp_path: Path) -> None:
    parent = tmp_path / "notes.txt"
    parent.write_bytes(b"keep me")
    with pytest.raises(InvalidInputError) as caught:
        write_user_file(parent / "export.json", b"data", "--out")
    assert caught.value.field == "--out"
    assert "cannot write" in caught.value.problem and "Not a directory" in caught.value.problem
    assert parent.read_bytes() == b"keep me"


def test_a_user_file_with_a_name_too_long_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError) as caught:
        write_user_file(tmp_path / ("x" * 300), b"data", "--out")
    assert caught.value.field == "--out"
    assert "File name too long" in caught.value.problem
    assert list(tmp_path.iterdir()) == []


def test_a_symbolic_link_at_a_user_path_is_refused_and_its_target_kept(tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_bytes(b"keep me")
    link = tmp_path / "export.json"
    link.symlink_to(target)
    with pytest.raises(InvalidInputError, match="is a symbolic link") as caught:
        write_user_file(link, b"data", "--out")
    assert caught.value.field == "--out"
    assert "give the name of a regular file or of a new one" in caught.value.problem
    assert link.is_symlink() and target.read_bytes() == b"keep me"


def test_a_folder_at_a_user_path_is_refused_and_kept(tmp_path: Path) -> None:
    folder = tmp_path / "export.json"
    folder.mkdir()
    (folder / "inside").write_bytes(b"keep me")
    with pytest.raises(InvalidInputError, match="is a folder"):
        write_user_file(folder, b"data", "--out")
    assert (folder / "inside").read_bytes() == b"keep me"


def test_a_fifo_at_a_user_path_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "export.json"
    os.mkfifo(fifo)
    with pytest.raises(InvalidInputError, match="is a FIFO"):
        write_user_file(fifo, b"data", "--out")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert _leftovers(tmp_path) == []


def test_a_device_at_a_user_path_is_refused_and_stays_a_device() -> None:
    device = Path(os.devnull)
    with pytest.raises(InvalidInputError, match="is a device"):
        write_user_file(device, b"data", "--out")
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_a_socket_at_a_user_path_is_refused_as_not_a_regular_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a short relative name: socket paths are limited to ~100 bytes
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind("s")
        with pytest.raises(InvalidInputError, match="is not a regular file"):
            write_user_file(tmp_path / "s", b"data", "--out")
        assert stat.S_ISSOCK(os.lstat(tmp_path / "s").st_mode)
    assert _leftovers(tmp_path) == []


def test_a_new_user_file_is_written_whole_and_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    write_user_file(path, b"data", "--out")
    assert path.read_bytes() == b"data"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert _leftovers(tmp_path) == []


def test_a_user_file_in_a_missing_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError) as caught:
        write_user_file(tmp_path / "missing" / "export.json", b"data", "--out")
    assert caught.value.field == "--out"
    assert "cannot write" in caught.value.problem and "No such file" in caught.value.problem
    assert list(tmp_path.iterdir()) == []


# --- re-reading a key file: every field is checked before scrypt runs -----------------------


def _edited_key_file(tmp_path: Path, **fields: object) -> Path:
    path = tmp_path / KEY_FILE_NAME
    PassphraseKeyStore(path, PASSPHRASE).create(KeySet.generate())
    doc = json.loads(path.read_bytes())
    doc.update(fields)
    path.write_bytes(json.dumps(doc).encode())
    return path


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"kdf": "argon2id"}, "unknown kdf"),
        ({"n": 3 * 2**10}, "n = 3072 is not a power of two"),
        ({"n": 2**20, "r": 8}, "n * r asks scrypt for more than"),
        ({"salt": 16}, "salt must be a base64 string of at most 64 bytes"),
        ({"salt": "A" * 200}, "salt must be a base64 string of at most 64 bytes"),
        ({"salt": "not base64!"}, "salt is not base64"),
    ],
)
def test_a_key_file_with_a_bad_field_is_refused_naming_it(
    tmp_path: Path, fields: dict[str, object], named: str
) -> None:
    path = _edited_key_file(tmp_path, **fields)
    before = path.read_bytes()
    with pytest.raises(KeyUnavailableError) as caught:
        PassphraseKeyStore(path, PASSPHRASE).load()
    message = str(caught.value)
    assert message.startswith(f"key file is malformed: {path}: ")
    assert named in message
    assert path.read_bytes() == before


def test_an_oversized_key_file_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    path = _edited_key_file(tmp_path, padding="x" * 70_000)
    with pytest.raises(KeyUnavailableError, match="larger than 65536 bytes"):
        PassphraseKeyStore(path, PASSPHRASE).load()


def test_a_passphrase_that_is_not_text_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / KEY_FILE_NAME
    PassphraseKeyStore(path, PASSPHRASE).create(KeySet.generate())
    before = path.read_bytes()
    undecodable = os.fsdecode(b"passphrase \xff\xfe")  # as read from a non-UTF-8 terminal
    with pytest.raises(InvalidInputError) as caught:
        PassphraseKeyStore(path, undecodable).load()
    assert caught.value.field == "passphrase"
    assert "not valid UTF-8" in caught.value.problem
    assert path.read_bytes() == before


# --- invitations from an older version ------------------------------------------------------


def test_a_version_1_invitation_asks_for_a_new_one() -> None:
    code = new_code()
    invitation = Invitation("store-1", "postgresql://server/db", "alice", KeySet.generate())
    doc = json.loads(seal_invitation(invitation, code))
    doc["version"] = 1
    with pytest.raises(InvalidInputError) as caught:
        open_invitation(json.dumps(doc).encode(), code)
    assert caught.value.field == "invitation"
    assert "older version" in caught.value.problem
    assert "ask for a new invitation" in caught.value.problem


# --- what the team store keeps in a key set, and a key file that is there already -----------


def test_a_team_devices_signing_key_and_anchor_survive_the_key_file(tmp_path: Path) -> None:
    store = PassphraseKeyStore(tmp_path / KEY_FILE_NAME, PASSPHRASE)
    base = KeySet.generate()
    keys = KeySet(
        base.keys,
        base.active_id,
        base.fingerprint_key,
        signing_key=os.urandom(32),
        anchor="ab" * 32,
        db_password="s3cret",
    )
    store.create(keys)
    read = store.load()
    assert (read.signing_key, read.anchor, read.db_password) == (
        keys.signing_key,
        keys.anchor,
        "s3cret",
    )


def test_creating_over_an_existing_key_file_is_refused_and_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / KEY_FILE_NAME
    store = PassphraseKeyStore(path, PASSPHRASE)
    store.create(KeySet.generate())
    before = path.read_bytes()
    with pytest.raises(KeyUnavailableError, match="a key file is there already"):
        store.create(KeySet.generate())
    assert path.read_bytes() == before

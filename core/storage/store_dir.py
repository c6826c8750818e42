"""What a store keeps in its directory on this machine: the lock that makes opening
exclusive, `store.json` (a server store's URL, key source and this device's id), and the
clean-up of a store whose creation failed.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from core.crypto.keys import (
    KEY_FILE_NAME,
    atomic_write,
)
from core.errors import (
    ResourceUnavailableError,
)
from core.storage.store import DB_FILE_NAME

LOCK_FILE_NAME = ".open.lock"


# This machine's view of a server store: the database URL and the key source it uses.
LOCAL_CONFIG_NAME = "store.json"


def refuse_orphan_key_file(data_dir: Path) -> None:
    """A key file with no database beside it may be the only key to a backup of the
    store: a new store is never created over it."""
    key_file = data_dir / KEY_FILE_NAME
    if key_file.exists() or key_file.is_symlink():
        raise ResourceUnavailableError(
            f"{key_file} exists but there is no store database beside it; it may be the "
            "only key to a backup of that store. Restore the database, or move the key "
            "file elsewhere before creating a new store here"
        )


def configured_database_url(data_dir: Path) -> str | None:
    """The server URL this directory's store lives on, or None for a local SQLite store."""
    config = local_config(data_dir)
    url = config.get("database_url")
    return url if isinstance(url, str) and url else None


def device_id(data_dir: Path) -> str:
    """This machine's device id for the server store in `data_dir` ("" for a local store)."""
    return str(local_config(data_dir).get("device_id") or "")


def local_config(data_dir: Path) -> dict[str, object]:
    path = data_dir / LOCAL_CONFIG_NAME
    if not path.exists():
        return {}
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ResourceUnavailableError(f"cannot read {path}: {exc}") from None
    if not isinstance(loaded, dict):
        raise ResourceUnavailableError(f"{path} is not a JSON object")
    return loaded


def save_local_config(data_dir: Path, config: dict[str, object]) -> None:
    # Owner-only (the URL may carry a password), whole and durable: it names the key source
    # and the store id that keep a later open from taking an emptied server for a new store.
    atomic_write(data_dir / LOCAL_CONFIG_NAME, json.dumps(config, indent=2).encode("utf-8"))


@contextlib.contextmanager
def directory_lock(data_dir: Path) -> Iterator[None]:
    """An exclusive advisory lock on the store directory (POSIX; a no-op elsewhere)."""
    try:
        import fcntl
    except ImportError:  # Windows: SQLite's own locking still protects the data
        yield
        return
    path = data_dir / LOCK_FILE_NAME
    while True:
        handle = _open_lock_file(path)
        with handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                # A failed first `init` removes the lock file it made: a process that waited
                # on that file would hold a lock nobody else sees, and two creations would
                # run at once. Held only while the name still points at the locked file.
                if not _same_file(handle, path):
                    continue
                yield
                return
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _open_lock_file(path: Path) -> BinaryIO:
    if path.is_dir() or (path.exists() and not path.is_file()):
        raise ResourceUnavailableError(
            f"the store's lock file is not a regular file: {path} (remove it; it is "
            "recreated empty)"
        )
    try:
        return open(path, "a+b")  # closed by the caller's `with`
    except OSError as exc:
        raise ResourceUnavailableError(f"cannot open the store's lock file {path}: {exc}") from None


def _same_file(handle: BinaryIO, path: Path) -> bool:
    try:
        named = path.stat()
    except OSError:
        return False
    held = os.fstat(handle.fileno())
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def ensure_dir(data_dir: Path) -> None:
    try:
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise ResourceUnavailableError(
            f"cannot create the store directory {data_dir}: {exc}"
        ) from None
    if not os.access(data_dir, os.W_OK):
        raise ResourceUnavailableError(f"the store directory is not writable: {data_dir}")


def remove_new_store(data_dir: Path) -> None:
    """Undo a store creation that failed half-way, so a retry starts clean. Called only
    when this open created the database; a key file is there only if it wrote it too
    (`refuse_orphan_key_file` refuses to create a store beside an older one)."""
    for name in (DB_FILE_NAME, DB_FILE_NAME + "-wal", DB_FILE_NAME + "-shm", KEY_FILE_NAME):
        (data_dir / name).unlink(missing_ok=True)


def discard_new_store(
    data_dir: Path, *, remove_lock: bool, remove_dir: bool, files: bool = True
) -> None:
    """Undo the creation of a store that was never usable (a failed `init`): its files
    (when `files`: only a caller that knows it created them asks), and the lock file and
    directory when this creation made them. A directory that holds anything else is left
    alone."""
    if files:
        remove_new_store(data_dir)
    if remove_lock:
        (data_dir / LOCK_FILE_NAME).unlink(missing_ok=True)
    if not remove_dir:
        return
    with contextlib.suppress(OSError):
        data_dir.rmdir()

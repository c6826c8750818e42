"""Key rotation (R24): re-encrypt every sealed value under a new key, resumably.

Order matters for safety: (1) the new key is added to the key set and saved while the old
one stays; (2) rows are re-sealed in small committed batches, skipping rows already under
the new key, so an interruption loses nothing and a rerun continues; (3) only when no row
uses an old key is the old key removed from the key set.
"""

from __future__ import annotations

from collections.abc import Callable

from core.crypto.codec import Codec
from core.crypto.keys import KeySet, KeyStore
from core.errors import RotationInterruptedError as RotationInterruptedError  # old home
from core.model.enums import ChangeKind
from core.model.records import RotationReport
from core.storage import devices, event_log
from core.storage.opener import KEY_CHECK_PLAINTEXT, key_check_aad
from core.storage.sealed import SEALED, reseal_batch
from core.storage.store import Store, set_meta

Progress = Callable[[int], None]


def rotate(
    store: Store,
    key_store: KeyStore,
    keys: KeySet,
    store_id: str,
    *,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    batch: int = 500,
) -> tuple[KeySet, RotationReport]:
    """Rotate to a new data key, or finish a rotation that was interrupted.

    Returns:
        The final key set (old keys retired) and a report.
    """
    resumed = keys.pending_id is not None
    old_id = next((k for k in keys.keys if k != keys.active_id), keys.active_id)
    if not resumed:
        old_id = keys.active_id
        keys = keys.with_new_key()
        key_store.save(keys)
    _publish_to_devices(store, keys)
    codec = Codec(keys, reload=key_store.load)
    store.replace_codec(codec)
    with store.write("announce the new key") as tx:
        set_meta(tx.conn, "active_key_id", keys.active_id)
        tx.touch(ChangeKind.KEYS)
    done = 0
    for column in SEALED:
        last = None
        while True:
            if should_stop and should_stop():
                raise RotationInterruptedError(
                    f"key rotation paused after {done} rows; run it again to finish"
                )
            # Read and re-seal in one write transaction, so a concurrent purge or edit of
            # these rows cannot be overwritten with their older content.
            with store.write("re-encrypt under the new key") as tx:
                chunk = column.batch_after(tx.conn, last, batch)
                if chunk:
                    done += reseal_batch(tx.conn, codec, column, chunk)
                    tx.touch(ChangeKind.KEYS)
            if not chunk:
                break
            last = column.key_of(chunk[-1])
            if progress:
                progress(done)
    with store.write("finish key rotation") as tx:
        sealed = codec.seal(KEY_CHECK_PLAINTEXT, key_check_aad(store_id))
        set_meta(tx.conn, "key_check", sealed.hex())
        head = event_log.read_head(tx.conn, codec)
        if head is not None:
            event_log.write_head(tx, *head)
        tx.touch(ChangeKind.KEYS)
    final = keys.retire_others()
    key_store.save(final)
    _publish_to_devices(store, final)
    store.replace_codec(Codec(final, reload=key_store.load))
    return final, RotationReport(old_id, final.active_id, done, resumed)


def _publish_to_devices(store: Store, keys: KeySet) -> None:
    """On a shared store, seal the key set to every device still a member (before use)."""
    if not store.is_server:
        return
    with store.write("share the new key with the store's devices") as tx:
        devices.publish(tx.conn, keys)
        tx.touch(ChangeKind.KEYS)

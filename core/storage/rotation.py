"""Key rotation (R24): re-encrypt every sealed value under a new key, resumably.

Order matters for safety: (1) the new key is added to the key set and saved while the old
one stays; (2) rows are re-sealed in small committed batches, skipping rows already under
the new key, so an interruption loses nothing and a rerun continues; (3) only when no row
uses an old key is the old key removed from the key set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import func, select

from core.crypto.codec import Codec
from core.crypto.keys import KeySet, KeyStore
from core.errors import RotationInterruptedError as RotationInterruptedError  # old home
from core.model.enums import ChangeKind
from core.model.records import RotationProgress, RotationReport
from core.storage import devices, event_log
from core.storage.meta import set_meta
from core.storage.opener import KEY_CHECK_PLAINTEXT, key_check_aad
from core.storage.sealed import SEALED, SealedColumn, reseal_batch
from core.storage.store import Store

Progress = Callable[[int], None]
Watcher = Callable[[RotationProgress], None]


def rotate(
    store: Store,
    key_store: KeyStore,
    keys: KeySet,
    store_id: str,
    *,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    batch: int = 500,
    watch: Watcher | None = None,
) -> tuple[KeySet, RotationReport]:
    """Rotate to a new data key, or finish a rotation that was interrupted.

    `progress` hears the count of re-encrypted values; `watch` hears a `RotationProgress`
    (phase, values visited out of the total counted at the start) after every batch.

    Returns:
        The final key set (old keys retired) and a report.
    """
    resumed = keys.pending_id is not None
    old_id = next((k for k in keys.keys if k != keys.active_id), keys.active_id)
    if not resumed:
        old_id = keys.active_id
        keys = keys.with_new_key()
        key_store.save(keys)
    _publish_to_devices(store, keys, store_id, _device_of(key_store))
    codec = Codec(keys, reload=key_store.load)
    store.replace_codec(codec)
    with store.write("announce the new key") as tx:
        set_meta(tx.conn, "active_key_id", keys.active_id)
        tx.touch(ChangeKind.KEYS)
    tally = _Tally(progress, watch, count_sealed(store))
    tally.tell("sealing")
    for column in SEALED:
        _reseal_column(store, codec, column, tally, should_stop, batch)
    tally.tell("finishing")
    with store.write("finish key rotation") as tx:
        sealed = codec.seal(KEY_CHECK_PLAINTEXT, key_check_aad(store_id))
        set_meta(tx.conn, "key_check", sealed.hex())
        head = event_log.read_head(tx.conn, codec)
        if head is not None:
            event_log.write_head(tx, *head)
        tx.touch(ChangeKind.KEYS)
    final = keys.retire_others()
    key_store.save(final)
    _publish_to_devices(store, final, store_id, _device_of(key_store))
    store.replace_codec(Codec(final, reload=key_store.load))
    tally.tell("done")
    return final, RotationReport(old_id, final.active_id, tally.done, resumed)


@dataclass
class _Tally:
    """Counts of one rotation run, told to its listeners."""

    progress: Progress | None
    watch: Watcher | None
    total: int
    done: int = 0
    visited: int = 0

    def tell(self, phase: str) -> None:
        if self.progress and phase == "sealing" and self.visited:
            self.progress(self.done)
        if self.watch:
            total = max(self.total, self.visited)
            self.watch(RotationProgress(phase, self.visited, total, self.done))


def _reseal_column(
    store: Store,
    codec: Codec,
    column: SealedColumn,
    tally: _Tally,
    should_stop: Callable[[], bool] | None,
    batch: int,
) -> None:
    last = None
    while True:
        if should_stop and should_stop():
            raise RotationInterruptedError(
                f"key rotation paused after {tally.done} rows; run it again to finish"
            )
        # Read and re-seal in one write transaction, so a concurrent purge or edit of
        # these rows cannot be overwritten with their older content.
        with store.write("re-encrypt under the new key") as tx:
            chunk = column.batch_after(tx.conn, last, batch)
            if chunk:
                tally.done += reseal_batch(tx.conn, codec, column, chunk)
                tx.touch(ChangeKind.KEYS)
        if not chunk:
            return
        last = column.key_of(chunk[-1])
        tally.visited += len(chunk)
        tally.tell("sealing")


def count_sealed(store: Store) -> int:
    """How many sealed values a rotation walks (the total of its progress)."""
    with store.read("count sealed values") as conn:
        return sum(
            int(
                conn.execute(
                    select(func.count())
                    .select_from(column.table)
                    .where(column.table.c[column.column].is_not(None))
                ).scalar_one()
            )
            for column in SEALED
        )


def _device_of(key_store: KeyStore) -> str:
    """This device's id on a shared store ("" for a local one): it signs the envelopes."""
    return str(getattr(key_store, "device_id", ""))


def _publish_to_devices(store: Store, keys: KeySet, store_id: str, signer: str) -> None:
    """On a shared store, seal the key set to every device the signed membership trusts
    (before use)."""
    if not store.is_server:
        return
    with store.write("share the new key with the store's devices") as tx:
        devices.publish(tx.conn, keys, store_id, signer)
        tx.touch(ChangeKind.KEYS)

"""Key substitution on a team store (#41, R24): an envelope of a key of the attacker's
choosing, or an envelope sealed to a key swapped into a `devices` row, is never adopted.
Performed on a real PostgreSQL server, as the database administrator (the superuser: any
row, no keys) and as a teammate who holds his own device's signing key.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import psycopg
import pytest

from core import KeyUnavailableError, MemoryService
from core.crypto.envelope import new_device_key, open_with, public_of
from core.crypto.keys import KEY_FILE_NAME, KeySet, PassphraseKeyStore, new_personal_key
from core.crypto.signed_envelope import parse, seal_signed
from core.errors import IntegrityError
from tests.core.storage.test_team_attacks import ANA, SECRET, TEAM, _join, _keys, _open

pytestmark = pytest.mark.usefixtures("pg_server")


def _sql(url: str, query: str, *args: object) -> list[tuple[object, ...]]:
    with psycopg.connect(url) as conn:
        cur = conn.execute(query, args)
        return list(cur.fetchall()) if cur.description else []


def _device_of(data_dir: Path) -> str:
    import json

    return str(json.loads((data_dir / "store.json").read_text())["device_id"])


@pytest.fixture
def team(pg_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    ana = _open(tmp_path / "ana-desk", "ana passphrase", pg_url, member="ana")
    ben = _join(ana, tmp_path / "ben-desk", "ben", "ben passphrase")
    try:
        yield ana, ben, tmp_path
    finally:
        ben.close()
        ana.close()


def _substitute_team_key(
    url: str, victim_dir: Path, attacker: KeySet, signer: str, signing_key: bytes
) -> KeySet:
    """Seal a team key of the attacker's making to the victim's device and announce it."""
    chosen = attacker.team_only().with_new_key()
    victim = _device_of(victim_dir)
    (public_hex,) = _sql(url, "SELECT public_key FROM devices WHERE device_id=%s", victim)[0]
    envelope = seal_signed(
        bytes.fromhex(str(public_hex)),
        chosen.team_only().to_bytes(),
        f"devices|{victim}|envelope".encode(),
        signer,
        signing_key,
    )
    _sql(
        url,
        "UPDATE devices SET envelope=%s, key_id=%s WHERE device_id=%s",
        envelope,
        chosen.active_id,
        victim,
    )
    _sql(url, "UPDATE store_meta SET value=%s WHERE key='active_key_id'", chosen.active_id)
    return chosen


@pytest.mark.parametrize("who", ["teammate", "forged signer", "unsigned"])
def test_a_team_key_of_the_attackers_choosing_is_never_adopted(
    team: tuple[MemoryService, MemoryService, Path], pg_url: str, who: str
) -> None:
    ana, ben, tmp_path = team
    ana.close()
    ben.close()
    ben_keys = _keys(tmp_path / "ben-desk", "ben passphrase")
    assert ben_keys.signing_key is not None
    if who == "teammate":  # ben signs as himself: a member may not share the store's key
        signer, key = _device_of(tmp_path / "ben-desk"), ben_keys.signing_key
    elif who == "forged signer":  # names ana's own device, signed with ben's key
        signer, key = _device_of(tmp_path / "ana-desk"), ben_keys.signing_key
    else:
        signer, key = "", b""
    if who == "unsigned":
        from core.crypto.envelope import seal_to

        chosen = ben_keys.team_only().with_new_key()
        victim = _device_of(tmp_path / "ana-desk")
        (public_hex,) = _sql(pg_url, "SELECT public_key FROM devices WHERE device_id=%s", victim)[0]
        raw = seal_to(
            bytes.fromhex(str(public_hex)),
            chosen.to_bytes(),
            f"devices|{victim}|envelope".encode(),
        )
        _sql(
            pg_url,
            "UPDATE devices SET envelope=%s, key_id=%s WHERE device_id=%s",
            raw,
            chosen.active_id,
            victim,
        )
        _sql(pg_url, "UPDATE store_meta SET value=%s WHERE key='active_key_id'", chosen.active_id)
    else:
        chosen = _substitute_team_key(pg_url, tmp_path / "ana-desk", ben_keys, signer, key)
    with pytest.raises(KeyUnavailableError, match="new key was not taken"):
        _open(tmp_path / "ana-desk", "ana passphrase")
    # Ana's device kept its own keys: nothing she writes is ever sealed with ben's key.
    assert chosen.active_id not in _keys(tmp_path / "ana-desk", "ana passphrase").keys


def test_a_public_key_swapped_into_a_devices_row_gets_no_envelope(
    team: tuple[MemoryService, MemoryService, Path], pg_url: str
) -> None:
    ana, ben, tmp_path = team
    ben.close()
    laptop = _join(ana, tmp_path / "ana-laptop", "ana", "laptop passphrase")
    laptop.close()
    laptop_id = _device_of(tmp_path / "ana-laptop")
    stolen = new_device_key()
    _sql(
        pg_url,
        "UPDATE devices SET public_key=%s WHERE device_id=%s",
        public_of(stolen).hex(),
        laptop_id,
    )
    report = ana.keys.rotate().value
    (envelope,) = _sql(pg_url, "SELECT envelope FROM devices WHERE device_id=%s", laptop_id)[0]
    sealed = parse(bytes(envelope))  # type: ignore[arg-type]
    # Sealed to the key the laptop's signed registration names, not the swapped one.
    with pytest.raises(IntegrityError):
        open_with(stolen, sealed.sealed, f"devices|{laptop_id}|envelope".encode())
    after = ana.memories.remember(
        TEAM, "Remember: the release branch is cut on Mondays"
    ).value.record
    assert after is not None
    laptop = _open(tmp_path / "ana-laptop", "laptop passphrase")
    try:
        assert laptop.keys.info().active_key_id == report.new_key_id
        assert laptop.memories.get_memory(after.id).id == after.id
    finally:
        laptop.close()


def test_a_personal_key_of_the_attackers_choosing_is_never_adopted(
    team: tuple[MemoryService, MemoryService, Path], pg_url: str
) -> None:
    ana, ben, tmp_path = team
    assert ana.memories.remember(ANA, SECRET).value.record is not None
    laptop = _join(ana, tmp_path / "ana-laptop", "ana", "laptop passphrase")
    laptop.close()
    ben.close()
    laptop_dir = tmp_path / "ana-laptop"
    laptop_id = _device_of(laptop_dir)
    # The laptop has lost its copy of ana's personal key (it will fetch its envelope).
    store = PassphraseKeyStore(laptop_dir / KEY_FILE_NAME, "laptop passphrase")
    store.save(replace(store.load(), personal={}))
    # Ben replaces the laptop's envelope with a key he knows, signed by his own device.
    ben_keys = _keys(tmp_path / "ben-desk", "ben passphrase")
    assert ben_keys.signing_key is not None
    key_id, key = new_personal_key()
    (public_hex,) = _sql(pg_url, "SELECT public_key FROM devices WHERE device_id=%s", laptop_id)[0]
    envelope = seal_signed(
        bytes.fromhex(str(public_hex)),
        key_id.encode() + b"\x1f" + key,
        f"personal_keys|{laptop_id}|ana".encode(),
        _device_of(tmp_path / "ben-desk"),
        ben_keys.signing_key,
    )
    _sql(
        pg_url,
        "UPDATE personal_keys SET envelope=%s, key_id=%s WHERE device_id=%s",
        envelope,
        key_id,
        laptop_id,
    )
    with pytest.raises(KeyUnavailableError, match="not a trusted device of ana"):
        _open(laptop_dir, "laptop passphrase")
    assert "ana" not in store.load().personal

"""Appending to and reading from the hash-chained, encrypted event log (R1-R3).

There is no update or delete here, and the database refuses both (triggers). Appends take
the store's write lock (BEGIN IMMEDIATE), read the chain head, and link to it, so two
processes appending at once interleave without forking the chain.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, func, select, update

from core.crypto.codec import Aad, Codec, read_header
from core.crypto.keys import PERSONAL_PREFIX
from core.errors import (
    DamagedRowError,
    IntegrityError,
    KeyUnavailableError,
    NotFoundError,
    PrivateScopeError,
)
from core.log.hash_chain import GENESIS_HASH, ChainLink, find_break, payload_commitment
from core.model.clock import from_iso
from core.model.enums import Actor, ChangeKind, EventKind, EventSource, TrustLevel
from core.model.memory import SecurityEvent
from core.model.records import Event, SessionInfo, VerifyFailure, VerifyReport
from core.model.scope import Scope
from core.model.validate import ValidEvent
from core.storage import schema as s
from core.storage.damage import Damage, Records, Unavailable, guarded, split
from core.storage.engine import chunks
from core.storage.meta import queue_meta
from core.storage.store import WriteTx, new_id

REDACTED_TEXT = "[payload redacted]"


def payload_aad(event_id: str) -> Aad:
    """Where an event payload's ciphertext belongs."""
    return Aad("event_payloads", event_id, "ciphertext")


def append(tx: WriteTx, items: Sequence[ValidEvent]) -> list[Event]:
    """Append events in order, chained to the current head. Runs inside `tx`.

    Rows are built in Python and written with one executemany per table: per-row
    `insert().values()` costs more in SQLAlchemy's statement caching than the encryption.
    """
    if tx.chain_head is None:
        head = tx.conn.execute(
            select(s.events.c.position, s.events.c.hash)
            .order_by(s.events.c.position.desc())
            .limit(1)
        ).first()
        tx.chain_head = (head.position, head.hash) if head else (0, GENESIS_HASH)
    position, prev_hash = tx.chain_head[0] + 1, tx.chain_head[1]
    counts = _session_counts(tx, {item.session for item in items})
    out: list[Event] = []
    event_rows: list[dict[str, Any]] = []
    payload_rows: list[dict[str, Any]] = []
    for item in items:
        counts[item.session] += 1
        event, row, payload = _build(tx, item, position, counts[item.session], prev_hash)
        out.append(event)
        event_rows.append(row)
        payload_rows.append(payload)
        position += 1
        prev_hash = event.hash
    tx.later_rows(s.events, event_rows)
    tx.later_rows(s.event_payloads, payload_rows)
    for sid, n in counts.items():
        row = {"sid": sid, "count": n, "at": tx.now_iso}
        tx.at_commit(f"session_count:{sid}", _COUNT_SESSION_EVENTS, [row])
    write_head(tx, out[-1].position, out[-1].hash)
    tx.chain_head = (out[-1].position, out[-1].hash)
    tx.session_counts.update(counts)
    tx.touch(ChangeKind.EVENTS, event_ids=tuple(e.id for e in out))
    tx.touch(ChangeKind.SESSIONS)
    return out


_COUNT_SESSION_EVENTS = (
    update(s.sessions)
    .where(s.sessions.c.id == bindparam("sid"))
    .values(event_count=bindparam("count"), last_event_at=bindparam("at"))
)


def system_event(
    tx: WriteTx,
    session: str,
    scope: Scope,
    kind: EventKind,
    text: str,
    data: Mapping[str, Any],
    *,
    by_user: str | None = None,
) -> Event:
    """Append one event written by Memory Center itself (security, degraded, redaction, ...)."""
    actor, trust = (
        (Actor.USER, TrustLevel.USER) if by_user else (Actor.SYSTEM, TrustLevel.TOOL_VERIFIED)
    )
    item = ValidEvent(session, actor, trust, scope, text, kind, None, dict(data), (), by_user)
    return append(tx, [item])[0]


def _session_counts(tx: WriteTx, names: set[str]) -> dict[str, int]:
    """Current event counts of these sessions, creating the ones that are new."""
    known = {n: tx.session_counts[n] for n in names if n in tx.session_counts}
    names = names - known.keys()
    # Sessions the transaction already knows to be absent (`Store.write(session=...)`).
    absent = names & tx.new_sessions
    names -= absent
    found: dict[str, int] = {}
    if names:
        found = dict(
            tx.conn.execute(
                select(s.sessions.c.id, s.sessions.c.event_count).where(s.sessions.c.id.in_(names))
            ).all()
        )
    created = sorted(absent | (names - found.keys()))
    if created:
        tx.later_rows(
            s.sessions,
            [
                {"id": n, "created_at": tx.now_iso, "opted_out": False, "event_count": 0}
                for n in created
            ],
        )
        tx.new_sessions.difference_update(created)
    return {**known, **{n: int(found.get(n, 0)) for n in names | absent}}


def _build(
    tx: WriteTx, item: ValidEvent, position: int, seq: int, prev_hash: str
) -> tuple[Event, dict[str, Any], dict[str, Any]]:
    event_id = new_id("ev", tx.now)
    salt = os.urandom(16)
    body = {"text": item.text, "data": dict(item.data)}
    link = ChainLink(
        id=event_id,
        position=position,
        session_id=item.session,
        seq=seq,
        ts=tx.now_iso,
        kind=item.kind.value,
        actor=item.actor.value,
        trust=item.trust.value,
        source=item.source.value if item.source else None,
        scope_json=item.scope.to_json(),
        refs_json=json.dumps(list(item.refs)),
        by=item.by,
        commitment=payload_commitment(salt, _canonical(body)),
        prev_hash=prev_hash,
    )
    digest = link.digest()
    row = {
        "id": link.id,
        "position": link.position,
        "session_id": link.session_id,
        "seq": link.seq,
        "ts": link.ts,
        "kind": link.kind,
        "actor": link.actor,
        "trust": link.trust,
        "source": link.source,
        "scope_json": link.scope_json,
        "refs_json": link.refs_json,
        "by_user": link.by,
        "commitment": link.commitment,
        "prev_hash": link.prev_hash,
        "hash": digest,
    }
    sealed = tx.codec.seal_json(
        {"salt": _b64(salt), **body}, payload_aad(event_id), key_id=_payload_key(tx, item)
    )
    payload = {"event_id": event_id, "ciphertext": sealed, "redacted_at": None}
    event = Event(
        id=event_id,
        position=position,
        session_id=item.session,
        seq=seq,
        ts=tx.now,
        kind=item.kind,
        actor=item.actor,
        trust=item.trust,
        source=item.source,
        scope=item.scope,
        text=item.text,
        data=dict(item.data),
        refs=item.refs,
        by=item.by,
        prev_hash=prev_hash,
        hash=digest,
    )
    return event, row, payload


_EVENT_COLUMNS = (*s.events.c, s.event_payloads.c.ciphertext, s.event_payloads.c.redacted_at)


def _event_query() -> Any:
    return select(*_EVENT_COLUMNS).join(
        s.event_payloads, s.event_payloads.c.event_id == s.events.c.id
    )


def list_events(
    conn: Connection,
    codec: Codec,
    *,
    session: str | None = None,
    after_position: int = 0,
    before_position: int | None = None,
    limit: int = 100,
    newest_first: bool = False,
) -> list[Event]:
    """Events in log order (or newest first), decrypted; page with after/before position."""
    query = _event_query().where(s.events.c.position > after_position)
    if before_position is not None:
        query = query.where(s.events.c.position < before_position)
    if session is not None:
        query = query.where(s.events.c.session_id == session)
    order = s.events.c.position.desc() if newest_first else s.events.c.position
    rows = conn.execute(query.order_by(order).limit(limit)).mappings().all()
    return split(_checked_event(row, codec) for row in rows)


def get_events(conn: Connection, codec: Codec, ids: Sequence[str]) -> list[Event]:
    """The events with these ids, in the order given.

    Raises:
        NotFoundError: an id names no event.
    """
    if not ids:
        return []
    rows = conn.execute(_event_query().where(s.events.c.id.in_(list(ids)))).mappings().all()
    by_id = {row["id"]: row for row in rows}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise NotFoundError("event", missing[0])
    out = []
    for i in ids:
        event = _checked_event(by_id[i], codec)
        if isinstance(event, Unavailable):
            raise PrivateScopeError(f"event {i}: {event.problem}")
        if isinstance(event, Damage):
            raise DamagedRowError(event.field, f"event {i} is damaged: {event.line()}")
        out.append(event)
    return out


def list_by_ids(conn: Connection, codec: Codec, ids: Sequence[str]) -> Records[Event]:
    """The events with these ids that exist, in log order; damaged ones on the side."""
    out: Records[Event] = Records()
    for chunk in chunks(ids):
        rows = conn.execute(
            _event_query().where(s.events.c.id.in_(chunk)).order_by(s.events.c.position)
        ).mappings()
        found = split(_checked_event(row, codec) for row in rows)
        out.extend(found)
        out.damaged.extend(found.damaged)
    return out


# What a redacted payload keeps of its data: ids that say where the event came from, never
# content, so an importer that meets the same transcript line again knows it is already
# present and does not write it again in full (#38).
KEPT_WHEN_REDACTED = ("source_id",)


def redacted_ids(row: Mapping[Any, Any], codec: Codec) -> dict[str, Any]:
    """The ids a redacted payload kept (`KEPT_WHEN_REDACTED`); {} when none or unreadable."""
    try:
        body = codec.open_json(row["ciphertext"], payload_aad(row["id"]))
    except (IntegrityError, KeyUnavailableError, PrivateScopeError):
        return {}
    kept = body.get("data") if isinstance(body, dict) else None
    if not isinstance(kept, dict):
        return {}
    return {k: v for k, v in kept.items() if k in KEPT_WHEN_REDACTED and isinstance(v, str)}


def _checked_event(row: Mapping[Any, Any], codec: Codec) -> Event | Damage:
    """Decode an event row; a payload that does not open, or clear metadata holding a value
    this code does not know (an actor `robot`), is damage of that row, not a crash."""
    return guarded("events", str(row["id"]), "ciphertext", lambda: _to_event(row, codec))


def _to_event(row: Mapping[Any, Any], codec: Codec) -> Event:
    redacted = row["redacted_at"] is not None
    if redacted:
        body: dict[str, Any] = {"text": REDACTED_TEXT, "data": redacted_ids(row, codec)}
    else:
        body = codec.open_json(row["ciphertext"], payload_aad(row["id"]))
    return Event(
        id=row["id"],
        position=row["position"],
        session_id=row["session_id"],
        seq=row["seq"],
        ts=from_iso(row["ts"]),
        kind=EventKind(row["kind"]),
        actor=Actor(row["actor"]),
        trust=TrustLevel(row["trust"]),
        source=EventSource(row["source"]) if row["source"] else None,
        scope=Scope.from_json(row["scope_json"]),
        text=body["text"],
        data=body.get("data") or {},
        refs=tuple(json.loads(row["refs_json"])),
        by=row["by_user"],
        prev_hash=row["prev_hash"],
        hash=row["hash"],
        redacted=redacted,
    )


def list_sessions(conn: Connection, *, limit: int = 1000, offset: int = 0) -> list[SessionInfo]:
    """Sessions, most recently active first."""
    query = (
        select(s.sessions)
        .order_by(s.sessions.c.last_event_at.desc(), s.sessions.c.id)
        .limit(limit)
        .offset(offset)
    )
    return [_to_session(r) for r in conn.execute(query).mappings().all()]


def get_session(conn: Connection, session: str) -> SessionInfo:
    """One session.

    Raises:
        NotFoundError: no such session.
    """
    row = conn.execute(select(s.sessions).where(s.sessions.c.id == session)).mappings().first()
    if row is None:
        raise NotFoundError("session", session)
    return _to_session(row)


def _to_session(row: Mapping[Any, Any]) -> SessionInfo:
    last = row["last_event_at"]
    return SessionInfo(
        id=row["id"],
        created_at=from_iso(row["created_at"]),
        opted_out=bool(row["opted_out"]),
        event_count=int(row["event_count"]),
        last_event_at=from_iso(last) if last else None,
    )


def security_events(conn: Connection, codec: Codec, *, limit: int = 1000) -> list[SecurityEvent]:
    """Security events (sensitivity findings), oldest first."""
    rows = (
        conn.execute(
            _event_query()
            .where(s.events.c.kind == EventKind.SECURITY.value)
            .order_by(s.events.c.position)
            .limit(limit)
        )
        .mappings()
        .all()
    )
    out = []
    for row in rows:
        event = _checked_event(row, codec)
        if isinstance(event, Damage):
            continue
        data = event.data
        out.append(
            SecurityEvent(
                event_id=event.id,
                ts=event.ts,
                session_id=event.session_id,
                finding_types=tuple(data.get("finding_types", ())),
                action=str(data.get("action", "")),
                memory_id=data.get("memory_id"),
            )
        )
    return out


def count_events(conn: Connection) -> int:
    """How many events the log holds."""
    return int(conn.execute(select(func.count()).select_from(s.events)).scalar_one())


def verify(
    conn: Connection,
    codec: Codec,
    batch: int = 2000,
    statuses: dict[str, str] | None = None,
    decisions: dict[str, dict[str, Any]] | None = None,
) -> VerifyReport:
    """Walk the chain in position order and open every payload; report the first failure (R3).

    A payload must decrypt (its GCM tag binds it to its event) and match the commitment the
    chain holds. A redacted payload is accepted only when a later redaction event names it.
    The last event must match the sealed chain head, so cutting events off the end of the
    log is detected too. When `statuses` is given it is filled with each memory's status as
    its last `memory_decision` event recorded it (for the rollback check in checkup.py), and
    `decisions` with what each decision's event recorded, by decision id (#38).
    """
    walk = _Walk()
    walk.statuses = statuses
    walk.decisions = decisions
    while True:
        rows = (
            conn.execute(
                _event_query()
                .where(s.events.c.position > walk.position)
                .order_by(s.events.c.position)
                .limit(batch)
            )
            .mappings()
            .all()
        )
        if not rows:
            break
        for row in rows:
            failure = walk.step(row, codec)
            if failure:
                return _report(walk, failure)
    return _report(walk, walk.finish(conn, codec))


class _Walk:
    """State of one verification walk."""

    def __init__(self) -> None:
        self.checked = self.redacted = self.position = self.unreadable = 0
        self.prev_hash = GENESIS_HASH
        self.last: ChainLink | None = None
        self.redacted_rows: dict[str, ChainLink] = {}
        self.announced: set[str] = set()
        self.statuses: dict[str, str] | None = None
        self.decisions: dict[str, dict[str, Any]] | None = None

    def step(self, row: Mapping[Any, Any], codec: Codec) -> VerifyFailure | None:
        link = _link_of(row)
        if link.position != self.position + 1:
            return _fail(link, f"position gap: expected {self.position + 1}")
        brk = find_break([(link, row["hash"])], start_hash=self.prev_hash)
        if brk is not None:
            return _fail(link, brk.problem)
        if row["redacted_at"]:
            self.redacted_rows[link.id] = link
            self.redacted += 1
        elif others_private(codec, row["ciphertext"]):
            if link.kind in _TEAM_SEALED_VALUES:
                return _fail(link, "a decision or redaction payload under a personal key")
            # Another member's private event: the chain covers it; its payload is theirs.
            self.unreadable += 1
        else:
            problem = _payload_problem(row, codec, link)
            if problem:
                return _fail(link, problem, "event_payloads", "ciphertext")
            if link.kind == EventKind.REDACTION.value:
                body = codec.open_json(row["ciphertext"], payload_aad(row["id"]))
                self.announced.update(body.get("data", {}).get("redacted_event_ids", []))
            elif link.kind == EventKind.MEMORY_DECISION.value and self.statuses is not None:
                data = codec.open_json(row["ciphertext"], payload_aad(row["id"])).get("data", {})
                self.statuses[str(data.get("memory_id"))] = str(data.get("to"))
                if self.decisions is not None and isinstance(data.get("decision_id"), str):
                    self.decisions[data["decision_id"]] = {**data, "event_id": row["id"]}
        self.checked += 1
        self.prev_hash, self.position, self.last = row["hash"], link.position, link
        return None

    def finish(self, conn: Connection, codec: Codec) -> VerifyFailure | None:
        for event_id, link in self.redacted_rows.items():
            if event_id not in self.announced:
                return _fail(link, "payload marked redacted without a redaction event")
        head = read_head(conn, codec)
        if head is None:
            if self.last is None:
                return None
            return _fail(self.last, "the sealed chain head is missing")
        if self.last is None or head != (self.last.position, self.prev_hash):
            where = self.last or ChainLink(
                "(none)", 0, "", 0, "", "", "", "", None, "", "", None, "", ""
            )
            return _fail(where, f"log truncated or rewound: the chain head says position {head[0]}")
        return None


# Events that carry ids and statuses, never content: sealed with the team key whatever
# their scope, so every member's `verify` can follow decisions and redactions.
TEAM_SEALED_KINDS = frozenset({EventKind.MEMORY_DECISION, EventKind.REDACTION})


_TEAM_SEALED_VALUES = frozenset(k.value for k in TEAM_SEALED_KINDS)


def others_private(codec: Codec, blob: bytes) -> bool:
    """True for a value sealed with a personal key this device does not hold (another
    member's private scope): not readable here, and not damage."""
    try:
        key_id = read_header(blob).key_id
    except IntegrityError:
        return False  # damaged: the normal open names it
    return key_id.startswith(PERSONAL_PREFIX) and not codec.holds(key_id)


def _payload_key(tx: WriteTx, item: ValidEvent) -> str | None:
    """A `user=X` event on a team store is X's: sealed with X's personal key."""
    if item.kind in TEAM_SEALED_KINDS:
        return None
    return tx.key_for(item.scope.get("user"))


HEAD_KEY = "chain_head"


def head_aad() -> Aad:
    """Where the sealed chain head belongs."""
    return Aad("store_meta", HEAD_KEY, "value")


def write_head(tx: WriteTx, position: int, digest: str) -> None:
    """Seal the chain head (last position and hash) so truncating the log is detected."""
    sealed = tx.codec.seal_json({"position": position, "hash": digest}, head_aad())
    queue_meta(tx, HEAD_KEY, sealed.hex())


def read_head(conn: Connection, codec: Codec) -> tuple[int, str] | None:
    """The sealed chain head, or None for a log written before heads were sealed."""
    raw = conn.execute(
        select(s.store_meta.c.value).where(s.store_meta.c.key == HEAD_KEY)
    ).scalar_one_or_none()
    if raw is None:
        return None
    doc = codec.open_json(bytes.fromhex(raw), head_aad())
    return int(doc["position"]), str(doc["hash"])


def _payload_problem(row: Mapping[Any, Any], codec: Codec, link: ChainLink) -> str | None:
    try:
        body = codec.open_json(row["ciphertext"], payload_aad(row["id"]))
        salt = base64.b64decode(body["salt"])
        canonical = _canonical({"text": body["text"], "data": body.get("data") or {}})
    except (IntegrityError, KeyUnavailableError) as exc:
        return str(exc)
    except (KeyError, ValueError, TypeError) as exc:
        return f"payload is malformed: {exc}"
    if payload_commitment(salt, canonical) != link.commitment:
        return "payload does not match the commitment in the chain"
    return None


def _link_of(row: Mapping[Any, Any]) -> ChainLink:
    return ChainLink(
        id=row["id"],
        position=row["position"],
        session_id=row["session_id"],
        seq=row["seq"],
        ts=row["ts"],
        kind=row["kind"],
        actor=row["actor"],
        trust=row["trust"],
        source=row["source"],
        scope_json=row["scope_json"],
        refs_json=row["refs_json"],
        by=row["by_user"],
        commitment=row["commitment"],
        prev_hash=row["prev_hash"],
    )


def _fail(link: ChainLink, problem: str, table: str = "events", field: str = "") -> VerifyFailure:
    return VerifyFailure(link.id, link.position, table, link.id, problem, field)


def _report(walk: _Walk, failure: VerifyFailure | None) -> VerifyReport:
    return VerifyReport(
        ok=failure is None,
        events_checked=walk.checked,
        rows_decrypted=walk.checked - walk.redacted - walk.unreadable,
        redacted_events=walk.redacted,
        first_failure=failure,
        unreadable_values=walk.unreadable,
    )


def _canonical(body: Mapping[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")

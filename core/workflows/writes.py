"""The write path as the agent and the user drive it: remember, suggest, observe, extract."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

from sqlalchemy import Connection

from core.crypto.codec import Codec
from core.errors import InvalidInputError, NotFoundError
from core.governance import classify, controls, declared
from core.governance.extractor import Proposal, infer_kind
from core.governance.judge import judge
from core.governance.ledger import Ledger, source_trust
from core.governance.policy import Candidate, Origin
from core.governance.sensitivity import redact, scan
from core.model import limits
from core.model.enums import Actor, EventKind, EventSource, MemoryKind, MemoryStatus, TrustLevel
from core.model.memory import MemoryOutcome
from core.model.records import Event
from core.model.scope import Scope
from core.model.sessions import DIRECT_SESSION
from core.model.validate import (
    ValidEvent,
    enum_value,
    event_said_at,
    event_speaker,
    identifier,
    listed,
    public_session,
    text,
)
from core.model.validate import said_at as valid_said_at
from core.model.validate import speaker as valid_speaker
from core.storage import event_log, governed, memories, memory_queries
from core.storage.store import WriteTx

MAX_DAYS = 36_500


def content_of(raw_text: object, *, remember: bool) -> list[str]:
    """The content a `remember` or `suggest` of this text would judge, for embedding it
    before the write lock (`Ledger.prepare`); nothing for a text the write will refuse."""
    try:
        words = text(raw_text, "text", limits.MAX_MEMORY_TEXT)
    except InvalidInputError:
        return []
    return [classify.strip_remember(words) if remember else words]


def observation_gist(raw_text: object) -> list[str]:
    """What of an observation the judge compares by meaning (see `observe`), for embedding
    it before the write lock; nothing for a text the write will refuse."""
    try:
        return [_gist(text(raw_text, "text", limits.MAX_EVENT_TEXT))]
    except InvalidInputError:
        return []


def _gist(observed: str) -> str:
    # A tool's output may be 50 times a memory's length; its meaning is read from its first
    # memory-length part (embedding all of it took 15 s for 20,000 characters).
    return observed[: limits.MAX_MEMORY_TEXT]


def owner_of(scope: Scope, by: str | None) -> str:
    """Who acts: the named user, else the scope's user, else 'user'."""
    if by:
        return identifier(by, "by")
    return scope.get("user", "user")


def kind_of(value: str | None, content: str) -> MemoryKind:
    """The requested kind, or one inferred from the wording."""
    if value is None:
        return (
            MemoryKind.SKILL_SUGGESTION if classify.is_procedure(content) else infer_kind(content)
        )
    return enum_value(MemoryKind, value, "kind")


def expiry(now: dt.datetime, days: float | None) -> dt.datetime | None:
    """The user's validity, in days from now."""
    if days is None:
        return None
    if isinstance(days, bool) or not isinstance(days, (int, float)) or not 0 < days <= MAX_DAYS:
        raise InvalidInputError(
            "expires_in_days", f"must be a number of days between 0 and {MAX_DAYS}"
        )
    return now + dt.timedelta(days=float(days))


def loggable(words: str) -> str:
    """The request as the log keeps it: secrets and personal data redacted (R8).

    The policy still sees the raw words (to reject them); the log never needs the value.
    """
    return redact(words) if scan(words) else words


def log(tx: WriteTx, item: ValidEvent) -> Event:
    """Append one event inside the transaction."""
    return event_log.append(tx, [item])[0]


def remember(
    tx: WriteTx,
    ledger: Ledger,
    scope: Scope,
    raw_text: str,
    *,
    session: str | None,
    kind: str | None,
    expires_in_days: float | None,
    by: str | None,
    said_at: object = None,
    speaker: object = None,
    replaces: object = (),
    same_as: object = None,
) -> MemoryOutcome:
    """The user's explicit request to remember (R7 row 1): logged, then decided."""
    named = named_memories(lambda: tx.conn, replaces, same_as)
    when = valid_said_at(said_at, tx.now)
    who = valid_speaker(speaker)
    words = text(raw_text, "text", limits.MAX_MEMORY_TEXT)
    owner = owner_of(scope, by)
    name = public_session(session) if session is not None else DIRECT_SESSION
    expires = expiry(tx.now, expires_in_days)
    content = classify.strip_remember(words)
    mkind = kind_of(kind, content)
    event = log(
        tx,
        ValidEvent(
            name,
            Actor.USER,
            TrustLevel.USER,
            scope,
            loggable(words),
            EventKind.MESSAGE,
            EventSource.CHAT,
            {"request": "remember"} | ({"speaker": who} if who else {}),
            (),
            owner,
        ),
    )
    cand = Candidate(
        content,
        mkind,
        scope,
        (event.id,),
        TrustLevel.USER,
        Origin.REMEMBER,
        owner,
        explicit=True,
        evidence_scopes=(scope,),
        expires_at=expires,
        said_at=when,
        speaker=who,
        replaces=named[0],
        same_as=named[1],
    )
    return ledger.submit(tx, cand, session=name)


def suggest(
    tx: WriteTx,
    ledger: Ledger,
    scope: Scope,
    raw_text: str,
    *,
    kind: str | None,
    evidence: Sequence[str],
    session: str | None,
    by: str | None,
    said_at: object = None,
    speaker: object = None,
    replaces: object = (),
    same_as: object = None,
) -> MemoryOutcome:
    """An agent proposes a memory; its trust is that of the evidence it cites (R6, R11)."""
    named = named_memories(lambda: tx.conn, replaces, same_as)
    when = valid_said_at(said_at, tx.now)
    who = valid_speaker(speaker)
    words = text(raw_text, "text", limits.MAX_MEMORY_TEXT)
    owner = owner_of(scope, by)
    name = public_session(session) if session is not None else DIRECT_SESSION
    ids = [identifier(e, "evidence", 64) for e in listed(evidence, "evidence")]
    events = event_log.get_events(tx.conn, tx.codec, ids)
    call = log(
        tx,
        ValidEvent(
            name,
            Actor.ASSISTANT,
            TrustLevel.ASSISTANT,
            scope,
            loggable(words),
            EventKind.AGENT_CALL,
            None,
            {"tool": "suggest"} | ({"speaker": who} if who else {}),
            tuple(ids),
            owner,
        ),
    )
    trust = source_trust(tx.conn, tx.codec, events) if events else TrustLevel.ASSISTANT
    if trust == TrustLevel.USER:
        # The user said it, but the agent chose these words: an inference, not a quote.
        trust = TrustLevel.ASSISTANT
    sources = tuple(ids) if ids else (call.id,)
    cand = Candidate(
        words,
        kind_of(kind, words),
        scope,
        sources,
        trust,
        Origin.SUGGEST,
        owner,
        evidence_scopes=tuple(e.scope for e in events),
        said_at=when,
        speaker=who,
        replaces=named[0],
        same_as=named[1],
    )
    return ledger.submit(tx, cand, session=name)


MAX_DECLARED = 20


def named_memories(
    reads: Callable[[], Connection], replaces: object, same_as: object
) -> tuple[tuple[str, ...], str | None]:
    """The memory ids a writer declares (#40), `m:` references resolved; the ledger checks
    that each is a live memory of the candidate's scope. `reads` gives the connection only
    when a reference must be looked up: in a write transaction, asking for it sends the
    queued inserts of a batch."""
    if replaces is None:
        replaces = ()
    if isinstance(replaces, (str, bytes)) or not isinstance(replaces, Sequence):
        raise InvalidInputError("replaces", "must be a list of memory ids")
    if len(replaces) > MAX_DECLARED:
        raise InvalidInputError(
            "replaces", f"names {len(replaces)} memories; at most {MAX_DECLARED}"
        )
    ids = tuple(dict.fromkeys(_memory_id(reads, r, "replaces") for r in replaces))
    same = _memory_id(reads, same_as, "same_as") if same_as is not None else None
    if same is not None and same in ids:
        raise InvalidInputError("same_as", f"{same} is named in replaces too; say one or the other")
    return ids, same


def check_declared(
    conn: Connection, codec: Codec, scope: Scope, replaces: object, same_as: object
) -> None:
    """Refuse, before anything is written, what the ledger would refuse of a declaration:
    an entry point that writes something first (the MCP tool's evidence event) asks this."""
    ids, same = named_memories(lambda: conn, replaces, same_as)
    fields = declared.fields_of(ids, same)
    found = {r.id: r for r in memories.load(conn, codec, [i for _, i in fields])}
    for field, memory_id in fields:
        declared.check_named(field, memory_id, found.get(memory_id), scope)


def _memory_id(reads: Callable[[], Connection], value: object, field: str) -> str:
    ref = identifier(value, field, 64)
    if not ref.startswith("m:"):
        return ref
    try:
        return memories.resolve_ref(reads(), ref)
    except NotFoundError as exc:
        raise InvalidInputError(field, f"no memory, or more than one, is {ref}") from exc


def observe(
    tx: WriteTx,
    scope: Scope,
    raw_text: str,
    *,
    session: str | None,
    contradicts: str | None,
    similarity: Callable[[str, str], float | None] | None = None,
) -> Event:
    """A fresh tool-verified observation; it flags memories it contradicts as stale (R10).
    The judge decides what it contradicts (by meaning when `similarity` is given, #40)."""
    words = text(raw_text, "text", limits.MAX_EVENT_TEXT)
    name = public_session(session) if session is not None else DIRECT_SESSION
    event = log(
        tx,
        ValidEvent(
            name,
            Actor.TOOL,
            TrustLevel.TOOL_VERIFIED,
            scope,
            words,
            EventKind.OBSERVATION,
            EventSource.TERMINAL,
            {},
            (),
            None,
        ),
    )
    if contradicts is not None:
        record = memories.get(tx.conn, tx.codec, identifier(contradicts, "contradicts", 64))
        if record.status != MemoryStatus.DELETED:
            controls.mark_stale(tx, record, event.id, "observation")
        return event
    live = memory_queries.visible(
        tx.conn, tx.codec, scope, [MemoryStatus.ACTIVE, MemoryStatus.CANDIDATE]
    )
    for record in live:
        sim = similarity(_gist(words), record.content) if similarity is not None else None
        rel = judge(words, record.content, sim)
        if rel.kind != "contradiction":
            continue
        if record.status == MemoryStatus.CANDIDATE:
            controls.settle_guess(tx, record, event.id, rel.reason)
        else:
            controls.mark_stale(tx, record, event.id, "observation", rel.reason)
    return event


def submit_proposals(
    tx: WriteTx,
    ledger: Ledger,
    proposals: Sequence[Proposal],
    session: str,
    *,
    origin: Origin,
) -> list[MemoryOutcome]:
    """Submit what an extractor proposed; trust comes from the cited events (R6, R12)."""
    outcomes: list[MemoryOutcome] = []
    for proposal in proposals:
        if _already_decided(tx, ledger, proposal):
            continue
        sources = event_log.get_events(tx.conn, tx.codec, proposal.source_event_ids)
        trust = source_trust(tx.conn, tx.codec, sources)
        scope = sources[0].scope
        owner = sources[0].by or scope.get("user", "user")
        imported = imported_from(sources)
        explicit = proposal.explicit and trust == TrustLevel.USER and origin == Origin.EXTRACT
        cand = Candidate(
            proposal.content,
            proposal.kind,
            scope,
            proposal.source_event_ids,
            trust,
            Origin.IMPORT if imported else origin,
            owner,
            explicit=explicit and not imported,
            evidence_scopes=tuple(e.scope for e in sources),
            provenance=imported or "",
            said_at=event_said_at(sources[0].data),
            speaker=event_speaker(sources[0].data),
        )
        outcomes.append(ledger.submit(tx, cand, session=session))
    return outcomes


def imported_from(sources: Sequence[Event]) -> str | None:
    """Where imported source events came from ("import:claude-code, file ..., session ..."),
    or None when every source was recorded live."""
    for event in sources:
        importer = event.data.get("importer")
        if isinstance(importer, str):
            parts = [importer]
            file = event.data.get("source_file")
            if isinstance(file, str) and file:
                parts.append(f"file {file}")
            parts.append(f"session {event.session_id}")
            return ", ".join(parts)
    return None


def _already_decided(tx: WriteTx, ledger: Ledger, proposal: Proposal) -> bool:
    """Re-running extraction never re-creates what the ledger already holds for an event."""
    existing = memories.load(
        tx.conn, tx.codec, memories.by_source_events(tx.conn, proposal.source_event_ids)
    )
    fp = ledger.fingerprint(proposal.content)
    for record in existing:
        if record.status == MemoryStatus.DELETED or ledger.fingerprint(record.content) == fp:
            return True
        if (
            set(proposal.source_event_ids) <= set(record.source_event_ids)
            and record.kind == proposal.kind
        ):
            return True
    return False


def session_events(
    conn: Connection, codec: Codec, session: str, ids: Sequence[str] | None = None
) -> list[Event]:
    """A session's events (or the named ones, which must belong to it)."""
    if ids is None:
        return event_log.list_events(conn, codec, session=session, limit=1_000_000)
    events = event_log.get_events(conn, codec, [identifier(i, "events", 64) for i in ids])
    for ev in events:
        if ev.session_id != session:
            raise InvalidInputError(
                "events", f"event {ev.id} belongs to session {ev.session_id}, not {session}"
            )
    return events


def opted_out(conn: Connection, codec: Codec, session: str) -> bool:
    """True when the session opted out (as the MAC'd record of governing rows says);
    NotFoundError when it does not exist."""
    return governed.opted_out(conn, codec, session, event_log.get_session(conn, session).opted_out)

"""The candidate ledger: every proposed memory passes through here (R6, R7).

`submit` asks the policy for a verdict and writes exactly what it decided, inside the
caller's write transaction: the record (or the merge into an existing one), the decision
with the policy version and reasons, supersede links, conflict sets, and a security event
for sensitive findings (types only, never values).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from sqlalchemy import Connection

from core.crypto.codec import Codec
from core.errors import MemoryCenterError
from core.governance import declared
from core.governance.fence_check import FenceCheck
from core.governance.fences import MEANING_ONLY, Embed
from core.governance.meaning import Meanings
from core.governance.neighbours import RELATED_STATUSES as RELATED_STATUSES
from core.governance.neighbours import Neighbours
from core.governance.policy import (
    CONFLICT,
    Candidate,
    MemoryPolicy,
    Origin,
    Verdict,
)
from core.governance.sensitivity import Finding
from core.governance.text import fingerprint
from core.model.enums import (
    EventKind,
    MemoryStatus,
    Sensitivity,
    TrustLevel,
)
from core.model.memory import MemoryOutcome
from core.model.records import Event, MemoryRecord
from core.model.scope import Scope
from core.storage import event_log, memories
from core.storage.memories import GOVERNANCE_SESSION, Draft
from core.storage.store import WriteTx, new_id


def source_trust(conn: Connection, codec: Codec, events: Sequence[Event]) -> TrustLevel:
    """The least trusted source behind these events, following summaries to what they condense.

    A summary (compaction event) is only as trustworthy as the least trusted event it
    summarises (R11), however it was labelled.
    """
    lowest = TrustLevel.USER
    seen: set[str] = set()
    queue = list(events)
    while queue:
        ev = queue.pop()
        if ev.id in seen:
            continue
        seen.add(ev.id)
        if ev.trust.authority < lowest.authority:
            lowest = ev.trust
        if ev.refs:
            queue.extend(event_log.get_events(conn, codec, [r for r in ev.refs if r not in seen]))
    return lowest


# From this length a text's embedding costs several writes' time (0.1-0.25 s at 200
# characters), so it is made before the write lock is taken.
PREPARE_FROM = 200


class Ledger:
    """Writes the policy's verdicts.

    Args:
        policy: the MemoryPolicy in force.
        fingerprint_key: key for keyed content fingerprints (duplicates, deletion fences).
    """

    def __init__(
        self, policy: MemoryPolicy, fingerprint_key: bytes, embed: Embed | None = None
    ) -> None:
        self.policy = policy
        self._fp_key = fingerprint_key
        # Embeds a text for fence matching by meaning; None: units and values only.
        self.embed = embed
        self.meanings = Meanings(embed)
        # The records a candidate is compared with, found by index (#13), and the fences.
        self.neighbours = Neighbours()
        self._fences = FenceCheck()

    def fingerprint(self, text: str) -> str:
        """Keyed fingerprint of a content, for comparisons in memory (never stored)."""
        return fingerprint(self._fp_key, text)

    def submit(self, tx: WriteTx, cand: Candidate, *, session: str | None) -> MemoryOutcome:
        """Decide one candidate and write the result."""
        related = self.neighbours.nearest(tx, cand.scope, cand.content)
        named = self._declared(tx, cand)
        if named:
            related = [*named, *(r for r in related if r.id not in {n.id for n in named})]
        fenced, why = self.fence_of(tx, cand.content)
        if fenced and _said_by_another(tx, fenced, cand.speaker):
            fenced = None
        verdict = self.policy.decide(
            cand,
            related,
            now=tx.now,
            fenced_by=fenced,
            fence_reason=why,
            similarity=self.similarity if related else None,
        )
        asked = fenced and verdict.fenced_by is None and _asked_again(cand)
        # The user's own words lift the fence only when they are the deleted fact by its
        # words; a match by meaning alone may be another fact ("I work in Paris" matched
        # "I live in Berlin", lifted its fence, and the deleted fact came back later).
        lift = fenced if asked and MEANING_ONLY not in why else None
        if lift:
            note = f"deletion fence of {lift} lifted: the user explicitly asked to remember it"
            verdict = replace(verdict, reasons=(*verdict.reasons, note))
        # The records the verdict names are among `related`, as the store holds them now
        # (the neighbour index follows every write): no need to read and decrypt them again.
        held = {r.id: r for r in related}
        changed: list[MemoryRecord] = []
        if verdict.merge_into:
            record = self._merge(tx, cand, verdict, held)
            self._replaced(tx, verdict, record, held, changed, cand.owner)
        else:
            record = self._create(tx, cand, verdict, held, changed)
        if lift:
            self._lift_fence(tx, lift, record, cand.owner)
        if verdict.findings:
            self._security_event(tx, session, cand.scope, verdict.findings, record)
        self.neighbours.note(tx, [record, *changed])
        return MemoryOutcome(
            record=record,
            outcome=verdict.outcome,
            reasons=verdict.reasons,
            policy_version=self.policy.version,
            superseded=verdict.supersedes,
            conflicts_with=verdict.conflicts_with,
            findings=tuple(sorted({f.type.value for f in verdict.findings})),
        )

    def _declared(self, tx: WriteTx, cand: Candidate) -> list[MemoryRecord]:
        """The memories the writer says this one replaces or restates (#40): each must be a
        live memory of the candidate's own scope, or the write is refused naming the id."""
        fields = declared.fields_of(cand.replaces, cand.same_as)
        if not fields:
            return []
        held = self.neighbours.held(tx, cand.scope, [i for _, i in fields])
        missing = [i for _, i in fields if i not in held]
        loaded = memories.load(tx.conn, tx.codec, missing) if missing else []
        found = {**{r.id: r for r in loaded}, **held}
        return [declared.check_named(f, i, found.get(i), cand.scope) for f, i in fields]

    def fence_of(self, tx: WriteTx, content: str) -> tuple[str | None, str]:
        """The deleted memory whose fence this content meets, and how (R19)."""
        keys = tx.codec.fingerprint_keys()
        exact = self._fences.exact(tx, [fingerprint(key, content) for key in keys])
        if exact:
            return exact, "the same content"
        return self._fences.meet(tx, content, self._vector)

    def prepare(self, contents: Iterable[str]) -> None:
        """Embed the long texts a write will judge before it takes the store's write lock.

        Embedding grows faster than a text's length (about 30 ms for a sentence, 0.6 s for
        1,000 English characters, 6 s for 4,000 Chinese ones); inside the transaction every
        other writer would wait that long. The transaction then finds the vector in the
        cache. A short text stays where it was: embedded only if the judge needs it."""
        if self.embed is None:
            return
        for content in dict.fromkeys(contents):
            if len(content) >= PREPARE_FROM:
                self._vector(content)

    def _vector(self, content: str) -> tuple[str, Sequence[float]] | None:
        # The same cache as the judge's: a candidate is embedded once for both.
        if self.meanings.embed is not self.embed:
            self.meanings = Meanings(self.embed)
        return self.meanings.vector(content)

    def similarity(self, new: str, old: str) -> float | None:
        """Meaning similarity of two texts (cached embeddings); None without an embedder."""
        if self.meanings.embed is not self.embed:
            self.meanings = Meanings(self.embed)
        return self.meanings.similarity(new, old)

    def _lift_fence(self, tx: WriteTx, deleted_id: str, new: MemoryRecord, actor: str) -> None:
        memories.lift_fence(tx, deleted_id)
        deleted = memories.get(tx.conn, tx.codec, deleted_id)
        memories.record_decision(
            tx,
            deleted,
            action="lift_fence",
            from_status=deleted.status,
            to_status=deleted.status,
            actor=actor,
            reason=f"deletion fence lifted: the user explicitly asked to remember it again "
            f"(memory {new.id})",
            policy_version=self.policy.version,
            user_action=True,
        )

    def _merge(
        self, tx: WriteTx, cand: Candidate, verdict: Verdict, held: dict[str, MemoryRecord]
    ) -> MemoryRecord:
        assert verdict.merge_into is not None
        target = _held(tx, held, verdict.merge_into)
        memories.add_sources(tx, target.id, cand.source_event_ids)
        boosted = min(0.99, max(target.confidence, verdict.confidence) + 0.05)
        memories.update_fields(tx, target.id, confidence=boosted)
        memories.record_decision(
            tx,
            target,
            action="merge",
            from_status=target.status,
            to_status=target.status,
            actor=cand.owner,
            reason="; ".join(verdict.reasons),
            policy_version=self.policy.version,
        )
        # The merged record as the store now holds it (sources are listed sorted), without
        # reading and decrypting it again.
        sources = tuple(sorted({*target.source_event_ids, *cand.source_event_ids}))
        return replace(target, confidence=boosted, source_event_ids=sources, updated_at=tx.now)

    def _create(
        self,
        tx: WriteTx,
        cand: Candidate,
        verdict: Verdict,
        held: dict[str, MemoryRecord],
        changed: list[MemoryRecord],
    ) -> MemoryRecord:
        """Write the new record; the older records it supersedes or conflicts with are
        changed too, and appended to `changed` in their new state."""
        olds = [_held(tx, held, i) for i in (*verdict.supersedes, *verdict.conflicts_with)]
        old_of = {old.id: old for old in olds}
        conflict_set = (
            _conflict_set(tx, [old_of[i] for i in verdict.conflicts_with])
            if verdict.conflicts_with
            else None
        )
        draft = Draft(
            kind=verdict.kind,
            content=verdict.content,
            scope=cand.scope,
            source_event_ids=cand.source_event_ids,
            confidence=verdict.confidence,
            status=verdict.status,
            owner=cand.owner,
            source_trust=cand.source_trust,
            fingerprint=fingerprint(
                tx.codec.fingerprint_key_for(cand.scope.get("user")), verdict.content
            ),
            valid_from=cand.said_at or tx.now,
            speaker=cand.speaker,
            expires_at=verdict.expires_at,
            supersedes=verdict.supersedes[0] if verdict.supersedes else None,
            sensitivity=Sensitivity.REDACTED if verdict.findings else Sensitivity.NONE,
            flags=verdict.flags | _ttl_flag(cand, verdict),
            conflict_set=conflict_set,
        )
        record = memories.insert(tx, draft)
        memories.record_decision(
            tx,
            record,
            action=cand.origin.value,
            to_status=verdict.status,
            actor=cand.owner,
            reason="; ".join(verdict.reasons),
            policy_version=self.policy.version,
            user_action=cand.explicit,
        )
        self._replaced(tx, verdict, record, old_of, changed, cand.owner)
        for old_id in verdict.conflicts_with:
            old = old_of[old_id]
            flags = old.flags | {CONFLICT}
            memories.update_fields(tx, old_id, flags=flags, conflict_set=conflict_set)
            changed.append(replace(old, flags=flags, conflict_set=conflict_set, updated_at=tx.now))
        return record  # the links above change the older records, not this one

    def _replaced(
        self,
        tx: WriteTx,
        verdict: Verdict,
        new: MemoryRecord,
        held: dict[str, MemoryRecord],
        changed: list[MemoryRecord],
        actor: str,
    ) -> None:
        """Supersede what the verdict names by `new`, each with its own reason."""
        why = dict(verdict.why)
        for old_id in verdict.supersedes:
            old = _held(tx, held, old_id)
            changed.append(self._supersede(tx, old, new, actor, why.get(old_id, "")))

    def _supersede(
        self, tx: WriteTx, old: MemoryRecord, new: MemoryRecord, actor: str, relation: str
    ) -> MemoryRecord:
        now = memories.mark_superseded(tx, old, new.id)
        memories.record_decision(
            tx,
            old,
            action="supersede",
            from_status=old.status,
            to_status=MemoryStatus.SUPERSEDED,
            actor=actor,
            reason=_supersede_reason(old, new, relation),
            policy_version=self.policy.version,
        )
        return now

    def _security_event(
        self,
        tx: WriteTx,
        session: str | None,
        scope: Scope,
        findings: Sequence[Finding],
        record: MemoryRecord | None,
    ) -> None:
        types = sorted({f.type.value for f in findings})
        categories = sorted({f.type.category for f in findings})
        event_log.system_event(
            tx,
            session or GOVERNANCE_SESSION,
            scope,
            EventKind.SECURITY,
            f"sensitive content found ({', '.join(types)}); raw value not stored",
            {
                "finding_types": types,
                "categories": categories,
                "memory_id": record.id if record else None,
                "action": record.status.value if record else "rejected",
                "detectors": sorted({f.detector for f in findings}),
            },
        )


def _held(tx: WriteTx, held: dict[str, MemoryRecord], memory_id: str) -> MemoryRecord:
    """A record the verdict names: the policy's copy, else read from the store."""
    found = held.get(memory_id)
    return found if found is not None else memories.get(tx.conn, tx.codec, memory_id)


def _conflict_set(tx: WriteTx, olds: Sequence[MemoryRecord]) -> str:
    """The conflict set the new record joins: the first old record's, else a new one."""
    for old in olds:
        if old.conflict_set:
            return old.conflict_set
    return new_id("cs", tx.now)


def _asked_again(cand: Candidate) -> bool:
    """Only a new, explicit request of the user brings fenced content back (R19): not an
    extraction (of old, new or re-imported sessions), an agent, or a file import."""
    return cand.explicit and cand.origin == Origin.REMEMBER


def _supersede_reason(old: MemoryRecord, new: MemoryRecord, relation: str) -> str:
    """Why this one link: what was pending or active, who said the new value, and the pair."""
    if old.status == MemoryStatus.CANDIDATE:
        head = f"pending guess settled by {new.id} ({new.source_trust.value})"
    elif new.source_trust.authority > old.source_trust.authority:
        head = f"superseded by {new.id}, which has higher authority ({new.source_trust.value})"
    else:
        head = f"superseded by {new.id}, which says it replaces this value"
    return f"{head}: {relation}" if relation else head


def _ttl_flag(cand: Candidate, verdict: Verdict) -> frozenset[str]:
    """Mark a TTL that the policy set (waiting for review), as opposed to the user's validity."""
    if verdict.expires_at is not None and cand.expires_at is None:
        return frozenset({"policy_ttl"})
    return frozenset()


def _said_by_another(tx: WriteTx, deleted_id: str, speaker: str | None) -> bool:
    """A deletion fence stops the deleted words coming back, not another person saying the
    same (#17): Jon's "Yes, I loved it!" is not Mei's deleted turn. Only when both speakers
    are known; a purged memory's speaker is gone, so its fence holds for everyone."""
    if not speaker:
        return False
    try:
        deleted = memories.get(tx.conn, tx.codec, deleted_id)
    except MemoryCenterError:
        return False  # unreadable: the fence holds
    said = deleted.speaker
    return said is not None and said.casefold() != speaker.casefold()

"""Every place that keeps a copy of a memory's content, and what a purge does there (R19, #10).

This is the one list. A compliance purge (`deletion.delete(purge=True)`) walks `PLACES` in
order and runs each handler; places Memory Center never writes content to are listed too,
with the reason, so a reader can check the list is complete rather than trust it.

A copy is found by text: a stored string carries the content when it contains one of the
memory's revisions (or the short gist injected blocks use), compared case-insensitively,
or, for tool arguments the audit shortened to 200 characters, when its cut-off end runs
into the start of the content. Texts shorter than `MIN_MATCH` are only matched whole, so a
memory saying "yes" does not redact every query containing "yes".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from core.errors import IntegrityError, PrivateScopeError
from core.model.enums import EventKind
from core.model.memory import PurgePreview, Snapshot
from core.model.records import MemoryRecord
from core.model.scope import Scope
from core.retrieval import render
from core.storage import event_log, memories, purge, snapshots
from core.storage.memories import GOVERNANCE_SESSION
from core.storage.store import WriteTx

PURGED_REASON = "[redacted by compliance purge]"
MIN_MATCH = 12
OVERLAP_MIN = 24
ELLIPSIS = "…"


@dataclass
class Purge:
    """One purge in progress: the memory, its contents, and what has been done."""

    tx: WriteTx
    record: MemoryRecord
    contents: list[str]
    marker: str
    purge_events: bool
    report: list[str] = field(default_factory=list)
    cleaned: list[str] = field(default_factory=list)
    redacted_events: list[str] = field(default_factory=list)

    def carries(self, text: str) -> bool:
        """True when `text` holds a copy of the content (see the module docstring)."""
        return carries(text, self.contents)

    def scrub(self, text: str) -> str:
        """`text` with every copy of the content replaced by the marker."""
        return scrub(text, self.contents, self.marker)

    def visible_in(self, scope_json: str) -> bool:
        """True when a request or event with this clear scope could see the memory."""
        try:
            return self.record.scope.visible_to(Scope.from_json(scope_json))
        except (ValueError, TypeError):
            return True  # unreadable scope: look inside rather than miss a copy
        except Exception:  # an invalid stored scope raises our InvalidInputError
            return True


@dataclass(frozen=True)
class Place:
    """A place that can hold a copy of content, and the purge step that handles it."""

    name: str
    holds: str
    handler: Callable[[Purge], None] | None
    why_nothing: str = ""


def _revisions(p: Purge) -> None:
    purge.destroy_revision_contents(p.tx.conn, p.record.id)
    p.report.append("memory_revisions: content of every revision destroyed")


def _decisions(p: Purge) -> None:
    """The memory's own decision reasons, and other memories' reasons that name it or
    quote it (conflict and supersede descriptions quote the differing values)."""
    own = purge.decision_ids(p.tx.conn, p.record.id)
    for did in own:
        _seal_reason(p, did, PURGED_REASON)
    p.report.append(f"decisions: {len(own)} reason(s) redacted")
    neighbours = _same_scope_memories(p)
    mentioned = 0
    for did, blob in purge.sealed_reasons(p.tx.conn, neighbours):
        try:
            reason = p.tx.codec.open_text(blob, memories.reason_aad(did))
        except (IntegrityError, PrivateScopeError):
            reason = ""  # damaged: verify names it; nothing readable to redact
        if p.record.id in reason or p.carries(reason):
            _seal_reason(p, did, f"{PURGED_REASON} (it described purged {p.record.id})")
            mentioned += 1
    if mentioned:
        p.report.append(f"decisions of related memories: {mentioned} description(s) redacted")


def _same_scope_memories(p: Purge) -> list[str]:
    # A conflict or supersede description can name a memory of another scope (a narrower
    # or wider one, #38): every memory sharing a scope key and value is looked at, and
    # every memory when the purged one has no scope keys at all.
    return purge.other_memories_sharing_scope(p.tx.conn, p.record.scope.items_, p.record.id)


def _seal_reason(p: Purge, decision_id: str, text: str) -> None:
    key_id = p.tx.key_for(p.record.scope.get("user"), strict=False)
    purge.rewrite_reason(p.tx, decision_id, text, key_id)


def _snapshots(p: Purge) -> None:
    """Injected text, items and digest of snapshots that used it; goals quoting it in any
    snapshot whose request could see the memory."""
    used = set(snapshots.ids_using(p.tx.conn, [p.record.id]))
    candidates = used | _snapshots_seeing(p)
    touched = goals = digests = dropped = 0
    for snap_id in sorted(candidates):
        try:
            snap = snapshots.get(p.tx.conn, p.tx.codec, snap_id)
        except PrivateScopeError:
            # Another member's private snapshot: it cannot be redacted here, so a snapshot
            # that injected the memory is destroyed whole rather than kept with the copy.
            if snap_id in used:
                snapshots.delete_whole(p.tx, snap_id)
                dropped += 1
            continue
        except IntegrityError:
            p.report.append(f"snapshots: {snap_id} is damaged and could not be opened")
            continue
        goal = p.scrub(snap.goal) if p.carries(snap.goal) else snap.goal
        if snap_id not in used and goal == snap.goal:
            continue
        digests += sum(1 for i in snap.injected if i.memory_id == p.record.id and i.in_digest)
        snapshots.rewrite(p.tx, redact_injected(snap, p.record.id, p.contents, p.marker))
        touched += snap_id in used
        goals += goal != snap.goal
    if touched:
        p.cleaned.append("snapshot_text")
        p.report.append(f"snapshots: injected text redacted in {touched} snapshot(s)")
    if dropped:
        p.cleaned.append("snapshot_text")
        p.report.append(f"snapshots: {dropped} private snapshot(s) of other members deleted whole")
    if goals:
        p.cleaned.append("snapshot_goal")
        p.report.append(f"snapshots: goal text redacted in {goals} snapshot(s)")
    if digests:
        p.cleaned.append("digest")
        p.report.append(f"digests: {digests} digest entr(ies) redacted")


def _snapshots_seeing(p: Purge) -> set[str]:
    return {sid for sid, scope_json in purge.snapshot_scopes(p.tx.conn) if p.visible_in(scope_json)}


def _source_events(p: Purge) -> None:
    """The memory's sources as its hash-chained decisions announced them (#38): a link
    added in the file to another user's event is not followed, a deleted one still is."""
    if not p.purge_events:
        return
    linked = list(p.record.source_event_ids)
    announced = memories.announced_sources(p.tx.conn, p.tx.codec, p.record.id)
    if announced is not None:
        forged = [e for e in linked if e not in announced]
        if forged:
            p.report.append(
                f"memory_sources: {len(forged)} link(s) no decision announced were not "
                "followed (changed outside Memory Center)"
            )
        linked = sorted(announced)
    p.redacted_events += [e for e in linked if _redact(p, e)]


def _audit_events(p: Purge) -> None:
    """`agent_call` audit events whose tool arguments (content, query, goal) carry it."""
    if not p.purge_events:
        return
    rows = purge.agent_call_scopes(p.tx.conn)
    ids = [eid for eid, scope_json in rows if p.visible_in(scope_json)]
    found = 0
    for event in event_log.list_by_ids(p.tx.conn, p.tx.codec, ids):
        if _any_string(event.data, p.carries) and _redact(p, event.id):
            p.redacted_events.append(event.id)
            found += 1
    p.report.append(f"audit events: {found} agent call(s) quoting the content redacted")


def _echoes(p: Purge) -> None:
    """Conversation events that are not its sources but carry its text: the assistant's
    echo in the same transcript, an agent's `record_event`, a tool result quoting it."""
    if not p.purge_events:
        return
    done = set(p.redacted_events)
    rows = purge.conversation_event_scopes(p.tx.conn)
    ids = [eid for eid, scope_json in rows if eid not in done and p.visible_in(scope_json)]
    found = 0
    for event in event_log.list_by_ids(p.tx.conn, p.tx.codec, ids):
        if (p.carries(event.text) or _any_string(event.data, p.carries)) and _redact(p, event.id):
            p.redacted_events.append(event.id)
            found += 1
    p.report.append(f"conversation events: {found} other event(s) quoting the content redacted")


def _redact(p: Purge, event_id: str) -> bool:
    return purge.redact_payload(p.tx, event_id)


def _announce(p: Purge) -> None:
    """One redaction event names every payload redacted, so the chain still verifies."""
    if not p.purge_events:
        return
    event_log.system_event(
        p.tx,
        GOVERNANCE_SESSION,
        p.record.scope,
        EventKind.REDACTION,
        f"compliance purge of memory {p.record.id}: payloads redacted",
        {"memory_id": p.record.id, "redacted_event_ids": list(dict.fromkeys(p.redacted_events))},
        by_user="user",
    )
    p.report.append(
        f"event payloads: {len(set(p.redacted_events))} event(s) redacted; "
        "the hash chain still verifies"
    )


PLACES: tuple[Place, ...] = (
    Place("memory_revisions.content", "every revision of the content", _revisions),
    Place(
        "decisions.reason",
        "the memory's decision reasons; other memories' conflict and supersede descriptions",
        _decisions,
    ),
    Place(
        "snapshots.body",
        "injected text, items and digest; the goal (the agent's request) of any snapshot",
        _snapshots,
    ),
    Place("event_payloads (sources)", "the events the memory was made from", _source_events),
    Place(
        "event_payloads (agent_call)",
        "MCP tool arguments (content, query, goal) in the audit events",
        _audit_events,
    ),
    Place(
        "event_payloads (other conversation events)",
        "messages, tool calls and results and agents' recorded events that are not the "
        "memory's sources but quote it (the assistant's echo, an MCP record_event)",
        _echoes,
    ),
    Place("events (redaction)", "nothing: the event that announces the redactions", _announce),
    Place(
        "event_payloads (events that say the same in other words, or only part of it)",
        "a paraphrase, or a query holding a few of its words",
        None,
        "kept: a copy is recognised by the content (or its injected preview) as a whole; a "
        "paraphrase or a few of its words are the user's or agent's own, not a copy; purge "
        "the memories made from them, or name those events as sources",
    ),
    Place(
        "tombstones",
        "the user's own deletion reason and the purge report (ids and counts only)",
        None,
        "kept: the reason is what the user wrote when asking for deletion",
    ),
    Place(
        "deletion_fences.fingerprint",
        "a keyed fingerprint, not the content",
        None,
        "kept by design: it stops the content from being re-extracted",
    ),
    Place(
        "fence_features (terms_json, marks_json, vector)",
        "keyed hashes of the content's words and numbers, and its embedding sealed with the codec",
        None,
        "kept by design: they fence the same fact in other words; no text, and the embedding "
        "opens only with the store key",
    ),
    Place(
        "catalog, keyword index, injection cache, vector index",
        "derived copies",
        None,
        "removed by the deletion itself (service: derived stores, then the vector file)",
    ),
    Place(
        "vector index: conversation windows (a turn embedded with its neighbours)",
        "the meaning of the memory and of the turns around it",
        None,
        "every window whose key names the memory is dropped with its vector "
        "(VectorLayer._drop_windows), before the vector file is rewritten",
    ),
    Place(
        "index/vectors.delta.mcidx (sealed vectors added beside the graph file)",
        "the embedding of a memory added by a process that left the graph in its file",
        None,
        "a purge of a memory in it writes the file again without it; a purge of a memory "
        "in the graph file rewrites the graph file and deletes this one",
    ),
    Place(
        "index/keywords.mcidx (sealed keyword index file)",
        "the memory's terms, their postings and its id",
        None,
        "rewritten without them right after the purge commits (Catalog.purge), like the "
        "vector file; a term no other memory holds leaves the file's dictionary; a process "
        "killed before that has it done at the next open (index/purge-pending.json)",
    ),
    Place(
        "index/texts.mcidx (sealed text index of the memory center's search)",
        "the memory's casefolded content and its id (never a private scope's: those stay "
        "under the personal key)",
        None,
        "rewritten without them right after the purge commits (Catalog.purge); a copy that "
        "does not open is deleted",
    ),
    Place(
        "SQLite WAL and freed pages",
        "old page images",
        None,
        "secure_delete zeroes freed pages; the service checkpoints the WAL after a purge",
    ),
    Place(
        "spool.sqlite3 (a machine's offline spool of a server store)",
        "writes made while the server was away, sealed with the codec",
        None,
        "short-lived: an entry is deleted (secure_delete) once applied, and it is applied "
        "before anything it wrote can be purged; a purge made while offline waits behind it",
    ),
    Place(
        "export-case and export files",
        "documents the user wrote out (memory export-case --output, memory export)",
        None,
        "not kept by the store: they are the user's files, outside the data directory",
    ),
    Place(
        "log lines",
        "warnings to stderr",
        None,
        "never carry content: log calls pass ids, key ids and error messages only",
    ),
)


EVENT_PLACES = frozenset(
    {
        "event_payloads (sources)",
        "event_payloads (agent_call)",
        "event_payloads (other conversation events)",
    }
)


def preview(memory_id: str, report: Sequence[str], purge_events: bool) -> PurgePreview:
    """The purge's report (run and rolled back) as redactions, and every place it keeps,
    with the reason, so the user sees both before anything is destroyed."""
    kept = [
        f"{place.name}: {place.holds}; {place.why_nothing}"
        for place in PLACES
        if place.handler is None
    ]
    if not purge_events:
        kept = [
            f"{name}: kept without --purge-events (the log is not touched)"
            for name in sorted(EVENT_PLACES)
        ] + kept
    return PurgePreview(memory_id, purge_events, tuple(report), tuple(kept))


def purge_all(p: Purge) -> None:
    """Run every place's purge step, in order."""
    for place in PLACES:
        if place.handler is not None:
            place.handler(p)


def _any_string(value: Any, test: Callable[[str], bool]) -> bool:
    if isinstance(value, str):
        return test(value)
    if isinstance(value, Mapping):
        return any(_any_string(v, test) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_any_string(v, test) for v in value)
    return False


def carries(text: str, contents: Sequence[str]) -> bool:
    """True when `text` holds a copy of one of `contents` (see the module docstring)."""
    if not text:
        return False
    folded = text.casefold()
    for content in _needles(contents):
        if len(content) < MIN_MATCH:
            if folded.strip() == content:
                return True
        elif content in folded or _runs_into(folded, content):
            return True
    return False


def _needles(contents: Sequence[str]) -> list[str]:
    """The texts to look for: each revision and its previews, casefolded, longest first."""
    out = {c.casefold() for c in contents if c}
    out |= {p.rstrip(ELLIPSIS).casefold() for c in contents if c for p in render.previews(c)}
    return sorted((n for n in out if n.strip()), key=len, reverse=True)


def scrub(text: str, contents: Sequence[str], marker: str) -> str:
    """`text` with every copy of `contents` replaced by `marker`."""
    out = text
    for content in sorted(contents, key=len, reverse=True):
        if content:
            out = _replace_folded(out, content, marker)
            for preview in render.previews(content):
                out = _replace_folded(out, preview, marker)
    return out if not carries(out, contents) else marker


def redact_injected(
    snap: Snapshot, memory_id: str, contents: Sequence[str], marker: str
) -> Snapshot:
    """`snap` with a purged memory's injected copies (item, text, digest, goal) replaced."""
    goal = scrub(snap.goal, contents, marker) if carries(snap.goal, contents) else snap.goal
    items = tuple(
        replace(i, content=marker) if i.memory_id == memory_id else i for i in snap.injected
    )
    purged = tuple(dict.fromkeys((*snap.purged_memory_ids, memory_id)))
    return replace(
        snap,
        goal=goal,
        text=scrub(snap.text, contents, marker),
        injected=items,
        purged_memory_ids=purged,
    )


def _runs_into(folded: str, content: str) -> bool:
    """A shortened argument ("...text…") whose cut-off end is the start of the content."""
    if not folded.endswith(ELLIPSIS):
        return False
    head = folded[: -len(ELLIPSIS)]
    for size in range(min(len(head), len(content)), OVERLAP_MIN - 1, -1):
        if head.endswith(content[:size]):
            return True
    return False


def _replace_folded(text: str, needle: str, marker: str) -> str:
    """Replace every case-insensitive occurrence of `needle` in `text`."""
    if not needle:
        return text
    folded, target = text.casefold(), needle.casefold()
    if len(folded) != len(text):  # casefold changed lengths (ß): fall back to exact
        return text.replace(needle, marker)
    out, start = [], 0
    while (at := folded.find(target, start)) >= 0:
        out.append(text[start:at])
        out.append(marker)
        start = at + len(target)
    out.append(text[start:])
    return "".join(out)

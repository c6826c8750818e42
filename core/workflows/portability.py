"""Export memories to a portable JSON document, and import one back as suggestions.

An export is for the user: moving to another machine, keeping a backup they can read, or
handing memories to another tool. It holds decrypted content, so callers warn that the file
is not encrypted. An import never trusts the file: every memory is recorded as an `import`
event and submitted as a candidate, so the policy (sensitivity, fences, duplicates,
conflicts) decides and the user reviews it like any suggestion (R6, R7).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from core.errors import InvalidInputError
from core.governance.ledger import Ledger
from core.governance.policy import Candidate, Origin
from core.model import limits
from core.model.enums import Actor, EventKind, EventSource, MemoryKind, TrustLevel
from core.model.memory import MemoryOutcome
from core.model.records import MemoryRecord
from core.model.scope import Scope
from core.model.validate import ValidEvent, enum_value, identifier, said_at, speaker, text
from core.storage import event_log
from core.storage.store import WriteTx

FORMAT = "memory-center-export-v1"
MAX_IMPORT = 10_000


def export_document(records: Sequence[MemoryRecord], now: dt.datetime) -> dict[str, Any]:
    """The export document for these records. A purged memory has no content left and is
    not exported: its empty content made `import` refuse the whole file."""
    records = [r for r in records if r.content.strip()]
    return {
        "format": FORMAT,
        "exported_at": now.isoformat(),
        "memories": [
            {
                "id": r.id,
                "content": r.content,
                "kind": r.kind.value,
                "scope": dict(r.scope),
                "status": r.status.value,
                "confidence": r.confidence,
                "created_at": r.created_at.isoformat(),
                "expires_at": r.expires_at.isoformat() if r.expires_at else None,
                "source_trust": r.source_trust.value,
                "said_at": r.valid_from.isoformat(),
                **({"speaker": r.speaker} if r.speaker else {}),
            }
            for r in records
        ],
    }


def import_document(
    tx: WriteTx, ledger: Ledger, doc: Mapping[str, Any], *, session: str, by: str
) -> list[MemoryOutcome]:
    """Submit every memory of an export document as a candidate (validated first, all or none).

    Raises:
        InvalidInputError: the document or one of its memories is malformed (named by index).
    """
    items = _validated(doc)
    outcomes = []
    for i, (content, kind, scope) in enumerate(items):
        when = said_at(doc["memories"][i].get("said_at"), tx.now, f"memories[{i}].said_at")
        who = speaker(doc["memories"][i].get("speaker"), f"memories[{i}].speaker")
        (event,) = event_log.append(
            tx,
            [
                ValidEvent(
                    session,
                    Actor.SYSTEM,
                    TrustLevel.ASSISTANT,
                    scope,
                    content,
                    EventKind.MESSAGE,
                    EventSource.IMPORT,
                    {"import": FORMAT} | ({"speaker": who} if who else {}),
                    (),
                    by,
                )
            ],
        )
        cand = Candidate(
            content,
            kind,
            scope,
            (event.id,),
            TrustLevel.ASSISTANT,
            Origin.IMPORT,
            by,
            evidence_scopes=(scope,),
            said_at=when,
            speaker=who,
        )
        outcomes.append(ledger.submit(tx, cand, session=session))
    return outcomes


def _validated(doc: Mapping[str, Any]) -> list[tuple[str, MemoryKind, Scope]]:
    if not isinstance(doc, Mapping) or doc.get("format") != FORMAT:
        raise InvalidInputError("document", f"not a Memory Center export ({FORMAT})")
    memories = doc.get("memories")
    if not isinstance(memories, list):
        raise InvalidInputError("document.memories", "must be a list")
    if len(memories) > MAX_IMPORT:
        raise InvalidInputError("document.memories", f"more than {MAX_IMPORT} memories")
    out = []
    for i, item in enumerate(memories):
        field = f"memories[{i}]"
        if not isinstance(item, Mapping):
            raise InvalidInputError(field, "must be an object")
        content = text(item.get("content"), f"{field}.content", limits.MAX_MEMORY_TEXT)
        kind = enum_value(MemoryKind, item.get("kind", "fact"), f"{field}.kind")
        scope = Scope.required(item.get("scope"), field=f"{field}.scope")
        out.append((content, kind, scope))
    return out


def import_session(now: dt.datetime) -> str:
    """A session name for one import run."""
    return identifier(f"import-{now:%Y%m%dT%H%M%S}", "session")

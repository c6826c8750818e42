"""Which events of a session extraction has read: a mark per session, so it can resume.

Appending a transcript's events and extracting from them are two transactions (a slow
extractor must not hold the store's write lock). A run killed between them used to leave
events in the log that no later run would extract: the next import found every line
"already present" and suggested nothing (#38). Now each session has an extraction mark (a
capture cursor holding the position of the last event extracted); `import`, `watch` and
the hooks extract what lies after the mark and move it afterwards. A run killed after
extracting but before moving the mark extracts those events again on the next run, which
adds nothing: the candidate ledger recognises a proposal it already holds.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable

from core import CaptureCursor, ConflictError, MemoryCenterError, MemoryService
from core.model import commands as c

IMPORTER = c.Origin("importer")


AGENT = "extract"
PAGE = 10_000


def cursor_key(session: str) -> str:
    """The mark's key: a digest of the session name (names stay out of the cursor table)."""
    # surrogatepass: a session name read from a damaged file may hold a lone surrogate
    digest = hashlib.sha256(session.encode("utf-8", "surrogatepass")).hexdigest()
    return f"extract:{digest[:40]}"


def mark_of(service: MemoryService, session: str) -> CaptureCursor:
    """The session's extraction mark (position 0 when nothing was extracted yet)."""
    return service.events.capture_cursor(cursor_key(session), AGENT)


def pending(service: MemoryService, session: str) -> tuple[CaptureCursor, list[str], int]:
    """(mark, ids of the events after it, position of the session's last event)."""
    mark = mark_of(service, session)
    ids: list[str] = []
    last = after = mark.position
    while True:
        page = service.events.list_events(session=session, after_position=after, limit=PAGE)
        ids.extend(e.id for e in page)
        if page:
            last = after = page[-1].position
        if len(page) < PAGE:
            return mark, ids, last


def advance(service: MemoryService, mark: CaptureCursor, position: int) -> bool:
    """Move the mark to `position`; False when another run moved it first (it did the work)."""
    if position <= mark.position:
        return True
    try:
        service.commands.run(
            c.AppendCaptured(tuple([]), mark, position, {"extracted_to": position}), IMPORTER
        )
    except ConflictError:
        return False
    return True


def finish(service: MemoryService, sessions: Iterable[str]) -> tuple[Counter[str], list[str]]:
    """Extract what each session holds after its mark, then move the mark.

    Returns the outcomes by kind and the sessions that were finished (had pending events).
    A session that fails is left for the next run (its mark does not move)."""
    outcomes: Counter[str] = Counter()
    finished: list[str] = []
    for session in dict.fromkeys(sessions):
        try:
            mark, ids, last = pending(service, session)
            if not ids:
                continue
            for outcome in service.commands.run(c.Extract(session, ids), IMPORTER).value:
                outcomes[outcome.outcome] += 1
            advance(service, mark, last)
        except MemoryCenterError:
            continue
        finished.append(session)
    return outcomes, finished

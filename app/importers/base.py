"""What every transcript importer shares: parsed sessions, problems, and the idempotent writer.

An importer parses a source into `SourceSession`s (plus `Problem`s for what it had to skip);
`write_sessions` appends each session's *new* events in one transaction (all or none), then
runs extraction so suggested memories reach the review queue. Events carry the source's ids
and timestamps in `data` (`source_id`, `source_ts`); re-importing compares `source_id`s with
what the session already holds and adds nothing twice.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import re
import stat
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.importers import extraction
from core import InvalidInputError, MemoryCenterError, MemoryService, NewEvent, Scope
from core.model import commands as c
from core.model import limits
from core.model.jsonsafe import has_lone_surrogate
from core.model.records import RECORDED_AFTER

IMPORTER = c.Origin("importer")


PAGE = 10_000
MAX_SOURCE_BYTES = 512 * 1024 * 1024
"""The most an importer reads from one source file (#38): a runaway file (or a device that
never ends) is refused with a clear line instead of filling the memory."""
# Events appended (and then extracted) per transaction by an import.
BATCH_EVENTS = 2_000
# Where `append_events` names the event it refused: "events[17].text".
_EVENT_FIELD = re.compile(r"events\[(\d+)\]")


@dataclass(frozen=True)
class SourceEvent:
    """One event as the source recorded it."""

    source_id: str
    actor: str
    trust: str
    text: str
    kind: str = "message"
    source: str | None = None
    ts: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    where: str = ""


@dataclass
class SourceSession:
    """One conversation of the source, in order."""

    session: str
    events: list[SourceEvent] = field(default_factory=list)
    scope_extra: dict[str, str] = field(default_factory=dict)
    origin: str = ""


@dataclass(frozen=True)
class Problem:
    """Something skipped: where (file and line, or conversation) and why."""

    file: str
    where: str
    message: str

    def __str__(self) -> str:
        return printable(f"{self.file}:{self.where}: {self.message}")


@dataclass
class ImportReport:
    """The outcome of one import run."""

    sessions_seen: int = 0
    sessions_written: int = 0
    events_written: int = 0
    events_already_present: int = 0
    suggestions: Counter[str] = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)
    sessions_resumed: int = 0
    """Sessions whose events were all present but not yet extracted (an interrupted run)."""


def printable(text: str) -> str:
    """`text` as valid UTF-8: a file name with undecodable bytes still prints and serialises."""
    return text.encode("utf-8", "replace").decode("utf-8") if has_lone_surrogate(text) else text


def read_source(path: Path, limit: int = MAX_SOURCE_BYTES) -> bytes:
    """The bytes of a regular file, at most `limit` of them.

    The file is opened without blocking and checked on the open descriptor, so a FIFO (which
    would wait for a writer for ever), a device such as /dev/zero (which never ends) or a
    directory is refused, and so is a file swapped for one of those after a check (#38).

    Raises:
        ValueError: not a regular file, too large, or unreadable (the message says which).
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        reason = "it is a directory" if exc.errno == errno.EISDIR else exc.strerror
        raise ValueError(f"cannot read: {reason}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"not a regular file ({_file_type(info.st_mode)}); nothing read")
        if info.st_size > limit:
            found, most = _size(info.st_size), _size(limit)
            raise ValueError(f"{found} is larger than the {most} an import reads; nothing read")
        chunks: list[bytes] = []
        size = 0
        while True:  # read to the end, not to st_size: a file may grow while it is read
            part = os.read(fd, 1 << 20)
            if not part:
                return b"".join(chunks)
            size += len(part)
            if size > limit:
                raise ValueError(f"grew beyond the {_size(limit)} an import reads")
            chunks.append(part)
    except OSError as exc:
        raise ValueError(f"cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)


def _file_type(mode: int) -> str:
    kinds = (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
    )
    return next((name for test, name in kinds if test(mode)), "not a plain file")


def _size(count: int) -> str:
    return f"{count / (1 << 20):.0f} MiB" if count >= 1 << 20 else f"{count} bytes"


def iso_from_epoch(value: object) -> str | None:
    """An ISO-8601 UTC instant from epoch seconds (ChatGPT's create_time), or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return dt.datetime.fromtimestamp(float(value), dt.UTC).isoformat()
    except (OverflowError, OSError, ValueError):
        return None


def clip(text: str) -> tuple[str, dict[str, Any]]:
    """Text within the event limit; an oversized text is cut and the cut is recorded."""
    if len(text) <= limits.MAX_EVENT_TEXT:
        return text, {}
    return text[: limits.MAX_EVENT_TEXT], {"truncated": True, "original_chars": len(text)}


def existing_source_ids(service: MemoryService, session: str) -> set[str]:
    """The `data.source_id`s already in a session's log."""
    seen: set[str] = set()
    after = 0
    while True:
        page = service.events.list_events(session=session, after_position=after, limit=PAGE)
        for event in page:
            sid = event.data.get("source_id")
            if isinstance(sid, str):
                seen.add(sid)
        if len(page) < PAGE:
            return seen
        after = page[-1].position


def write_sessions(
    service: MemoryService,
    sessions: Iterable[SourceSession],
    scope: Scope,
    report: ImportReport,
    *,
    importer: str,
    progress: Callable[[SourceSession], None] | None = None,
    extract: bool = True,
) -> ImportReport:
    """Append the sessions' new events and extract from them, in batches of sessions.

    A batch of about `BATCH_EVENTS` events is appended in one transaction and extracted in
    one more (#13); when a batch fails, its sessions are written one by one so the failure
    is reported against the session that caused it and the others still land.
    """
    batch: list[tuple[SourceSession, list[Pending]]] = []
    present: list[str] = []
    for sess in sessions:
        report.sessions_seen += 1
        try:
            items = _prepare(service, sess, scope, report, importer)
        except MemoryCenterError as exc:
            _problem(report, sess, exc)
            items = []
        if items:
            batch.append((sess, items))
        else:
            present.append(sess.session)
        if sum(len(i) for _, i in batch) >= BATCH_EVENTS:
            _flush(service, batch, report, extract)
            batch = []
        if progress is not None:
            progress(sess)
    _flush(service, batch, report, extract)
    if extract and present:
        # Sessions already in the log whose extraction an interrupted run never did (#38).
        outcomes, finished = extraction.finish(service, present)
        report.suggestions.update(outcomes)
        report.sessions_resumed += len(finished)
    return report


def _problem(report: ImportReport, sess: SourceSession, exc: MemoryCenterError) -> None:
    name = printable(sess.session)
    # A session name from the file may be any length; the report names it, not repeats it.
    where = f"session {name[:120]}…" if len(name) > 120 else f"session {name}"
    report.problems.append(Problem(sess.origin or sess.session, where, exc.message))


Pending = tuple[NewEvent, SourceEvent]
"""An event to append, with the transcript line it came from (to name it if refused)."""


def _prepare(
    service: MemoryService, sess: SourceSession, scope: Scope, report: ImportReport, importer: str
) -> list[Pending]:
    """The session's events not imported before, each with the line it came from."""
    present = existing_source_ids(service, sess.session)
    fresh = []
    for event in sess.events:
        # A line met twice (a resumed or forked session's copy, read from both files) once.
        if event.source_id not in present:
            present.add(event.source_id)
            fresh.append(event)
    report.events_already_present += len(sess.events) - len(fresh)
    if not fresh:
        return []
    where = Scope.of({**dict(sess.scope_extra), **dict(scope.items_)})
    return [(_new_event(sess, where, e, importer), e) for e in fresh]


Written = tuple[SourceSession, list[Pending], int]
"""A session appended by a batch, its events, and the position of its last event."""


def _flush(
    service: MemoryService,
    batch: list[tuple[SourceSession, list[Pending]]],
    report: ImportReport,
    extract: bool,
) -> None:
    if not batch:
        return
    try:
        written = _append(service, batch, report)
    except MemoryCenterError:
        written = []
        for sess, items in batch:  # one by one: the failing session is named, others land
            try:
                written += _append(service, [(sess, items)], report)
            except MemoryCenterError as exc:
                _problem(report, sess, exc)
    for _, items, _ in written:
        report.sessions_written += 1
        report.events_written += len(items)
    if extract and written:
        done = _extract(service, [sess for sess, _, _ in written], report)
        for sess, _, last in written:
            if sess.session in done:  # the mark moves only once extraction committed
                extraction.advance(service, extraction.mark_of(service, sess.session), last)


def _append(
    service: MemoryService, batch: list[tuple[SourceSession, list[Pending]]], report: ImportReport
) -> list[Written]:
    """Append the batch in one transaction; what was written, by session.

    The service validates each event once (#13: the importer no longer checks them first).
    An event it refuses (a NUL, invalid Unicode, oversized data ...) is reported with its
    place in the transcript and left out, and the rest is tried again: the session is kept.
    """
    batch = [(sess, list(items)) for sess, items in batch]
    while batch:
        flat = [(b, k) for b, (_, items) in enumerate(batch) for k in range(len(items))]
        try:
            events = service.commands.run(
                c.AppendEvents(tuple([batch[b][1][k][0] for b, k in flat])), IMPORTER
            ).value
        except InvalidInputError as exc:
            found = _EVENT_FIELD.match(exc.field)
            if found is None or int(found.group(1)) >= len(flat):
                raise
            b, k = flat[int(found.group(1))]
            sess, items = batch[b]
            _, source = items.pop(k)
            field_name = "event" + exc.field[found.end() :]
            report.problems.append(
                Problem(
                    sess.origin or sess.session,
                    source.where or f"event {source.source_id}",
                    f"{field_name}: {exc.problem}; event skipped",
                )
            )
            batch = [entry for entry in batch if entry[1]]
            continue
        last = [0] * len(batch)
        for (b, _), event in zip(flat, events, strict=True):
            last[b] = max(last[b], event.position)
        return [(sess, items, last[b]) for b, (sess, items) in enumerate(batch)]
    return []


def _extract(
    service: MemoryService, sessions: list[SourceSession], report: ImportReport
) -> set[str]:
    """Extract from the sessions; the names of those whose extraction committed."""
    try:
        outcomes = service.commands.run(
            c.ExtractMany(tuple([s.session for s in sessions])), IMPORTER
        ).value
        done = {s.session for s in sessions}
    except MemoryCenterError:
        outcomes, done = [], set()
        for sess in sessions:
            try:
                outcomes += service.commands.run(c.Extract(sess.session), IMPORTER).value
            except MemoryCenterError as exc:
                _problem(report, sess, exc)
                continue
            done.add(sess.session)
    for outcome in outcomes:
        report.suggestions[outcome.outcome] += 1
    return done


def _new_event(sess: SourceSession, scope: Scope, ev: SourceEvent, importer: str) -> NewEvent:
    origin = {"source_file": printable(sess.origin)} if sess.origin else {}
    return to_new_event(sess.session, scope, ev, importer, origin)


def to_new_event(
    session: str, scope: Scope, ev: SourceEvent, by: str, origin: dict[str, str] | None = None
) -> NewEvent:
    """The event to append for a transcript line, carrying its source id, time and importer
    (the same for `import` and for live capture, so one can see what the other wrote)."""
    data: dict[str, Any] = {"source_id": ev.source_id, "source_ts": ev.ts, "importer": by}
    data.update(origin or {})
    data.update(ev.extra)
    return NewEvent(
        session=session,
        actor=ev.actor,
        trust=ev.trust,
        scope=scope,
        text=ev.text,
        kind=ev.kind,
        source=ev.source,
        data=data,
        by=by,
        said_at=said_before(ev.ts),
    )


def said_before(ts: str | None, now: dt.datetime | None = None) -> str | None:
    """The source's time of a line as its `said_at`, when it is a valid instant well in the
    past (imported history): memories extracted from it are valid from when it was said,
    not from the import. A live line (seconds old, or a clock a little ahead), a time
    without a zone and an unreadable one give None: the line is then simply recorded now,
    and its `source_ts` is kept as before."""
    if not ts:
        return None
    try:
        moment = dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    now = now or dt.datetime.now(dt.UTC)
    return moment.isoformat() if moment < now - RECORDED_AFTER else None

"""What every write reads first under the write lock, in one statement (the store
revision, the chain head, the active key id, a session's event count, the change feed's
last revision), and that read in the form BEGIN carries to a PostgreSQL server (#41)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, func, select

from core.storage import schema as s
from core.storage.driver_path import driver_form
from core.storage.engine import FirstRead

# Built once: building a statement costs more than sending it.
LAST_EVENT = select(s.events.c.position, s.events.c.hash).order_by(s.events.c.position.desc())
PROLOGUE = select(
    select(s.store_revision.c.revision).where(s.store_revision.c.id == 1).scalar_subquery(),
    LAST_EVENT.with_only_columns(s.events.c.position).limit(1).scalar_subquery(),
    LAST_EVENT.with_only_columns(s.events.c.hash).limit(1).scalar_subquery(),
    select(s.store_meta.c.value).where(s.store_meta.c.key == "active_key_id").scalar_subquery(),
    select(s.sessions.c.event_count)
    .where(s.sessions.c.id == bindparam("session"))
    .scalar_subquery(),
    # The change feed's last revision: a store_revision rewound below it (an edit of the
    # file) would make every write collide with the feed's primary key (#38).
    select(func.max(s.changes.c.revision)).scalar_subquery(),
)


def prologue_read(session: str | None) -> FirstRead:
    """The prologue as a read that BEGIN carries (`engine.carried_by_begin`)."""
    params = {"session": session or ""}

    def compile(conn: Connection) -> tuple[str, dict[str, Any]] | None:
        form = driver_form(conn, PROLOGUE, [params])
        return None if form is None else (form[0], {**form[1], **params})

    return FirstRead(compile)

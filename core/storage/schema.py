"""The relational schema, dialect-neutral SQLAlchemy Core (SQLite now, PostgreSQL later).

Content-bearing columns hold ciphertext from the codec (`LargeBinary`); the metadata needed
to filter (ids, scope keys, status, timestamps, kind) stays in the clear. Timestamps are
UTC ISO-8601 strings so ordering is lexical on every backend.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

Ts = String(40)
Id = String(64)

store_meta = Table(
    "store_meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

schema_migrations = Table(
    "schema_migrations",
    metadata,
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("description", Text, nullable=False),
    Column("applied_at", Ts, nullable=False),
)

store_revision = Table(
    "store_revision",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("revision", Integer, nullable=False),
)

changes = Table(
    "changes",
    metadata,
    Column("revision", Integer, primary_key=True, autoincrement=False),
    Column("ts", Ts, nullable=False),
    Column("kinds", Text, nullable=False),
    Column("event_ids", Text, nullable=False),
    Column("memory_ids", Text, nullable=False),
)

sessions = Table(
    "sessions",
    metadata,
    Column("id", String(200), primary_key=True),
    Column("created_at", Ts, nullable=False),
    Column("opted_out", Boolean, nullable=False, default=False),
    Column("event_count", Integer, nullable=False, default=0),
    Column("last_event_at", Ts),
)

events = Table(
    "events",
    metadata,
    Column("id", Id, primary_key=True),
    Column("position", Integer, nullable=False, unique=True),
    Column("session_id", String(200), ForeignKey("sessions.id"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("ts", Ts, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("actor", String(32), nullable=False),
    Column("trust", String(32), nullable=False),
    Column("source", String(32)),
    Column("scope_json", Text, nullable=False),
    Column("refs_json", Text, nullable=False),
    Column("by_user", String(200)),
    Column("commitment", String(64), nullable=False),
    Column("prev_hash", String(64), nullable=False),
    Column("hash", String(64), nullable=False),
    UniqueConstraint("session_id", "seq", name="uq_events_session_seq"),
)
Index("ix_events_session", events.c.session_id, events.c.seq)
Index("ix_events_ts", events.c.ts)

# Payloads live apart from the immutable event rows so that key rotation can re-encrypt them
# and a compliance purge can redact them; the chain commits to each payload (hash_chain.py).
event_payloads = Table(
    "event_payloads",
    metadata,
    Column("event_id", Id, ForeignKey("events.id"), primary_key=True),
    Column("ciphertext", LargeBinary, nullable=False),
    Column("redacted_at", Ts),
)

memories = Table(
    "memories",
    metadata,
    Column("id", Id, primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("scope_json", Text, nullable=False),
    Column("status", String(32), nullable=False),
    Column("confidence", Float, nullable=False),
    Column("created_at", Ts, nullable=False),
    Column("updated_at", Ts, nullable=False),
    Column("valid_from", Ts, nullable=False),
    Column("expires_at", Ts),
    Column("supersedes", Id),
    Column("superseded_by", Id),
    Column("sensitivity", String(32), nullable=False),
    Column("owner", String(200), nullable=False),
    Column("revision", Integer, nullable=False),
    Column("source_trust", String(32), nullable=False),
    Column("flags_json", Text, nullable=False, default="[]"),
    Column("conflict_set", Id),
    Column("index_refs_json", Text, nullable=False, default="[]"),
    Column("fingerprint", String(64), nullable=False),
    # Keyed MAC over the clear metadata that decides visibility (schema version 4, binding.py).
    Column("binding", String(64)),
)
Index("ix_memories_status", memories.c.status)
Index("ix_memories_updated", memories.c.updated_at)
Index("ix_memories_fingerprint", memories.c.fingerprint)

memory_revisions = Table(
    "memory_revisions",
    metadata,
    Column("memory_id", Id, ForeignKey("memories.id"), primary_key=True),
    Column("revision", Integer, primary_key=True, autoincrement=False),
    Column("ts", Ts, nullable=False),
    Column("actor", String(200), nullable=False),
    Column("scope_json", Text, nullable=False),
    Column("content", LargeBinary),
    Column("store_revision", Integer, nullable=False),
    # Who said it (#17, schema version 10): sealed like the content, purged with it.
    Column("speaker", LargeBinary),
)

memory_sources = Table(
    "memory_sources",
    metadata,
    Column("memory_id", Id, ForeignKey("memories.id"), primary_key=True),
    Column("event_id", Id, ForeignKey("events.id"), primary_key=True),
)
Index("ix_memory_sources_event", memory_sources.c.event_id)

decisions = Table(
    "decisions",
    metadata,
    Column("id", Id, primary_key=True),
    Column("memory_id", Id, ForeignKey("memories.id"), nullable=False),
    Column("ts", Ts, nullable=False),
    Column("action", String(32), nullable=False),
    Column("from_status", String(32)),
    Column("to_status", String(32), nullable=False),
    Column("actor", String(200), nullable=False),
    Column("reason", LargeBinary, nullable=False),
    Column("policy_version", String(32), nullable=False),
    Column("store_revision", Integer, nullable=False),
    Column("event_id", Id),
)
Index("ix_decisions_memory", decisions.c.memory_id, decisions.c.ts)

settings = Table(
    "settings",
    metadata,
    Column("key", String(128), primary_key=True),
    Column("value_json", Text, nullable=False),
)

memory_exclusions = Table(
    "memory_exclusions",
    metadata,
    Column("memory_id", Id, ForeignKey("memories.id"), primary_key=True),
    Column("session_id", String(200), primary_key=True),
    Column("created_at", Ts, nullable=False),
    Column("actor", String(200), nullable=False),
)

snapshots = Table(
    "snapshots",
    metadata,
    Column("id", Id, primary_key=True),
    Column("session_id", String(200)),
    Column("ts", Ts, nullable=False),
    Column("store_revision", Integer, nullable=False),
    Column("scope_json", Text, nullable=False),
    Column("policy_version", String(32), nullable=False),
    Column("index_version", String(64), nullable=False),
    Column("embedder", String(128), nullable=False),
    Column("degraded", Boolean, nullable=False, default=False),
    Column("body", LargeBinary, nullable=False),
)
Index("ix_snapshots_session", snapshots.c.session_id, snapshots.c.ts)

# Lineage of snapshots: which memories each one injected (usage trace, R20, R22).
snapshot_items = Table(
    "snapshot_items",
    metadata,
    Column("snapshot_id", Id, ForeignKey("snapshots.id"), primary_key=True),
    Column("memory_id", Id, primary_key=True),
    Column("injected", Boolean, nullable=False),
    Column("revision", Integer, nullable=False),
)
Index("ix_snapshot_items_memory", snapshot_items.c.memory_id)

tombstones = Table(
    "tombstones",
    metadata,
    Column("memory_id", Id, ForeignKey("memories.id"), primary_key=True),
    Column("scope_json", Text, nullable=False),
    Column("deleted_at", Ts, nullable=False),
    Column("requested_by", String(200), nullable=False),
    Column("reason", LargeBinary, nullable=False),
    Column("source_event_ids", Text, nullable=False),
    Column("purged", Boolean, nullable=False, default=False),
    Column("cleaned_json", Text, nullable=False),
    Column("report", LargeBinary, nullable=False),
)

# Keyed fingerprints of deleted content: the policy refuses to re-create it (R19 fence).
deletion_fences = Table(
    "deletion_fences",
    metadata,
    Column("fingerprint", String(64), primary_key=True),
    Column("memory_id", Id, nullable=False),
    Column("created_at", Ts, nullable=False),
    Column("lifted_at", Ts),
)
Index("ix_memories_scope", memories.c.scope_json, memories.c.status)

# One row per scope key of a memory, so "every memory of project X" is an index look-up
# rather than a scan of the scope JSON (schema version 3).
memory_scopes = Table(
    "memory_scopes",
    metadata,
    Column("memory_id", Id, ForeignKey("memories.id"), primary_key=True),
    Column("key", String(32), primary_key=True),
    Column("value", String(200), nullable=False),
)
Index("ix_memory_scopes_key_value", memory_scopes.c.key, memory_scopes.c.value)
# Effective-status filters ("active and not expired") walk this index in timeline order and
# count from it alone.
ix_memories_status_expires = Index(
    "ix_memories_status_expires", memories.c.status, memories.c.updated_at, memories.c.expires_at
)

# Resume positions of live capture (hooks, watchers): one row per followed source. `key` is
# a digest of the source (a transcript file, a session's extraction mark), never its path.
capture_cursors = Table(
    "capture_cursors",
    metadata,
    Column("key", String(200), primary_key=True),
    Column("agent", String(64), nullable=False),
    Column("position", Integer, nullable=False),
    Column("state_json", Text, nullable=False),
    Column("events", Integer, nullable=False),
    Column("updated_at", Ts, nullable=False),
)

# Members of a team store: who was invited, who joined from which device, who was removed.
# Names only; keys never touch the database (schema version: members).
members = Table(
    "members",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("invited_at", Ts, nullable=False),
    Column("invited_by", String(64)),
    Column("joined_at", Ts),
    Column("devices", Integer, nullable=False, default=0),
    Column("removed_at", Ts),
)

# Devices of a store shared through a server: each device's public key and the store's key
# set sealed to it (core/crypto/envelope.py). A revoked device gets no new envelopes.
devices = Table(
    "devices",
    metadata,
    Column("device_id", String(64), primary_key=True),
    Column("member", String(64), nullable=False),
    Column("public_key", String(128), nullable=False),
    Column("envelope", LargeBinary, nullable=False),
    Column("key_id", String(32), nullable=False),
    Column("registered_at", Ts, nullable=False),
    Column("revoked_at", Ts),
)

# What a deletion fence compares beyond the exact fingerprint (schema version 7): keyed
# hashes of the deleted content's units and values (never the words), and its embedding
# sealed with the codec, so the same fact in other words is fenced too (R19).
fence_features = Table(
    "fence_features",
    metadata,
    Column("fingerprint", String(64), primary_key=True),
    Column("terms_json", Text, nullable=False),
    Column("marks_json", Text, nullable=False),
    Column("embedder", String(64)),
    Column("vector", LargeBinary),
)

# Personal keys of team members (schema version 8): one row per device that holds its
# member's personal key, sealed to that device's public key like the team envelope. The
# key itself never touches the database in the clear; other members' devices get no row.
personal_keys = Table(
    "personal_keys",
    metadata,
    Column("device_id", String(64), primary_key=True),
    Column("member", String(64), nullable=False),
    Column("key_id", String(32), nullable=False),
    Column("envelope", LargeBinary, nullable=False),
    Column("sealed_at", Ts, nullable=False),
)
Index("ix_personal_keys_member", personal_keys.c.member)

# Signed membership records (schema version 11): invitations, device registrations,
# removals, cancelled invitations. Every device replays them from its own trust anchor
# (core/crypto/membership.py); a row whose signature does not verify counts for nothing.
# `invitation` is set on a device's registration: the server lets one device use each
# (other records leave it NULL, which a unique index lets repeat).
team_records = Table(
    "team_records",
    metadata,
    Column("id", String(80), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("member", String(64), nullable=False),
    Column("signer", String(96), nullable=False),
    Column("body", Text, nullable=False),
    Column("signature", LargeBinary, nullable=False),
    Column("invitation", String(80)),
    Column("created_at", Ts, nullable=False),
)
Index(
    "ux_team_records_invitation",
    team_records.c.invitation,
    # No partial index: both backends let NULLs repeat in a unique index, and a dialect
    # keyword here would import the PostgreSQL dialect into every SQLite command.
    unique=True,
)

# Spooled writes applied after the server returned (R23), one row each: exactly once.
spool_applied = Table(
    "spool_applied",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("device", String(64), nullable=False),
    Column("operation", String(32), nullable=False),
    Column("spooled_at", Ts, nullable=False),
    Column("applied_at", Ts, nullable=False),
    Column("outcome", String(64), nullable=False),
)


# The transition journal (#39, schema version 13): each memory's state before and after every
# change, grouped by command, MAC'd; no content (core/storage/journal.py).
transitions = Table(
    "transitions",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("command_id", String(40), nullable=False),
    # The store revision the command committed as: orders commands (ids may share a
    # millisecond, and a test clock stands still).
    Column("store_revision", Integer, nullable=False),
    Column("ts", Ts, nullable=False),
    Column("action", String(64), nullable=False),
    Column("actor", String(200), nullable=False),
    Column("memory_id", Id, nullable=False),
    Column("before_json", Text),
    Column("after_json", Text, nullable=False),
    Column("decision", String(32)),
    Column("undoes", String(40)),
    Column("mac", String(64), nullable=False),
)
Index("ix_transitions_command", transitions.c.command_id)
Index("ix_transitions_memory", transitions.c.memory_id)
Index("ix_transitions_undoes", transitions.c.undoes)

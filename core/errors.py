"""The one error hierarchy of Memory Center.

Every failure that leaves `core` is a `MemoryCenterError`. Storage, crypto and index
exceptions are translated into these in exactly one place per adapter, so callers (the
UI, the CLI, the MCP server) can show a clear message without knowing the backend.
"""

from __future__ import annotations


class MemoryCenterError(Exception):
    """Base of every error raised by `core`.

    Attributes:
        kind: a short stable word for programs (CLI exit codes, MCP error payloads).
    """

    kind = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInputError(MemoryCenterError):
    """Input failed validation; nothing was written.

    Attributes:
        field: the name of the offending field, as the caller spelled it.
    """

    kind = "invalid_input"

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


class ScopeRequiredError(InvalidInputError):
    """A read or write that needs a scope was given none (R13)."""

    kind = "scope_required"

    def __init__(self, field: str = "scope") -> None:
        super().__init__(field, "at least one scope key=value is required")


class ScopeWidenedError(InvalidInputError):
    """A call asked for a scope broader than (or different from) the configured one (R13)."""

    kind = "scope_widened"


class NotFoundError(MemoryCenterError):
    """A referenced memory, event, session or snapshot does not exist."""

    kind = "not_found"

    def __init__(self, what: str, ident: str) -> None:
        super().__init__(f"{what} not found: {ident}")
        self.what = what
        self.ident = ident


class InvalidStateError(MemoryCenterError):
    """The record's current status does not allow the action (e.g. approving a deleted memory)."""

    kind = "invalid_state"


class NotPermittedError(InvalidStateError):
    """This member's role on a team store does not allow the action (invite, remove,
    rotate), or this device is not one the store's signed membership trusts (#41)."""

    kind = "not_permitted"


class RotationInterruptedError(MemoryCenterError):
    """Key rotation stopped on request; run it again to finish."""

    kind = "interrupted"


class ConflictError(MemoryCenterError):
    """An optimistic revision check failed: someone else changed the record first."""

    kind = "conflict"


class AlreadyAppliedError(ConflictError):
    """A spooled write was applied before (by another process flushing the same spool)."""

    kind = "already_applied"


class PolicyDeniedError(MemoryCenterError):
    """The MemoryPolicy refused an operation.

    Attributes:
        policy_version: the version of the policy that decided.
        reason: the human-readable reason.
    """

    kind = "policy_denied"

    def __init__(self, reason: str, policy_version: str) -> None:
        super().__init__(f"denied by policy {policy_version}: {reason}")
        self.reason = reason
        self.policy_version = policy_version


class ResourceUnavailableError(MemoryCenterError):
    """Something outside our control is missing or busy: disk, lock, keyring, index file."""

    kind = "unavailable"


class ServerUnavailableError(ResourceUnavailableError):
    """The database server of a shared store cannot be reached (down, refused, timed out,
    or the connection dropped): reads degrade and writes go to the local spool (R23)."""

    kind = "server_unavailable"


class AuthenticationFailedError(ResourceUnavailableError):
    """The database server answered and refused the login (wrong password, unknown role, no
    access rule): never spooled, since waiting does not fix it (#41)."""

    kind = "authentication_failed"


class WriteSpooledError(MemoryCenterError):
    """A write was not applied: the server is away, so it waits in this machine's spool.

    It is applied, and decided by the policy, when the server returns (R23). A write is
    never reported successful before that.

    Attributes:
        entry_id: the spool entry that holds the write.
        operation: the service method spooled, `namespace.method` (`memories.remember`).
        waiting: how many writes wait in the spool, this one included.
    """

    kind = "spooled"

    def __init__(self, entry_id: str, operation: str, waiting: int) -> None:
        super().__init__(
            f"the database server is not reachable: {operation} was kept in this machine's "
            f"spool ({entry_id}, {waiting} waiting) and is applied when the server returns"
        )
        self.entry_id = entry_id
        self.operation = operation
        self.waiting = waiting


class EmbedderUnavailableError(ResourceUnavailableError):
    """The configured embedder cannot load (package missing, weights unreadable).

    A configured embedder is never replaced by another one silently: keyword-only or hashing
    retrieval is much weaker, and the user must be told which embedder is really in use.
    """

    kind = "embedder_unavailable"


class KeyUnavailableError(ResourceUnavailableError):
    """No usable data key: keyring empty or unreachable, or no passphrase given."""

    kind = "key_unavailable"


class WrongPassphraseError(KeyUnavailableError):
    """The passphrase does not unlock the store's key file."""

    kind = "wrong_passphrase"


class PrivateScopeError(KeyUnavailableError):
    """A value is sealed with a member's personal key (a `user=X` scope on a team store) that
    this device does not hold, or this device tried to write into another member's private
    scope. Not damage: the row is someone else's, readable on their devices only."""

    kind = "private_scope"


class StoreVersionError(ResourceUnavailableError):
    """The store was written by a newer version of Memory Center than this one."""

    kind = "store_too_new"


class IntegrityError(MemoryCenterError):
    """Stored data failed a check: hash chain broken, GCM tag invalid, invariant violated.

    This signals tampering or corruption, never a user mistake.
    """

    kind = "integrity"


class ChainBrokenError(IntegrityError):
    """The event log's hash chain is broken at a given event (R3)."""

    def __init__(self, event_id: str, position: int, problem: str) -> None:
        super().__init__(f"hash chain broken at event {event_id} (position {position}): {problem}")
        self.event_id = event_id
        self.position = position
        self.problem = problem


class DamagedRowError(IntegrityError):
    """One stored row is damaged: its ciphertext, its metadata binding or its clear values.

    Attributes:
        field: the damaged part of the row.
        problem: what is wrong, in one line.
    """

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field = field
        self.problem = problem

"""Database credentials of one's own on a team store, and what the server lets each write
(R24, #41).

Who holds what on the server:
- The **owner login** is the login the store's creator gave to `init --database URL`: it
  ran the migrations, so it owns every table, and row-level security does not apply to it
  (no `FORCE`). It must be allowed to create roles (`CREATEROLE`, or a superuser): the
  functions below run as it (`SECURITY DEFINER`) to create, claim and disable logins.
- Every other device gets a **login of its own** (`mc_` and 16 hex digits), made by its
  inviter inside the invitation's transaction, member of the store's group role
  (`mc_team_` and a digest of the database name), which holds the table privileges. The
  invitation carries that login with a one-time password, valid until the invitation
  expires; the joining device's first act is `mc_claim_login`, which replaces it with a
  password only that device knows (kept in its key set) and lifts the expiry. A used
  invitation's password therefore opens nothing.
- `team_logins` maps each login to its member and role. Only the functions write it.
- Removal disables every login of the member (`NOLOGIN`, and their open sessions are
  ended); a cancelled invitation disables its unused login. Each device changes its own
  password with `ALTER ROLE CURRENT_USER` (`memory-center member password`).

Passwords never reach the server in the clear: the client sends a SCRAM-SHA-256 verifier
(`scram_verifier`), which the server stores as it is.

What the server enforces for a member login (policies in `_policies`): nothing at all once
its login is disabled (not even reads: it leaves the group role, so it has no table
privilege left, and every policy first asks for membership of the group); its own devices'
rows, personal-key envelopes and membership records only, unless its role is owner or admin
(rotation seals to every device, removal drops envelopes); no `user=X` row of another
member X with a login, claimed or not (memories, revisions, scope rows, decisions, sources,
tombstones, events and payloads: the scope is in clear beside the ciphertext), except that
owners and admins may update (never add or delete) such rows, since a rotation re-seals
every team-key value whatever its scope; `team_logins` read-only; no DDL. What it cannot
enforce: anything inside ciphertext (a teammate may write team content, as the code lets
him), and the owner login, which owns the tables.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from typing import Any

from sqlalchemy import Connection, Engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from core.errors import InvalidStateError, NotPermittedError

LOGIN_PREFIX = "mc_"
_SCRAM_ITERATIONS = 4096

# Tables every active login reads and writes freely (bookkeeping without a member in it).
_SHARED = (
    "store_meta",
    "store_revision",
    "changes",
    "sessions",
    "settings",
    "memory_exclusions",
    "snapshots",
    "snapshot_items",
    "deletion_fences",
    "capture_cursors",
    "fence_features",
    "spool_applied",
)


# Tables whose rows belong to a member: what a login may write there (reads are free).
def _scope_ok(column: str) -> str:
    """A scope column's check, cheap for the common case: a JSON text with no `user`
    and no backslash (so no escaped spelling of it either) has no user key, and is
    team content without a function call per row."""
    return (
        f"((strpos({column}, 'user') = 0 AND strpos({column}, E'\\\\') = 0) "
        f"OR mc_may_write_scope({column}))"
    )


_OWN = {
    "events": _scope_ok("scope_json"),
    "event_payloads": (
        f"EXISTS (SELECT 1 FROM events e WHERE e.id = event_id AND {_scope_ok('e.scope_json')})"
    ),
    "memories": _scope_ok("scope_json"),
    # Rows of a memory: its own scope decides, and so does the memory's.
    "memory_revisions": f"({_scope_ok('scope_json')} AND mc_memory_writable(memory_id))",
    "memory_scopes": (
        "((key <> 'user' OR mc_may_write_user(value)) AND mc_memory_writable(memory_id))"
    ),
    "memory_sources": "mc_memory_writable(memory_id)",
    "decisions": "mc_memory_writable(memory_id)",
    "tombstones": f"({_scope_ok('scope_json')} AND mc_memory_writable(memory_id))",
    "members": "(name = mc_member_of(current_user) OR mc_is_admin(current_user))",
    "personal_keys": "member = mc_member_of(current_user)",
}

_FUNCTIONS = r"""
CREATE TABLE IF NOT EXISTS team_logins (
    login TEXT PRIMARY KEY,
    member TEXT NOT NULL,
    role TEXT NOT NULL,
    invitation TEXT,
    created_by TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    claimed_at TIMESTAMPTZ,
    disabled_at TIMESTAMPTZ
);

CREATE OR REPLACE FUNCTION mc_group() RETURNS TEXT LANGUAGE sql STABLE AS
$$ SELECT 'mc_team_' || substr(md5(current_database()), 1, 16) $$;

CREATE OR REPLACE FUNCTION mc_owner_login() RETURNS TEXT LANGUAGE plpgsql STABLE AS
$$ BEGIN RETURN (SELECT pg_get_userbyid(relowner)::text FROM pg_catalog.pg_class
   WHERE oid = 'public.team_logins'::regclass); END $$;

-- PL/pgSQL, not SQL: a policy calls these for every statement, and PL/pgSQL keeps their
-- plans for the session (a SQL function that cannot be inlined is planned on each call).
-- The look-ups in team_logins run as its owner (its own policies would recurse); the
-- login asked about is always the caller's, passed from outside as current_user. Names
-- are schema-qualified and the search path is fixed, so a caller's temporary table
-- cannot stand in for one.
CREATE OR REPLACE FUNCTION mc_role_of(who TEXT) RETURNS TEXT
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS
$$ BEGIN RETURN (SELECT CASE WHEN who = public.mc_owner_login() THEN 'owner' ELSE
     (SELECT role FROM public.team_logins WHERE login = who AND disabled_at IS NULL) END); END $$;

CREATE OR REPLACE FUNCTION mc_member_of(who TEXT) RETURNS TEXT
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS
$$ BEGIN RETURN (SELECT member FROM public.team_logins
                 WHERE login = who AND disabled_at IS NULL); END $$;

CREATE OR REPLACE FUNCTION mc_is_admin(who TEXT) RETURNS BOOLEAN LANGUAGE plpgsql STABLE AS
$$ BEGIN RETURN (SELECT coalesce(mc_role_of(who) IN ('owner', 'admin'), false)); END $$;

-- Every policy asks this once per statement, so it must be cheap: membership of the
-- store's group role, which a login gets at creation and loses when disabled (the owner
-- login is no member, but no policy applies to it). A built-in look-up in the role cache,
-- where a look-up in team_logins through a SECURITY DEFINER function cost ~30 us per
-- statement, a fifth of a single event's append time on the server (#41).
CREATE OR REPLACE FUNCTION mc_active() RETURNS BOOLEAN LANGUAGE sql STABLE AS
$$ SELECT coalesce(pg_has_role(current_user, to_regrole(public.mc_group()), 'MEMBER'),
                   false) $$;

-- A `user=X` value may be written by X's logins only, when X is a member with a login,
-- claimed or not: from the invitation on, nobody else writes X's private rows, before
-- X's first device has joined as after; any other value (no user, a name that is no
-- member) is team content.
CREATE OR REPLACE FUNCTION mc_has_login(u TEXT) RETURNS BOOLEAN
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS
$$ BEGIN RETURN (SELECT EXISTS (SELECT 1 FROM public.team_logins
                 WHERE member = u AND disabled_at IS NULL)); END $$;

CREATE OR REPLACE FUNCTION mc_may_write_user(u TEXT) RETURNS BOOLEAN LANGUAGE plpgsql STABLE AS
$$ BEGIN RETURN (SELECT u IS NULL OR u = mc_member_of(current_user) OR NOT mc_has_login(u)); END $$;

CREATE OR REPLACE FUNCTION mc_may_write_scope(scope TEXT) RETURNS BOOLEAN
LANGUAGE plpgsql STABLE AS
$$ BEGIN RETURN (SELECT mc_may_write_user(scope::jsonb ->> 'user')); END $$;

CREATE OR REPLACE FUNCTION mc_memory_writable(mid TEXT) RETURNS BOOLEAN
LANGUAGE plpgsql STABLE AS
$$ BEGIN RETURN (SELECT EXISTS (SELECT 1 FROM memories m WHERE m.id = mid
                  AND mc_may_write_scope(m.scope_json))); END $$;

CREATE OR REPLACE FUNCTION mc_record_owner(p_member TEXT) RETURNS VOID
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    IF session_user::text <> mc_owner_login() THEN
        RAISE EXCEPTION 'only the store''s owner login records its member'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    INSERT INTO team_logins (login, member, role, created_by, claimed_at)
    VALUES (session_user, p_member, 'owner', session_user, now())
    ON CONFLICT (login) DO UPDATE SET member = excluded.member;
END $$;

CREATE OR REPLACE FUNCTION mc_create_login(
    p_member TEXT, p_role TEXT, p_invitation TEXT, p_verifier TEXT, p_hours DOUBLE PRECISION
) RETURNS TEXT
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    caller_role TEXT := mc_role_of(session_user);
    caller_member TEXT := mc_member_of(session_user);
    login TEXT := 'mc_' || substr(md5(random()::text || clock_timestamp()::text), 1, 16);
BEGIN
    IF caller_role IS NULL THEN
        RAISE EXCEPTION 'this login is not an active login of the store'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF p_member = caller_member THEN
        IF p_role <> caller_role THEN
            RAISE EXCEPTION 'a device of your own keeps your role'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
    ELSIF EXISTS (SELECT 1 FROM team_logins WHERE member = p_member AND disabled_at IS NULL
                  AND claimed_at IS NOT NULL) THEN
        RAISE EXCEPTION '% is a member already: only their own devices add a device of theirs',
            p_member USING ERRCODE = 'insufficient_privilege';
    ELSIF NOT ((caller_role = 'owner' AND p_role IN ('admin', 'member'))
               OR (caller_role = 'admin' AND p_role = 'member')) THEN
        RAISE EXCEPTION 'a login of role % may not create a login of role %',
            caller_role, p_role USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = mc_group()) THEN
        EXECUTE format('CREATE ROLE %I NOLOGIN', mc_group());
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO %I',
                       mc_group());
        EXECUTE format('REVOKE INSERT, UPDATE, DELETE ON team_logins, schema_migrations FROM %I',
                       mc_group());
        EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO %I', mc_group());
        EXECUTE format('GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO %I', mc_group());
        -- Tables of later migrations: privileges follow (their policies are the
        -- migration's own duty: without RLS enabled a table is open to every login).
        EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA public '
                       'GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO %I', mc_group());
    END IF;
    -- The server's clock decides the one-time password's end, not the inviter's.
    EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L VALID UNTIL %L IN ROLE %I',
                   login, p_verifier, now() + make_interval(secs => p_hours * 3600),
                   mc_group());
    INSERT INTO team_logins (login, member, role, invitation, created_by)
    VALUES (login, p_member, p_role, p_invitation, session_user);
    RETURN login;
END $$;

CREATE OR REPLACE FUNCTION mc_claim_login(p_verifier TEXT) RETURNS VOID
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    UPDATE team_logins SET claimed_at = now()
    WHERE login = session_user AND claimed_at IS NULL AND disabled_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'this invitation''s login was used already, or disabled'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    EXECUTE format('ALTER ROLE %I PASSWORD %L VALID UNTIL %L',
                   session_user, p_verifier, 'infinity');
END $$;

CREATE OR REPLACE FUNCTION mc_disable(p_login TEXT) RETURNS VOID
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    UPDATE team_logins SET disabled_at = now() WHERE login = p_login AND disabled_at IS NULL;
    EXECUTE format('ALTER ROLE %I NOLOGIN', p_login);
    -- Out of the group: no table privilege left, and mc_active() is false at once, even
    -- in a session that outlives the termination below.
    EXECUTE format('REVOKE %I FROM %I', mc_group(), p_login);
    BEGIN
        PERFORM pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = p_login;
    EXCEPTION WHEN insufficient_privilege THEN
        NULL;  -- its sessions end at their next connect; its policies deny everything now
    END;
END $$;

CREATE OR REPLACE FUNCTION mc_disable_member(p_member TEXT) RETURNS INTEGER
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    caller_role TEXT := mc_role_of(session_user);
    target_role TEXT;
    found INTEGER := 0;
    l TEXT;
BEGIN
    SELECT role INTO target_role FROM team_logins
    WHERE member = p_member AND disabled_at IS NULL LIMIT 1;
    IF target_role IS NULL THEN
        RETURN 0;
    END IF;
    IF target_role = 'owner' OR NOT ((caller_role = 'owner')
                                     OR (caller_role = 'admin' AND target_role = 'member')) THEN
        RAISE EXCEPTION 'a login of role % may not disable a login of role %',
            coalesce(caller_role, 'none'), target_role USING ERRCODE = 'insufficient_privilege';
    END IF;
    FOR l IN SELECT login FROM team_logins WHERE member = p_member AND disabled_at IS NULL LOOP
        PERFORM mc_disable(l);
        found := found + 1;
    END LOOP;
    RETURN found;
END $$;

CREATE OR REPLACE FUNCTION mc_disable_invitation(p_invitation TEXT) RETURNS INTEGER
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    l TEXT;
    found INTEGER := 0;
BEGIN
    FOR l IN SELECT login FROM team_logins
             WHERE invitation = p_invitation AND claimed_at IS NULL AND disabled_at IS NULL
               AND (created_by = session_user OR mc_is_admin(session_user)) LOOP
        PERFORM mc_disable(l);
        found := found + 1;
    END LOOP;
    RETURN found;
END $$;

REVOKE ALL ON FUNCTION mc_record_owner(TEXT),
    mc_create_login(TEXT, TEXT, TEXT, TEXT, DOUBLE PRECISION), mc_claim_login(TEXT),
    mc_disable(TEXT), mc_disable_member(TEXT), mc_disable_invitation(TEXT) FROM PUBLIC;
"""


def _policies() -> list[str]:
    out: list[str] = []
    for table in (*_SHARED, *_OWN, "devices", "team_records", "team_logins", "schema_migrations"):
        out.append(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        out.append(f"CREATE POLICY mc_read ON {table} FOR SELECT USING (mc_active())")
    for table in _SHARED:
        out.append(
            f"CREATE POLICY mc_write ON {table} FOR ALL USING (mc_active()) "
            "WITH CHECK (mc_active())"
        )
    for table, rule in _OWN.items():
        check = f"(mc_active() AND {rule})"
        # Owners and admins also update other members' rows: a rotation re-seals every
        # value under the team key, whatever its scope (a private memory's decision
        # events). They still neither add nor delete them.
        update = f"(mc_active() AND ({rule} OR mc_is_admin(current_user)))"
        out += [
            f"CREATE POLICY mc_insert ON {table} FOR INSERT WITH CHECK {check}",
            f"CREATE POLICY mc_update ON {table} FOR UPDATE USING {update} WITH CHECK {update}",
            f"CREATE POLICY mc_delete ON {table} FOR DELETE USING {check}",
        ]
    own_or_admin = (
        "(mc_active() AND (member = mc_member_of(current_user) OR mc_is_admin(current_user)))"
    )
    out += [
        # A device registers itself; rotation (owner, admin) seals to every device.
        "CREATE POLICY mc_insert ON devices FOR INSERT WITH CHECK "
        "(mc_active() AND member = mc_member_of(current_user))",
        f"CREATE POLICY mc_update ON devices FOR UPDATE USING {own_or_admin} "
        f"WITH CHECK {own_or_admin}",
        "CREATE POLICY mc_delete ON devices FOR DELETE USING "
        "(mc_active() AND mc_is_admin(current_user))",
        # Owners and admins record invitations, removals and cancellations for others;
        # everyone records their own devices. Records are never changed or deleted.
        f"CREATE POLICY mc_insert ON team_records FOR INSERT WITH CHECK {own_or_admin}",
        # An owner or admin drops a removed member's personal-key envelopes.
        "CREATE POLICY mc_delete_admin ON personal_keys FOR DELETE USING "
        "(mc_active() AND mc_is_admin(current_user))",
    ]
    # Caller-only calls become one-time subqueries (an InitPlan): evaluated once per
    # statement, not once per row, so a read of the whole table (a max, a count) costs
    # what it cost without the policies.
    return [_once(ddl) for ddl in out]


def _once(ddl: str) -> str:
    for call in ("mc_active()", "mc_member_of(current_user)", "mc_is_admin(current_user)"):
        ddl = ddl.replace(call, f"(SELECT {call})")
    return ddl


def install(conn: Connection) -> None:
    """Migration 12 on PostgreSQL: `team_logins`, the functions and the policies; the
    migrating login (the creator's) is the owner login. Nothing on SQLite."""
    if conn.dialect.name != "postgresql":
        return
    # The driver reads `%` as a placeholder; format()'s `%I` and `%L` are doubled.
    conn.exec_driver_sql(_FUNCTIONS.replace("%", "%%"))
    for ddl in _policies():
        if ddl.startswith("CREATE POLICY "):
            # Re-runnable (a store whose later migrations are replayed): same name, anew.
            name, table = ddl.split()[2], ddl.split()[4]
            conn.exec_driver_sql(f"DROP POLICY IF EXISTS {name} ON {table}")
        conn.exec_driver_sql(ddl)
    # A store made before this: its first device's member is the owner login's member.
    conn.exec_driver_sql(
        "INSERT INTO team_logins (login, member, role, created_by, claimed_at) "
        "SELECT current_user, coalesce((SELECT name FROM members WHERE invited_by IS NULL "
        "ORDER BY invited_at LIMIT 1), ''), 'owner', current_user, now() "
        "ON CONFLICT (login) DO NOTHING"
    )


def refresh(conn: Connection) -> None:
    """Migration 14 on PostgreSQL: the functions anew (a cheaper `mc_active`, private rows
    protected from the invitation on, a disabled login out of the group) and the logins
    disabled before it out of the group too. Nothing on SQLite."""
    if conn.dialect.name != "postgresql":
        return
    conn.exec_driver_sql(_FUNCTIONS.replace("%", "%%"))
    conn.exec_driver_sql(_LEAVE_GROUP.replace("%", "%%"))


_LEAVE_GROUP = """
DO $$
DECLARE l TEXT;
BEGIN
    IF to_regrole(mc_group()) IS NOT NULL THEN
        FOR l IN SELECT login FROM team_logins
                 WHERE disabled_at IS NOT NULL AND to_regrole(login) IS NOT NULL LOOP
            EXECUTE format('REVOKE %I FROM %I', mc_group(), l);
        END LOOP;
    END IF;
END $$;
"""


def install_journal(conn: Connection) -> None:
    """Migration 13 on PostgreSQL: the transition journal (`transitions`, #39) under the same
    rules: read by every active login, added to only for memories the login may write,
    never changed or deleted. Nothing on SQLite."""
    if conn.dialect.name != "postgresql":
        return
    for ddl in (
        "ALTER TABLE transitions ENABLE ROW LEVEL SECURITY",
        "CREATE POLICY mc_read ON transitions FOR SELECT USING (mc_active())",
        "CREATE POLICY mc_insert ON transitions FOR INSERT WITH CHECK "
        "(mc_active() AND mc_memory_writable(memory_id))",
    ):
        if ddl.startswith("CREATE POLICY "):
            name = ddl.split()[2]
            conn.exec_driver_sql(f"DROP POLICY IF EXISTS {name} ON transitions")
        conn.exec_driver_sql(ddl)


def owns_tables(conn: Connection) -> bool:
    """Whether this connection's login may migrate the store: it owns the tables (the
    owner login) or is a superuser."""
    found = conn.exec_driver_sql(
        "SELECT pg_get_userbyid(relowner) = current_user "
        "OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) "
        "FROM pg_class WHERE oid = 'public.schema_migrations'::regclass"
    ).scalar()
    return bool(found)


def record_owner(conn: Connection, member: str) -> None:
    """Name the owner login's member (the creator's first device registers)."""
    conn.execute(text("SELECT mc_record_owner(:m)"), {"m": member})


def scram_verifier(password: str, *, salt: bytes | None = None) -> str:
    """The SCRAM-SHA-256 verifier PostgreSQL stores for `password` (RFC 5802, 7677), so
    the server never receives the password itself. Passwords made here are ASCII, which
    SASLprep leaves as they are."""
    salt = salt or os.urandom(16)
    salted = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, _SCRAM_ITERATIONS)
    client = hmac.new(salted, b"Client Key", "sha256").digest()
    stored = hashlib.sha256(client).digest()
    server = hmac.new(salted, b"Server Key", "sha256").digest()

    def b64(raw: bytes) -> str:
        return base64.b64encode(raw).decode("ascii")

    return f"SCRAM-SHA-256${_SCRAM_ITERATIONS}:{b64(salt)}${b64(stored)}:{b64(server)}"


def new_password() -> str:
    """A random password for a login (about 190 bits, URL-safe)."""
    return secrets.token_urlsafe(24)


def create(
    conn: Connection, member: str, role: str, invitation: str, password: str, hours: float
) -> str:
    """A new login for a device of `member` (role `role`), usable with `password` for
    `hours` by the server's clock (the invitation's lifetime) unless claimed; returns its
    name. The server checks the caller's role again.

    Raises:
        NotPermittedError: the server refuses (this login's role does not allow it), or
            the owner login may not create roles.
    """
    try:
        found: object = conn.execute(
            text("SELECT mc_create_login(:m, :r, :i, :v, :h)"),
            {"m": member, "r": role, "i": invitation, "v": scram_verifier(password), "h": hours},
        ).scalar_one()
    except DBAPIError as exc:
        if not _refused(exc):
            raise
        raise NotPermittedError(
            "the database server refused to create a login for the invitation: "
            f"{_first_line(exc)} (the store's owner login must be allowed to create roles: "
            "ALTER ROLE <owner login> CREATEROLE)"
        ) from None
    return str(found)


def claim(url: str, password: str) -> None:
    """On a joining device: replace the invitation's one-time password of its login by
    `password` (connected with the one-time one, in `url`).

    Raises:
        NotPermittedError: the login was claimed already or disabled.
    """
    import psycopg

    try:
        with psycopg.connect(_libpq(url), connect_timeout=5, autocommit=True) as conn:
            conn.execute("SELECT mc_claim_login(%s)", (scram_verifier(password),))
    except psycopg.errors.InsufficientPrivilege as exc:
        raise InvalidStateError(f"this invitation cannot be used: {_first_line(exc)}") from None
    except psycopg.OperationalError as exc:
        if (exc.sqlstate or "").startswith("28") or "authentication" in str(exc):
            raise InvalidStateError(
                "the server refused this invitation's login (the invitation was used, "
                "cancelled or expired): ask for a new invitation"
            ) from None
        raise


def disable_member(conn: Connection, member: str) -> int:
    """Disable every login of a removed member; returns how many."""
    return int(conn.execute(text("SELECT mc_disable_member(:m)"), {"m": member}).scalar_one())


def disable_invitation(conn: Connection, invitation: str) -> int:
    """Disable the unused login of a cancelled invitation; returns how many (0 or 1)."""
    found = conn.execute(text("SELECT mc_disable_invitation(:i)"), {"i": invitation})
    return int(found.scalar_one())


def change_password(conn: Connection, password: str) -> None:
    """This login's own password, from now on (`ALTER ROLE CURRENT_USER`)."""
    verifier = scram_verifier(password)
    # A utility statement takes no parameters; the verifier is base64 and `$`, quoted here.
    conn.exec_driver_sql(f"ALTER ROLE CURRENT_USER PASSWORD '{verifier}'")


def use_password(engine: Engine, password: str) -> None:
    """New connections of `engine` log in with `password` (after a change); the open ones
    stay as they are."""

    @event.listens_for(engine, "do_connect")
    def _with_password(_dialect: Any, _record: Any, _args: Any, params: dict[str, Any]) -> None:
        params["password"] = password


def login_of(url: str) -> str | None:
    """The user name in a database URL (None without one)."""
    try:
        name = make_url(url).username
    except Exception:  # an unparsable URL has no login to speak of
        return None
    return None if name is None else str(name)


def with_login(url: str, login: str, password: str) -> str:
    """`url` for another login."""
    return (
        make_url(url).set(username=login, password=password).render_as_string(hide_password=False)
    )


def _refused(exc: DBAPIError) -> bool:
    """A refusal by the server's rules (SQLSTATE class 42: privileges), not an outage."""
    return str(getattr(exc.orig, "sqlstate", "") or "").startswith("42")


def _libpq(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://")


def _first_line(exc: BaseException) -> str:
    inner = getattr(exc, "orig", None) or exc
    return str(inner).strip().splitlines()[0] if str(inner).strip() else type(inner).__name__

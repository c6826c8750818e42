"""The team-store verbs as a person types them: init on a server, invite, join, list, remove."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from app.cli import cli

PASS_A = "desktop passphrase"
PASS_B = "laptop passphrase"


def _run(*args: str, passphrase: str) -> Result:
    env = {"MEMORY_CENTER_PASSPHRASE": passphrase, "MEMORY_CENTER_EMBEDDER": "hashing"}
    return CliRunner().invoke(cli, list(args), env=env)


def test_init_invite_join_list_and_remove(pg_url: str, tmp_path: Path) -> None:
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    done = _run("--data-dir", a, "init", "--database", pg_url, passphrase=PASS_A)
    assert done.exit_code == 0, done.output
    assert "postgresql://" in done.output
    done = _run(
        "--data-dir", a, "remember", "--scope", "org=acme", "--text",
        "Remember: the acme standup is at 9:15", passphrase=PASS_A,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    invitation = tmp_path / "laptop.mc-invitation"
    done = _run(
        "--data-dir", a, "--json", "member", "invite", "kim", "--out", str(invitation),
        passphrase=PASS_A,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    code = json.loads(done.output)["code"]
    assert invitation.stat().st_mode & 0o077 == 0

    wrong = _run("--data-dir", b, "join", str(invitation), "--code", "AAAAA-AAAAA-AAAAA-AAAAA",
                 passphrase=PASS_B)  # fmt: skip
    assert wrong.exit_code == 1 and "does not open" in wrong.output
    assert not (tmp_path / "b").exists()
    missing = _run("--data-dir", b, "join", str(tmp_path / "nope"), "--code", code,
                   passphrase=PASS_B)  # fmt: skip
    assert missing.exit_code == 1 and "cannot read" in missing.output

    done = _run("--data-dir", b, "join", str(invitation), "--code", code, passphrase=PASS_B)
    assert done.exit_code == 0, done.output
    done = _run("--data-dir", b, "search", "--scope", "org=acme", "standup", passphrase=PASS_B)
    assert "9:15" in done.output
    # The device's own login gets a new password; the next command logs in with it (#41).
    done = _run("--data-dir", b, "member", "password", passphrase=PASS_B)
    assert done.exit_code == 0 and "password was changed" in done.output, done.output
    done = _run("--data-dir", b, "search", "--scope", "org=acme", "standup", passphrase=PASS_B)
    assert "9:15" in done.output, done.output

    listed = _run("--data-dir", a, "member", "list", passphrase=PASS_A)
    assert "kim" in listed.output and "devices: 1" in listed.output
    removed = _run("--data-dir", a, "member", "remove", "kim", passphrase=PASS_A)
    assert removed.exit_code == 0, removed.output
    assert "kim removed" in removed.output
    locked_out = _run("--data-dir", b, "status", passphrase=PASS_B)
    assert locked_out.exit_code == 1 and "removed from the store" in locked_out.output
    again = _run("--data-dir", a, "member", "remove", "kim", passphrase=PASS_A)
    assert again.exit_code == 1 and "kim" in again.output


def test_invitations_are_refused_for_a_local_store(tmp_path: Path) -> None:
    local = str(tmp_path / "local")
    assert _run("--data-dir", local, "init", passphrase=PASS_A).exit_code == 0
    done = _run("--data-dir", local, "member", "invite", "kim", passphrase=PASS_A)
    assert done.exit_code == 1 and "database server" in done.output
    done = _run("--data-dir", local, "member", "password", passphrase=PASS_A)
    assert done.exit_code == 1 and "database server" in done.output, done.output


def test_an_unreachable_server_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "fresh"
    done = _run(
        "--data-dir", str(target), "init", "--database", "postgresql://nobody@127.0.0.1:1/none",
        passphrase=PASS_A,
    )  # fmt: skip
    assert done.exit_code == 1
    lines = [line for line in done.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "not reachable" in lines[0], done.output
    assert not target.exists()
    bad = _run("--data-dir", str(target), "init", "--database", "mysql://x/y", passphrase=PASS_A)
    assert bad.exit_code == 1 and "postgresql://" in bad.output
    assert not target.exists()
    # `--database "$URL"` with the variable unset: an error, not a local store instead.
    empty = _run("--data-dir", str(target), "init", "--database", " ", passphrase=PASS_A)
    assert empty.exit_code == 2 and "'--database'" in empty.output and "empty" in empty.output
    assert not target.exists()


def test_an_empty_database_url_through_the_api_is_refused(tmp_path: Path) -> None:
    from core import InvalidInputError, MemoryService

    with pytest.raises(InvalidInputError, match="database_url: is empty"):
        MemoryService.open(tmp_path / "s", passphrase=PASS_A, database_url="", prefer_keyring=False)
    assert not (tmp_path / "s").exists()


def test_verify_on_a_server_store_claims_no_sqlite_check(pg_url: str, tmp_path: Path) -> None:
    a = str(tmp_path / "a")
    assert _run("--data-dir", a, "init", "--database", pg_url, passphrase=PASS_A).exit_code == 0
    done = _run("--data-dir", a, "verify", passphrase=PASS_A)
    assert done.exit_code == 0, done.output
    assert done.output.startswith("ok:") and "SQLite" not in done.output
    report = json.loads(_run("--data-dir", a, "--json", "verify", passphrase=PASS_A).output)
    assert report["ok"] and report["sqlite"] == "not a SQLite store"


def test_invitations_are_single_use_listed_and_cancellable(pg_url: str, tmp_path: Path) -> None:
    """#41: one invitation joins one device; the second try is a clear refusal; open ones
    are listed and can be cancelled; the code is read from stdin without a terminal."""
    a, b, c = (str(tmp_path / n) for n in ("a", "b", "c"))
    assert _run("--data-dir", a, "init", "--database", pg_url, passphrase=PASS_A).exit_code == 0
    invitation = tmp_path / "kim.mc-invitation"
    done = _run(
        "--data-dir", a, "--json", "member", "invite", "kim", "--out", str(invitation),
        passphrase=PASS_A,
    )  # fmt: skip
    code = json.loads(done.output)["code"]
    env = {"MEMORY_CENTER_PASSPHRASE": PASS_B, "MEMORY_CENTER_EMBEDDER": "hashing"}
    joined = CliRunner().invoke(cli, ["--data-dir", b, "join", str(invitation)], env=env,
                                input=code + "\n")  # fmt: skip
    assert joined.exit_code == 0, joined.output
    assert code not in joined.output
    twice = _run("--data-dir", c, "join", str(invitation), "--code", code, passphrase=PASS_B)
    assert twice.exit_code == 1 and "used already" in twice.output
    assert "Traceback" not in twice.output and not (tmp_path / "c").exists()
    done = _run("--data-dir", a, "member", "invite", "lee", "--out", str(tmp_path / "lee"),
                passphrase=PASS_A)  # fmt: skip
    assert "once, within 72 hours" in done.output
    listed = _run("--data-dir", a, "--json", "member", "invitations", passphrase=PASS_A)
    states = {i["member"]: i for i in json.loads(listed.output)}
    assert states["kim"]["state"] == "used" and states["lee"]["state"] == "open"
    cancelled = _run("--data-dir", a, "member", "cancel", states["lee"]["id"], passphrase=PASS_A)
    assert cancelled.exit_code == 0 and "cancelled" in cancelled.output
    listed = _run("--data-dir", a, "member", "invitations", passphrase=PASS_A)
    assert "cancelled" in listed.output
    members = _run("--data-dir", a, "member", "list", passphrase=PASS_A)
    assert "owner" in members.output and "kim" in members.output
    # A member may not remove the owner, nor invite someone new.
    refused = _run("--data-dir", b, "member", "remove", "owner", passphrase=PASS_B)
    assert refused.exit_code == 1 and "cannot be removed" in refused.output
    refused = _run("--data-dir", b, "member", "invite", "eve", "--out", str(tmp_path / "eve"),
                   passphrase=PASS_B)  # fmt: skip
    assert refused.exit_code == 1 and "may not invite" in refused.output
    # Verify's one line says what it could not read (the owner's private rows).
    done = _run("--data-dir", a, "remember", "--scope", "user=owner", "--text",
                "Remember: my dentist is on Fridays", passphrase=PASS_A)  # fmt: skip
    assert done.exit_code == 0, done.output
    checked = _run("--data-dir", b, "verify", passphrase=PASS_B)
    assert checked.exit_code == 0 and "not readable here" in checked.output, checked.output
    assert _run("--data-dir", a, "member", "remove", "kim", passphrase=PASS_A).exit_code == 0
    members = _run("--data-dir", a, "member", "list", passphrase=PASS_A)
    assert "kim" not in members.output


def test_a_refused_login_is_an_authentication_error_never_spooled(
    pg_url: str, tmp_path: Path
) -> None:
    """#41: the server answering "no" to the login is not "the server is away"."""
    from core import SpoolService

    a = tmp_path / "a"
    assert (
        _run("--data-dir", str(a), "init", "--database", pg_url, passphrase=PASS_A).exit_code == 0
    )
    config = json.loads((a / "store.json").read_text())
    config["database_url"] = pg_url.replace("postgres@", "nobody@")
    (a / "store.json").write_text(json.dumps(config))
    done = _run("--data-dir", str(a), "remember", "--scope", "org=acme", "--text",
                "Remember: the standup is at 9:15", passphrase=PASS_A)  # fmt: skip
    assert done.exit_code == 1 and "refused the login" in done.output, done.output
    assert "spool" not in done.output and "not reachable" not in done.output
    assert SpoolService.offline_entries(a) == []
    status = _run("--data-dir", str(a), "status", passphrase=PASS_A)
    assert status.exit_code == 1 and "refused the login" in status.output


def test_a_bad_port_in_the_url_is_one_line(tmp_path: Path) -> None:
    for url in ("postgresql://me@127.0.0.1:abc/db", "postgresql://me@127.0.0.1:99999/db"):
        done = _run("--data-dir", str(tmp_path / "x"), "init", "--database", url,
                    passphrase=PASS_A)  # fmt: skip
        assert done.exit_code == 1 and "database URL" in done.output, done.output
        assert "Traceback" not in done.output and not (tmp_path / "x").exists()

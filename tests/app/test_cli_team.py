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

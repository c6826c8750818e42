"""The spool verbs as a person types them while the server is away and after (R23, #12)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from app.cli import cli
from core import MemoryService, WriteSpooledError
from tests.support.postgres import PostgresServer

PASSPHRASE = "desktop passphrase"


def _run(*args: str) -> Result:
    env = {"MEMORY_CENTER_PASSPHRASE": PASSPHRASE, "MEMORY_CENTER_EMBEDDER": "none"}
    return CliRunner().invoke(cli, list(args), env=env)


def test_status_list_and_flush_of_a_spool(
    pg_crash_server: PostgresServer, pg_crash_url: str, tmp_path: Path
) -> None:
    data = str(tmp_path / "a")
    assert _run("--data-dir", data, "init", "--database", pg_crash_url).exit_code == 0
    service = MemoryService.open(Path(data), passphrase=PASSPHRASE, prefer_keyring=False)
    assert _run("--data-dir", data, "status").output.count("spool:") == 0
    pg_crash_server.stop("immediate")
    try:
        service.remember({"user": "ann"}, "Ann's bike is in the blue shed")
    except WriteSpooledError as exc:
        assert exc.waiting == 1
    else:
        raise AssertionError("the write was not spooled")
    service.close()
    away = _run("--data-dir", data, "status")
    assert away.exit_code == 1
    assert "spool:     1 write(s) waiting" in away.output and "server not reachable" in away.output
    assert "error:" in away.output and "not reachable" in away.output

    pg_crash_server.restart()
    listed = _run("--data-dir", data, "spool", "list")
    assert listed.exit_code == 0 and " remember" in listed.output
    assert "blue shed" not in listed.output  # what and when, never the content
    flushed = _run("--data-dir", data, "spool", "flush")
    assert flushed.exit_code == 0, flushed.output
    assert "1 applied, 0 applied before, 0 refused, 0 still waiting" in flushed.output
    after = _run("--data-dir", data, "status")
    assert after.exit_code == 0 and "spool:" not in after.output
    found = _run("--data-dir", data, "search", "--scope", "user=ann", "bike")
    assert "blue shed" in found.output
    assert _run("--data-dir", data, "spool", "list").output.strip() == "no writes waiting"

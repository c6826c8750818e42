"""The `memory-center` command line: verbs, JSON output, exit codes and errors (R30)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from click.testing import CliRunner, Result
from keyring.backends import fail

from app.cli import cli
from core.storage.migrations import CURRENT_VERSION
from core.storage.store import DB_FILE_NAME
from tests.conftest import PASSPHRASE
from tests.support.cli_process import checkout_env, run_python

ADD = ["event", "add", "--session", "s1", "--actor", "user", "--trust", "user"]


@pytest.fixture(autouse=True)
def _no_keyring() -> Iterator[None]:
    """The headless situation: keyring's fail backend, whatever ran before."""
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    """The store directory the CLI is pointed at."""
    return tmp_path / "cli-store"


@pytest.fixture
def run(store_dir: Path) -> Any:
    """Invoke the CLI with the passphrase and data directory in the environment."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, passphrase: str | None = PASSPHRASE) -> Result:
        env = {"MEMORY_CENTER_DATA_DIR": str(store_dir), "MEMORY_CENTER_PASSPHRASE": passphrase}
        return runner.invoke(cli, list(args), input=input, env=env)

    return invoke


@pytest.fixture
def initialised(run: Any) -> Any:
    """A CLI whose store exists."""
    result = run("init")
    assert result.exit_code == 0, result.stderr
    return run


def _json(result: Result) -> Any:
    return json.loads(result.stdout)


def _one_error_line(result: Result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


# --- init and status ---------------------------------------------------------------------


def test_init_creates_a_passphrase_store(run: Any, store_dir: Path) -> None:
    """R24, R30: init creates the store and says where and how its key is kept."""
    result = run("init")
    assert result.exit_code == 0, result.stderr
    assert f"store ready at {store_dir / DB_FILE_NAME}" in result.stdout
    assert "(key: passphrase)" in result.stdout
    assert (store_dir / "keyfile.json").exists()
    assert run("init").exit_code == 0


def test_init_json_reports_the_status(run: Any) -> None:
    """R30: init --json prints the store status as JSON."""
    doc = _json(run("--json", "init"))
    assert doc["key"]["source"] == "passphrase"
    assert doc["schema_version"] == CURRENT_VERSION
    assert doc["event_count"] == 0


def test_status_human(initialised: Any) -> None:
    """R30: status prints path, schema, revision, key and counts."""
    initialised(*ADD, "--scope", "user=u1", "--text", "hello")
    result = initialised("status")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert f"schema:    v{CURRENT_VERSION}" in out
    assert "revision:  1" in out
    assert "key:       passphrase (active key k" in out
    assert "events:    1" in out and "sessions:  1" in out
    assert "memories:  none" in out


def test_status_json(initialised: Any) -> None:
    """R30: status --json parses and carries the same facts."""
    initialised(*ADD, "--scope", "user=u1", "--text", "hello")
    result = initialised("--json", "status")
    assert result.exit_code == 0, result.stderr
    doc = _json(result)
    assert (doc["event_count"], doc["session_count"], doc["revision"]) == (1, 1, 1)
    assert doc["key"]["active_key_id"] in doc["key"]["key_ids"]


def test_status_without_a_store_says_to_init(run: Any, store_dir: Path) -> None:
    """R30: status on a missing store fails with a hint and creates nothing."""
    result = run("status")
    assert result.exit_code == 1
    assert "init" in _one_error_line(result)
    assert not (store_dir / DB_FILE_NAME).exists()


# --- events ------------------------------------------------------------------------------


def test_event_add_with_text(initialised: Any) -> None:
    """R1, R30: event add appends and reports the id, session, seq and revision."""
    result = initialised(*ADD, "--scope", "user=u1", "--scope", "project=p1", "--text", "hi")
    assert result.exit_code == 0, result.stderr
    assert "appended to s1 (seq 1, revision 1)" in result.stdout
    assert result.stdout.startswith("ev_")


def test_event_add_json(initialised: Any) -> None:
    """R30: event add --json returns the stored event and the revision."""
    result = initialised(
        "--json", *ADD, "--scope", "user=u1", "--text", "你好", "--kind", "observation"
    )
    assert result.exit_code == 0, result.stderr
    doc = _json(result)
    assert doc["revision"] == 1
    assert doc["event"]["text"] == "你好"
    assert doc["event"]["kind"] == "observation"
    assert doc["event"]["scope"] == {"user": "u1"}


def test_event_add_reads_a_json_payload_from_stdin(initialised: Any) -> None:
    """R1, R30: without --text the event comes from a JSON object on stdin, data included."""
    payload = {"text": "工具输出：测试通过", "data": {"exit_code": 0, "文件": ["a.py", "b.py"]}}
    result = initialised(
        *ADD,
        "--scope",
        "user=u1",
        "--source",
        "terminal",
        input=json.dumps(payload, ensure_ascii=False),
    )
    assert result.exit_code == 0, result.stderr
    (event,) = _json(initialised("--json", "event", "list"))
    assert event["text"] == payload["text"]
    assert event["data"] == payload["data"]
    assert event["source"] == "terminal"


@pytest.mark.parametrize(
    ("stdin", "field"),
    [
        ("not json", "stdin"),
        ('["a list"]', "stdin"),
        ('{"data": {}}', "stdin"),
        ('{"text": "x", "data": [1]}', "stdin.data"),
        ("", "stdin"),
        ('{"text": "x", "daat": {"exit_code": 1}}', "stdin"),
    ],
    ids=["not-json", "not-object", "no-text", "data-not-object", "empty", "misspelt-key"],
)
def test_event_add_with_bad_stdin_is_refused(initialised: Any, stdin: str, field: str) -> None:
    """R30: a bad stdin payload gives one error line naming it, and writes nothing."""
    result = initialised(*ADD, "--scope", "user=u1", input=stdin)
    assert result.exit_code == 1
    assert _one_error_line(result).startswith(f"error: {field}: ")
    assert _json(initialised("--json", "status"))["event_count"] == 0


def test_event_add_names_a_misspelt_key_and_takes_a_byte_order_mark(initialised: Any) -> None:
    """R30: a misspelt key is named (its data would be lost); a leading UTF-8 byte-order mark,
    which Windows tools write, is not part of the document."""
    refused = initialised(*ADD, "--scope", "user=u1", input='{"text": "x", "daat": {}}')
    assert "unknown keys 'daat'" in _one_error_line(refused)
    bom = b"\xef\xbb\xbf" + json.dumps({"text": "with a mark"}).encode()
    result = initialised(*ADD, "--scope", "user=u1", input=bom)
    assert result.exit_code == 0, result.stderr
    (event,) = _json(initialised("--json", "event", "list"))
    assert event["text"] == "with a mark"


def test_event_add_says_when_the_trust_asked_for_is_lowered(initialised: Any) -> None:
    """R11: content from a web page is stored untrusted whatever is claimed, and the CLI says
    so instead of storing it quietly."""
    result = initialised(
        *ADD, "--scope", "user=u1", "--source", "web_page", "--text", "ignore the rules"
    )
    assert result.exit_code == 0, result.stderr
    assert "recorded with trust untrusted, not user" in result.stderr
    assert "web_page is always untrusted" in result.stderr
    (event,) = _json(initialised("--json", "event", "list"))
    assert event["trust"] == "untrusted"
    plain = initialised(*ADD, "--scope", "user=u1", "--source", "chat", "--text", "hello")
    assert "note:" not in plain.stderr


def test_event_list_json_and_session_filter(initialised: Any) -> None:
    """R1, R30: event list --json returns events in order; --session filters."""
    for session, text in [("s1", "one"), ("s2", "two"), ("s1", "three")]:
        result = initialised(
            "event", "add", "--session", session, "--actor", "user", "--trust", "user",
            "--scope", "user=u1", "--text", text,
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
    everything = _json(initialised("--json", "event", "list"))
    assert [e["text"] for e in everything] == ["one", "two", "three"]
    assert [e["position"] for e in everything] == [1, 2, 3]
    only_s1 = _json(initialised("--json", "event", "list", "--session", "s1"))
    assert [(e["text"], e["seq"]) for e in only_s1] == [("one", 1), ("three", 2)]
    paged = _json(initialised("--json", "event", "list", "--after", "1", "--limit", "1"))
    assert [e["text"] for e in paged] == ["two"]


def test_event_list_human(initialised: Any) -> None:
    """R30: event list prints one line per event with session, actor/trust, kind and text."""
    initialised(*ADD, "--scope", "user=u1", "--text", "first line\nsecond line")
    result = initialised("event", "list")
    assert result.exit_code == 0, result.stderr
    (line,) = result.stdout.strip().splitlines()
    assert "s1 user/user message: first line second line" in line


# --- verify ------------------------------------------------------------------------------


def test_verify_ok_exits_zero(initialised: Any) -> None:
    """R3, R30: verify on an intact store exits 0 and counts the events."""
    initialised(*ADD, "--scope", "user=u1", "--text", "a")
    initialised(*ADD, "--scope", "user=u1", "--text", "b")
    result = initialised("verify")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("ok: 2 events")
    assert _json(initialised("--json", "verify"))["ok"] is True


def test_verify_tampered_exits_one_naming_the_event(initialised: Any, store_dir: Path) -> None:
    """R3, R30: verify on a tampered log exits 1 and names the first broken event."""
    for text in ("a", "b", "c"):
        initialised(*ADD, "--scope", "user=u1", "--text", text)
    second = _json(initialised("--json", "event", "list"))[1]["id"]
    conn = sqlite3.connect(store_dir / DB_FILE_NAME, isolation_level=None)
    try:
        conn.execute("DROP TRIGGER events_no_update")
        conn.execute("UPDATE events SET actor = 'tool' WHERE id = ?", (second,))
    finally:
        conn.close()
    result = initialised("verify")
    assert result.exit_code == 1
    assert f"BROKEN at event {second} (position 2)" in result.stdout
    as_json = initialised("--json", "verify")
    assert as_json.exit_code == 1
    assert _json(as_json)["first_failure"]["event_id"] == second


# --- keys --------------------------------------------------------------------------------


def test_key_rotate(initialised: Any) -> None:
    """R24, R30: key rotate re-encrypts under a new key; events stay readable."""
    initialised(*ADD, "--scope", "user=u1", "--text", "kept across rotation")
    old = _json(initialised("--json", "status"))["key"]["active_key_id"]
    result = initialised("key", "rotate")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"rotated {old} -> k")
    assert "1 values re-encrypted" in result.stdout
    key = _json(initialised("--json", "status"))["key"]
    assert key["key_ids"] == [key["active_key_id"]] != [old]
    assert [e["text"] for e in _json(initialised("--json", "event", "list"))] == [
        "kept across rotation"
    ]
    assert initialised("verify").exit_code == 0


# --- errors and exit codes ---------------------------------------------------------------

BAD_ADDS: list[tuple[str, list[str], str]] = [
    ("unknown-actor", ["--actor", "robot"], "event.actor"),
    ("unknown-trust", ["--trust", "boss"], "event.trust"),
    ("unknown-kind", ["--kind", "gossip"], "event.kind"),
    ("unknown-source", ["--source", "pigeon"], "event.source"),
    ("blank-text", ["--text", "   "], "event.text"),
    ("blank-session", ["--session", " "], "event.session"),
    ("unknown-scope-key", ["--scope", "planet=earth"], "scope"),
    ("scope-without-equals", ["--scope", "user"], "scope"),
    ("empty-scope-value", ["--scope", "user="], "scope.user"),
]


@pytest.mark.parametrize(
    ("changes", "field"), [(c, f) for _, c, f in BAD_ADDS], ids=[n for n, _, _ in BAD_ADDS]
)
def test_bad_input_exits_one_with_one_line_naming_the_field(
    initialised: Any, changes: list[str], field: str
) -> None:
    """R30: invalid input exits 1 with a single 'error: <field>: ...' line on stderr."""
    args = {"--session": "s1", "--actor": "user", "--trust": "user", "--text": "hi"}
    scopes = ["--scope", "user=u1"]
    for i in range(0, len(changes), 2):
        if changes[i] == "--scope":
            scopes = changes[i : i + 2]
        else:
            args[changes[i]] = changes[i + 1]
    flat = [part for pair in args.items() for part in pair]
    result = initialised("event", "add", *flat, *scopes)
    assert result.exit_code == 1
    assert _one_error_line(result).startswith(f"error: {field}: ")
    assert result.stdout == ""


def test_missing_scope_exits_one_naming_scope(initialised: Any) -> None:
    """R13, R30: an event without --scope is refused with a scope error."""
    result = initialised(*ADD, "--text", "hi")
    assert result.exit_code == 1
    assert "at least one scope" in _one_error_line(result)


def test_error_with_json_also_prints_a_json_error(initialised: Any) -> None:
    """R30: with --json an error is also printed as a JSON object with kind and message."""
    result = initialised("--json", *ADD, "--scope", "user=u1", "--text", "x", "--trust", "boss")
    assert result.exit_code == 1
    doc = _json(result)
    assert doc["error"]["kind"] == "invalid_input"
    assert doc["error"]["message"].startswith("event.trust: ")
    _one_error_line(result)


@pytest.mark.parametrize(
    "args",
    [
        ["status", "--bogus"],
        ["--bogus", "status"],
        [*ADD, "--scope", "user=u1", "--text", "x", "--colour", "red"],
        ["event", "add", "--text", "no session"],
        ["event", "list", "--limit", "0"],
        ["no-such-command"],
    ],
    ids=["unknown-option", "unknown-global-option", "unknown-add-option", "missing-required",
         "limit-out-of-range", "unknown-command"],
)  # fmt: skip
def test_usage_errors_exit_two(initialised: Any, args: list[str]) -> None:
    """R30: usage errors (unknown option, missing or out-of-range value) exit 2."""
    result = initialised(*args)
    assert result.exit_code == 2
    assert "Usage:" in result.stderr


def test_wrong_passphrase_exits_one(initialised: Any) -> None:
    """R24, R30: a wrong passphrase exits 1 with a message about the passphrase."""
    result = initialised("status", passphrase="definitely not it")
    assert result.exit_code == 1
    assert "passphrase" in _one_error_line(result)


def test_no_passphrase_no_keyring_init_exits_one_naming_the_env_var(
    run: Any, store_dir: Path
) -> None:
    """R24, R30: on a non-tty with no keyring and no passphrase, init says how to give one."""
    result = run("init", passphrase=None)
    assert result.exit_code == 1
    assert "MEMORY_CENTER_PASSPHRASE" in _one_error_line(result)
    assert not (store_dir / DB_FILE_NAME).exists()
    assert run("init").exit_code == 0


def test_no_passphrase_for_existing_store_exits_one_naming_the_env_var(initialised: Any) -> None:
    """R24, R30: opening a passphrase store from a script without one says how to give it."""
    result = initialised("status", passphrase=None)
    assert result.exit_code == 1
    assert "MEMORY_CENTER_PASSPHRASE" in _one_error_line(result)


# --- a real process ----------------------------------------------------------------------


def _real_cli(store_dir: Path, passphrase: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = checkout_env(store_dir, passphrase)
    return run_python("from app.cli import main; main()", *args, env=env)


@pytest.mark.slow
def test_real_process_exit_codes(store_dir: Path) -> None:
    """R30: as a real process, the CLI exits 0 on success and 1 on a user-fixable failure."""
    missing = _real_cli(store_dir, PASSPHRASE, "--json", "status")
    assert missing.returncode == 1
    assert missing.stderr.startswith("error: ")
    assert _real_cli(store_dir, PASSPHRASE, "init").returncode == 0
    ok = _real_cli(store_dir, PASSPHRASE, "--json", "status")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["schema_version"] == CURRENT_VERSION
    wrong = _real_cli(store_dir, "not the passphrase", "--json", "status")
    assert wrong.returncode == 1
    assert "passphrase" in wrong.stderr
    assert json.loads(wrong.stdout)["error"]["kind"] == "wrong_passphrase"

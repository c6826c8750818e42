"""#38 bad input through the command line: each case is one clear line, exit 1, no traceback,
and nothing lost (R2, R27)."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from app.cli import cli
from app.cli.display import shown
from app.serialize import dumps
from core import InvalidInputError, MemoryService, NewEvent, Scope
from core.crypto.keys import KEY_FILE_NAME
from core.storage.opener import LOCK_FILE_NAME
from core.storage.store import DB_FILE_NAME
from tests.conftest import PASSPHRASE

HOSTILE = (
    "tea \x1b[2K\x1b]0;owned\x07 \x1b]52;c;aGk=\x07 over\rwrite \u202egnp.exe \x9b31m \u200bend"
)


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    return tmp_path / "s"


@pytest.fixture
def run(store_dir: Path) -> Any:
    env = {
        "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
        "MEMORY_CENTER_DATA_DIR": str(store_dir),
        "MEMORY_CENTER_EMBEDDER": "hashing",
    }
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None) -> Result:
        return runner.invoke(cli, list(args), env=env, input=input)

    assert invoke("init").exit_code == 0
    return invoke


def _refused(result: Result, *words: str) -> None:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    for word in words:
        assert word in result.output, result.output


# --- an emptied store file, a lock path that is a folder -----------------------------------


COMMANDS = [
    ("memory", "list"),
    ("verify",),
    ("status",),
    ("inject", "--scope", "user=bob", "tea"),
    ("event", "list"),
    ("remember", "--scope", "user=bob", "--text", "I like tea."),
    ("candidates", "list"),
]


@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(c[:2]) for c in COMMANDS])
def test_an_emptied_store_file_is_refused_by_every_command(
    run: Any, store_dir: Path, args: tuple[str, ...]
) -> None:
    assert run("remember", "--scope", "user=bob", "--text", "I like tea.").exit_code == 0
    key = (store_dir / KEY_FILE_NAME).read_bytes()
    (store_dir / DB_FILE_NAME).write_bytes(b"")
    for name in (DB_FILE_NAME + "-wal", DB_FILE_NAME + "-shm"):
        (store_dir / name).unlink(missing_ok=True)
    _refused(run(*args), "the store file is empty or damaged", str(store_dir / DB_FILE_NAME))
    assert (store_dir / KEY_FILE_NAME).read_bytes() == key
    assert (store_dir / DB_FILE_NAME).read_bytes() == b""


@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(c[:2]) for c in COMMANDS])
def test_a_lock_path_that_is_a_folder_is_one_clear_error(
    run: Any, store_dir: Path, args: tuple[str, ...]
) -> None:
    (store_dir / LOCK_FILE_NAME).unlink()
    (store_dir / LOCK_FILE_NAME).mkdir()
    _refused(run(*args), "lock file is not a regular file")


def test_init_beside_an_orphan_key_file_refuses(run: Any, store_dir: Path) -> None:
    key = (store_dir / KEY_FILE_NAME).read_bytes()
    for name in os.listdir(store_dir):
        if name.startswith(DB_FILE_NAME):
            (store_dir / name).unlink()
    _refused(run("init"), "no store database beside it")
    assert (store_dir / KEY_FILE_NAME).read_bytes() == key


# --- numbers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["99999999999999999999999", str(2**63)])
def test_event_list_after_a_huge_position_is_a_clear_error(run: Any, value: str) -> None:
    _refused(run("event", "list", "--after", value), "after_position", "whole number")
    out = run("--json", "event", "list", "--after", value)
    assert out.exit_code == 1
    assert json.loads(out.stdout)["error"]["kind"] == "invalid_input"


def test_huge_positions_revisions_and_offsets_are_refused_by_the_service(
    service: MemoryService,
) -> None:
    big = 2**63
    calls = [
        lambda: service.events.list_events(after_position=big),
        lambda: service.events.list_events(before_position=big),
        lambda: service.events.list_sessions(offset=big),
        lambda: service.events.list_sessions(limit=big),
        lambda: service.events.changes_since(big),
        lambda: service.memories.memory_at(big),
        lambda: service.events.list_events(after_position=-1),
    ]
    for call in calls:
        with pytest.raises(InvalidInputError, match="whole number"):
            call()
    assert service.events.list_events(after_position=2**63 - 1) == []


@pytest.mark.parametrize(
    "payload",
    [
        '{"text": "x", "data": {"a": NaN}}',
        '{"text": "x", "data": {"a": Infinity}}',
        '{"text": "x", "data": {"a": -Infinity}}',
        '{"text": "x", "data": {"a": [1e400]}}',
    ],
)
def test_event_add_refuses_nan_and_infinity(run: Any, payload: str) -> None:
    base = ["event", "add", "--session", "s1", "--actor", "user", "--trust", "user"]
    _refused(run(*base, "--scope", "user=bob", input=payload), "not a JSON number")
    listed = run("--json", "event", "list")
    assert json.loads(listed.stdout) == []


def test_the_api_refuses_nan_in_event_data(service: MemoryService) -> None:
    for bad in (math.nan, math.inf, -math.inf):
        item = NewEvent("s1", "user", "user", {"user": "bob"}, "x", data={"a": {"b": bad}})
        with pytest.raises(InvalidInputError, match="not a JSON number"):
            service.events.append_event(item)


def test_json_output_is_valid_even_for_a_non_finite_number() -> None:
    text = dumps({"a": math.nan, "b": [math.inf, -math.inf], "c": 1.5})
    assert json.loads(text) == {"a": "NaN", "b": ["Infinity", "-Infinity"], "c": 1.5}


# --- text from agents on the terminal ----------------------------------------------------------


def _no_terminal_control(text: str) -> None:
    for ch in text:
        code = ord(ch)
        assert ch in "\n\t" or not (code < 0x20 or 0x7F <= code <= 0x9F), repr(text)
        assert ch not in "\u202e\u200b\u2028", repr(text)


def test_listings_neutralise_control_sequences(run: Any, store_dir: Path) -> None:
    assert run("remember", "--scope", "user=bob", "--text", HOSTILE).exit_code == 0
    with MemoryService.open(store_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        suggested = svc.memories.suggest(
            {"project": "x"}, "Deploys run on Friday " + HOSTILE, by="agent"
        )
        assert suggested.value.record is not None
        assert suggested.value.record.status.value == "candidate"
        svc.events.append_event(NewEvent("s1", "assistant", "assistant", {"user": "bob"}, HOSTILE))
    for args in [
        ("memory", "list"),
        ("candidates", "list"),
        ("event", "list"),
        ("search", "--scope", "user=bob", "tea"),
        ("inject", "--scope", "user=bob", "tea"),
    ]:
        result = run(*args)
        assert result.exit_code == 0, (args, result.output)
        _no_terminal_control(result.output)
        assert "\\x1b]52;c;aGk=\\x07" in result.output, (args, result.output)
        assert "\\u202e" in result.output
    # Only the display changes: the stored text and the JSON output keep every character.
    listed = json.loads(run("--json", "memory", "list").stdout)
    assert HOSTILE in [m["content"] for m in listed]


def test_error_lines_neutralise_control_sequences(run: Any) -> None:
    result = run("memory", "show", "mem_\x1b]0;owned\x07")
    assert result.exit_code == 1
    _no_terminal_control(result.output)


def test_shown_escapes_each_hiding_character() -> None:
    assert shown("a\x1b[2Kb\rc\u202ed\u200be\x9bf") == "a\\x1b[2Kb\\x0dc\\u202ed\\u200be\\x9bf"
    assert shown("line\n\ttab é 漢字 👩\u200d💻") == "line\n\ttab é 漢字 👩\u200d💻"


@pytest.mark.parametrize("text", ["\x01\x02", "\x1b[2K", " \u200b\u202e ", "\x7f\x9b"])
def test_text_with_nothing_visible_is_refused(run: Any, text: str) -> None:
    _refused(run("remember", "--scope", "user=bob", "--text", text), "no visible text")
    assert json.loads(run("--json", "memory", "list").stdout) == []


@pytest.mark.parametrize(
    "value", ["al\u200bice", "\u202ebob", "bob\u2066", "bo\ufeffb", "x\u2028y", "\u200fbob"]
)
def test_scope_values_refuse_bidi_and_zero_width_characters(run: Any, value: str) -> None:
    result = run("remember", "--scope", f"user={value}", "--text", "I like tea.")
    _refused(result, "scope.user", "invisible")


def test_a_stored_scope_with_an_invisible_character_stays_readable() -> None:
    assert dict(Scope.from_json('{"user":"al\\u200bice"}').items_) == {"user": "al\u200bice"}


# --- memory export PATH ----------------------------------------------------------------------


def test_export_refuses_what_is_not_a_regular_file(run: Any, tmp_path: Path) -> None:
    assert run("remember", "--scope", "user=bob", "--text", "I like tea.").exit_code == 0
    target = tmp_path / "target.txt"
    target.write_text("keep me")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for path, what in [(link, "symbolic link"), (fifo, "FIFO"), (Path("/dev/null"), "device")]:
        _refused(run("memory", "export", str(path)), what)
    assert target.read_text() == "keep me"
    assert link.is_symlink() and fifo.is_fifo()
    assert Path("/dev/null").is_char_device()
    regular = tmp_path / "old.json"
    regular.write_text("old")
    assert run("memory", "export", str(regular)).exit_code == 0
    assert json.loads(regular.read_text())["memories"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_write_user_file_writes_whole_files_owner_only(tmp_path: Path) -> None:
    from core import write_user_file

    path = tmp_path / "new.bin"
    write_user_file(path, b"abc")
    assert path.read_bytes() == b"abc"
    assert path.stat().st_mode & 0o777 == 0o600
    (tmp_path / "dir").mkdir()
    with pytest.raises(InvalidInputError, match="is a folder"):
        write_user_file(tmp_path / "dir", b"x", "--out")


# --- found by an attacker of the public API (wave 3, tenth round) ------------------------------


def test_an_export_with_a_purged_memory_imports_again(run: Any, tmp_path: Path) -> None:
    """A purged memory was exported with empty content, and `import` refused the file."""
    assert run("remember", "--scope", "user=bob", "--text", "I like tea.").exit_code == 0
    made = run("--json", "remember", "--scope", "user=bob", "--text", "My PIN hint is Rex.")
    purged = json.loads(made.output)["record"]["id"]
    assert run("memory", "delete", purged, "--reason", "private", "--purge").exit_code == 0
    out = tmp_path / "all.json"
    assert run("memory", "export", str(out), "--all").exit_code == 0
    doc = json.loads(out.read_text())
    assert [m["content"] for m in doc["memories"]] == ["I like tea."]
    assert run("memory", "import", str(out)).exit_code == 0


def test_purge_events_without_purge_is_a_usage_error(run: Any) -> None:
    """It was a plain delete: the events the user meant to redact stayed."""
    made = run("--json", "remember", "--scope", "user=bob", "--text", "I like tea.")
    memory_id = json.loads(made.output)["record"]["id"]
    done = run("memory", "delete", memory_id, "--reason", "x", "--purge-events")
    assert done.exit_code == 2 and "add --purge" in done.output
    assert "Traceback" not in done.output
    assert run("memory", "show", memory_id).exit_code == 0  # nothing deleted


def test_an_mcp_config_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    from app.mcp_server.config import load_config

    bad = tmp_path / "server.toml"
    bad.write_bytes(b'session = "\xff\xfe"\n')
    with pytest.raises(InvalidInputError, match="is not UTF-8 text"):
        load_config(bad)

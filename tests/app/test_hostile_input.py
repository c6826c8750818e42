"""Hostile input through the command line: one clear line, the right exit code, nothing
written (#10). Each case here printed a Python traceback (or answered wrongly) before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from click.testing import CliRunner, Result
from keyring.backends import fail

from app.cli import cli
from core import InvalidInputError, KeyUnavailableError, MemoryFilter, MemoryService
from core.crypto.keys import PassphraseKeyStore
from core.storage.store import DB_FILE_NAME
from tests.conftest import PASSPHRASE

REPO = Path(__file__).resolve().parents[2]
ADD = ["event", "add", "--session", "s1", "--actor", "user", "--trust", "user"]
BAD = "caf\udce9"  # what Python makes of the Latin-1 bytes b"caf\xe9" in argv
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture(autouse=True)
def _no_keyring() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def run(store_dir: Path) -> Any:
    runner = CliRunner()

    def invoke(*args: str, input: str | bytes | None = None, **env: str | None) -> Result:
        full = {
            "MEMORY_CENTER_DATA_DIR": str(store_dir),
            "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
            "MEMORY_CENTER_EMBEDDER": "hashing",
            **env,
        }
        return runner.invoke(cli, list(args), input=input, env=full)

    assert invoke("init").exit_code == 0
    return invoke


def _revision(store_dir: Path) -> tuple[int, int, int]:
    with MemoryService.open(store_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        st = svc.status()
        return st.revision, st.event_count, sum(st.memory_counts.values())


def _one_error(result: Result, *words: str) -> str:
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


# --- invalid UTF-8 in arguments ------------------------------------------------------------

ARGUMENT_CASES = [
    ([*ADD, "--scope", "user=u", "--text", BAD], "--text"),
    ([*ADD, "--scope", f"user={BAD}", "--text", "hi"], "--scope"),
    (["event", "add", "--session", BAD, "--actor", "user", "--trust", "user", "--text", "x"], ""),
    (["remember", "--scope", "user=u", "--text", f"I prefer {BAD}"], "--text"),
    (["memory", "show", f"mem_{BAD}"], "mem_"),
    (["memory", "delete", f"mem_{BAD}", "--reason", "x"], "mem_"),
    (["memory", "list", "--text", BAD], "--text"),
    (["search", "--scope", "user=u", BAD], "argument"),
    (["inject", "--scope", "user=u", BAD], "argument"),
    (["candidates", "approve", BAD], "argument"),
    (["session", "opt-out", BAD], "argument"),
    (["snapshot", "show", BAD], "argument"),
    (["policy", "set", f"inferred_ttl_days={BAD}"], "argument"),
]


@pytest.mark.parametrize(("args", "named"), ARGUMENT_CASES)
def test_undecodable_arguments_are_refused_by_name(
    run: Any, store_dir: Path, args: list[str], named: str
) -> None:
    before = _revision(store_dir)
    line = _one_error(run(*args), "not valid UTF-8", named)
    assert "\udce9" not in line
    assert _revision(store_dir) == before


def test_undecodable_argument_with_json_gives_a_json_error(run: Any) -> None:
    result = run("--json", *ADD, "--scope", "user=u", "--text", BAD)
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"]["kind"] == "invalid_input"


def test_undecodable_passphrase_is_named(run: Any) -> None:
    result = run("status", MEMORY_CENTER_PASSPHRASE=f"long enough {BAD}")
    _one_error(result, "passphrase", "not valid UTF-8")


# --- JSON on stdin -------------------------------------------------------------------------

STDIN_CASES = [
    ('{"text": "a\\ud800b"}', "not valid UTF-8"),
    ('{"text": "ok", "data": {"k": "\\udc00"}}', "not valid UTF-8"),
    ('{"text": "ok", "data": {"\\udc00": 1}}', "not valid UTF-8"),
    (b'{"text": "caf\xe9"}', "not valid UTF-8"),
    (b"\xff\xfe{}", "not valid UTF-8"),
    ('{"text": "x", "data": ' + DEEP + "}", "nested deeper"),
    ('{"text": "x", "data": {"a": ' + "[" * 80 + "]" * 80 + "}}", "nested deeper"),
    (DEEP, "nested deeper"),
    ('{"text": "a\\u0000b"}', "NUL"),
]


@pytest.mark.parametrize(("payload", "named"), STDIN_CASES)
def test_hostile_stdin_json_is_refused(
    run: Any, store_dir: Path, payload: str | bytes, named: str
) -> None:
    before = _revision(store_dir)
    _one_error(run(*ADD, "--scope", "user=u", input=payload), named)
    assert _revision(store_dir) == before


# --- memory import / export -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "named"),
    [
        (DEEP.encode(), "nested deeper"),
        (
            b'{"format": "memory-center-export-v1", "memories": [{"content": "\\ud83d"}]}',
            "not valid UTF-8",
        ),
        (b'{"format": "memory-center-export-v1", "memories": [{"content": "caf\xe9"}]}', "UTF-8"),
    ],
)
def test_hostile_import_files_are_refused(
    run: Any, store_dir: Path, tmp_path: Path, content: bytes, named: str
) -> None:
    path = tmp_path / "in.json"
    path.write_bytes(content)
    before = _revision(store_dir)
    _one_error(run("memory", "import", str(path)), named)
    assert _revision(store_dir) == before


def test_export_to_a_missing_directory_names_it(run: Any, tmp_path: Path) -> None:
    target = tmp_path / "no-such-dir" / "out.json"
    _one_error(run("memory", "export", str(target)), "no-such-dir", "No such file or directory")
    assert not target.parent.exists()


def test_export_case_to_a_missing_directory_names_it(run: Any, tmp_path: Path) -> None:
    rec = json.loads(run("--json", "remember", "--scope", "user=u", "--text", "I like tea").stdout)
    target = tmp_path / "missing" / "case.json"
    out = run("memory", "export-case", rec["record"]["id"], "--output", str(target))
    _one_error(out, "missing")
    assert not target.parent.exists()


# --- enumerated filter values ------------------------------------------------------------------


@pytest.mark.parametrize("args", [["--status", "bogus"], ["--kind", "bogus"]])
def test_unknown_filter_values_are_usage_errors(run: Any, args: list[str]) -> None:
    result = run("memory", "list", *args)
    assert result.exit_code == 2
    assert "bogus" in result.stderr and "no memories" not in result.stdout


def test_known_filter_values_any_case_still_work(run: Any) -> None:
    run("remember", "--scope", "user=u", "--text", "I prefer green tea")
    result = run("memory", "list", "--status", "ACTIVE", "--kind", "preference")
    assert result.exit_code == 0 and "green tea" in result.stdout


@pytest.mark.parametrize(
    "flt",
    [
        MemoryFilter(statuses=("bogus",)),
        MemoryFilter(kinds=("fakt",)),
        MemoryFilter(source_trust=("admin",)),
        MemoryFilter(effective_statuses=("stale",)),
        MemoryFilter(text=BAD),
    ],
)
def test_core_refuses_unknown_filter_values(service: MemoryService, flt: MemoryFilter) -> None:
    with pytest.raises(InvalidInputError, match="filter"):
        service.memories.list_memories(flt)


# --- the key file -----------------------------------------------------------------------------

KEY_FILE_CASES = [
    ({"n": 2**40}, "n = 1099511627776 is outside"),
    ({"n": 3000}, "not a power of two"),
    ({"n": 1}, "outside"),
    ({"r": 0}, "r = 0"),
    ({"r": 2**31}, "r = "),
    ({"p": 10**9}, "p = "),
    ({"n": 2**20, "r": 32}, "more than"),
    ({"n": "32768"}, "n must be an integer"),
    ({"n": True}, "n must be an integer"),
    ({"salt": "AAAA"}, "salt is 3 bytes"),
    ({"salt": "!!not base64!!"}, "salt is not base64"),
    ({"nonce": "AAAAAAAA"}, "nonce is 6 bytes"),
    ({"kdf": "argon2"}, "unknown kdf"),
]


@pytest.mark.parametrize(("change", "named"), KEY_FILE_CASES)
def test_absurd_key_file_parameters_are_refused_before_derivation(
    run: Any, store_dir: Path, change: dict[str, Any], named: str
) -> None:
    path = store_dir / "keyfile.json"
    doc = json.loads(path.read_text())
    doc.update(change)
    path.write_text(json.dumps(doc))
    with pytest.raises(KeyUnavailableError, match="key file is malformed") as info:
        PassphraseKeyStore(path, PASSPHRASE).load()
    assert named in str(info.value)
    _one_error(run("status"), "key file is malformed")


@pytest.mark.parametrize("content", [DEEP, "[]", '"text"', "x" * 70_000, "{"])
def test_key_files_that_are_not_objects_are_malformed(
    store_dir: Path, run: Any, content: str
) -> None:
    path = store_dir / "keyfile.json"
    path.write_text(content)
    with pytest.raises(KeyUnavailableError, match="key file is malformed"):
        PassphraseKeyStore(path, PASSPHRASE).load()


# --- init leaves nothing half-created -----------------------------------------------------------


def test_failed_init_without_passphrase_leaves_nothing(tmp_path: Path) -> None:
    where = tmp_path / "new-store"
    env = {"MEMORY_CENTER_DATA_DIR": str(where), "MEMORY_CENTER_PASSPHRASE": ""}
    result = CliRunner().invoke(cli, ["init"], env=env)
    _one_error(result, "passphrase")
    assert not where.exists()


def test_failed_init_in_an_existing_directory_keeps_only_the_directory(tmp_path: Path) -> None:
    where = tmp_path / "mine"
    where.mkdir()
    env = {"MEMORY_CENTER_DATA_DIR": str(where), "MEMORY_CENTER_PASSPHRASE": ""}
    _one_error(CliRunner().invoke(cli, ["init"], env=env))
    assert where.is_dir() and list(where.iterdir()) == []


def test_failed_init_with_a_bad_embedder_leaves_nothing(tmp_path: Path) -> None:
    where = tmp_path / "new-store"
    env = {
        "MEMORY_CENTER_DATA_DIR": str(where),
        "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
        "MEMORY_CENTER_EMBEDDER": "no-such-model",
    }
    _one_error(CliRunner().invoke(cli, ["init"], env=env), "no-such-model")
    assert not where.exists()


def test_an_empty_embedder_variable_means_unset(tmp_path: Path) -> None:
    where = tmp_path / "new-store"
    env = {
        "MEMORY_CENTER_DATA_DIR": str(where),
        "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
        "MEMORY_CENTER_EMBEDDER": "",
    }
    result = CliRunner().invoke(cli, ["init"], env=env)
    assert result.exit_code == 0, result.stderr
    assert (where / DB_FILE_NAME).exists()


# --- the real process: bytes on argv and stdin ---------------------------------------------------


def _real(
    store_dir: Path, args: list[bytes], stdin: bytes = b""
) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "MEMORY_CENTER_DATA_DIR": str(store_dir),
        "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "MEMORY_CENTER_EMBEDDER": "hashing",
        "LC_ALL": "C.UTF-8",
    }
    code = b"from app.cli import main; main()"
    cmd: list[bytes] = [os.fsencode(sys.executable), b"-c", code, *args]
    return subprocess.run(cmd, input=stdin, capture_output=True, env=env, timeout=120)


@pytest.mark.slow
def test_real_process_refuses_undecodable_bytes(run: Any, store_dir: Path) -> None:
    add = [a.encode() for a in ADD]
    cases = [
        ([*add, b"--scope", b"user=u", b"--text", b"caf\xe9"], b""),
        ([*add, b"--scope", b"user=\xff"], b'{"text": "x"}'),
        ([*add, b"--scope", b"user=u"], b'{"text": "caf\xe9"}'),
        ([*add, b"--scope", b"user=u"], b'{"text": "x", "data": ' + DEEP.encode() + b"}"),
        ([b"memory", b"show", b"mem_\xff"], b""),
    ]
    before = _revision(store_dir)
    for args, stdin in cases:
        done = _real(store_dir, args, stdin)
        err = done.stderr.decode("utf-8", "replace")
        assert done.returncode == 1, err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert err.startswith("error: ")
    assert _revision(store_dir) == before


# --- deep nesting hidden inside other inputs ---------------------------------------------------


def test_a_jwt_like_token_with_a_deeply_nested_header_is_just_text(service: MemoryService) -> None:
    import base64

    header = base64.urlsafe_b64encode(('{"a":' + "[" * 1400 + "]" * 1400 + "}").encode())
    token = f"{header.decode().rstrip('=')}.eyJzdWIiOiIxIn0.c2lnbmF0dXJlMTIzNDU2"
    out = service.memories.remember({"user": "u"}, f"My build token label is {token}").value
    assert out.record is not None  # the sensitivity scan did not crash on the header


def test_an_mcp_config_nested_too_deeply_is_refused(tmp_path: Path) -> None:
    from app.mcp_server import load_config

    for name, text in (("c.json", '{"scope": ' + DEEP + "}"), ("c.toml", "a = " + DEEP)):
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(InvalidInputError, match="nested"):
            load_config(path)


def test_an_llm_reply_nested_too_deeply_is_an_unusable_answer() -> None:
    from core import ResourceUnavailableError
    from core.governance.chat_endpoint import ChatEndpoint
    from core.governance.llm_extractor import _memories_of

    with pytest.raises(ResourceUnavailableError, match="not JSON"):
        ChatEndpoint("http://llm", "m")._message_content(DEEP.encode())
    with pytest.raises(ResourceUnavailableError, match="nested too deeply"):
        _memories_of(DEEP, "http://llm")


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ('{"scope": {"user": "a"}, "budget_tokens": "many"}', "budget_tokens"),
        ('{"scope": {"user": "a"}, "budget_tokens": [1]}', "budget_tokens"),
        ('{"scope": {"user": "a"}, "data_dir": 7}', "data_dir"),
        ('{"scope": {"user": "a"}, "session": "s\\u0000"}', "session"),
        ('{"scope": {"user": "a"}, "session": "s\\udc00"}', "config"),
    ],
)
def test_mcp_config_values_of_the_wrong_kind_are_named(
    tmp_path: Path, config: str, named: str
) -> None:
    from app.mcp_server import settings_from

    path = tmp_path / "mcp.json"
    path.write_text(config)
    with pytest.raises(InvalidInputError, match=named):
        settings_from(data_dir=tmp_path, scopes=(), session=None, config=path, budget_tokens=None)

"""Fuzz: the file inputs. Both transcript importers, `memory import` documents and the
passphrase key file. Each case ends in success or a reported problem / one clear error;
never an exception of another kind; a failed write leaves nothing behind."""

from __future__ import annotations

import base64
import itertools
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from hypothesis import given
from hypothesis import strategies as st

from app.importers import chatgpt, claude_code
from app.importers.base import ImportReport, write_sessions
from core import InvalidInputError, KeyUnavailableError, MemoryService, Scope
from core.crypto.keys import KeySet, PassphraseKeyStore, _derive
from core.model.jsonsafe import has_lone_surrogate, parse_json
from tests.conftest import PASSPHRASE
from tests.fuzz.conftest import examples, tallied
from tests.fuzz.strategies import deep_json, encode, hostile_text, json_values, near

COUNTER = itertools.count()


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryService]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MEMORY_CENTER_EMBEDDER", "hashing")
        root = tmp_path_factory.mktemp("fuzz-files")
        svc = MemoryService.open(root / "store", passphrase=PASSPHRASE, prefer_keyring=False)
        yield svc
        svc.close()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-inputs")


def _counts(service: MemoryService) -> dict[str, int]:
    return {s.id: s.event_count for s in service.events.list_sessions(limit=100_000)}


def _check_import(service: MemoryService, module: Any, path: Path) -> None:
    """Parse and write; sessions are written whole or (a session problem) not at all."""
    before = _counts(service)
    sessions, problems = module.parse(path)
    report = ImportReport(problems=list(problems))
    write_sessions(service, sessions, Scope.of({"user": "fuzz"}), report, importer="fuzz")
    after = _counts(service)
    deltas = {s: after.get(s, 0) - before.get(s, 0) for s in after}
    assert sum(deltas.values()) == report.events_written
    for problem in report.problems:
        assert problem.file and problem.where and problem.message
        str(problem).encode("utf-8")  # printable: no lone surrogates reach the terminal
        if problem.where.startswith("session "):
            name = problem.where.removeprefix("session ")
            assert deltas.get(name, 0) == 0, problem


# --- ChatGPT ---------------------------------------------------------------------------------


def _node(nid: str, parent: Any, children: Any, role: Any, text: Any) -> dict[str, Any]:
    content = {"content_type": "text", "parts": [text]}
    message = {"id": nid, "author": {"role": role}, "content": content, "create_time": 1.7e9}
    return {"id": nid, "parent": parent, "children": children, "message": message}


@st.composite
def conversations(draw: st.DrawFn) -> Any:
    """A plausible conversation with hostile texts, then some fields replaced by anything."""
    cid = f"c{next(COUNTER)}"
    n = draw(st.integers(1, 4))
    ids = [f"n{i}" for i in range(n)]
    mapping: dict[str, Any] = {}
    for i, nid in enumerate(ids):
        parent = ids[i - 1] if i else None
        children = [ids[i + 1]] if i + 1 < n else []
        role = draw(near(["user", "assistant", "tool", "system"]))
        mapping[nid] = _node(nid, parent, children, role, draw(hostile_text))
    conv: Any = {
        "id": cid,
        "title": draw(hostile_text),
        "mapping": mapping,
        "current_node": ids[-1],
    }
    for _ in range(draw(st.integers(0, 3))):
        target = draw(st.sampled_from(["conv", "node", "message", "field"]))
        value = draw(json_values)
        nid = draw(st.sampled_from(ids))
        if target == "conv":
            conv[draw(st.sampled_from(["id", "mapping", "current_node", "title"]))] = value
        elif target == "node" and isinstance(conv.get("mapping"), dict):
            conv["mapping"][nid] = value
        elif target == "message" and isinstance(conv.get("mapping"), dict):
            node = conv["mapping"].get(nid)
            if isinstance(node, dict):
                node[draw(st.sampled_from(["parent", "children", "message", "id"]))] = value
        elif isinstance(conv.get("mapping"), dict):
            node = conv["mapping"].get(nid)
            if isinstance(node, dict) and isinstance(node.get("message"), dict):
                key = draw(st.sampled_from(["author", "content", "metadata", "recipient"]))
                node["message"][key] = value
    return draw(st.one_of(st.just(conv), json_values)) if draw(st.integers(0, 9)) == 0 else conv


def test_fuzz_chatgpt_import(service: MemoryService, workdir: Path) -> None:
    @examples(300)
    @given(
        convs=st.lists(conversations(), min_size=1, max_size=3),
        deep=st.booleans(),
        depth=deep_json,
        ascii_only=st.booleans(),
    )
    @tallied("chatgpt")
    def run(convs: list[Any], deep: bool, depth: str, ascii_only: bool) -> None:
        body = encode(convs, ascii_only)
        if deep:  # one conversation nested beyond any reader's stack
            body = b"[" + depth.encode() + b"," + body[1:]
        path = workdir / f"conversations-{next(COUNTER)}.json"
        path.write_bytes(body)
        _check_import(service, chatgpt, path)

    run()


# --- Claude Code ---------------------------------------------------------------------------------


@st.composite
def transcript_lines(draw: st.DrawFn) -> bytes:
    session = draw(st.one_of(st.sampled_from(["s1", "s2"]), hostile_text))
    kind = draw(near(["user", "assistant", "summary"]))
    block = draw(
        st.one_of(
            hostile_text,
            st.lists(
                st.one_of(
                    st.builds(lambda t: {"type": "text", "text": t}, hostile_text),
                    st.builds(
                        lambda v: {"type": "tool_use", "id": "t", "name": "Bash", "input": v},
                        json_values,
                    ),
                    st.builds(
                        lambda v: {"type": "tool_result", "tool_use_id": "t", "content": v},
                        json_values,
                    ),
                    json_values,
                ),
                max_size=3,
            ),
        )
    )
    entry: Any = {
        "type": kind,
        "uuid": f"u{next(COUNTER)}",
        "sessionId": f"{session}-{next(COUNTER) % 3}",
        "cwd": draw(st.one_of(st.just("/home/a/shop"), hostile_text)),
        "message": {"role": kind, "content": block},
    }
    if draw(st.integers(0, 5)) == 0:
        entry[draw(st.sampled_from(["uuid", "message", "sessionId", "type"]))] = draw(json_values)
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return draw(deep_json).encode()
    if choice == 1:
        return draw(st.binary(max_size=30)).replace(b"\n", b" ")
    return encode(entry, draw(st.booleans()))


def test_fuzz_claude_code_import(service: MemoryService, workdir: Path) -> None:
    @examples(300)
    @given(lines=st.lists(transcript_lines(), min_size=1, max_size=5))
    @tallied("claude-code")
    def run(lines: list[bytes]) -> None:
        path = workdir / f"session-{next(COUNTER)}.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        _check_import(service, claude_code, path)

    run()


# --- memory import ---------------------------------------------------------------------------


@st.composite
def export_documents(draw: st.DrawFn) -> bytes:
    memory = st.fixed_dictionaries(
        {},
        optional={
            "content": hostile_text,
            "kind": near(["fact", "preference", "convention", "decision"]),
            "scope": st.one_of(
                st.dictionaries(near(["user", "project", "bogus"]), hostile_text, max_size=2),
                json_values,
            ),
        },
    )
    doc = {
        "format": draw(st.one_of(st.just("memory-center-export-v1"), hostile_text)),
        "memories": draw(
            st.one_of(st.lists(st.one_of(memory, json_values), max_size=4), json_values)
        ),
    }
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return draw(deep_json).encode()
    if choice == 1:
        return draw(st.binary(max_size=40))
    return encode(doc, draw(st.booleans()))


def test_fuzz_memory_import(service: MemoryService) -> None:
    @examples(300)
    @given(raw=export_documents())
    @tallied("memory-import")
    def run(raw: bytes) -> None:
        before = service.events.revision()
        try:  # what `memory-center memory import PATH` does with the file's bytes
            service.memories.import_memories(parse_json(raw, "in.json"))
        except InvalidInputError as exc:
            assert "\\n" not in exc.message and not has_lone_surrogate(exc.message)
            assert service.events.revision() == before
            return
        for record in service.memories.list_memories():
            record.content.encode("utf-8")

    run()


# --- the key file ------------------------------------------------------------------------------


def _valid_key_file(path: Path) -> dict[str, Any]:
    """A key file as `PassphraseKeyStore.save` writes it, with a cheap n for speed."""
    salt, nonce = os.urandom(16), os.urandom(12)
    kek = _derive(PASSPHRASE, salt, 2**10, 8, 1)
    sealed = AESGCM(kek).encrypt(nonce, KeySet.generate().to_bytes(), b"keyset")
    b64 = lambda raw: base64.b64encode(raw).decode()  # noqa: E731
    return {
        "format": 1,
        "kdf": "scrypt",
        "n": 2**10,
        "r": 8,
        "p": 1,
        "salt": b64(salt),
        "nonce": b64(nonce),
        "ciphertext": b64(sealed),
    }


scrypt_ints = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([2**k for k in range(64)]),
    json_values,
)


def test_fuzz_key_file(workdir: Path) -> None:
    path = workdir / "keyfile.json"
    base = _valid_key_file(path)

    @examples(300)
    @given(
        changes=st.dictionaries(
            st.sampled_from(["n", "r", "p", "salt", "nonce", "ciphertext", "kdf", "format"]),
            st.one_of(
                scrypt_ints, st.binary(max_size=80).map(lambda b: base64.b64encode(b).decode())
            ),
            max_size=3,
        ),
        raw=st.one_of(
            st.none(), deep_json, st.binary(max_size=40).map(lambda b: b.decode("latin-1"))
        ),
    )
    @tallied("key-file")
    def run(changes: dict[str, Any], raw: str | None) -> None:
        doc = {**base, **changes}
        n, r, p = doc.get("n"), doc.get("r"), doc.get("p")
        ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (n, r, p))
        # In-range but slow parameters are legitimate: keep the fuzz run quick.
        if ints and n * r * p > 2**14 and 0 < n <= 2**20 and 0 < r <= 32 and 0 < p <= 16:
            doc["n"] = 2**10
        path.write_text(
            raw if raw is not None else json.dumps(doc), encoding="utf-8", errors="surrogateescape"
        )
        try:
            PassphraseKeyStore(path, PASSPHRASE).load()
        except KeyUnavailableError as exc:
            assert "\\n" not in exc.message
        except InvalidInputError as exc:  # only the passphrase itself can be invalid input
            raise AssertionError(exc.message) from None

    run()

"""Fuzz: the command line's arguments and its JSON on stdin (in-process through click).

Every case ends in success, a one-line `error:` (exit 1) or a usage error (exit 2); never a
traceback; and a failed command leaves the store's revision where it was.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from click.testing import CliRunner, Result
from hypothesis import event, given
from hypothesis import strategies as st

from app.cli import cli
from core import MemoryService
from tests.fuzz.conftest import examples, tallied
from tests.fuzz.strategies import hostile_text, json_bytes, json_values, near
from tests.support.memory_keyring import MemoryKeyring

SCOPE_KEYS = ["user", "org", "project", "repo", "agent", "session", "environment", "bogus"]
ACTORS = ["user", "assistant", "tool", "system"]
TRUSTS = ["user", "tool_verified", "assistant", "untrusted"]
STATUSES = ["candidate", "active", "disabled", "quarantined", "deleted"]
KINDS = ["preference", "fact", "convention", "decision", "message", "tool_result"]


class Store:
    """A real store (keyring-held key, so opening is cheap) and a live view of its revision."""

    def __init__(self, root: Path) -> None:
        self.dir = root / "store"
        self.env = {
            "MEMORY_CENTER_DATA_DIR": str(self.dir),
            "MEMORY_CENTER_PASSPHRASE": "",
            "MEMORY_CENTER_EMBEDDER": "hashing",
        }
        self.runner = CliRunner()
        assert self.invoke(["init"]).exit_code == 0
        seeded = self.invoke(
            ["--json", "remember", "--scope", "user=alice", "--text", "I like tea"]
        )
        assert seeded.exit_code == 0, seeded.stderr
        self.service = MemoryService.open(self.dir)
        self.ids = [m.id for m in self.service.memories.list_memories()]

    def invoke(self, args: list[str], stdin: bytes | None = None) -> Result:
        return self.runner.invoke(cli, args, input=stdin, env=self.env)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MEMORY_CENTER_EMBEDDER", "hashing")
        made = Store(tmp_path_factory.mktemp("fuzz-cli"))
        yield made
        made.service.close()
    keyring.set_keyring(previous)


def check(store: Store, args: list[str], stdin: bytes | None = None) -> Result:
    """Run one command and assert the contract; return the result."""
    keyring.set_keyring(MemoryKeyring())  # the function-scoped env fixture resets nothing here
    before = store.service.events.revision()
    result = store.invoke(args, stdin)
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        trace = "".join(traceback.format_exception(exc))
        pytest.fail(f"{args!r} raised:\n{trace}")
    assert result.exit_code in (0, 1, 2), (args, result.exit_code, result.output)
    event(f"exit {result.exit_code}")
    assert "Traceback" not in result.output
    if result.exit_code == 1:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, result.stderr)
    if result.exit_code != 0:
        assert store.service.events.revision() == before, (args, result.stderr)
    return result


def scope_arg() -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(lambda k, v: f"{k}={v}", st.sampled_from(SCOPE_KEYS), hostile_text),
        hostile_text,
    )


def commands(store: Store) -> st.SearchStrategy[list[str]]:
    """Verbs filled with hostile values (valid ones mixed in, so success paths run too)."""
    text, ident = hostile_text, st.one_of(st.sampled_from(store.ids), hostile_text)
    session, number = hostile_text, st.one_of(st.integers(-5, 500).map(str), hostile_text)
    scopes = st.lists(scope_arg(), min_size=0, max_size=3).map(
        lambda xs: [a for x in xs for a in ("--scope", x)]
    )
    b = st.builds
    return st.one_of(
        b(
            lambda s, a, t, sc, x: [
                "event",
                "add",
                "--session",
                s,
                "--actor",
                a,
                "--trust",
                t,
                *sc,
                "--text",
                x,
            ],
            session,
            near(ACTORS),
            near(TRUSTS),
            scopes,
            text,
        ),
        b(lambda sc, x, k: ["remember", *sc, "--text", x, "--kind", k], scopes, text, near(KINDS)),
        b(
            lambda s, k, x: ["memory", "list", "--status", s, "--kind", k, "--text", x],
            near(STATUSES),
            near(KINDS),
            text,
        ),
        b(
            lambda verb, i: ["memory", verb, i],
            st.sampled_from(["show", "chain", "disable", "enable"]),
            ident,
        ),
        b(lambda i, x: ["memory", "quarantine", i, "--reason", x], ident, text),
        b(lambda i, sc: ["memory", "downgrade", i, *sc], ident, scopes),
        b(lambda i, s: ["memory", "exclude", i, "--session", s], ident, session),
        b(lambda sc, q: ["search", *sc, q], scopes, text),
        b(lambda sc, q, n: ["inject", *sc, q, "--budget", n], scopes, text, number),
        b(lambda verb, i: ["candidates", verb, i], st.sampled_from(["approve", "reject"]), ident),
        b(lambda i: ["snapshot", "show", i], ident),
        b(lambda i: ["replay", i], ident),
        b(lambda s: ["resume", s], session),
        b(lambda s, n: ["event", "list", "--session", s, "--limit", n], session, number),
        b(lambda s: ["extract", "--session", s], session),
        b(lambda s: ["session", "opt-out", s, "--undo"], session),
    )


def test_fuzz_cli_arguments(store: Store) -> None:
    @examples(300)
    @given(data=st.data())
    @tallied("cli-arguments")
    def run(data: Any) -> None:
        args = data.draw(commands(store))
        if data.draw(st.booleans()):
            args = ["--json", *args]
        check(store, args)

    run()


ADD = ["event", "add", "--session", "fuzz", "--actor", "user", "--trust", "user"]


def stdin_payloads() -> st.SearchStrategy[bytes]:
    from tests.fuzz.strategies import encode

    shaped = st.builds(
        lambda t, d, ascii_only: encode({"text": t, "data": d}, ascii_only),
        hostile_text,
        st.one_of(st.none(), st.dictionaries(hostile_text, json_values, max_size=4), json_values),
        st.booleans(),
    )
    return st.one_of(shaped, json_bytes)


def test_fuzz_cli_stdin_json(store: Store) -> None:
    @examples(300)
    @given(payload=stdin_payloads(), as_json=st.booleans())
    @tallied("cli-stdin")
    def run(payload: bytes, as_json: bool) -> None:
        prefix = ["--json"] if as_json else []
        check(store, [*prefix, *ADD, "--scope", "user=alice"], payload)

    run()

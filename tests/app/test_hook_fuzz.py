"""Whatever arrives on a hook's stdin, the handler returns text and never raises (#16)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.hooks.claude_code import EVENTS, handle
from core import MemoryService
from tests.conftest import PASSPHRASE

UNEXPECTED = {"TypeError", "AttributeError", "KeyError", "ValueError", "IndexError"}
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = st.fixed_dictionaries(
    {"hook_event_name": st.sampled_from([*EVENTS, "Other"]), "session_id": st.text(max_size=30)},
    optional={
        "cwd": st.text(max_size=30) | JSON,
        "transcript_path": st.text(max_size=30) | JSON,
        "prompt": st.text(max_size=300) | JSON,
        "tool_name": st.text(max_size=20) | JSON,
        "tool_input": JSON,
        "tool_response": JSON,
        "tool_use_id": st.text(max_size=20) | JSON,
        "trigger": JSON,
        "source": JSON,
    },
)


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryService]:
    folder: Path = tmp_path_factory.mktemp("fuzz") / "store"
    with MemoryService.open(folder, passphrase=PASSPHRASE, prefer_keyring=False) as service:
        service.memories.remember({"user": "u", "project": "p"}, "The project uses pnpm.")
        yield service


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payload=FIELDS | JSON)
def test_any_payload_gives_text_and_no_exception(svc: MemoryService, payload: object) -> None:
    before = svc.events.list_events(limit=1, newest_first=True)
    out = handle(svc, json.dumps(payload))
    assert isinstance(out, str)
    if out:
        assert json.loads(out)["hookSpecificOutput"]["additionalContext"]
    after = svc.events.list_events(after_position=before[0].position if before else 0, limit=1000)
    reasons = [str(e.data.get("reason")) for e in after if e.kind.value == "degraded"]
    # A failure is one of ours, named; never a stray Python error from a malformed field.
    assert not [r for r in reasons if r.split(":")[0] in UNEXPECTED], reasons


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(raw=st.binary(max_size=200))
def test_any_bytes_give_text_and_no_exception(svc: MemoryService, raw: bytes) -> None:
    assert isinstance(handle(svc, raw), str)

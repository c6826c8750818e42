"""The append-only event log via the service: appends, reads, validation, revisions (R1-R3, R21)."""

from __future__ import annotations

import datetime as dt
import tempfile
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import (
    Actor,
    ChangeKind,
    EventKind,
    EventSource,
    InvalidInputError,
    ManualClock,
    MemoryService,
    NewEvent,
    NotFoundError,
    Scope,
    ScopeRequiredError,
    TrustLevel,
)
from core.log.hash_chain import GENESIS_HASH
from core.model.jsonsafe import visible_part
from core.model.limits import MAX_EVENT_TEXT
from tests.conftest import PASSPHRASE, START


def ev(
    session: str = "s1",
    text: str = "hello",
    *,
    actor: str = "user",
    trust: str = "user",
    scope: Mapping[str, str] | None = None,
    **extra: Any,
) -> NewEvent:
    """A valid event with overridable fields."""
    return NewEvent(
        session=session,
        actor=actor,
        trust=trust,
        scope={"user": "u1", "project": "p1"} if scope is None else scope,
        text=text,
        **extra,
    )


def _nothing_written(service: MemoryService, revision: int) -> None:
    assert service.events.revision() == revision
    assert service.events.list_events() == []
    assert service.events.list_sessions() == []
    assert service.status().event_count == 0


# --- round trips -------------------------------------------------------------------------


def test_append_returns_the_stored_event(service: MemoryService) -> None:
    """R1, R2: an appended event carries who produced it, its trust, scope, kind and source."""
    result = service.events.append_event(
        ev(
            text="please remember: 我们用 pnpm",
            actor="assistant",
            trust="tool_verified",
            kind="tool_result",
            source="terminal",
            refs=("ref-1",),
            by="alice",
        )
    )
    event = result.value
    assert event.id.startswith("ev_")
    assert (event.position, event.seq, event.session_id) == (1, 1, "s1")
    assert event.actor is Actor.ASSISTANT
    assert event.trust is TrustLevel.TOOL_VERIFIED
    assert event.kind is EventKind.TOOL_RESULT
    assert event.source is EventSource.TERMINAL
    assert event.scope == Scope.of({"user": "u1", "project": "p1"})
    assert event.text == "please remember: 我们用 pnpm"
    assert event.refs == ("ref-1",)
    assert event.by == "alice"
    assert event.ts == START
    assert event.prev_hash == GENESIS_HASH
    assert len(event.hash) == 64


def test_list_and_get_return_what_was_appended(service: MemoryService) -> None:
    """R1: events read back equal to what append returned, Chinese text and data included."""
    data = {"文件": "路径/说明.md", "n": 3, "nested": {"list": [1, "二", None], "ok": True}}
    first = service.events.append_event(ev(text="用户说：记住我喜欢简洁的回答")).value
    second = service.events.append_event(
        ev(text="tool output", data=data, kind="tool_result")
    ).value
    assert service.events.list_events() == [first, second]
    assert service.events.get_events([second.id, first.id]) == [second, first]
    assert second.data == data
    assert second.prev_hash == first.hash


def test_text_is_normalised_and_stripped(service: MemoryService) -> None:
    """R1: text is stored NFC-normalised with surrounding blanks removed."""
    event = service.events.append_event(ev(text="  cafe\u0301 \n")).value
    assert event.text == "caf\u00e9"
    assert service.events.list_events()[0].text == "caf\u00e9"


def test_enum_values_are_accepted_case_insensitively(service: MemoryService) -> None:
    """R2: actor and trust given as words are matched regardless of case and blanks."""
    event = service.events.append_event(
        ev(actor=" Tool ", trust="UNTRUSTED", source="Web_Page")
    ).value
    assert (event.actor, event.trust, event.source) == (
        Actor.TOOL,
        TrustLevel.UNTRUSTED,
        EventSource.WEB_PAGE,
    )


def test_seq_is_per_session_and_position_is_global(service: MemoryService) -> None:
    """R1: each session numbers its events 1, 2, ...; positions number the whole log."""
    a1 = service.events.append_event(ev("a")).value
    b1 = service.events.append_event(ev("b")).value
    a2 = service.events.append_event(ev("a")).value
    assert [(e.session_id, e.seq, e.position) for e in (a1, b1, a2)] == [
        ("a", 1, 1),
        ("b", 1, 2),
        ("a", 2, 3),
    ]
    assert [e.id for e in service.events.list_events(session="a")] == [a1.id, a2.id]
    assert [e.id for e in service.events.list_events(session="b")] == [b1.id]


def test_sessions_are_created_on_first_use(service: MemoryService, clock: ManualClock) -> None:
    """R1: appending to an unknown session creates it; its counters follow the log."""
    service.events.append_event(ev("s1"))
    clock.advance(dt.timedelta(minutes=5))
    service.events.append_event(ev("s1"))
    service.events.append_event(ev("s2"))
    info = service.events.get_session("s1")
    assert info.event_count == 2
    assert info.created_at == START
    assert info.last_event_at == START + dt.timedelta(minutes=5)
    assert not info.opted_out
    assert {s.id for s in service.events.list_sessions()} == {"s1", "s2"}


def test_list_events_pages_and_orders(service: MemoryService) -> None:
    """R1: the log pages by position, forwards and newest first."""
    events = service.events.append_events([ev(text=f"t{i}") for i in range(5)]).value
    assert service.events.list_events(after_position=2, limit=2) == events[2:4]
    assert service.events.list_events(newest_first=True, limit=2) == [events[4], events[3]]


def test_append_events_appends_in_order_in_one_revision(service: MemoryService) -> None:
    """R1, R21: a batch is appended in order and produces exactly one new revision."""
    before = service.events.revision()
    result = service.events.append_events([ev("s1", "one"), ev("s2", "两"), ev("s1", "three")])
    assert [e.text for e in result.value] == ["one", "两", "three"]
    assert [e.position for e in result.value] == [1, 2, 3]
    assert [e.seq for e in result.value] == [1, 1, 2]
    assert result.changes.revision == before + 1 == service.events.revision()
    assert result.changes.event_ids == tuple(e.id for e in result.value)


def test_append_events_with_no_events_changes_nothing(service: MemoryService) -> None:
    """R21: an empty batch writes nothing and keeps the revision."""
    before = service.events.revision()
    result = service.events.append_events([])
    assert result.value == []
    assert result.changes.revision == before == service.events.revision()
    assert result.changes.kinds == frozenset()


def test_append_events_is_all_or_nothing(service: MemoryService) -> None:
    """R1: one bad event in a batch rejects the whole batch, naming its index and field."""
    before = service.events.revision()
    batch = [ev(text="ok 0"), ev(text="ok 1"), ev(trust="boss"), ev(text="ok 3")]
    with pytest.raises(InvalidInputError) as info:
        service.events.append_events(batch)
    assert info.value.field == "events[2].trust"
    assert str(info.value).startswith("events[2].trust:")
    _nothing_written(service, before)


# --- validation ---------------------------------------------------------------------------

BAD_INPUTS: list[tuple[str, dict[str, Any], str]] = [
    ("unknown-actor", {"actor": "robot"}, "event.actor"),
    ("non-string-actor", {"actor": 3}, "event.actor"),
    ("unknown-trust", {"trust": "boss"}, "event.trust"),
    ("unknown-kind", {"kind": "gossip"}, "event.kind"),
    ("unknown-source", {"source": "pigeon"}, "event.source"),
    ("empty-text", {"text": ""}, "event.text"),
    ("blank-text", {"text": " \n\t "}, "event.text"),
    ("non-string-text", {"text": None}, "event.text"),
    ("nul-in-text", {"text": "a\x00b"}, "event.text"),
    ("oversized-text", {"text": "x" * (MAX_EVENT_TEXT + 1)}, "event.text"),
    ("unknown-scope-key", {"scope": {"planet": "earth"}}, "event.scope"),
    ("empty-scope-value", {"scope": {"user": "  "}}, "event.scope.user"),
    ("non-string-scope-value", {"scope": {"user": 7}}, "event.scope.user"),
    ("non-json-data", {"data": {"when": dt.datetime(2026, 1, 1)}}, "event.data"),
    ("data-not-a-mapping", {"data": ["a", "b"]}, "event.data"),
    ("blank-session", {"session": "   "}, "event.session"),
    ("multi-line-session", {"session": "a\nb"}, "event.session"),
    ("blank-by", {"by": " "}, "event.by"),
    ("blank-ref", {"refs": ("",)}, "event.refs"),
]


@pytest.mark.parametrize(
    ("changes", "field"), [(c, f) for _, c, f in BAD_INPUTS], ids=[n for n, _, _ in BAD_INPUTS]
)
def test_bad_input_is_rejected_naming_the_field(
    service: MemoryService, changes: dict[str, Any], field: str
) -> None:
    """R1, R2: each invalid field raises InvalidInputError naming it; nothing is written."""
    before = service.events.revision()
    base: dict[str, Any] = {
        "session": "s1",
        "actor": "user",
        "trust": "user",
        "scope": {"user": "u1"},
        "text": "hello",
    }
    with pytest.raises(InvalidInputError) as info:
        service.events.append_event(NewEvent(**{**base, **changes}))
    assert info.value.field == field
    assert str(info.value).startswith(f"{field}: ")
    _nothing_written(service, before)


def test_text_at_the_limit_is_accepted(service: MemoryService) -> None:
    """R1: text of exactly the maximum length is stored whole, never truncated."""
    event = service.events.append_event(ev(text="y" * MAX_EVENT_TEXT)).value
    assert len(service.events.get_events([event.id])[0].text) == MAX_EVENT_TEXT


@pytest.mark.parametrize("scope", [{}, None], ids=["empty", "none"])
def test_missing_scope_is_scope_required(
    service: MemoryService, scope: Mapping[str, str] | None
) -> None:
    """R13: an event without a scope raises ScopeRequiredError; nothing is written."""
    before = service.events.revision()
    item = NewEvent(session="s1", actor="user", trust="user", scope=scope, text="x")  # type: ignore[arg-type]
    with pytest.raises(ScopeRequiredError) as info:
        service.events.append_event(item)
    assert info.value.field == "event.scope"
    _nothing_written(service, before)


def test_get_events_with_unknown_id_is_not_found(service: MemoryService) -> None:
    """R1: asking for an event that does not exist raises NotFoundError naming it."""
    known = service.events.append_event(ev()).value
    with pytest.raises(NotFoundError) as info:
        service.events.get_events([known.id, "ev_missing"])
    assert (info.value.what, info.value.ident) == ("event", "ev_missing")
    assert service.events.get_events([]) == []


def test_unknown_session_is_not_found(service: MemoryService) -> None:
    """R1: reading a session that does not exist raises NotFoundError naming it."""
    with pytest.raises(NotFoundError, match="nobody") as info:
        service.events.get_session("nobody")
    assert info.value.what == "session"
    assert service.events.list_sessions() == []


def test_opting_out_an_unknown_session_creates_it_opted_out(service: MemoryService) -> None:
    """R26: an agent can opt a session out before its first event (scenarios 15, 16)."""
    before = service.events.revision()
    result = service.events.set_session_opt_out("private", True)
    assert result.value.opted_out and result.value.event_count == 0
    assert result.changes.revision == before + 1
    event = service.events.append_event(ev("private")).value
    assert event.seq == 1
    info = service.events.get_session("private")
    assert info.opted_out and info.event_count == 1


def test_session_opt_out_is_stored(service: MemoryService) -> None:
    """R26: a session can be opted out and back in; each switch is a revision."""
    service.events.append_event(ev("s1"))
    result = service.events.set_session_opt_out("s1", True)
    assert result.value.opted_out
    # The store's first governing write also announces, in the log, that governing rows
    # are bound from now on (#38): one event, in Memory Center's own session.
    assert result.changes.kinds == frozenset({ChangeKind.SESSIONS, ChangeKind.EVENTS})
    assert service.events.set_session_opt_out("s1", False).changes.kinds == {ChangeKind.SESSIONS}
    service.events.set_session_opt_out("s1", True)
    assert service.events.get_session("s1").opted_out
    assert not service.events.set_session_opt_out("s1", False).value.opted_out


def test_blank_session_filter_is_rejected(service: MemoryService) -> None:
    """R1: listing with a blank session name is an input error, not an empty result."""
    with pytest.raises(InvalidInputError) as info:
        service.events.list_events(session=" ")
    assert info.value.field == "session"


# --- revision and change feed ------------------------------------------------------------


def test_revision_increases_by_one_per_mutating_call(service: MemoryService) -> None:
    """R21: every committed mutation bumps the store revision by exactly one."""
    start = service.events.revision()
    r1 = service.events.append_event(ev("s1")).changes.revision
    r2 = service.events.append_events([ev("s1"), ev("s2")]).changes.revision
    r3 = service.events.set_session_opt_out("s1", True).changes.revision
    assert [r1, r2, r3] == [start + 1, start + 2, start + 3]
    assert service.events.revision() == start + 3
    assert service.status().revision == start + 3


def test_failed_calls_do_not_bump_the_revision(service: MemoryService) -> None:
    """R21: a rejected call leaves the revision and the change feed as they were."""
    service.events.append_event(ev())
    before = service.events.revision()
    with pytest.raises(InvalidInputError):
        service.events.append_event(ev(actor="robot"))
    with pytest.raises(InvalidInputError):
        service.events.append_events([ev(), ev(text=" ")])
    with pytest.raises(InvalidInputError):
        service.events.set_session_opt_out(" ", True)
    assert service.events.revision() == before
    assert service.events.changes_since(before) == []


def test_changes_since_reports_kinds_and_event_ids(service: MemoryService) -> None:
    """R21: the change feed lists each revision with the areas and events it touched."""
    start = service.events.revision()
    one = service.events.append_event(ev("s1")).value
    batch = service.events.append_events([ev("s1"), ev("s2")]).value
    service.events.set_session_opt_out("s2", True)
    feed = service.events.changes_since(start)
    assert [c.revision for c in feed] == [start + 1, start + 2, start + 3]
    assert feed[0].kinds == frozenset({ChangeKind.EVENTS, ChangeKind.SESSIONS})
    assert feed[0].event_ids == (one.id,)
    assert feed[1].event_ids == tuple(e.id for e in batch)
    # The first governing write of a store announces the bound rows with one event (#38).
    assert feed[2].kinds == frozenset({ChangeKind.SESSIONS, ChangeKind.EVENTS})
    assert len(feed[2].event_ids) == 1
    assert all(c.ts == START for c in feed)
    assert service.events.changes_since(start + 2) == feed[2:]
    assert service.events.changes_since(start, limit=1) == feed[:1]


def test_status_counts_events_and_sessions(service: MemoryService) -> None:
    """R21: status reports the counts of the log."""
    service.events.append_events([ev("s1"), ev("s2"), ev("s1")])
    status = service.status()
    assert (status.event_count, status.session_count) == (3, 2)
    assert status.memory_counts == {}


# --- property ---------------------------------------------------------------------------

SESSIONS = st.sampled_from(["alpha", "beta", "会话"])
# Texts with something visible: one made only of control or invisible characters is refused
# at the door (#38), which tests/app/test_cli_bad_input.py covers.
TEXTS = st.text(min_size=1, max_size=40).filter(
    lambda t: "\x00" not in t and visible_part(unicodedata.normalize("NFC", t).strip()) != ""
)


@settings(max_examples=25, deadline=None, database=None)
@given(st.lists(st.tuples(SESSIONS, TEXTS), min_size=1, max_size=12), st.booleans())
def test_any_sequence_of_appends_reads_back_in_order(
    items: list[tuple[str, str]], batched: bool
) -> None:
    """R1, R3: for any appends, the log keeps order, per-session seqs, and verifies."""
    with tempfile.TemporaryDirectory() as tmp:
        svc = MemoryService.open(
            Path(tmp) / "store",
            passphrase=PASSPHRASE,
            clock=ManualClock(START),
            prefer_keyring=False,
        )
        try:
            new = [ev(session, text) for session, text in items]
            if batched:
                svc.events.append_events(new)
            else:
                for item in new:
                    svc.events.append_event(item)
            events = svc.events.list_events(limit=100)
            expected = [unicodedata.normalize("NFC", t).strip() for _, t in items]
            assert [e.text for e in events] == expected
            assert [e.session_id for e in events] == [s for s, _ in items]
            assert [e.position for e in events] == list(range(1, len(items) + 1))
            seen: dict[str, int] = {}
            for event in events:
                seen[event.session_id] = seen.get(event.session_id, 0) + 1
                assert event.seq == seen[event.session_id]
            report = svc.verify()
            assert report.ok and report.events_checked == len(items)
        finally:
            svc.close()


def test_a_store_opens_from_a_path_given_as_text(data_dir: Path, clock: ManualClock) -> None:
    """`MemoryService.open` takes the directory as a string too (scripts pass one)."""
    first = MemoryService.open(
        str(data_dir), passphrase=PASSPHRASE, clock=clock, prefer_keyring=False
    )
    written = first.memories.remember({"user": "ana"}, "Ana's locker is number 12.").value.record
    first.close()
    again = MemoryService.open(
        str(data_dir), passphrase=PASSPHRASE, clock=clock, prefer_keyring=False
    )
    try:
        assert (
            written is not None and again.memories.get_memory(written.id).content == written.content
        )
    finally:
        again.close()


@pytest.mark.parametrize("given", ["", "store\x00dir"])
def test_an_empty_or_nul_directory_text_is_refused(
    given: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "" would be the working directory, and a NUL cannot name a file: one clear error,
    nothing created."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidInputError, match="data_dir"):
        MemoryService.open(given, passphrase=PASSPHRASE, prefer_keyring=False)
    assert list(tmp_path.iterdir()) == []

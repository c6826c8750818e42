"""The hash chain on its own (R3): every kind of break is found at the event where it is."""

from __future__ import annotations

import dataclasses

from core.log.hash_chain import GENESIS_HASH, ChainLink, find_break, payload_commitment


def _chain(n: int) -> list[tuple[ChainLink, str]]:
    links: list[tuple[ChainLink, str]] = []
    prev = GENESIS_HASH
    for position in range(1, n + 1):
        link = ChainLink(
            id=f"e{position}",
            position=position,
            session_id="s1",
            seq=position,
            ts=f"2026-03-02T09:00:{position:02d}+00:00",
            kind="message",
            actor="user",
            trust="user",
            source=None,
            scope_json='{"user":"u"}',
            refs_json="[]",
            by=None,
            commitment=payload_commitment(b"salt%d" % position, b'{"text":"hi"}'),
            prev_hash=prev,
        )
        prev = link.digest()
        links.append((link, prev))
    return links


def test_an_intact_chain_has_no_break() -> None:
    assert find_break(_chain(6)) is None
    assert find_break([]) is None


def test_a_chain_may_start_from_a_known_head() -> None:
    links = _chain(6)
    assert find_break(links[3:], start_hash=links[2][1]) is None
    found = find_break(links[3:])
    assert found is not None and found.event_id == "e4"


def test_a_missing_event_is_a_position_gap() -> None:
    links = _chain(5)
    found = find_break(links[:2] + links[3:])
    assert found is not None and (found.event_id, found.position) == ("e4", 4)
    assert "position gap" in found.problem


def test_reordered_events_break_the_back_link() -> None:
    links = _chain(4)
    swapped = [links[0], links[2], links[1], links[3]]
    relinked = [
        (dataclasses.replace(link, position=i + 1), h) for i, (link, h) in enumerate(swapped)
    ]
    found = find_break(relinked)
    assert found is not None and found.event_id == "e3"
    assert "prev_hash" in found.problem


def test_an_altered_field_no_longer_matches_its_hash() -> None:
    links = _chain(4)
    link, stored = links[2]
    links[2] = (dataclasses.replace(link, actor="assistant"), stored)
    found = find_break(links)
    assert found is not None and found.event_id == "e3"
    assert "does not match its hash" in found.problem


def test_the_commitment_depends_on_salt_and_payload() -> None:
    base = payload_commitment(b"salt", b"payload")
    assert base == payload_commitment(b"salt", b"payload")
    assert base != payload_commitment(b"salt2", b"payload")
    assert base != payload_commitment(b"salt", b"payload!")
    # The salt length is framed: moving a byte between salt and payload changes the hash.
    assert payload_commitment(b"ab", b"c") != payload_commitment(b"a", b"bc")

"""Hostile values for the fuzz tests: lone surrogates, NULs, control characters, huge and
deeply nested JSON, wrong types, near-miss enumeration values."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

SURROGATES = ["\ud800", "\udbff", "\udc00", "\udcff", "\udfff", "\ud83d"]
SPECIAL = ["\x00", "\n", "\r", "\t", "\x1b", "\u202e", "\ufeff", "=", "\\", '"', "{", "["]

chars = st.one_of(
    st.characters(exclude_categories=()),
    st.sampled_from(SURROGATES + SPECIAL),
)
hostile_text = st.one_of(
    st.text(chars, max_size=40),
    st.sampled_from(["", " ", "  \n ", "x" * 5000, "\x00", "\udcff", "caf\udce9", "mem_"]),
)
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    hostile_text,
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(hostile_text, inner, max_size=4)
    ),
    max_leaves=12,
)


def nested(depth: int) -> str:
    """A JSON array nested `depth` levels deep."""
    return "[" * depth + "]" * depth


deep_json = st.sampled_from([10, 63, 64, 65, 200, 1_000, 5_000, 100_000]).map(nested)


def encode(value: Any, ascii_only: bool) -> bytes:
    """JSON bytes: with escapes (`\\ud800` stays an escape) or raw (surrogates become the
    invalid UTF-8 bytes a broken writer would produce)."""
    text = json.dumps(value, ensure_ascii=ascii_only)
    return text.encode("utf-8", "surrogatepass")


json_bytes = st.one_of(
    st.builds(encode, json_values, st.booleans()),
    deep_json.map(str.encode),
    st.binary(max_size=60),
)


def near(values: list[str]) -> st.SearchStrategy[str]:
    """Valid enumeration values, their case variants, and hostile look-alikes."""
    return st.one_of(
        st.sampled_from(values),
        st.sampled_from(values).map(str.upper),
        st.sampled_from(values).map(lambda v: v + "\udcff"),
        hostile_text,
    )

"""Pieces shared by the runner and the op modules: step failure and the recurring checks."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NoReturn

from tests.scenarios import adapter as product
from tests.scenarios.text import all_match, found_forbidden, short

HOT_PATH_LIMIT_S = 10.0
"""Stall guard for inject and search (README 2.6): a hang detector, not a benchmark."""


class StepFailure(Exception):
    """Raised inside a handler; the runner adds the scenario id, step index and op."""


def fail(message: str) -> NoReturn:
    """Fail the current step."""
    raise StepFailure(message)


def show(value: Any) -> str:
    """Compact JSON of a scenario value, for failure messages."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def check_text(text: str, extra: Iterable[str], expect: Mapping[str, Any], what: str) -> None:
    """`contains` on the text itself; `not_contains` on the text and every item's text."""
    missing = all_match(text, expect.get("contains", []))
    if missing:
        fail(f"{what} lacks {show(missing)}; it is: {short(text)!r}")
    leaked = found_forbidden([text, *extra], expect.get("not_contains", []))
    if leaked:
        fail(f"{what} contains forbidden {show(leaked)}")


def check_annotated(
    ids_of: Callable[[Mapping[str, Any]], set[str]],
    items: Sequence[Any],
    specs: Iterable[Any],
    what: str,
) -> None:
    """If a matched memory is among `items` it carries one of the notes; `required` => present."""
    for spec in specs:
        ids = ids_of(spec["match"])
        present = [i for i in items if i.memory_id in ids]
        if spec.get("required") and not present:
            fail(f"{show(spec['match'])} is not among the {what} items")
        for item in present:
            notes = product.notes_of(item)
            if not notes & set(spec["note_in"]):
                fail(
                    f"{show(spec['match'])} in {what} has notes {sorted(notes)}, "
                    f"expected one of {spec['note_in']}"
                )


def item_texts(items: Iterable[Any]) -> list[str]:
    """Content and notes of injected / returned items (what not_contains also covers)."""
    texts: list[str] = []
    for item in items:
        texts.append(getattr(item, "content", "") or "")
        texts.extend(str(n) for n in getattr(item, "notes", ()) or ())
    return texts


def require(value: Any, attr: str, what: str) -> Any:
    """An attribute the product's value must have; a clear failure when it does not."""
    if not hasattr(value, attr):
        fail(f"{what} has no attribute {attr!r} (got {type(value).__name__})")
    return getattr(value, attr)


def within_hot_path(what: str, call: Callable[[], Any]) -> Any:
    """Run a product inject / search call and fail it when it takes longer than 10 s.

    Only the product call is timed: the runner's own checks afterwards (reading records and
    snapshots, possibly through a fault seam) must not count against the product.
    """
    started = time.monotonic()
    value = call()
    elapsed = time.monotonic() - started
    if elapsed > HOT_PATH_LIMIT_S:
        fail(f"{what} took {elapsed:.1f} s; the stall guard allows {HOT_PATH_LIMIT_S:.0f} s")
    return value

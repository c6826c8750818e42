"""Lazy patterns (#13): the same answers as `re`, compiled once, and every module-level pattern
of the product compiles (a typo must fail here, not at a user's first matching text)."""

from __future__ import annotations

import importlib
import pkgutil
import re
import threading

import pytest

import core
from core import patterns
from core.patterns import LazyPattern, compile_all, lazy


def test_a_lazy_pattern_answers_as_re_does_and_compiles_only_when_used() -> None:
    pattern = lazy(r"(?P<word>\w+)@(\d+)", re.IGNORECASE)
    assert pattern._compiled is None  # defining it compiled nothing
    text = "Ping ALICE@42 and bob@7."
    eager = re.compile(r"(?P<word>\w+)@(\d+)", re.IGNORECASE)
    assert pattern.search(text).group("word") == eager.search(text).group("word")  # type: ignore[union-attr]
    assert pattern.search(text, 12) is not None and pattern.match(text) is None
    assert pattern.fullmatch("x@1") is not None
    assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in eager.finditer(text)]
    assert pattern.findall(text) == eager.findall(text)
    assert pattern.sub("<\\1>", text) == eager.sub("<\\1>", text)
    assert pattern.subn(lambda m: m.group(2), text) == eager.subn(lambda m: m.group(2), text)
    assert pattern.split(text) == eager.split(text)
    assert pattern.groupindex == eager.groupindex and pattern.pattern == eager.pattern
    assert pattern.compiled is pattern.compiled


def test_threads_racing_to_first_use_share_one_compiled_pattern() -> None:
    pattern = lazy(r"[a-z]+\d")
    seen: list[re.Pattern[str]] = []
    threads = [threading.Thread(target=lambda: seen.append(pattern.compiled)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(p) for p in seen}) == 1


def test_every_module_level_pattern_of_the_core_compiles() -> None:
    for info in pkgutil.walk_packages(core.__path__, "core."):
        importlib.import_module(info.name)
    assert compile_all() > 120  # the governance and retrieval grammars are all lazy now


def test_a_broken_pattern_fails_at_first_use_with_re_s_own_error() -> None:
    broken = LazyPattern(r"(unclosed")
    try:
        with pytest.raises(re.error, match="missing \\)"):
            broken.search("x")
    finally:
        patterns._ALL.remove(broken)  # keep compile_all's check meaningful for the others

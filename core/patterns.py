"""Regular expressions compiled on first use.

The governance, retrieval and index modules hold 133 module-level patterns (sensitivity rules,
statement and date grammars). Compiling them at import cost ~0.2 s of every CLI command's
start-up, though most commands (`status`, `verify`, `memory list`, `inject`) never run most
of them (#13). A `LazyPattern` reads like `re.compile(...)` at the definition and compiles
the first time one of its methods is called; a bad pattern therefore fails at first use, and
`tests/core/test_patterns.py` compiles every module-level one so that it fails in CI.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

_LOCK = threading.Lock()
_ALL: list[LazyPattern] = []


class LazyPattern:
    """A `re.Pattern[str]` stand-in that compiles on first use (thread-safe)."""

    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: str, flags: int | re.RegexFlag = 0) -> None:
        self._source = source
        self._flags = int(flags)
        self._compiled: re.Pattern[str] | None = None
        _ALL.append(self)

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if it was not yet)."""
        compiled = self._compiled
        if compiled is None:
            with _LOCK:
                if self._compiled is None:
                    self._compiled = re.compile(self._source, self._flags)
                compiled = self._compiled
        return compiled

    @property
    def pattern(self) -> str:
        """The source text, as `re.Pattern.pattern`."""
        return self._source

    @property
    def groupindex(self) -> Any:
        """Group names to numbers, as `re.Pattern.groupindex`."""
        return self.compiled.groupindex

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """As `re.Pattern.search`."""
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """As `re.Pattern.match`."""
        return self.compiled.match(string, pos, endpos)

    def fullmatch(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        """As `re.Pattern.fullmatch`."""
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        """As `re.Pattern.finditer`."""
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        """As `re.Pattern.findall`."""
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        """As `re.Pattern.sub`."""
        return self.compiled.sub(repl, string, count)

    def subn(
        self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0
    ) -> tuple[str, int]:
        """As `re.Pattern.subn`."""
        return self.compiled.subn(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        """As `re.Pattern.split`."""
        return self.compiled.split(string, maxsplit)

    def __repr__(self) -> str:
        return f"LazyPattern({self._source!r}, {self._flags})"


def lazy(source: str, flags: int | re.RegexFlag = 0) -> LazyPattern:
    """`re.compile`, deferred to the first use."""
    return LazyPattern(source, flags)


def compile_all() -> int:
    """Compile every lazy pattern defined so far; returns how many (a test's check)."""
    patterns = list(_ALL)
    for pattern in patterns:
        pattern.compiled  # noqa: B018 - compiling is the point
    return len(patterns)

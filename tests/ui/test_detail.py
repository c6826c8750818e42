"""Memory detail actions, asserted on the store (R19, R25, R26)."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from core import MemoryService, NotFoundError
from tests.ui.conftest import TIMEOUT, find, wait_status

from ui.main_window import MainWindow
from ui.views.detail_panel import DetailPanel


def _show(qtbot: QtBot, window: MainWindow, demo: MemoryService, needle: str) -> DetailPanel:
    record = find(demo, needle)
    window.open_memory(record.id)
    panel = window.detail
    qtbot.waitUntil(
        lambda: panel.data is not None and panel.data.record.id == record.id, timeout=TIMEOUT
    )
    return panel


def test_detail_shows_lineage_sources_and_usage(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """R25: content, scope, sources, usage trace, history and revisions are shown."""
    panel = _show(qtbot, window, demo, "pnpm for every")
    assert "pnpm" in panel.content.text()
    assert "user=alice" in panel.field_labels["scope"].text()
    assert "web-shop-setup" in panel.sources.text()
    assert "Injected 2 times" in panel.usage.text()
    assert "Remembered" in panel.history.text() and "mp-" not in panel.history.text()
    assert "#1" in panel.revision_list.text()


def test_source_event_click_opens_the_session(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """Clicking a source event jumps to its session in the Sessions view, event selected."""
    panel = _show(qtbot, window, demo, "pnpm for every")
    event = panel.data.chain.source_events[0]  # type: ignore[union-attr]
    panel._link(f"session:{event.session_id}#{event.id}")
    assert window.stack.currentIndex() == 2
    qtbot.waitUntil(lambda: window.sessions.selected_event() is not None, timeout=TIMEOUT)
    assert window.sessions.selected_event().id == event.id  # type: ignore[union-attr]


def test_disable_then_undo(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """Disable keeps the memory but stops injection; Undo in the status bar enables it again."""
    panel = _show(qtbot, window, demo, "pnpm for every")
    panel.toggle_button.click()
    wait_status(qtbot, demo, "pnpm for every", "disabled")
    qtbot.waitUntil(window.undo_button.isVisible, timeout=TIMEOUT)
    window.undo_button.click()
    wait_status(qtbot, demo, "pnpm for every", "active")


def test_enable_a_disabled_memory(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """Enable is offered for a disabled memory."""
    panel = _show(qtbot, window, demo, "2-space indents")
    assert panel.toggle_button.text() == "Enable"
    panel.toggle_button.click()
    wait_status(qtbot, demo, "2-space indents", "active")


def test_downgrade_scope_and_undo(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """Downgrade asks for one more key=value; undo widens it back."""
    panel = _show(qtbot, window, demo, "pnpm for every")
    panel.downgrade_button.click()
    dialog = panel.active_dialog
    dialog.set_extra("project", "web-shop")  # type: ignore[union-attr]
    dialog._check()  # type: ignore[union-attr]
    qtbot.waitUntil(
        lambda: dict(find(demo, "pnpm").scope) == {"user": "alice", "project": "web-shop"},
        timeout=TIMEOUT,
    )
    qtbot.waitUntil(window.undo_button.isVisible, timeout=TIMEOUT)
    window.undo()
    qtbot.waitUntil(lambda: dict(find(demo, "pnpm").scope) == {"user": "alice"}, timeout=TIMEOUT)


def test_exclude_from_a_session(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """Exclude keeps a memory out of one session's injections."""
    panel = _show(qtbot, window, demo, "pnpm for every")
    panel.exclude_button.click()
    dialog = panel.active_dialog
    dialog.session.setCurrentText("web-shop-ci")  # type: ignore[union-attr]
    dialog._check()  # type: ignore[union-attr]
    record = find(demo, "pnpm for every")
    qtbot.waitUntil(
        lambda: any(d.action == "exclude" for d in demo.memories.history(record.id)),
        timeout=TIMEOUT,
    )
    shop = {"user": "alice", "project": "web-shop"}
    injected = demo.retrieval.inject(
        shop, "which package manager", 400, session="web-shop-ci"
    ).value
    assert all(i.memory_id != record.id for i in injected.items)
    elsewhere = demo.retrieval.inject(
        shop, "which package manager pnpm", 400, session="other"
    ).value
    assert any(i.memory_id == record.id for i in elsewhere.items)


def test_quarantine(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """Quarantine stops injection everywhere and names the affected sessions."""
    panel = _show(qtbot, window, demo, "pnpm for every")
    panel.quarantine_button.click()
    dialog = panel.active_dialog
    dialog.reason.setText("came from a poisoned summary")  # type: ignore[union-attr]
    dialog._check()  # type: ignore[union-attr]
    wait_status(qtbot, demo, "pnpm for every", "quarantined")
    qtbot.waitUntil(lambda: "1 session" in window.message.text(), timeout=TIMEOUT)


def test_delete_keeps_a_tombstone(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """Delete (no purge) says what is removed and writes a tombstone."""
    panel = _show(qtbot, window, demo, "pnpm for every")
    record = panel.data.record  # type: ignore[union-attr]
    panel.delete_button.click()
    dialog = panel.active_dialog
    assert "cannot be undone" in dialog.intro.text()  # type: ignore[union-attr]
    dialog._check()  # type: ignore[union-attr]
    assert dialog.isVisible()  # a reason is required  # type: ignore[union-attr]
    dialog.reason.setText("no longer true")  # type: ignore[union-attr]
    dialog._check()  # type: ignore[union-attr]
    qtbot.waitUntil(
        lambda: demo.memories.get_memory(record.id).status.value == "deleted", timeout=TIMEOUT
    )
    stone = demo.memories.tombstone(record.id)
    assert stone.reason == "no longer true" and not stone.purged


def test_purge_destroys_the_content(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """Purge says exactly what goes (revisions, injected text) and leaves only metadata."""
    panel = _show(qtbot, window, demo, "pnpm for every")
    record = panel.data.record  # type: ignore[union-attr]
    panel.delete_button.click()
    dialog = panel.active_dialog
    dialog.purge.setChecked(True)  # type: ignore[union-attr]
    text = dialog.intro.text()  # type: ignore[union-attr]
    assert "all 1 revision;" in text and "2 recorded model calls;" in text
    dialog.reason.setText("GDPR request")  # type: ignore[union-attr]
    dialog._check()  # type: ignore[union-attr]
    qtbot.waitUntil(
        lambda: demo.memories.get_memory(record.id).status.value == "deleted", timeout=TIMEOUT
    )
    assert demo.memories.tombstone(record.id).purged
    assert demo.memories.get_memory(record.id).content == ""
    with pytest.raises(NotFoundError):
        demo.memories.get_memory("mem_does_not_exist")


def test_exclude_then_undo_includes_again(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """The status bar's Undo after Exclude undoes it (#39): the memory is injected again."""
    panel = _show(qtbot, window, demo, "pnpm for every")
    panel.exclude_button.click()
    dialog = panel.active_dialog
    dialog.session.setCurrentText("web-shop-ci")  # type: ignore[union-attr]
    dialog._check()  # type: ignore[union-attr]
    record = find(demo, "pnpm for every")
    qtbot.waitUntil(lambda: window.undo_button.isVisibleTo(window), timeout=TIMEOUT)
    shop = {"user": "alice", "project": "web-shop"}
    injected = demo.retrieval.inject(
        shop, "which package manager pnpm", 400, session="web-shop-ci"
    ).value
    assert all(i.memory_id != record.id for i in injected.items)
    window.undo_button.click()
    qtbot.waitUntil(
        lambda: any(d.action == "undo_exclude" for d in demo.memories.history(record.id)),
        timeout=TIMEOUT,
    )
    again = demo.retrieval.inject(
        shop, "which package manager pnpm", 400, session="web-shop-ci"
    ).value
    assert any(i.memory_id == record.id for i in again.items)
    qtbot.waitUntil(lambda: "Undone" in window.message.text(), timeout=TIMEOUT)

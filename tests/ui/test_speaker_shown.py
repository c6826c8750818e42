"""The memory center shows when a memory was said and who said it (#17)."""

from __future__ import annotations

import datetime as dt

from pytestqt.qtbot import QtBot

from core import ManualClock, MemoryRecord, MemoryService
from tests.ui.conftest import TIMEOUT

from ui.main_window import MainWindow
from ui.models.timeline_model import COL_CONTENT

SCOPE = {"user": "mei"}
SAID = dt.datetime(2023, 5, 8, 14, 0, tzinfo=dt.UTC)


def _window(qtbot: QtBot, service: MemoryService, clock: ManualClock) -> MainWindow:
    window = MainWindow(service, now=clock.now)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.timeline.model.item_count == 2, timeout=TIMEOUT)
    return window


def _open(qtbot: QtBot, window: MainWindow, record: MemoryRecord) -> dict[str, str]:
    window.open_memory(record.id)
    panel = window.detail
    qtbot.waitUntil(
        lambda: panel.data is not None and panel.data.record.id == record.id, timeout=TIMEOUT
    )
    return {key: label.text() for key, label in panel.field_labels.items()}


def test_said_time_and_speaker_in_the_detail_panel_and_the_timeline(
    qtbot: QtBot, service: MemoryService, clock: ManualClock
) -> None:
    turn = service.memories.remember(
        SCOPE, "I painted a sunset by the lake.", said_at=SAID, speaker="Melanie"
    ).value.record
    note = service.memories.remember(SCOPE, "Remember: the gate code is 4411.").value.record
    assert turn is not None and note is not None
    window = _window(qtbot, service, clock)
    model = window.timeline.model
    texts = {model.index(r, COL_CONTENT).data() for r in range(model.rowCount())}
    assert "Melanie: I painted a sunset by the lake." in texts

    fields = _open(qtbot, window, turn)
    said_local = SAID.astimezone().strftime("%Y-%m-%d %H:%M")
    recorded_local = turn.created_at.astimezone().strftime("%Y-%m-%d %H:%M")
    assert fields["said"] == f"{said_local}, recorded {recorded_local}"
    assert fields["speaker"] == "Melanie"
    assert window.detail.content.text() == "I painted a sunset by the lake."

    fields = _open(qtbot, window, note)
    assert fields["said"].startswith("when recorded (")
    assert fields["speaker"] == "—"


def test_the_search_box_finds_a_speakers_words(
    qtbot: QtBot, service: MemoryService, clock: ManualClock
) -> None:
    service.memories.remember(SCOPE, "We adopted a puppy.", said_at=SAID, speaker="Caroline")
    service.memories.remember(SCOPE, "The weather was lovely.", said_at=SAID, speaker="Mei")
    window = _window(qtbot, service, clock)
    view = window.timeline
    view.search.setText("caroline")
    with qtbot.waitSignal(view.filtered, timeout=TIMEOUT):
        view.apply_filter()
    qtbot.waitUntil(lambda: not view.model.loading, timeout=TIMEOUT)
    shown = [view.model.item_at(r) for r in range(view.model.rowCount())]
    assert [r.content for r in shown if isinstance(r, MemoryRecord)] == ["We adopted a puppy."]

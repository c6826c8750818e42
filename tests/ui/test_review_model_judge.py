"""The review queue asks the model judge the user configured (#40), against a deterministic
chat endpoint on loopback: "Ask <model>…" appears only when one is configured, and its
answer is applied under the trust rules and said in the status bar."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from core import ManualClock, MemoryService
from core.governance.model_judge import ModelJudge
from tests.core.governance.conftest import FakeLLM, completion
from tests.core.governance.conftest import fake_llm as fake_llm  # the fixture
from tests.ui.conftest import TIMEOUT

from ui.main_window import MainWindow


def _window(qtbot: QtBot, demo: MemoryService, clock: ManualClock) -> MainWindow:
    win = MainWindow(demo, now=clock.now)
    qtbot.addWidget(win)
    win.show()
    win.nav.setCurrentRow(1)
    qtbot.waitUntil(lambda: win.review.current_record() is not None, timeout=3 * TIMEOUT)
    return win


def _first_possible(qtbot: QtBot, win: MainWindow, demo: MemoryService) -> str:
    view = win.review
    for row in view.model.selectable_rows():
        entry = view.model.entry(row)
        record = entry.record if entry is not None else None
        if record is not None and demo.memories.possible_relation(record.id) is not None:
            view.list.setCurrentIndex(view.model.index(row, 0))
            qtbot.waitUntil(lambda: not view.card.possible.isHidden(), timeout=3 * TIMEOUT)
            return record.id
    raise AssertionError("no possible item in the demo queue")


def test_ask_the_configured_model(
    qtbot: QtBot, demo: MemoryService, clock: ManualClock, fake_llm: FakeLLM
) -> None:
    demo.review.model_judge = ModelJudge(fake_llm.base_url, "fake-7b")
    fake_llm.reply = lambda _b: (
        200,
        completion({"relation": "compatible", "why": "two different dinners"}),
    )
    win = _window(qtbot, demo, clock)
    memory_id = _first_possible(qtbot, win, demo)
    button = win.review.card.ask_button
    assert not button.isHidden() and "fake-7b" in button.text()
    button.click()
    qtbot.waitUntil(
        lambda: demo.memories.get_memory(memory_id).status.value == "active",
        timeout=3 * TIMEOUT,
    )
    last = demo.memories.history(memory_id)[-1]
    assert last.actor == "model judge (fake-7b)" and "two different dinners" in last.reason
    assert demo.memories.get_memory(memory_id).content in fake_llm.prompt


def test_no_model_no_button(qtbot: QtBot, demo: MemoryService, clock: ManualClock) -> None:
    win = _window(qtbot, demo, clock)
    _first_possible(qtbot, win, demo)
    assert win.review.card.ask_button.isHidden()

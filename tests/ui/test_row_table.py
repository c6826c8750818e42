"""The shared table-model base: Qt's item-model contract, selectability, stale pages dropped."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from ui.models.row_table import PageFeed, RowTableModel
from ui.tasks import TaskRunner

TIMEOUT = 5000


@dataclass(frozen=True)
class Fruit:
    name: str
    header: bool = False


class FruitModel(RowTableModel[Fruit]):
    def __init__(self) -> None:
        super().__init__(("Name", "Length"))

    def cell(self, row: Fruit, column: int, role: int) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        return row.name if column == 0 else str(len(row.name))

    def selectable(self, row: Fruit) -> bool:
        return not row.header


@pytest.fixture
def tasks() -> Iterator[TaskRunner]:
    runner = TaskRunner()
    yield runner
    runner.shutdown()


def test_rows_headers_and_flags_follow_the_rows(qtbot: QtBot) -> None:
    model = FruitModel()
    ModelTester(qtbot).check(model, force_py=True)
    with qtbot.waitSignal(model.modelReset):
        model.reset_rows([Fruit("Fruit", header=True), Fruit("apple")])
    with qtbot.waitSignal(model.rowsInserted):
        model.append_rows([Fruit("kiwi"), Fruit("mango")])
    assert [model.index(r, 0).data() for r in range(model.rowCount())] == [
        "Fruit",
        "apple",
        "kiwi",
        "mango",
    ]
    assert model.index(3, 1).data() == "5"
    assert model.headerData(1, Qt.Orientation.Horizontal) == "Length"
    assert model.headerData(7, Qt.Orientation.Horizontal) is None
    assert not model.flags(model.index(0, 0)) & Qt.ItemFlag.ItemIsSelectable
    assert model.flags(model.index(1, 0)) & Qt.ItemFlag.ItemIsSelectable
    assert model.find_row(lambda f: f.name == "kiwi") == 2
    assert model.find_row(lambda f: f.name == "pear") == -1
    assert model.row_at(9) is None and model.data(QModelIndex()) is None
    assert model.rowCount(model.index(0, 0)) == 0  # a table has no children


def test_a_page_of_an_older_generation_never_lands(qtbot: QtBot, tasks: TaskRunner) -> None:
    feed: PageFeed[list[str]] = PageFeed(tasks)
    landed: list[list[str]] = []
    release = threading.Event()

    def slow() -> list[str]:
        release.wait(TIMEOUT / 1000)
        return ["old"]

    feed.load(slow, landed.append)
    assert feed.loading
    feed.restart()  # the model was reset while the old page was being read
    feed.load(lambda: ["new"], landed.append)
    qtbot.waitUntil(lambda: landed == [["new"]], timeout=TIMEOUT)
    release.set()
    qtbot.wait(200)
    assert landed == [["new"]]
    assert not feed.loading


def test_a_failed_page_stops_loading_and_reports(qtbot: QtBot, tasks: TaskRunner) -> None:
    feed: PageFeed[list[str]] = PageFeed(tasks)
    failures: list[str] = []

    def broken() -> list[str]:
        raise OSError("disk gone")

    feed.load(broken, lambda _page: None, lambda: failures.append("failed"))
    qtbot.waitUntil(lambda: failures == ["failed"], timeout=TIMEOUT)
    assert not feed.loading

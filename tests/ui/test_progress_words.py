"""The progress dialog of long operations (key rotation, member removal) speaks the user's
language: its Stop button, title and labels come from the catalogue, not English literals."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

from ui.i18n import install_translator


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    install_translator(qapp, "zh_CN")
    yield
    install_translator(qapp, "en")


@pytest.mark.usefixtures("chinese")
def test_progress_words_are_in_the_chinese_catalogue() -> None:
    said = {
        ("Progress", "Stop"): "停止",
        ("Progress", "Progress"): "进度",
        ("Progress", "Memory Center"): "记忆中心",
        ("Keys", "Re-encrypting the store under a new key…"): "正在用新密钥重新加密存储…",
        ("Keys", "rows re-encrypted"): "行已重新加密",
    }
    for (context, source), chinese in said.items():
        assert QCoreApplication.translate(context, source) == chinese

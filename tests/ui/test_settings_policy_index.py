"""Settings: the memory policy form and the search index group (R7-R11, R14)."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from core import MemoryService
from tests.ui.conftest import TIMEOUT

from ui.main_window import MainWindow
from ui.presentation import embedder_title
from ui.views.settings import SettingsView


def _open_settings(qtbot: QtBot, window: MainWindow) -> SettingsView:
    window.nav.setCurrentRow(3)
    view = window.settings
    qtbot.waitUntil(lambda: bool(view.values["keywords"].text()), timeout=TIMEOUT)
    return view


def test_policy_form_shows_the_stored_settings(qtbot: QtBot, window: MainWindow) -> None:
    """The form starts from what the store holds, and nothing is pending."""
    view = _open_settings(qtbot, window)
    stored = window.service.policy.settings()
    assert view.policy.inferred_ttl.value() == pytest.approx(stored.inferred_ttl_days)
    assert view.policy.candidate_ttl.value() == pytest.approx(stored.candidate_ttl_days)
    assert view.policy.review_statements.isChecked() == stored.review_user_statements
    assert view.policy.quarantine_untrusted.isChecked() == stored.untrusted_as_quarantine
    assert view.policy.pii_action.currentData() == stored.pii_action
    assert not view.policy.apply_policy_button.isEnabled()


def test_apply_writes_the_policy(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """Every control reaches the store through Apply; the form then matches it."""
    view = _open_settings(qtbot, window)
    view.policy.inferred_ttl.setValue(7)
    view.policy.candidate_ttl.setValue(45.5)
    view.policy.review_statements.setChecked(not demo.policy.settings().review_user_statements)
    view.policy.quarantine_untrusted.setChecked(False)
    view.policy.confirm_kinds["global"].setChecked(True)
    view.policy.confirm_kinds["org"].setChecked(True)
    view.policy.pii_action.setCurrentIndex(view.policy.pii_action.findData("redact"))
    assert view.policy.apply_policy_button.isEnabled()
    before = demo.policy.settings().review_user_statements
    view.policy.apply_policy_button.click()
    qtbot.waitUntil(lambda: demo.policy.settings().inferred_ttl_days == 7.0, timeout=TIMEOUT)
    stored = demo.policy.settings()
    assert stored.candidate_ttl_days == 45.5
    assert stored.review_user_statements is (not before)
    assert stored.untrusted_as_quarantine is False
    assert set(stored.confirm_scope_kinds) == {"global", "org"}
    assert stored.confirm_global is True
    assert stored.pii_action == "redact"
    qtbot.waitUntil(lambda: "policy saved" in window.message.text(), timeout=TIMEOUT)
    qtbot.waitUntil(lambda: not view.policy.apply_policy_button.isEnabled(), timeout=TIMEOUT)
    view.policy.confirm_kinds["global"].setChecked(False)
    view.policy.apply_policy_button.click()
    qtbot.waitUntil(lambda: demo.policy.settings().confirm_scope_kinds == ("org",), timeout=TIMEOUT)
    assert demo.policy.settings().confirm_global is False


def test_revert_drops_unsaved_edits(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """Revert shows the stored policy again and writes nothing."""
    view = _open_settings(qtbot, window)
    stored = demo.policy.settings()
    view.policy.inferred_ttl.setValue(stored.inferred_ttl_days + 3)
    assert view.policy.revert_policy_button.isEnabled()
    view.policy.revert_policy_button.click()
    qtbot.waitUntil(
        lambda: view.policy.inferred_ttl.value() == pytest.approx(stored.inferred_ttl_days),
        timeout=TIMEOUT,
    )
    assert not view.policy.apply_policy_button.isEnabled()
    assert demo.policy.settings() == stored


def test_policy_changed_elsewhere_refreshes_the_form(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """A change made by another writer (the CLI) shows up through the change feed."""
    view = _open_settings(qtbot, window)
    demo.policy.update_settings(candidate_ttl_days=12.0, confirm_scope_kinds=["project"])
    qtbot.waitUntil(
        lambda: view.policy.candidate_ttl.value() == pytest.approx(12.0), timeout=TIMEOUT
    )
    assert view.policy.confirm_kinds["project"].isChecked()
    assert not view.policy.apply_policy_button.isEnabled()


def test_refused_setting_goes_to_the_error_dialog(
    qtbot: QtBot, window: MainWindow, demo: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A value the core refuses is reported in the one error dialog; the store is unchanged."""
    import ui.views.settings.policy as module

    shown: list[BaseException] = []
    monkeypatch.setattr(module, "show_error", lambda _parent, exc: shown.append(exc))
    view = _open_settings(qtbot, window)
    stored = demo.policy.settings()
    monkeypatch.setattr(
        view.policy, "_policy_form", lambda: {**stored.to_dict(), "pii_action": "shout"}
    )
    view.policy.apply_policy()
    qtbot.waitUntil(lambda: bool(shown), timeout=TIMEOUT)
    assert "pii_action" in str(shown[0])
    assert demo.policy.settings() == stored


def test_index_status_and_rebuild(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """The group shows index_status(); Rebuild indexes rebuilds them with a busy indicator."""
    view = _open_settings(qtbot, window)
    status = demo.index.status()
    assert view.values["keywords"].text() == str(status["keyword_documents"])
    vector = status["vector"]
    assert isinstance(vector, dict)
    assert view.values["embedder"].text() == embedder_title(
        str(vector["embedder"]).partition("@")[0]
    )
    assert view.values["vectors"].text() == str(vector["vectors"])
    view.index.rebuild_button.click()
    assert view.index.index_working and view.index.index_busy.isVisible()
    qtbot.waitUntil(lambda: "Indexes rebuilt" in window.message.text(), timeout=10_000)
    assert not view.index.index_working and not view.index.index_busy.isVisible()
    assert view.values["vectors"].text() == str(demo.index.status()["vector"]["vectors"])  # type: ignore[index]


def test_use_embedder_switches_and_rebuilds(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """Use and rebuild stores the chosen embedder and rebuilds the vector index for it."""
    view = _open_settings(qtbot, window)
    view.index.embedder.setCurrentIndex(view.index.embedder.findData("hashing"))
    view.index.use_embedder_button.click()
    assert view.index.index_working
    qtbot.waitUntil(
        lambda: "Now searching with Word hashing" in window.message.text(), timeout=20_000
    )
    vector = demo.index.status()["vector"]
    assert isinstance(vector, dict) and str(vector["embedder"]).startswith("hashing@")
    assert vector["vectors"] == demo.index.status()["active_memories"]
    qtbot.waitUntil(
        lambda: view.values["embedder"].text() == embedder_title("hashing"), timeout=TIMEOUT
    )
    assert not view.index.index_working


def test_unavailable_embedder_is_reported(
    qtbot: QtBot, window: MainWindow, demo: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An embedder whose package is missing ends in the error dialog; the view recovers."""
    from core import ResourceUnavailableError

    import ui.views.settings.index as module

    shown: list[BaseException] = []
    monkeypatch.setattr(module, "show_error", lambda _parent, exc: shown.append(exc))

    def missing(_name: str) -> object:
        raise ResourceUnavailableError("the embedder needs a package that is not installed")

    monkeypatch.setattr(demo.index, "set_embedder", missing)
    view = _open_settings(qtbot, window)
    before = demo.index.status()["vector"]
    view.index.use_embedder_button.click()
    qtbot.waitUntil(lambda: bool(shown), timeout=TIMEOUT)
    assert isinstance(shown[0], ResourceUnavailableError)
    assert not view.index.index_working
    assert demo.index.status()["vector"] == before


def test_conversation_windows_switch_off_and_on(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """The checkbox is the store's setting; off drops the windows and says so (#17)."""
    view = _open_settings(qtbot, window)
    box = view.index.windows
    assert box.isEnabled() and box.isChecked()
    box.click()
    qtbot.waitUntil(lambda: "Conversation windows off" in window.message.text(), timeout=TIMEOUT)
    vector = demo.index.status()["vector"]
    assert isinstance(vector, dict)
    assert vector["windows_enabled"] is False and vector["windows"] == 0
    qtbot.waitUntil(lambda: view.values["windows"].text() == "off", timeout=TIMEOUT)
    assert not box.isChecked()
    box.click()
    qtbot.waitUntil(lambda: "Conversation windows on" in window.message.text(), timeout=TIMEOUT)
    qtbot.waitUntil(lambda: view.values["windows"].text() != "off", timeout=TIMEOUT)
    assert box.isChecked() and demo.index.status()["vector"]["windows_enabled"] is True  # type: ignore[index]


def test_the_form_asks_about_every_scope_kind_of_the_vocabulary(
    qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checkboxes come from core.model.scope (#39): a kind added there appears here, under
    its own name until it is given a translated one."""
    from core import SCOPE_KINDS

    from ui.views.settings import policy as policy_view

    view = _open_settings(qtbot, window)
    assert tuple(view.policy.confirm_kinds) == SCOPE_KINDS
    monkeypatch.setattr(policy_view, "SCOPE_KINDS", (*SCOPE_KINDS, "team"))
    assert view.policy._scope_kinds()[-1] == ("team", "team")

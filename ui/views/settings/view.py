"""The Settings page: reads the store once per refresh and hands each panel its part."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from core import ChangeKind

from ui.context import UiContext
from ui.operations.settings import SettingsSnapshot, read_settings
from ui.views.base import RefreshingView
from ui.views.settings.agents import AgentsPanel
from ui.views.settings.backup import BackupPanel
from ui.views.settings.index import IndexPanel
from ui.views.settings.keys import KeyPanel
from ui.views.settings.panel import SettingsPanel
from ui.views.settings.policy import PolicyPanel
from ui.views.settings.preferences import PreferencesPanel
from ui.views.settings.store import StorePanel
from ui.views.settings.team import TeamPanel


class SettingsView(RefreshingView):
    """Store facts, key management, team, connected agents and preferences, one panel each.

    Signals:
        notified: (str, object) status-bar message and undo callable.
    """

    notified = Signal(str, object)
    watched = frozenset(
        {
            ChangeKind.KEYS,
            ChangeKind.SETTINGS,
            ChangeKind.MEMORIES,
            ChangeKind.POLICY,
            ChangeKind.INDEX,
        }
    )

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.setObjectName("SettingsView")
        self.store = StorePanel(ctx)
        self.key = KeyPanel(ctx)
        self.preferences = PreferencesPanel(ctx)
        self.backup = BackupPanel(ctx)
        self.policy = PolicyPanel(ctx)
        self.index = IndexPanel(ctx)
        self.team = TeamPanel(ctx)
        self.agents = AgentsPanel(ctx)
        columns = (
            (self.store, self.key, self.team, self.preferences, self.backup),
            (self.agents, self.policy, self.index),
        )
        for column in columns:
            for panel in column:
                self._connect(panel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 18, 24, 18)
        heading = QLabel(self.tr("Settings"))
        heading.setObjectName("ViewTitle")
        layout.addWidget(heading)
        layout.addWidget(self._scrolling(columns), 1)

    def _connect(self, panel: SettingsPanel) -> None:
        panel.notified.connect(self.notified)
        panel.reload_requested.connect(self.refresh_now)

    @staticmethod
    def _scrolling(columns: tuple[tuple[SettingsPanel, ...], ...]) -> QScrollArea:
        content = QWidget()
        content.setObjectName("SettingsContent")
        row = QHBoxLayout(content)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(18)
        for panels in columns:
            column = QVBoxLayout()
            for panel in panels:
                column.addWidget(panel)
            column.addStretch(1)
            row.addLayout(column, 1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(content)
        # The page's own background shows through (no grey viewport behind the groups).
        scroll.viewport().setAutoFillBackground(False)
        content.setAutoFillBackground(False)
        return scroll

    @property
    def values(self) -> Mapping[str, QLabel]:
        """Every read-only value the page shows, by key (store, key and index facts)."""
        return {**self.store.values, **self.key.values, **self.index.values}

    def refresh(self) -> None:
        """Reload the store status, the policy settings and the index status."""
        read_settings(self.ctx).on_success(self._show_all).run(self)
        self.team.refresh()
        self.agents.refresh()

    def _show_all(self, snap: SettingsSnapshot) -> None:
        self.store.show_status(snap.status)
        self.key.show_status(snap.status)
        self.policy.show_policy(snap.policy)
        self.index.show_index(snap.index)
        self.index.show_embedders(snap.embedders)

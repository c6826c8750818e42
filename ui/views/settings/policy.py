"""The memory policy: expiry, review rules, scopes that always ask, personal data (R14)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QWidget,
)

from core import SCOPE_KINDS, PolicySettings

from ui.context import UiContext
from ui.errors import show_error
from ui.operations.settings import update_policy
from ui.views.settings.panel import SettingsPanel


class PolicyPanel(SettingsPanel):
    """An editable form of `PolicySettings` with Apply and Revert."""

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, self.tr("Memory policy"), parent)
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self._loaded_policy: dict[str, object] | None = None
        self.inferred_ttl = self._days(
            self.tr("Inferred memories expire after"),
            self.tr("Memories the assistant inferred (not stated by you) expire after this."),
        )
        self.candidate_ttl = self._days(
            self.tr("Unreviewed suggestions expire after"),
            self.tr("Suggestions still waiting in the review queue expire after this."),
        )
        form.addRow(self.tr("Inferred memories expire after"), self.inferred_ttl)
        form.addRow(self.tr("Unreviewed suggestions expire after"), self.candidate_ttl)
        self.review_statements = QCheckBox(
            self.tr("Review what the user states before it becomes memory")
        )
        self.quarantine_untrusted = QCheckBox(
            self.tr("Quarantine untrusted sources (web, e-mail, issues)")
        )
        for check in (self.review_statements, self.quarantine_untrusted):
            check.toggled.connect(self._policy_edited)
            form.addRow(check)
        ask = QLabel(self.tr("Always ask before new memories of these scopes:"))
        ask.setWordWrap(True)
        form.addRow(ask)
        form.addRow(self._build_kinds())
        self.pii_action = QComboBox()
        self.pii_action.setAccessibleName(self.tr("Personal data"))
        self.pii_action.addItem(self.tr("Reject the memory"), "reject")
        self.pii_action.addItem(self.tr("Keep it redacted, for confirmation"), "redact")
        self.pii_action.setToolTip(
            self.tr(
                "What happens to a new memory that contains personal data such as an "
                "e-mail address or a phone number."
            )
        )
        self.pii_action.currentIndexChanged.connect(self._policy_edited)
        form.addRow(self.tr("Personal data"), self.pii_action)
        form.addRow(self._build_buttons())

    def _build_kinds(self) -> QWidget:
        kinds = QWidget()
        grid = QGridLayout(kinds)
        grid.setContentsMargins(12, 0, 0, 0)
        grid.setHorizontalSpacing(18)
        self.confirm_kinds: dict[str, QCheckBox] = {}
        for i, (kind, title) in enumerate(self._scope_kinds()):
            check = QCheckBox(title)
            check.setAccessibleName(self.tr("Always ask: %1").replace("%1", title))
            check.toggled.connect(self._policy_edited)
            self.confirm_kinds[kind] = check
            grid.addWidget(check, i // 2, i % 2)
        return kinds

    def _build_buttons(self) -> QHBoxLayout:
        self.apply_policy_button = QPushButton(self.tr("Apply"))
        self.apply_policy_button.setAccessibleName(self.tr("Apply memory policy"))
        self.apply_policy_button.setEnabled(False)
        self.apply_policy_button.clicked.connect(self.apply_policy)
        self.revert_policy_button = QPushButton(self.tr("Revert"))
        self.revert_policy_button.setAccessibleName(self.tr("Revert memory policy"))
        self.revert_policy_button.setEnabled(False)
        self.revert_policy_button.clicked.connect(self.revert_policy)
        buttons = QHBoxLayout()
        buttons.addWidget(self.apply_policy_button)
        buttons.addWidget(self.revert_policy_button)
        buttons.addStretch(1)
        return buttons

    def _scope_kinds(self) -> list[tuple[str, str]]:
        """Every scope kind the policy knows (core.model.scope), by its translated name; a
        kind added there without a name here shows as written."""
        titles = {
            "global": self.tr("global (user-wide)"),
            "user": self.tr("user"),
            "org": self.tr("organisation"),
            "environment": self.tr("environment"),
            "agent": self.tr("agent"),
            "project": self.tr("project"),
            "repo": self.tr("repository"),
            "session": self.tr("session"),
        }
        return [(kind, titles.get(kind, kind)) for kind in SCOPE_KINDS]

    def _days(self, name: str, tip: str) -> QDoubleSpinBox:
        spin = QDoubleSpinBox()
        spin.setRange(0.1, 3650.0)
        spin.setDecimals(1)
        spin.setSingleStep(1.0)
        spin.setSuffix(self.tr(" days"))
        spin.setAccessibleName(name)
        spin.setToolTip(tip)
        spin.valueChanged.connect(self._policy_edited)
        return spin

    def _policy_form(self) -> dict[str, object]:
        """The policy as the form shows it (`PolicySettings.to_dict` shape)."""
        kinds = [k for k, check in self.confirm_kinds.items() if check.isChecked()]
        return {
            "inferred_ttl_days": round(self.inferred_ttl.value(), 1),
            "candidate_ttl_days": round(self.candidate_ttl.value(), 1),
            "review_user_statements": self.review_statements.isChecked(),
            "untrusted_as_quarantine": self.quarantine_untrusted.isChecked(),
            # `confirm_global` is the older spelling of "global" in the kinds; one box sets both.
            "confirm_global": "global" in kinds,
            "confirm_scope_kinds": kinds,
            "pii_action": str(self.pii_action.currentData()),
        }

    @property
    def policy_edited(self) -> bool:
        """True when the form differs from the policy last read from the store."""
        return self._loaded_policy is not None and self._policy_form() != self._loaded_policy

    def show_policy(self, policy: PolicySettings, *, force: bool = False) -> None:
        """Show the stored policy, unless the user is in the middle of editing it."""
        if self.policy_edited and not force:
            return
        kinds = set(policy.confirm_scope_kinds)
        if policy.confirm_global:
            kinds.add("global")
        widgets: list[QWidget] = [
            self.inferred_ttl,
            self.candidate_ttl,
            self.review_statements,
            self.quarantine_untrusted,
            self.pii_action,
            *self.confirm_kinds.values(),
        ]
        for w in widgets:
            w.blockSignals(True)
        try:
            self.inferred_ttl.setValue(policy.inferred_ttl_days)
            self.candidate_ttl.setValue(policy.candidate_ttl_days)
            self.review_statements.setChecked(policy.review_user_statements)
            self.quarantine_untrusted.setChecked(policy.untrusted_as_quarantine)
            for kind, check in self.confirm_kinds.items():
                check.setChecked(kind in kinds)
            self.pii_action.setCurrentIndex(max(0, self.pii_action.findData(policy.pii_action)))
        finally:
            for w in widgets:
                w.blockSignals(False)
        self._loaded_policy = self._policy_form()
        self._policy_edited()

    def _policy_edited(self, *_args: object) -> None:
        edited = self.policy_edited
        self.apply_policy_button.setEnabled(edited)
        self.revert_policy_button.setEnabled(edited)

    def apply_policy(self) -> None:
        """Write the changed policy settings; the core names a refused value."""
        loaded = self._loaded_policy or {}
        form = self._policy_form()
        changes = {k: v for k, v in form.items() if loaded.get(k) != v}
        if not changes:
            return
        self.apply_policy_button.setEnabled(False)

        def done(policy: PolicySettings) -> None:
            self.show_policy(policy, force=True)
            self.notified.emit(self.tr("Memory policy saved."), None)

        def failed(exc: BaseException) -> None:
            self._policy_edited()
            show_error(self, exc)

        update_policy(self.ctx, changes).on_success(done).on_failure(failed).run(self)

    def revert_policy(self) -> None:
        """Throw away unsaved edits: show the stored policy again."""
        self._loaded_policy = None
        self.reload_requested.emit()

"""Settings: the store and its key (rotation with progress), the memory policy, the search
index (embedder choice and rebuild), backup and transfer (export and import of memories)
and the language (R7-R11, R14, R24)."""

from __future__ import annotations

import html
from collections import Counter
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QSettings, Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from core import (
    ChangeKind,
    InvalidInputError,
    OutcomeKind,
    PolicySettings,
    RotationReport,
    StoreStatus,
    parse_json,
)
from core.model import MemoryOutcome

from ui.context import UiContext
from ui.errors import show_error
from ui.i18n import LANGUAGE_KEY, LANGUAGES, install_translator
from ui.operations.keys import rotate_key
from ui.operations.portability import EXPORT_FILE_NAME, export_to_file, import_document
from ui.operations.settings import (
    EMBEDDERS,
    SettingsSnapshot,
    read_settings,
    rebuild_indexes,
    update_policy,
    use_embedder,
)
from ui.presentation import embedder_title, installing_hint, status_text
from ui.views.base import RefreshingView


class SettingsView(RefreshingView):
    """Store facts, key management and preferences.

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
        self.values: dict[str, QLabel] = {}
        store = QGroupBox(self.tr("Store"))
        store_form = QFormLayout(store)
        store_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for key, title in (
            ("path", self.tr("Data directory")),
            ("revision", self.tr("Revision")),
            ("schema", self.tr("Schema version")),
            ("counts", self.tr("Contents")),
        ):
            self.values[key] = self._value(title)
            store_form.addRow(title, self.values[key])
        key_box = QGroupBox(self.tr("Encryption key"))
        key_form = QFormLayout(key_box)
        key_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for key, title in (
            ("source", self.tr("Key held in")),
            ("active", self.tr("Active key id")),
            ("keys", self.tr("Key ids")),
        ):
            self.values[key] = self._value(title)
            key_form.addRow(title, self.values[key])
        self.rotate_button = QPushButton(self.tr("Rotate key…"))
        self.rotate_button.setToolTip(
            self.tr(
                "Re-encrypt every event, memory and snapshot under a new key. Can be "
                "stopped and resumed."
            )
        )
        self.rotate_button.clicked.connect(self.rotate)
        self.rotate_confirmation: QMessageBox | None = None
        key_form.addRow("", self._left(self.rotate_button))
        prefs = QGroupBox(self.tr("Preferences"))
        pref_form = QFormLayout(prefs)
        pref_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.language = QComboBox()
        self.language.setAccessibleName(self.tr("Language"))
        for code, name in LANGUAGES:
            self.language.addItem(self.tr("System default") if code == "system" else name, code)
        current = str(QSettings().value(LANGUAGE_KEY, "system"))
        self.language.setCurrentIndex(max(0, self.language.findData(current)))
        self.language.currentIndexChanged.connect(self._language_chosen)
        pref_form.addRow(self.tr("Language"), self.language)
        policy = self._build_policy()
        index = self._build_index()
        backup = self._build_backup()
        content = QWidget()
        content.setObjectName("SettingsContent")
        columns = QHBoxLayout(content)
        columns.setContentsMargins(0, 0, 0, 0)
        columns.setSpacing(18)
        for boxes in ((store, key_box, prefs, backup), (policy, index)):
            column = QVBoxLayout()
            for box in boxes:
                column.addWidget(box)
            column.addStretch(1)
            columns.addLayout(column, 1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(content)
        # The page's own background shows through (no grey viewport behind the groups).
        scroll.viewport().setAutoFillBackground(False)
        content.setAutoFillBackground(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 18, 24, 18)
        heading = QLabel(self.tr("Settings"))
        heading.setObjectName("ViewTitle")
        layout.addWidget(heading)
        layout.addWidget(scroll, 1)

    # --- building ---------------------------------------------------------------------

    def _build_policy(self) -> QGroupBox:
        box = QGroupBox(self.tr("Memory policy"))
        form = QFormLayout(box)
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
        form.addRow(kinds)
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
        form.addRow(buttons)
        return box

    def _scope_kinds(self) -> list[tuple[str, str]]:
        return [
            ("global", self.tr("global (user-wide)")),
            ("user", self.tr("user")),
            ("org", self.tr("organisation")),
            ("environment", self.tr("environment")),
            ("agent", self.tr("agent")),
            ("project", self.tr("project")),
            ("repo", self.tr("repository")),
            ("session", self.tr("session")),
        ]

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

    def _build_index(self) -> QGroupBox:
        box = QGroupBox(self.tr("Search index"))
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for key, title in (
            ("embedder", self.tr("Embedder")),
            ("vectors", self.tr("Vectors")),
            ("keywords", self.tr("Keyword documents")),
        ):
            self.values[key] = self._value(title)
            form.addRow(title, self.values[key])
        self.embedder = QComboBox()
        self.embedder.setAccessibleName(self.tr("Embedder to use"))
        for name in EMBEDDERS:
            self.embedder.addItem(embedder_title(name), name)
        self.use_embedder_button = QPushButton(self.tr("Use and rebuild"))
        self.use_embedder_button.setToolTip(
            self.tr(
                "Switch the embedder and rebuild the vector index with it. Some embedders "
                "need an optional package; a model may take a while to load."
            )
        )
        self.use_embedder_button.clicked.connect(self.choose_embedder)
        chooser = QHBoxLayout()
        chooser.addWidget(self.embedder)
        chooser.addWidget(self.use_embedder_button)
        chooser.addStretch(1)
        form.addRow(self.tr("Use embedder"), chooser)
        self.rebuild_button = QPushButton(self.tr("Rebuild indexes"))
        self.rebuild_button.setToolTip(
            self.tr("Throw away the keyword and vector indexes and rebuild them from the store.")
        )
        self.rebuild_button.clicked.connect(self.rebuild)
        form.addRow("", self._left(self.rebuild_button))
        self.index_busy = QProgressBar()
        self.index_busy.setRange(0, 0)
        self.index_busy.setTextVisible(False)
        self.index_busy.setMaximumHeight(8)
        self.index_busy.setAccessibleName(self.tr("Rebuilding the index"))
        self.index_busy_label = QLabel()
        self.index_busy_label.setWordWrap(True)
        busy = QVBoxLayout()
        busy.addWidget(self.index_busy_label)
        busy.addWidget(self.index_busy)
        form.addRow(busy)
        self._set_index_busy("")
        return box

    def _build_backup(self) -> QGroupBox:
        box = QGroupBox(self.tr("Backup and transfer"))
        layout = QVBoxLayout(box)
        intro = QLabel(
            self.tr(
                "Export the active and suggested memories to a JSON file, or import such a "
                "file; imported memories arrive as suggestions in the review queue."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.export_button = QPushButton(self.tr("Export memories…"))
        self.export_button.setToolTip(
            self.tr("Write the memories' text to a JSON file. The file is not encrypted.")
        )
        self.export_button.clicked.connect(self.export_memories)
        self.import_button = QPushButton(self.tr("Import memories…"))
        self.import_button.setToolTip(
            self.tr("Read an export file; every memory becomes a suggestion the policy decides.")
        )
        self.import_button.clicked.connect(self.import_memories)
        buttons = QHBoxLayout()
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.import_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.export_confirmation: QMessageBox | None = None
        return box

    @staticmethod
    def _left(widget: QWidget) -> QHBoxLayout:
        """`widget` at its natural size, at the left of a growing form field."""
        row = QHBoxLayout()
        row.addWidget(widget)
        row.addStretch(1)
        return row

    @staticmethod
    def _value(name: str) -> QLabel:
        label = QLabel()
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setWordWrap(True)
        label.setAccessibleName(name)
        return label

    def refresh(self) -> None:
        """Reload the store status, the policy settings and the index status."""
        read_settings(self.ctx).on_success(self._show_all).run(self)

    def _show_all(self, snap: SettingsSnapshot) -> None:
        self._show(snap.status)
        self._show_policy(snap.policy)
        self._show_index(snap.index)
        self._show_embedders(snap.embedders)

    def _show_embedders(self, choices: dict[str, str]) -> None:
        """Embedders that are not installed stay listed, greyed out, saying what is missing."""
        model = self.embedder.model()
        assert isinstance(model, QStandardItemModel)
        for row in range(self.embedder.count()):
            name = str(self.embedder.itemData(row))
            item = model.item(row)
            problem = choices.get(name, self.tr("unknown embedder"))
            item.setEnabled(not problem)
            item.setToolTip(
                self.tr("Not installed on this computer.") + " " + installing_hint(name)
                if problem
                else ""
            )

    def _show(self, st: StoreStatus) -> None:
        v = self.values
        v["path"].setText(str(Path(st.path).parent))
        v["path"].setToolTip(st.path)
        v["revision"].setText(str(st.revision))
        v["schema"].setText(str(st.schema_version))
        counts = ", ".join(f"{n} {status_text(k)}" for k, n in sorted(st.memory_counts.items()))
        v["counts"].setText(
            self.tr("%1 events in %2 sessions")
            .replace("%1", str(st.event_count))
            .replace("%2", str(st.session_count))
            + (f"; {counts}" if counts else "")
        )
        backend = f" ({st.key.keyring_backend})" if st.key.keyring_backend else ""
        source = {
            "keyring": self.tr("the operating system keyring"),
            "passphrase": self.tr("a passphrase-protected key file"),
        }.get(st.key.source, st.key.source)
        v["source"].setText(html.escape(source + backend))
        v["active"].setText(st.key.active_key_id)
        v["keys"].setText(", ".join(st.key.key_ids))

    # --- memory policy ------------------------------------------------------------------

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

    def _show_policy(self, policy: PolicySettings, *, force: bool = False) -> None:
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
            self._show_policy(policy, force=True)
            self.notified.emit(self.tr("Memory policy saved."), None)

        def failed(exc: BaseException) -> None:
            self._policy_edited()
            show_error(self, exc)

        update_policy(self.ctx, changes).on_success(done).on_failure(failed).run(self)

    def revert_policy(self) -> None:
        """Throw away unsaved edits: show the stored policy again."""
        self._loaded_policy = None
        self.refresh_now()

    # --- search index -------------------------------------------------------------------

    def _show_index(self, index: dict[str, object]) -> None:
        v = self.values
        vector = index.get("vector")
        if isinstance(vector, dict):
            full = str(vector.get("embedder", ""))
            name, _, version = full.partition("@")
            v["embedder"].setText(embedder_title(name))
            v["embedder"].setToolTip(version)
            v["vectors"].setText(str(vector.get("vectors", 0)))
            if not self.index_working:
                found = self.embedder.findData(name)
                if found >= 0:
                    self.embedder.setCurrentIndex(found)
        else:
            v["embedder"].setText(self.tr("none (keyword search only)"))
            v["embedder"].setToolTip("")
            v["vectors"].setText("0")
        v["keywords"].setText(str(index.get("keyword_documents", 0)))

    @property
    def index_working(self) -> bool:
        """True while an embedder switch or a rebuild runs."""
        return not self.rebuild_button.isEnabled()

    def _set_index_busy(self, text: str) -> None:
        working = bool(text)
        self.index_busy_label.setText(text)
        self.index_busy_label.setVisible(working)
        self.index_busy.setVisible(working)
        for w in (self.embedder, self.use_embedder_button, self.rebuild_button):
            w.setEnabled(not working)

    def choose_embedder(self) -> None:
        """Switch to the chosen embedder and rebuild the vector index (in the background)."""
        name = str(self.embedder.currentData())
        self._set_index_busy(
            self.tr("Loading %1 and rebuilding the vector index… this can take a while.").replace(
                "%1", embedder_title(name)
            )
        )

        def done(used: str) -> None:
            self._set_index_busy("")
            self.notified.emit(
                self.tr("Now searching with %1; the vector index was rebuilt.").replace(
                    "%1", embedder_title(used)
                ),
                None,
            )
            self.refresh_now()

        use_embedder(self.ctx, name).on_success(done).on_failure(self._index_failed).run(self)

    def rebuild(self) -> None:
        """Rebuild the keyword and vector indexes from the store (in the background)."""
        self._set_index_busy(self.tr("Rebuilding the indexes…"))

        def done(index: dict[str, object]) -> None:
            self._set_index_busy("")
            self._show_index(index)
            self.notified.emit(self.tr("Indexes rebuilt."), None)

        rebuild_indexes(self.ctx).on_success(done).on_failure(self._index_failed).run(self)

    def _index_failed(self, exc: BaseException) -> None:
        self._set_index_busy("")
        show_error(self, exc)
        self.refresh_now()

    # --- key ------------------------------------------------------------------------------

    def rotate(self) -> None:
        """Ask first; then rotate the key with a progress dialog (Stop pauses it)."""
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Rotate the encryption key"),
            self.tr(
                "Re-encrypt every event, memory and snapshot under a new key? The old key is "
                "kept until everything is re-encrypted. On a large store this takes a while; "
                "you can stop and continue later."
            ),
            QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.button(QMessageBox.StandardButton.Ok).setText(self.tr("Rotate key"))
        box.button(QMessageBox.StandardButton.Cancel).setText(self.tr("Cancel"))
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAccessibleName(self.tr("Confirm key rotation"))
        box.accepted.connect(self._rotate_now)
        box.finished.connect(lambda _result: setattr(self, "rotate_confirmation", None))
        self.rotate_confirmation = box
        box.open()

    def _rotate_now(self) -> None:
        self.rotate_button.setEnabled(False)

        def done(report: RotationReport) -> None:
            self.rotate_button.setEnabled(True)
            self.notified.emit(
                self.tr("Key rotated: %1 rows re-encrypted under %2.")
                .replace("%1", str(report.rows_reencrypted))
                .replace("%2", report.new_key_id),
                None,
            )
            self.refresh_now()

        def failed(exc: BaseException) -> None:
            self.rotate_button.setEnabled(True)
            show_error(self, exc)

        rotate_key(self.ctx).on_success(done).on_failure(failed).run(self)

    # --- backup and transfer --------------------------------------------------------------

    def choose_export_path(self) -> str:
        """Ask where to save the export ("" when cancelled). Tests replace this."""
        name, _filter = QFileDialog.getSaveFileName(
            self,
            self.tr("Export memories"),
            str(Path.home() / EXPORT_FILE_NAME),
            self.tr("JSON files (*.json);;All files (*)"),
        )
        return name

    def choose_import_path(self) -> str:
        """Ask which export file to import ("" when cancelled). Tests replace this."""
        name, _filter = QFileDialog.getOpenFileName(
            self,
            self.tr("Import memories"),
            str(Path.home()),
            self.tr("JSON files (*.json);;All files (*)"),
        )
        return name

    def _set_backup_busy(self, busy: bool) -> None:
        self.export_button.setEnabled(not busy)
        self.import_button.setEnabled(not busy)

    def export_memories(self) -> None:
        """Choose a file, confirm that it will not be encrypted, then export (in the
        background)."""
        name = self.choose_export_path()
        if not name:
            return
        path = Path(name)
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            self.tr("Export memories"),
            self.tr(
                "The export file is NOT encrypted: it holds the full text of your active and "
                "suggested memories in plain, readable JSON. Anyone who can read the file can "
                "read them. Keep it somewhere safe and delete it when you no longer need it."
            ),
            QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setInformativeText(self.tr("Export to %1?").replace("%1", str(path)))
        box.button(QMessageBox.StandardButton.Ok).setText(self.tr("Export"))
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAccessibleName(self.tr("Confirm export"))
        box.accepted.connect(lambda: self._export_to(path))
        box.finished.connect(lambda _result: setattr(self, "export_confirmation", None))
        self.export_confirmation = box
        box.open()

    def _export_to(self, path: Path) -> None:
        self._set_backup_busy(True)

        def done(count: int) -> None:
            self._set_backup_busy(False)
            self.notified.emit(
                self.tr("%n memories exported to %2 (not encrypted).", "", count).replace(
                    "%2", str(path)
                ),
                None,
            )

        def failed(exc: BaseException) -> None:
            self._set_backup_busy(False)
            show_error(self, exc)

        export_to_file(self.ctx, path).on_success(done).on_failure(failed).run(self)

    def import_memories(self) -> None:
        """Choose an export file, read it, and import it (on the writer, in the background)."""
        name = self.choose_import_path()
        if not name:
            return
        path = Path(name)
        try:
            # Strict UTF-8, bounded nesting, no lone surrogates: a hostile file is one message.
            document = parse_json(path.read_bytes(), str(path))
        except OSError as exc:
            problem = self.tr("cannot be read as a JSON export file (%1)").replace("%1", str(exc))
            show_error(self, InvalidInputError(str(path), problem))
            return
        except InvalidInputError as exc:
            show_error(self, exc)
            return
        self._set_backup_busy(True)

        def done(outcomes: list[MemoryOutcome]) -> None:
            self._set_backup_busy(False)
            self.notified.emit(self.import_summary(outcomes), None)

        def failed(exc: BaseException) -> None:
            self._set_backup_busy(False)
            show_error(self, exc)

        import_document(self.ctx, document).on_success(done).on_failure(failed).run(self)

    def import_summary(self, outcomes: list[MemoryOutcome]) -> str:
        """The status-bar summary: "N imported: X suggested, Y merged, Z rejected"."""
        counts = Counter(o.outcome for o in outcomes)
        suggested = sum(
            counts[k] for k in (OutcomeKind.CANDIDATE, OutcomeKind.QUARANTINED, OutcomeKind.ACTIVE)
        )
        return (
            self.tr("%1 imported: %2 suggested, %3 merged, %4 rejected")
            .replace("%1", str(len(outcomes)))
            .replace("%2", str(suggested))
            .replace("%3", str(counts[OutcomeKind.MERGED]))
            .replace("%4", str(counts[OutcomeKind.REJECTED]))
        )

    def _language_chosen(self, index: int) -> None:
        """Store the choice and switch now: the window rebuilds its texts."""
        QSettings().setValue(LANGUAGE_KEY, self.language.itemData(index))
        app = QCoreApplication.instance()
        if app is not None:
            install_translator(app)

"""Connected agents: the Claude Code hooks (user settings or a project), "Capture from …"
per agent with what was captured, and the A/B comparison of memory (R15, R16, R29, R30).

Capture runs in this process while the window is open (the application's watcher); closing
or locking the window stops it. `memory-center watch …` captures without the window.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from core import MemoryCenterError

from ui.context import UiContext
from ui.errors import show_error
from ui.integrations import HookControl, HookProblem, HookState
from ui.ops import query
from ui.presentation import local_time
from ui.views.ab_chart import AbComparisonDialog
from ui.views.settings.folders import ProjectFolderBox
from ui.views.settings.panel import SettingsPanel, left
from ui.views.settings.team_dialogs import PathField

CAPTURE_KEY = "capture/{agent}"
AGENT_TITLES = {"claude-code": "Claude Code", "codex": "Codex"}


class AgentsPanel(SettingsPanel):
    """Hooks install/uninstall, capture on/off with counts, and the A/B chart.

    Signals:
        capture_failed: (str, str) agent and the reason its capture stopped (from the
            watcher thread; delivered queued on the UI thread).
    """

    capture_failed = Signal(str, str)

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, self.tr("Connected agents"), parent)
        self.hooks = ctx.connectors.hooks
        self.capture = ctx.connectors.capture
        layout = QVBoxLayout(self)
        layout.addWidget(self._heading(self.tr("Claude Code hooks")))
        layout.addWidget(self._hooks_box())
        layout.addWidget(self._heading(self.tr("Live capture")))
        layout.addWidget(self._capture_box())
        self.ab_button = QPushButton(self.tr("Compare memory on and off (A/B)…"))
        self.ab_button.clicked.connect(self.open_comparison)
        self.ab_dialog: AbComparisonDialog | None = None
        layout.addWidget(self._heading(self.tr("Is memory worth it?")))
        layout.addLayout(left(self.ab_button))
        self.capture_failed.connect(self._capture_stopped)
        self._resume_capture()

    @staticmethod
    def _heading(text: str) -> QLabel:
        label = QLabel(text)
        label.setObjectName("SectionTitle")
        return label

    # --- hooks ----------------------------------------------------------------------------

    def _hooks_box(self) -> QWidget:
        box = QWidget()
        grid = QGridLayout(box)
        grid.setContentsMargins(0, 0, 0, 0)
        intro = QLabel(
            self.tr(
                "With the hooks, Claude Code gets relevant memories with each prompt and "
                "records its sessions here as they happen (the same as memory-center hook "
                "install claude-code)."
            )
        )
        intro.setWordWrap(True)
        intro.setObjectName("Muted")
        grid.addWidget(intro, 0, 0, 1, 3)
        self.user_hooks = QLabel()
        self.user_hooks.setWordWrap(True)
        # Alt+I: the one-key way in, for keyboard users (and the desktop build's window test).
        self.user_install = QPushButton(self.tr("&Install"))
        self.user_install.setAccessibleName(self.tr("Install hooks in your user settings"))
        self.user_uninstall = QPushButton(self.tr("Uninstall"))
        self.user_uninstall.setAccessibleName(self.tr("Uninstall hooks from your user settings"))
        self.user_install.clicked.connect(lambda: self._change_hooks(None, install=True))
        self.user_uninstall.clicked.connect(lambda: self._change_hooks(None, install=False))
        grid.addWidget(self.user_hooks, 1, 0)
        grid.addWidget(self.user_install, 1, 1)
        grid.addWidget(self.user_uninstall, 1, 2)
        self.project = PathField(self.tr("Project folder"), save=False, folder=True)
        self.project.edit.setPlaceholderText(self.tr("a project folder (for its own settings)"))
        self.project.edit.editingFinished.connect(self.show_hooks)
        self.project.edit.textChanged.connect(lambda _t: self.show_hooks())
        self.project_hooks = QLabel()
        self.project_hooks.setWordWrap(True)
        self.project_install = QPushButton(self.tr("Install"))
        self.project_install.setAccessibleName(self.tr("Install hooks in the project"))
        self.project_uninstall = QPushButton(self.tr("Uninstall"))
        self.project_uninstall.setAccessibleName(self.tr("Uninstall hooks from the project"))
        self.project_install.clicked.connect(lambda: self._change_project_hooks(install=True))
        self.project_uninstall.clicked.connect(lambda: self._change_project_hooks(install=False))
        grid.addWidget(self.project, 2, 0, 1, 3)
        grid.addWidget(self.project_hooks, 3, 0)
        grid.addWidget(self.project_install, 3, 1)
        grid.addWidget(self.project_uninstall, 3, 2)
        # Whether the folder gets its project's memories (a repository names its project).
        self.folder_box = ProjectFolderBox(self.ctx, self.hooks)
        self.folder_box.notified.connect(lambda text: self.notified.emit(text, None))
        grid.addWidget(self.folder_box, 4, 0, 1, 3)
        # Why the hooks cannot open this store, in plain words and what to do (#42): the
        # hooks themselves tell Claude Code's user once per session, this says it here.
        self.hooks_problem = QLabel()
        self.hooks_problem.setObjectName("Warning")
        self.hooks_problem.setWordWrap(True)
        self.hooks_problem.setTextFormat(Qt.TextFormat.PlainText)
        self.hooks_problem.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hooks_problem.setAccessibleName(self.tr("Problem of the Claude Code hooks"))
        self.hooks_problem.hide()
        grid.addWidget(self.hooks_problem, 5, 0, 1, 3)
        grid.setColumnStretch(0, 1)
        self.show_hooks()
        return box

    def _project_dir(self) -> Path | None:
        path = self.project.path()
        return path if path is not None and path.is_dir() else None

    def show_hooks(self) -> None:
        """Read both settings files and say where the hooks are installed."""
        hooks = self.hooks
        if hooks is None:
            self.user_hooks.setText(self.tr("Not available in this window."))
            for b in (self.user_install, self.user_uninstall):
                b.setEnabled(False)
            self._show_project(None, None)
            return
        self._show_state(
            hooks, hooks.settings_file(None), self.user_hooks, self.tr("Your user settings")
        )
        project = self._project_dir()
        self._show_project(hooks, project)
        self.folder_box.show_folder(project)
        self.show_problem(hooks.problem())

    def show_problem(self, problem: HookProblem | None) -> None:
        """Say why the hooks could not open this store and what to do; hidden when they
        opened it since."""
        if problem is None:
            self.hooks_problem.clear()
            self.hooks_problem.hide()
            return
        when = local_time(problem.when)
        lead = self.tr(
            "Claude Code's hooks could not open this store (last try %1), so Claude Code "
            "works without memory and nothing it does is recorded."
        ).replace("%1", when)
        self.hooks_problem.setText(
            "\n".join((lead, self._advice(problem.kind), self.tr("Details: %1"))).replace(
                "%1", _printable(problem.reason)
            )
        )
        self.hooks_problem.show()

    def _advice(self, kind: str) -> str:
        """What the user can do, by the kind of error the hooks met."""
        if kind == "wrong_passphrase":
            return self.tr(
                "The passphrase in Claude Code's environment does not open this store. "
                "Correct MEMORY_CENTER_PASSPHRASE where you start Claude Code (your shell "
                'profile, or the "env" section of Claude Code\'s settings), then start a new '
                "Claude Code session."
            )
        if kind == "key_unavailable":
            return self.tr(
                "Claude Code starts the hooks without this store's passphrase, and the "
                "system keyring does not hold its key. Set MEMORY_CENTER_PASSPHRASE in the "
                'environment you start Claude Code from (your shell profile, or the "env" '
                "section of Claude Code's settings), then start a new Claude Code session."
            )
        if kind == "store_too_new":
            return self.tr(
                "The hooks run an older Memory Center than the one that wrote this store. "
                "Install the hooks again from this window (Install above) so they run this "
                "version."
            )
        if kind == "integrity":
            return self.tr(
                "The store failed an integrity check. Run memory-center verify in a terminal "
                "to see what is damaged."
            )
        if kind in ("unavailable", "server_unavailable", "authentication_failed"):
            return self.tr(
                "Something the store needs was busy or out of reach. The hooks try again by "
                "themselves at the next session; if this stays, check the details below."
            )
        return self.tr(
            "Check the details below; memory-center hook status shows what the hooks see."
        )

    def _show_project(self, hooks: HookControl | None, project: Path | None) -> None:
        if hooks is None or project is None:
            self.project_hooks.setText(
                self.tr("Choose a project folder to install the hooks for that project only.")
            )
            self.project_install.setEnabled(False)
            self.project_uninstall.setEnabled(False)
            return
        self._show_state(
            hooks,
            hooks.settings_file(project),
            self.project_hooks,
            self.tr("Project %1").replace("%1", project.name),
        )

    def _show_state(self, hooks: HookControl, path: Path, label: QLabel, where: str) -> None:
        try:
            state = hooks.state(path)
        except MemoryCenterError as exc:
            label.setText(f"{where}: {exc.message}")
            self._buttons_for(label, installed=False, usable=False)
            return
        label.setText(self._state_text(where, state))
        label.setToolTip(str(path))
        self._buttons_for(label, installed=bool(state.events), usable=True)

    def _state_text(self, where: str, state: HookState) -> str:
        if not state.events:
            return self.tr("%1: not installed").replace("%1", where)
        return self.tr("%1: installed for %n event(s)", "", len(state.events)).replace("%1", where)

    def _buttons_for(self, label: QLabel, *, installed: bool, usable: bool) -> None:
        install, uninstall = (
            (self.user_install, self.user_uninstall)
            if label is self.user_hooks
            else (self.project_install, self.project_uninstall)
        )
        install.setEnabled(usable and not installed)
        uninstall.setEnabled(usable and installed)

    def _change_project_hooks(self, *, install: bool) -> None:
        project = self._project_dir()
        if project is not None:
            self._change_hooks(project, install=install)

    def _change_hooks(self, project: Path | None, *, install: bool) -> None:
        hooks = self.hooks
        if hooks is None:
            return
        path = hooks.settings_file(project)
        try:
            state = hooks.install(path) if install else hooks.uninstall(path)
        except MemoryCenterError as exc:
            show_error(self, exc)
            return
        self.show_hooks()
        self.notified.emit(
            self.tr("Claude Code hooks installed in %1.").replace("%1", str(state.path))
            if install
            else self.tr("Claude Code hooks removed from %1.").replace("%1", str(path)),
            None,
        )

    # --- capture --------------------------------------------------------------------------

    def _capture_box(self) -> QWidget:
        box = QWidget()
        grid = QGridLayout(box)
        grid.setContentsMargins(0, 0, 0, 0)
        note = QLabel(
            self.tr(
                "Capture follows the agent's session files while Memory Center is open and "
                "records new conversation from the moment you turn it on (earlier sessions: "
                "File → Import transcripts…). To capture while Memory Center is closed, run "
                "memory-center watch claude-code (or codex) in a terminal."
            )
        )
        note.setWordWrap(True)
        note.setObjectName("Muted")
        grid.addWidget(note, 0, 0, 1, 2)
        self.capture_checks: dict[str, QCheckBox] = {}
        self.capture_counts: dict[str, QLabel] = {}
        agents = self.capture.agents() if self.capture is not None else []
        for row, agent in enumerate(agents, start=1):
            title = AGENT_TITLES.get(agent.name, agent.name)
            check = QCheckBox(self.tr("Capture from %1").replace("%1", title))
            check.setToolTip(str(agent.folder))
            check.toggled.connect(lambda on, name=agent.name: self.set_capture(name, on))
            count = QLabel()
            count.setWordWrap(True)
            count.setAccessibleName(self.tr("Captured from %1").replace("%1", title))
            self.capture_checks[agent.name] = check
            self.capture_counts[agent.name] = count
            grid.addWidget(check, row, 0)
            grid.addWidget(count, row, 1)
        if not agents:
            grid.addWidget(QLabel(self.tr("Not available in this window.")), 1, 0, 1, 2)
        grid.setColumnStretch(1, 1)
        return box

    def _resume_capture(self) -> None:
        """Turn capture back on for the agents it was on for when the window last closed."""
        for name, check in self.capture_checks.items():
            if QSettings().value(CAPTURE_KEY.format(agent=name), False, type=bool):
                check.setChecked(True)

    def set_capture(self, agent: str, on: bool) -> None:
        """Start or stop following `agent`; the choice is kept for the next start."""
        capture = self.capture
        if capture is None:
            return
        QSettings().setValue(CAPTURE_KEY.format(agent=agent), on)
        if on:
            capture.start(agent, self.ctx.service, lambda why: self.capture_failed.emit(agent, why))
        else:
            capture.stop(agent)

    def _capture_stopped(self, agent: str, why: str) -> None:
        check = self.capture_checks.get(agent)
        if check is not None:
            check.blockSignals(True)
            check.setChecked(False)
            check.blockSignals(False)
        title = AGENT_TITLES.get(agent, agent)
        self.notified.emit(
            self.tr("Capture from %1 stopped: %2").replace("%1", title).replace("%2", why), None
        )

    def refresh(self) -> None:
        """Read the hooks' settings files again and how much was captured per agent (from
        the capture cursors)."""
        self.show_hooks()
        self.folder_box.show_summary()
        if self.capture_counts:
            query(self.ctx, lambda s: s.events.capture_totals()).on_success(self.show_counts).run(
                self
            )

    def show_counts(self, totals: dict[str, tuple[int, int]]) -> None:
        """ "N events from M files" per agent."""
        for name, label in self.capture_counts.items():
            files, events = totals.get(name, (0, 0))
            label.setText(
                self.tr("%n event(s) captured", "", events)
                + " · "
                + self.tr("%n file(s) followed", "", files)
            )

    # --- A/B ------------------------------------------------------------------------------

    def open_comparison(self) -> None:
        """Open the A/B comparison dialog."""
        dialog = AbComparisonDialog(self, runner=self.ctx.connectors.run_ab, tasks=self.ctx.tasks)
        dialog.finished.connect(lambda _r: setattr(self, "ab_dialog", None))
        self.ab_dialog = dialog
        dialog.open()


def _printable(text: str) -> str:
    """The reason without control characters (it comes from a file other programs write)."""
    return "".join(c if c.isprintable() else " " for c in text)[:400]

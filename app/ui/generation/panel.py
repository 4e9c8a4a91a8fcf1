"""The Generate panel: lays out the panes (Setup: models, prompt, sampling, devices in
collapsible sections, app/ui/generation/setup_tab.py; Run: the run view) around the
generation model, with the run buttons, the error banner, the demo models, the sd-cli import
and the engine log. Both tabs scroll, so the panel never makes the window taller than the
screen (unfinished runs are offered by app/ui/runs, not here)."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.jobs.call_runner import CallRunner
from app.jobs.generation import GenerationModel
from app.jobs.memory_plan import MemoryPlan, session_plan_fn
from app.jobs.run_state import RunState
from app.pipeline import LOG_DIR
from app.pipeline.failures import Failure
from app.ui.generation.devices import DevicesPane
from app.ui.generation.edit_preset import EditPane
from app.ui.generation.fit_guard import BigPhotoOffer, FitGate
from app.ui.generation.log import (
    MEMORY_LOG_LINES,
    EngineLogDialog,
    GenerationErrorBanner,
    read_log_tail,
)
from app.ui.generation.models import ModelsPane
from app.ui.generation.prompt import PromptPane
from app.ui.generation.references import ReferencesPane
from app.ui.generation.run_view import RunView
from app.ui.generation.sampling import SamplingPane
from app.ui.generation.sdcli_apply import ImportUndo
from app.ui.generation.setup_tab import SetupTab
from app.ui.generation.stages import stage_title
from app.ui.generation.status_line import StatusLine
from app.ui.words.texts import failure_hint, failure_text, missing_text


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationPanel", text)


class GenerationPanel(QWidget):
    """The generation UI over one GenerationModel; holds no run state of its own."""

    demo_requested = Signal()
    settings_requested = Signal()

    def __init__(self, model: GenerationModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("generation_panel")
        self.model = model
        self._log_lines: deque[str] = deque(maxlen=MEMORY_LOG_LINES)
        self._first_show = True

        self.models_pane = ModelsPane(model.form, self)
        self.prompt_pane = PromptPane(model.form, self)
        self.edit_pane = EditPane(model.form, self, self.prompt_pane.prompt_edit)
        self._photo = model.inputs.image  # another photo ends the preset chosen for this one
        model.inputs.changed.connect(self._photo_may_have_changed)
        self.references_pane = ReferencesPane(model, self)
        self.sampling_pane = SamplingPane(model, self)
        self.memory_plan = MemoryPlan(model, session_plan_fn(model), self)
        self.devices_pane = DevicesPane(model, self, memory_plan=self.memory_plan)
        # Run all / Add to queue wait for the plan and stop on its verdict (the panel owns it).
        self.fit_gate = FitGate(model, self.memory_plan, self)
        BigPhotoOffer(model, self.memory_plan, self, self.fit_gate)  # only masked, up front
        self.run_view = RunView(model, self)
        self.setup_tab = SetupTab(
            model,
            self.models_pane,
            self.edit_pane,
            self.prompt_pane,
            self.references_pane,
            self.sampling_pane,
            self.devices_pane,
            self,
        )
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("generation_tabs")
        self.tabs.addTab(_scrolled(self.setup_tab, self), _tr("Setup"))
        self.tabs.addTab(_scrolled(self.run_view, self), _tr("Run"))
        self.import_button = QPushButton(_tr("Import sd-cli command…"), self)
        self.import_button.setObjectName("generation_import_sdcli")
        self.settings_button = QPushButton(_tr("Settings…"), self)
        self.settings_button.setObjectName("generation_settings")
        self.import_undo = ImportUndo(model, self)
        tools = QHBoxLayout()
        tools.addWidget(self.import_button)
        tools.addWidget(self.import_undo.button)
        tools.addStretch(1)
        tools.addWidget(self.settings_button)

        self.error_banner = GenerationErrorBanner(self)
        self.status_label = QLabel(self)
        self.status_label.setObjectName("generation_status")
        self.status_label.setWordWrap(True)
        self.status_line = StatusLine(model, self.status_label)  # made after the run view
        self.log_button = QPushButton(_tr("Show engine log"), self)
        self.log_button.setObjectName("generation_engine_log")
        self.next_button = QPushButton(_tr("Run next stage"), self)
        self.next_button.setObjectName("generation_run_next")
        self.all_button = QPushButton(_tr("Run all"), self)
        self.all_button.setObjectName("generation_run_all")
        self.all_button.setDefault(True)
        self.all_button.setShortcut(QKeySequence("Ctrl+Return"))
        self.all_button.setToolTip(_tr("Run every stage that is not done yet (Ctrl+Enter)"))
        self.new_run_button = QPushButton(_tr("New run"), self)
        self.new_run_button.setObjectName("generation_new_run")
        self.new_run_button.setToolTip(
            _tr("Forget the current run; the next start makes a new one (cached stages are reused)")
        )
        run_row = QHBoxLayout()
        run_row.addWidget(self.log_button)
        run_row.addWidget(self.new_run_button)
        run_row.addStretch(1)
        run_row.addWidget(self.next_button)
        run_row.addWidget(self.all_button)
        self.run_row = run_row
        # A row of its own above the run buttons for other features (app/ui/queue: Add to
        # queue × N): in one row they made the dock wider than a 1280-px screen allows.
        self.extra_row = QHBoxLayout()
        self.extra_row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(tools)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.error_banner)
        layout.addWidget(self.status_label)
        layout.addLayout(self.extra_row)
        layout.addLayout(run_row)

        self.next_button.clicked.connect(self.run_next_stage)
        self.all_button.clicked.connect(self.run_all)
        self.new_run_button.clicked.connect(self.new_run)
        self.log_button.clicked.connect(self.show_engine_log)
        self.error_banner.show_log_requested.connect(self.show_engine_log)
        self.import_button.clicked.connect(self.open_sdcli_import)
        self.import_undo.undone.connect(
            lambda: self.set_status(_tr("Import undone: the settings before it are back."))
        )
        self.settings_button.clicked.connect(self.settings_requested)
        self.models_pane.demo_requested.connect(self.demo_requested)
        self.run_view.status.connect(self.set_status)
        model.state_changed.connect(self._state_changed)
        model.run_changed.connect(self._update_buttons)
        model.refused.connect(self._refused)
        model.failed.connect(self._failed)
        model.runner_started.connect(self._runner_started)
        self.fit_gate.waiting_changed.connect(self._plan_wait)
        self._update_buttons()

    # --- actions ----------------------------------------------------------------------------

    def run_all(self) -> None:
        self._start(self.model.run_all)

    def run_next_stage(self) -> None:
        self._start(self.model.run_next_stage)

    def _start(self, action: Any) -> None:
        self.error_banner.hide()
        if not self.model.state.busy and self.model.repaints_everything():
            answer = QMessageBox.question(
                self,
                _tr("The mask is empty"),
                _tr(
                    "Nothing is painted in the mask, so the whole picture would be repainted. "
                    "Repaint the whole picture? Choose No to paint the part to change first."
                ),
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.No,
            )
            if answer != QMessageBox.StandardButton.Yes:
                self.set_status(_tr("Nothing ran: paint the part to change, then start."))
                return
        if self.model.state.busy or self.model.missing():
            action()  # busy: nothing new starts; a file missing: the model refuses and says so
            return
        self.fit_gate.request(
            lambda: self._go(action),
            lambda: self.set_status(_tr("Nothing ran: the plan says the job does not fit.")),
        )

    def _go(self, action: Any) -> None:
        """Starts once the memory plan said the job fits (or the user insisted)."""
        action()
        if self.model.state.busy:
            self.tabs.setCurrentIndex(1)
        elif self.model.state is RunState.FINISHED and self.model.last_failure is None:
            self.set_status(_tr("Every stage is done. Change a setting or start a new run."))

    def _plan_wait(self, waiting: bool) -> None:
        """The Run tab and the status say the plan is being checked (no stage runs yet)."""
        checking = _tr("Checking the memory plan… the job starts when it is known to fit.")
        progress = self.run_view.progress
        if waiting:
            self.set_status(checking)
            progress.busy(_tr("Checking the memory plan…"))
            return
        if self.status_label.text() == checking:
            self.set_status("")
        if not self.model.state.busy:
            progress.reset()

    def new_run(self) -> None:
        self.model.new_run()
        self.set_status(_tr("The next start makes a new run."))

    def _state_changed(self, state: RunState) -> None:
        if state is RunState.PREPARING:  # a new start: the last failure is history
            self.error_banner.hide()
        self._update_buttons()

    def _update_buttons(self, *_: Any) -> None:
        busy = self.model.state.busy
        for button in (self.next_button, self.all_button, self.import_button, self.settings_button):
            button.setEnabled(not busy)
        self.import_undo.button.setEnabled(not busy)
        self.new_run_button.setEnabled(not busy and self.model.run is not None)

    def _refused(self, names: list[str]) -> None:
        self.error_banner.show_error(
            missing_text(names, self.model.form.values()),
            _tr("Fix this under Setup, then start again."),
        )
        self.set_status("")
        self.tabs.setCurrentIndex(0)
        self.setup_tab.reveal(names)

    def _failed(self, failure: Failure) -> None:
        self.run_view.flush()
        if failure.stage and self.run_view.kind != "decode":
            self.run_view.stage_list.set_state(failure.stage, "failed")
        if failure.stage:
            text = _tr("{stage} failed: {message}").format(
                stage=stage_title(failure.stage), message=failure_text(failure)
            )
        else:  # refused before any stage ran: no stage is to blame
            text = _tr("Could not start: {message}").format(message=failure_text(failure))
        self.error_banner.show_error(text, failure_hint(failure))
        self.set_status("")

    def _runner_started(self, runner: CallRunner, _kind: str) -> None:
        runner.log_line.connect(lambda stage, text: self._log_lines.append(f"[{stage}] {text}"))

    def _photo_may_have_changed(self) -> None:
        image = self.model.inputs.image  # by identity: a mask stroke keeps the same array
        if image is not self._photo:
            had_one, self._photo = self._photo is not None, image
            if had_one:
                self.edit_pane.leave_preset()

    def set_status(self, text: str) -> None:
        """A line for this moment (app/ui/generation/status_line.py: it clears when the run
        state, the run or the photo changes and nothing newer was said)."""
        self.status_line.say(text)

    # --- first show: engine facts -----------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._first_show:
            self._first_show = False
            QTimer.singleShot(0, self.devices_pane.probe)

    # --- log, import ------------------------------------------------------------------------

    def engine_log_text(self) -> tuple[str, str]:
        failure = self.model.last_failure
        if failure is not None and failure.log_path is not None:
            return read_log_tail(str(failure.log_path)), str(failure.log_path)
        run = self.model.run
        if run is not None:
            logs = sorted((Path(run.dir) / LOG_DIR).glob("*.log"))
            if logs:
                parts = [f"==== {p.name} ====\n{read_log_tail(str(p))}" for p in logs]
                return "\n".join(parts), str(Path(run.dir) / LOG_DIR)
        return "\n".join(self._log_lines), ""

    def show_engine_log(self) -> None:
        text, path = self.engine_log_text()
        EngineLogDialog(text, path, self).exec()

    def open_sdcli_import(self) -> None:
        from app.ui.generation.sdcli_import_dialog import SdCliImportDialog

        image = self.model.inputs.image
        size = (image.shape[1], image.shape[0]) if image is not None else None
        dialog = SdCliImportDialog(self, picture_size=size)
        if dialog.exec() and dialog.imported is not None:
            self.apply_imported(dialog.values(), dialog.references())

    def apply_imported(self, values: dict[str, object], refs: Sequence[Path] = ()) -> None:
        """Sets the form from an imported sd-cli command's values (Param.name → value) and
        adds its reference images; "Undo import" puts the replaced settings back."""
        values = dict(values)
        if self.model.inputs.image is not None:  # the painter's picture sets the size
            values.pop("width", None)
            values.pop("height", None)
        problems = self.import_undo.apply(values, refs)
        self.tabs.setCurrentIndex(0)
        status = _tr("Imported the sd-cli command. Check the settings, then start.")
        self.set_status(" ".join([status, *problems]))

    def shutdown(self) -> bool:
        self.model.form.save_now()
        self.memory_plan.stop()
        self.run_view.strip.reads.stop()
        self.run_view.result_view.reads.stop()
        return self.model.shutdown()


def _scrolled(content: QWidget, parent: QWidget) -> QScrollArea:
    """`content` in a frameless vertical scroll area: its minimum height no longer adds up."""
    scroll = QScrollArea(parent)
    scroll.setWidget(content)
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return scroll

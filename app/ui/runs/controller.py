"""What the run actions do: Resume (the run's photo and mask back on the canvas, then the run
goes on from its last checkpoint), Show result, Open, Discard (confirmed; to the OS trash, else
deleted); the start-up offer of unfinished runs and the Runs panel, both listed off the UI
thread."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, QTimer
from PySide6.QtWidgets import QDockWidget, QMessageBox, QWidget

from app.canvas import files as canvas_files
from app.jobs.generation import GenerationModel
from app.jobs.run_history import RunEntry
from app.ui.kit.guards import FirstShow

if TYPE_CHECKING:
    from app.ui.generation.panel import GenerationPanel
    from app.ui.window_host import WindowHost
from app.ui.kit.messages import show_error
from app.ui.runs.entry import DISCARD, OPEN, RESUME, SHOW_RESULT, default_actions
from app.ui.runs.runs_panel import RunsPanel
from app.ui.runs.unfinished_dialog import UnfinishedRunsDialog

log = logging.getLogger(__name__)

RUNS_DOCK_NAME = "RunsDock"
REFRESH_DEBOUNCE_MS = 300
RUN_TAB = 1  # the Generate panel's Run tab


def _tr(text: str) -> str:
    return QCoreApplication.translate("Runs", text)


class RunsController(QObject):
    """Binds the start-up dialog and the Runs panel to the generation model and the canvas."""

    def __init__(self, window: WindowHost, panel: GenerationPanel, runs_panel: RunsPanel) -> None:
        super().__init__(panel)
        self.window, self.panel, self.runs_panel = window, panel, runs_panel
        self.model: GenerationModel = panel.model
        self.dialog: UnfinishedRunsDialog | None = None
        self.queue_runs: Callable[[str], bool] = lambda _name: False
        self.generate_dock: QDockWidget | None = None
        self.runs_dock: QDockWidget | None = None
        self._listing = False
        self._again = False
        self._ended = False
        self._refresh = QTimer(self)
        self._refresh.setSingleShot(True)
        self._refresh.setInterval(REFRESH_DEBOUNCE_MS)
        self._refresh.timeout.connect(self.refresh)
        runs_panel.action_requested.connect(self.act)
        runs_panel.refresh_requested.connect(self.refresh)
        self.model.runner_ended.connect(lambda _kind: self._schedule())
        self.model.run_changed.connect(lambda _run: self._schedule())

    # --- listing (off the UI thread) ---------------------------------------------------------

    def offer_unfinished(self) -> None:
        """The start-up dialog, once the list is read; nothing shows when there is none."""
        lister = self.model.session.list_runs(unfinished_only=True)
        lister.listed.connect(self._offer)
        lister.start()

    def held(self, run_dir: Path) -> bool:
        """One run, one owner: a queue job's run is the queue's (to run, offer or keep paused),
        and the run this window works on is its own; neither is offered here to continue."""
        run = self.model.run
        mine = run is not None and Path(run.dir) == Path(run_dir) and self.model.state.busy
        return mine or self.queue_runs(Path(run_dir).name)

    def actions(self, entry: RunEntry) -> tuple[str, ...]:
        """A row's buttons: an unfinished run another owner holds offers none (Continue would
        start it twice, the second start refused by the run's own lock)."""
        offered = default_actions(entry)
        if entry.unfinished and self.held(entry.dir):
            return ()
        return offered

    def _offer(self, entries: list[RunEntry]) -> None:
        # A queue job's run is the queue's to offer (or to keep paused): offering it here too
        # would start it twice, the second start refused by the run's own lock.
        entries = [e for e in entries if not self.held(e.dir)]
        if not entries or self.model.state.busy:
            return
        if self.dialog is not None:
            self.dialog.close()
        parent = self.window if isinstance(self.window, QWidget) else None
        self.dialog = UnfinishedRunsDialog(entries, parent)
        self.dialog.action_requested.connect(self.act)
        self.dialog.show()

    def _schedule(self) -> None:
        if not self._ended:
            self._refresh.start()

    def refresh(self) -> None:
        """Re-lists every run for the Runs panel (one lister at a time)."""
        if self._ended:
            return
        if self._listing:
            self._again = True
            return
        self._listing = True
        lister = self.model.session.list_runs()
        lister.listed.connect(lambda entries: self.runs_panel.set_entries(entries, self.actions))
        lister.finished.connect(self._listed)
        lister.start()

    def _listed(self) -> None:
        self._listing = False
        if self._again:
            self._again = False
            self.refresh()

    # --- actions -----------------------------------------------------------------------------

    def act(self, action: str, entry: RunEntry) -> None:
        if action in (RESUME, DISCARD) and entry.unfinished and self.held(entry.dir):
            self.panel.set_status(_tr("The queue runs this job; it continues there."))
            return
        if action == DISCARD:
            self.discard(entry.dir)
        elif action in (RESUME, SHOW_RESULT, OPEN):
            self.open(entry.dir, resume=action == RESUME)

    def open(self, run_dir: Path, *, resume: bool) -> bool:
        """Puts the run's photo and mask on the canvas, makes the run current and (resume)
        continues it from its last finished step."""
        if self.model.state.busy:
            self.panel.set_status(_tr("A run is in progress; stop it first."))
            return False
        if not self.restore_canvas(run_dir):
            return False
        if self.model.open_run(run_dir, take_settings=resume) is None:
            return False
        if not resume:
            self.offer_settings()
        if self.dialog is not None:
            self.dialog.remove(run_dir)
            if resume and self.dialog is not None:
                self.dialog.close()
        self.show_generate()
        self.panel.error_banner.hide()
        if resume:
            self.model.resume()
        return True

    def offer_settings(self) -> bool:
        """Show result / Open: the run's settings are offered, by the rule of a PNG's (never
        its devices; its model files only where they exist here). True when taken."""
        from app.jobs.values import carried_values
        from app.ui.workspace.png_settings import offer_settings

        run, form = self.model.run, self.model.form
        if run is None:
            return False
        values = carried_values(run.spec, form.values(), models=True, frame=True)
        question = _tr(
            "The run {file} was made with these settings (prompt: \u201c{prompt}\u201d, seed "
            "{seed}, {steps} steps). Load them into the job? Devices you have chosen stay; its "
            "model files are taken where they exist here."
        )
        title = _tr("Settings of the run")
        return offer_settings(self._parent(), title, question, Path(run.dir).name, values, form)

    def restore_canvas(self, run_dir: Path) -> bool:
        """The run's own copies of its photo and mask (verified) become the document."""
        document = self.window.document
        try:
            image_path, mask_path = self.model.session.run_inputs(run_dir)
            # the copy is inputs/image.png: the document goes by the user's photo's name
            title = self.model.session.pipeline.snapshot(run_dir).photo_name
        except Exception as exc:
            show_error(self._parent(), _tr("The run cannot be opened"), exc, run_dir)
            return False
        if image_path is None or document is None:
            return True  # text to image: the canvas stays as it is
        from app.ui.kit.guards import confirm_replace_unsaved

        if not confirm_replace_unsaved(self._parent(), document):
            return False
        try:
            picture = canvas_files.read_picture(image_path)
            document.set_image(picture, image_path, title)
            if mask_path is not None:
                mask = canvas_files.read_mask(mask_path, (document.width, document.height))
                document.replace_mask(_tr("Mask of the run"), mask)
                document.set_modified(False)  # the run folder holds this mask
        except Exception as exc:
            show_error(self._parent(), _tr("The run cannot be opened"), exc, image_path)
            return False
        view = self.window.canvas_view
        if view is not None:
            view.zoom_to_fit()
        return True

    def discard(self, run_dir: Path) -> bool:
        answer = QMessageBox.question(
            self._parent(),
            _tr("Discard the run?"),
            _tr(
                "The run folder {path} goes to the trash (or is deleted where there is none), "
                "with its steps and pictures."
            ).format(path=run_dir),
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        if answer != QMessageBox.StandardButton.Discard:
            return False
        try:
            done = self.model.discard_run(run_dir)
        except Exception as exc:
            show_error(self._parent(), _tr("The run cannot be discarded"), exc, run_dir)
            return False
        if not done:
            self.panel.set_status(_tr("A run is in progress; stop it first."))
            return False
        if self.dialog is not None:
            self.dialog.remove(run_dir)
        self.runs_panel.list_view.remove(run_dir)
        self.refresh()
        return True

    # --- helpers -----------------------------------------------------------------------------

    def show_generate(self) -> None:
        if self.generate_dock is not None:
            self.generate_dock.show()
            self.generate_dock.raise_()
        self.panel.tabs.setCurrentIndex(RUN_TAB)

    def _parent(self) -> QWidget | None:
        return self.window if isinstance(self.window, QWidget) else self.panel

    def shutdown(self) -> None:
        """The window closed: no listing starts after (a runner's end delivered later would
        start one for a window that is gone)."""
        self._ended = True
        self._refresh.stop()
        if self.dialog is not None:
            self.dialog.close()


def install(
    window: WindowHost, panel: GenerationPanel, generate_dock: QDockWidget | None = None
) -> RunsController:
    """The Runs dock beside the side panels, the controller, and the start-up offer."""
    runs_panel = RunsPanel()
    controller = RunsController(window, panel, runs_panel)
    controller.generate_dock = generate_dock
    controller.runs_dock = window.add_side_panel(
        runs_panel, _tr("Runs"), object_name=RUNS_DOCK_NAME
    )
    if isinstance(window, QObject):
        FirstShow(window, controller.offer_unfinished)
        FirstShow(window, controller.refresh)
    return controller

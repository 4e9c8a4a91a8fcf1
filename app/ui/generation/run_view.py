"""The Run tab: the stages, the progress bar, pause / resume / suspend / cancel, the strip of
step previews (decode this step, branch from here) and the result beside the original. It
shows the generation model's state and its runner's signals; it decides nothing. What it says
for each state (the progress line, the status line) is run_words.py's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QCoreApplication, QTimer, Signal
from PySide6.QtGui import QImage
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.jobs.call_runner import CallRunner
from app.jobs.generation import GenerationModel
from app.jobs.run_state import RunState
from app.pipeline import CHECKPOINT_DIR
from app.pipeline.api import RunSnapshot
from app.ui.generation import run_words
from app.ui.generation.result import GenerationResultView
from app.ui.generation.stages import GenerationStageList, stage_title
from app.ui.generation.steps import GenerationProgressBar, GenerationStepStrip, StepImageDialog

UI_UPDATE_MS = 40


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationPanel", text)


class RunView(QWidget):
    status = Signal(str)  # a line for the panel's status label
    result_saved = Signal(str)

    def __init__(self, model: GenerationModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.kind = ""  # "execute" | "decode" while a runner is bound
        self._decoding_step: int | None = None  # the step the bound decode runner decodes
        self.branch_dialog: QDialog | None = None
        self._steps_total = 0
        self._pending_progress: tuple[int, int, float, float] | None = None
        self._pending_thumbs: list[tuple[int, str, QImage]] = []
        # The run folder the strip, the step label and the result box show: all three are
        # cleared and reloaded when the model's run is another one.
        self.shown_run: Path | None = None
        self._ui_timer = QTimer(self)
        self._ui_timer.setSingleShot(True)
        self._ui_timer.setInterval(UI_UPDATE_MS)
        self._ui_timer.timeout.connect(self.flush)

        self.stage_list = GenerationStageList(self)
        self.progress = GenerationProgressBar(self)
        self.pause_button = QPushButton(_tr("Pause"), self)
        self.pause_button.setObjectName("generation_pause")
        self.pause_button.setToolTip(_tr("Hold after the current step; the model stays loaded"))
        self.resume_button = QPushButton(_tr("Resume"), self)
        self.resume_button.setObjectName("generation_resume")
        self.suspend_button = QPushButton(_tr("Suspend"), self)
        self.suspend_button.setObjectName("generation_suspend")
        self.suspend_button.setToolTip(
            _tr("Save the current step and free the GPU; resume later, even after a restart")
        )
        self.cancel_button = QPushButton(_tr("Cancel"), self)
        self.cancel_button.setObjectName("generation_cancel")
        self.cancel_button.setToolTip(_tr("Stop; the steps already done are kept"))
        controls = QHBoxLayout()
        for button in (
            self.pause_button,
            self.resume_button,
            self.suspend_button,
            self.cancel_button,
        ):
            controls.addWidget(button)
        self.strip = GenerationStepStrip(self)
        self.decode_button = QPushButton(_tr("Decode this step"), self)
        self.decode_button.setObjectName("generation_decode_step")
        self.decode_button.setToolTip(_tr("Turn the selected step into a full image with the VAE"))
        self.accept_button = QPushButton(_tr("Accept this step"), self)
        self.accept_button.setObjectName("generation_accept_step")
        self.accept_button.setToolTip(
            _tr("Finish the run from this step (decoded and composited); skip the later steps")
        )
        self.branch_button = QPushButton(_tr("Branch from here"), self)
        self.branch_button.setObjectName("generation_branch")
        self.branch_button.setToolTip(
            _tr("A new run from the selected step: choose its seed, steps, prompt and strength")
        )
        # "Step k selected" on a line of its own: beside the three buttons it made the Run tab
        # wider than the dock at 1280×720 (issue 41: it scrolled sideways, Cancel cut).
        self.step_label = QLabel(self)
        self.step_label.setObjectName("generation_step_selected")
        self.step_label.setWordWrap(True)
        step_row = QHBoxLayout()
        step_row.addStretch(1)
        step_row.addWidget(self.decode_button)
        step_row.addWidget(self.accept_button)
        step_row.addWidget(self.branch_button)
        self.result_view = GenerationResultView(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.stage_list)
        layout.addWidget(self.progress)
        layout.addLayout(controls)
        layout.addWidget(self.strip)
        layout.addWidget(self.step_label)
        layout.addLayout(step_row)
        layout.addWidget(self.result_view, 1)

        self.pause_button.clicked.connect(model.pause)
        self.resume_button.clicked.connect(model.resume)
        self.suspend_button.clicked.connect(model.suspend)
        self.cancel_button.clicked.connect(model.cancel)
        self.decode_button.clicked.connect(self._decode_selected)
        self.accept_button.clicked.connect(self._accept_selected)
        self.branch_button.clicked.connect(self._branch_selected)
        self.strip.step_selected.connect(self._step_selected)
        self.strip.selection_cleared.connect(self._selection_cleared)
        self.strip.enlarge_requested.connect(
            lambda step, path: StepImageDialog(step, path, self).exec()
        )
        self.result_view.save_requested.connect(self.save_result_dialog)
        model.state_changed.connect(self._state_changed)
        model.run_changed.connect(self._run_changed)
        model.runner_started.connect(self._bind_runner)
        model.inputs.changed.connect(self._show_original)
        self._original: np.ndarray | None = np.zeros(0)  # the picture shown as the original
        self._show_original()
        self.update_buttons()

    def _show_original(self) -> None:
        image = self.model.inputs.image
        if image is self._original:  # a mask change: the picture is the same array
            return
        self._original = image
        if image is None:
            self.result_view.set_original(None)
            return
        h, w = image.shape[:2]
        data = np.ascontiguousarray(image)
        qimage = QImage(data.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()
        self.result_view.set_original(qimage)

    # --- state ------------------------------------------------------------------------------

    def update_buttons(self) -> None:
        state = self.model.state
        decoding = self.model.decoding is not None
        self.pause_button.setEnabled(state.can_pause and not decoding)
        self.resume_button.setEnabled(self.model.can_resume())
        self.suspend_button.setEnabled(
            state in (RunState.RUNNING, RunState.PAUSED, RunState.PAUSING) and not decoding
        )
        self.cancel_button.setEnabled(state.busy and state is not RunState.PREPARING)
        has_step = self.strip.selected_step() is not None
        can_use_step = not state.busy and has_step and self.model.run is not None
        self.decode_button.setEnabled(can_use_step)
        run = self.model.run
        step = self.strip.selected_step()
        self.accept_button.setEnabled(
            can_use_step and run is not None and step is not None and step in run.checkpoints
        )
        self.branch_button.setEnabled(can_use_step)
        self._say_why_off(state)

    def _say_why_off(self, state: RunState) -> None:
        """While a run works or is paused, the step actions are off: their tooltips say that
        Suspend (or the run's end) turns them on; otherwise their own tooltips."""
        off = state in (RunState.RUNNING, RunState.PAUSING, RunState.PAUSED)
        why = _tr("Off while the run works or is paused: Suspend it (or let it end) first.")
        for button in (self.decode_button, self.accept_button, self.branch_button):
            plain = button.property("plain_tip")
            if plain is None:
                plain = button.toolTip()
                button.setProperty("plain_tip", plain)
            button.setToolTip(f"{plain}\n{why}" if off else plain)

    def _state_changed(self, state: RunState) -> None:
        self.flush()
        if self.kind == "decode" and not state.busy:
            # The decode ended: its "Decoding step k…" must not outlive it.
            step = self._decoding_step
            self.kind, self._decoding_step = "", None
            self.progress.reset(run_words.decode_ended(step, state))
            self.update_buttons()
            return
        texts = run_words.state_texts()
        if state is RunState.PREPARING:
            self.progress.reset(texts[state])  # not the "Done" of the run before
            self.status.emit(texts[state])
        elif state is RunState.PAUSED:
            self.stage_list.set_state("diffuse", "paused")
            self.progress.set_note(_tr("Paused"))  # no time left counts while paused
            self.status.emit(_tr("Paused. The model stays loaded."))
        elif state is RunState.RUNNING and self.kind == "execute":
            if self._steps_total:
                self.stage_list.set_state("diffuse", "running")
            self.status.emit(_tr("Running…"))
        elif state is RunState.SUSPENDED and self.model.run is not None:
            self.stage_list.set_state("diffuse", "suspended")
            progress, status = run_words.suspended(self.model.run)
            self.progress.reset(progress)
            self.status.emit(status)
        elif state is RunState.CANCELLED and self.model.run is not None:
            self._cancelled(self.model.run)
        elif state is RunState.FAILED:
            self.progress.reset(_tr("Failed"))
        elif state is RunState.FINISHED and self.kind == "decode":
            self.progress.reset(_tr("Done"))  # the decoded step stays on show
        elif state is RunState.FINISHED:
            self.progress.reset(_tr("Done"))
            self.status.emit(texts[state])
            self._show_result_of(self.model.run)
        elif state is RunState.IDLE and self.model.only and self.model.run is not None:
            progress, status = run_words.stage_done(self.model.only)
            self.progress.reset(progress)
            self.status.emit(status)
        elif state in texts:
            self.status.emit(texts[state])
        if not state.busy:
            self.kind = ""
        self.update_buttons()

    def _cancelled(self, run: RunSnapshot) -> None:
        """The step a cancelled run reached stays in view (the Diffuse row says "cancelled")."""
        progress, status = run_words.cancelled(run)
        reached = run.last_completed_step > 0
        if reached and self.stage_list.state("diffuse") in ("running", "paused"):
            self.stage_list.set_state("diffuse", "cancelled")
        self.progress.reset(progress)
        self.status.emit(status)

    def _run_changed(self, run: RunSnapshot | None) -> None:
        key = Path(run.dir) if run is not None else None
        if key != self.shown_run:
            self._show_run(run)
        if run is not None:
            stopped = (RunState.SUSPENDED, RunState.CANCELLED)  # the row says where it stopped
            keep = {"diffuse"} if self.model.state in stopped else set()
            busy = self.model.state.busy
            for stage in run.stages:
                if stage.name in keep:
                    continue
                part_way = stage.name == "diffuse" and stage.state in ("pending", "running")
                if part_way and not busy and not run.finished and run.last_completed_step > 0:
                    # The record: diffuse stopped at its last step (a suspend, a cancel, a
                    # decode of a step since), not "pending".
                    self.stage_list.set_stopped(stage.name, run.last_completed_step, stage.seconds)
                else:
                    self.stage_list.set_state(stage.name, stage.state, stage.seconds)
                if stage.device:
                    self.stage_list.set_device(stage.name, stage.device)
        self.update_buttons()

    def _show_run(self, run: RunSnapshot | None) -> None:
        """Another run is current: nothing of the one shown before stays (its steps, the step
        picked, its result); the new run's own steps and result are loaded."""
        self.shown_run = Path(run.dir) if run is not None else None
        self._pending_thumbs.clear()
        self.strip.clear_steps()
        self.step_label.setText("")
        self.result_view.clear_result()
        self.stage_list.reset()
        self.progress.reset()
        if run is not None:
            self.load_step_previews(run)
            if run.finished:
                self._show_result_of(run)

    # --- the runner -------------------------------------------------------------------------

    def _bind_runner(self, runner: CallRunner, kind: str) -> None:
        self.kind = kind
        self._decoding_step = self.model.decoding if kind == "decode" else None
        pane = self.result_view.current
        runner.set_preview_max_px(int(max(pane.width(), pane.height()) * pane.devicePixelRatioF()))
        runner.stage_started.connect(self._stage_started)
        runner.stage_finished.connect(self._stage_finished)
        runner.step_progress.connect(self._step_progress)
        runner.preview_saved.connect(self._preview_saved)
        runner.preview_ready.connect(
            lambda step, image: self.result_view.show_preview(step, self._steps_total, image)
        )
        runner.result_loaded.connect(self._result_loaded)
        runner.device_reported.connect(self.stage_list.set_device)
        if kind == "execute":
            self.status.emit(_tr("Running…"))
        self.update_buttons()

    def _stage_started(self, stage: str) -> None:
        if self.kind == "decode":
            self.progress.busy(_tr("Decoding step {step}…").format(step=self.model.decoding))
            return
        self.stage_list.set_state(stage, "running")
        if stage == "diffuse":
            run = self.model.run
            self._steps_total = int(
                (run.steps if run else None) or self.model.form.values()["steps"]
            )
            done = run.last_completed_step if run else 0
            self.progress.set_step(done, self._steps_total, 0.0, 0.0)
            self.progress.set_note(_tr("Loading the diffusion model…"))
        else:
            self.progress.busy(stage_title(stage) + "…")
        self.status.emit(_tr("{stage}…").format(stage=stage_title(stage)))

    def _stage_finished(self, stage: str, seconds: float, cached: bool) -> None:
        if self.kind != "decode":
            self.stage_list.set_state(stage, "cached" if cached else "done", seconds)

    def _step_progress(self, step: int, steps: int, sps: float, eta: float) -> None:
        self._steps_total = steps
        rest = self.model.rest_after_diffuse()  # the decode and composite still to come
        eta += rest or 0.0
        self._pending_progress = (step, steps, sps, eta)
        self._schedule()

    def _preview_saved(self, step: int, path: str, thumb: QImage) -> None:
        self._pending_thumbs.append((step, path, thumb))
        self._schedule()

    def _schedule(self) -> None:
        # Steps can arrive faster than it is worth repainting for: at most every UI_UPDATE_MS.
        if not self._ui_timer.isActive():
            self._ui_timer.start()

    def flush(self) -> None:
        self._ui_timer.stop()
        thumbs, self._pending_thumbs = self._pending_thumbs, []
        for step, path, thumb in thumbs:
            self.strip.add_step(step, path, thumb)
        if self._pending_progress is not None:
            self.progress.set_step(*self._pending_progress)
            self._pending_progress = None

    def _result_loaded(self, path: str, image: QImage) -> None:
        if self.kind == "decode":
            step = self.model.decoding
            self.result_view.show_image(image, _tr("Step {step}, decoded").format(step=step))
            self.status.emit(_tr("Step {step} decoded: {path}").format(step=step, path=path))
        else:
            self.result_view.show_result(image)

    # --- steps ------------------------------------------------------------------------------

    def _step_selected(self, step: int) -> None:
        path = self.strip.path(step)
        self.step_label.setText(_tr("Step {step} selected").format(step=step))
        image = QImage(path) if path else QImage()
        if not image.isNull():
            self.result_view.show_image(image, _tr("Step {step} (preview)").format(step=step))
        self.update_buttons()

    def _selection_cleared(self) -> None:
        # A newer step arrived: "Step N selected" no longer names what is shown.
        self.step_label.setText("")
        self.update_buttons()

    def _decode_selected(self) -> None:
        step = self.strip.selected_step()
        if step is not None:
            self.model.decode_step(step)

    def _accept_selected(self) -> None:
        step = self.strip.selected_step()
        if step is not None:
            self.model.accept_step(step)

    def _branch_selected(self) -> None:
        """Opens the branch dialog (not blocking); OK branches and makes the branch current."""
        from app.ui.generation.branch_dialog import BranchDialog

        step, run = self.strip.selected_step(), self.model.run
        if step is None or run is None:
            return
        dialog = BranchDialog(run, step, self)
        dialog.accepted.connect(lambda: self.branch(step, dialog.changes()))
        dialog.finished.connect(dialog.deleteLater)
        self.branch_dialog = dialog
        dialog.open()

    def branch(self, step: int, changes: dict) -> bool:
        shared = [(s, self.strip.path(s)) for s in self.strip.steps() if s <= step]
        if self.model.branch(step, changes) is None:
            return False
        run = self.model.run
        if run is not None and step in run.checkpoints:
            # The branch's steps 1..step are the parent's: their thumbnails stay on show.
            for s, path in shared:
                image = QImage(path) if s not in self.strip.steps() else QImage()
                if not image.isNull():
                    self.strip.add_step(s, path, image)
            self.strip.keep_steps_up_to(step)
            text = _tr("New run branched from step {step}. Run all continues it.")
        else:
            self.strip.clear_steps()
            text = _tr("New run branched from step {step}; its diffusion starts over.")
        self.status.emit(text.format(step=step))
        return True

    def load_step_previews(self, run: RunSnapshot) -> None:
        """The run's step thumbnails, decoded off the UI thread (GenerationStepStrip)."""
        self.strip.load_steps(Path(run.dir) / CHECKPOINT_DIR, run.last_completed_step)

    # --- results ----------------------------------------------------------------------------

    def _show_result_of(self, run: RunSnapshot | None) -> None:
        """The run's result.png, decoded off the UI thread (keyed by the run's folder)."""
        if run is not None and run.result is not None:
            self.result_view.load_result(Path(run.dir), Path(run.result))

    def save_result_dialog(self) -> None:
        from app.ui.generation.run_save import save_result_dialog

        save_result_dialog(self, self.model.run, self.save_result)

    def save_result(self, target: Path) -> Path | None:
        """The result PNG with its parameters inside (A1111 text + Stepwise JSON), atomically."""
        from app.ui.generation.run_save import save_result

        return save_result(self.model.run, target, self.status.emit, self.result_saved.emit)

"""Binds the queue to the window: "Add to queue" (× N variations, random seeds) beside Run all,
the Queue dock, the compare view, and the start-up offer to continue the queue."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtWidgets import QCheckBox, QMessageBox, QPushButton, QSpinBox, QWidget

from app.core.errors import StepwiseError
from app.core.paths import AppPaths
from app.core.settings import Settings
from app.jobs.job_inputs import InputFiles
from app.jobs.queue_model import QueueModel
from app.jobs.run_state import user_text
from app.pipeline import MAX_VARIATIONS
from app.pipeline.api import RunSnapshot
from app.pipeline.job.preflight import check_prompt_slots
from app.pipeline.job.spec import JobSpec
from app.pipeline.work_policy import WorkPolicy, policy_from_settings
from app.ui.kit.guards import FirstShow

if TYPE_CHECKING:
    from app.ui.generation.panel import GenerationPanel
    from app.ui.window_host import WindowHost
from app.ui.queue.compare import CompareDialog
from app.ui.queue.panel import QueuePanel

log = logging.getLogger(__name__)

QUEUE_DOCK_NAME = "QueueDock"


def _tr(text: str) -> str:
    return QCoreApplication.translate("Queue", text)


class QueueController(QObject):
    def __init__(self, window: WindowHost, panel: GenerationPanel, paths: AppPaths) -> None:
        super().__init__(panel)
        self.window, self.panel = window, panel
        self.generation = panel.model
        session = self.generation.session
        settings = getattr(window, "settings", None)  # the work policy: Settings.work
        self.model = QueueModel(
            paths,
            engine=lambda: session.engine,
            parent=self,
            policy=lambda: (
                WorkPolicy() if settings is None else policy_from_settings(settings.work)
            ),
            times=self.generation.stage_times,  # this computer's, shared with the window's runs
        )
        self.queue_panel = QueuePanel(self.model)
        self.dock: Any = None
        self.compare: CompareDialog | None = None
        self.add_button = QPushButton(_tr("Add to queue"), panel)
        self.add_button.setObjectName("queue_add")
        self.add_button.setToolTip(
            _tr("Queue this job (× the variations) to run unattended in the Queue panel")
        )
        self.count = QSpinBox(panel)
        self.count.setObjectName("queue_variations")
        self.count.setRange(1, MAX_VARIATIONS)
        self.count.setPrefix("× ")
        self.count.setToolTip(_tr("Variations: one job per seed"))
        self.random_seeds = QCheckBox(_tr("random seeds"), panel)
        self.random_seeds.setObjectName("queue_random_seeds")
        self.random_seeds.setToolTip(
            _tr("Each variation draws its own seed (else: the seed, the seed + 1, …)")
        )
        row = panel.extra_row
        if row is not None:  # above Run next / Run all, right-aligned
            for widget in (self.add_button, self.count, self.random_seeds):
                row.addWidget(widget)
        self.add_button.clicked.connect(self.add_current)
        self.model.added.connect(self._added)
        self.model.failed.connect(self._failed)
        self.model.result_ready.connect(self._result_ready)
        self.queue_panel.compare_requested.connect(self.open_compare)
        self.queue_panel.mode_chosen.connect(self.choose_mode)
        self.queue_panel.settings_requested.connect(panel.settings_requested)
        self._settings = settings

    # --- the work policy
    def choose_mode(self, mode: str) -> None:
        """A policy mode picked in the Queue dock: saved (the whole settings file, atomically,
        through the job form's saver) and applied to the queue at once."""
        settings = self._settings
        if settings is None or settings.work.mode == mode:
            return
        settings.work = dataclasses.replace(settings.work, mode=mode)
        self.generation.form.save_now()
        self.model.apply_policy()

    # --- adding
    def add_current(self) -> None:
        gen = self.generation
        missing = gen.missing()
        if missing:
            gen.refused.emit(missing)
            return
        if self._slot_unfilled(gen.spec(None)):
            return  # a bad value is said at once, before any wait for the plan
        # The plan's verdict first: the job is added once its plan says it fits.
        self.panel.fit_gate.request(self._add_now)

    def _slot_unfilled(self, spec: JobSpec) -> bool:
        try:
            check_prompt_slots(spec)  # a preset's [slot] unfilled: nothing is queued
        except StepwiseError as exc:
            self._failed(user_text(exc))
            return True
        return False

    def _add_now(self) -> None:
        gen = self.generation
        base = gen.spec(None)  # the form's job, read here on the UI thread (edited meanwhile?)
        if self._slot_unfilled(base):
            return
        inputs = gen.inputs
        pictures: tuple[Any, Any, tuple[Any, ...]] = (None, None, ())
        if inputs.image is not None or inputs.refs:
            image, mask = inputs.snapshot()
            pictures = (image, mask, inputs.ref_pixels())

        def spec_of(files: InputFiles | None) -> JobSpec:
            if files is None:
                return base
            return dataclasses.replace(
                base,
                image=None if files.image is None else str(files.image),
                mask=None if files.mask is None else str(files.mask),
                refs=tuple(str(p) for p in files.refs),
            )

        self.add_button.setEnabled(False)
        adder = self.model.add(
            pictures,
            spec_of,
            self.count.value(),
            self.random_seeds.isChecked(),
            photo_name=inputs.photo_name,  # kept only with a picture (JobQueue.add)
        )
        adder.finished.connect(lambda: self.add_button.setEnabled(True))

    def _added(self, count: int) -> None:
        self.panel.set_status(_tr("{count} job(s) added to the queue.").format(count=count))
        if self.dock is not None:
            self.dock.show()
            self.dock.raise_()

    def _failed(self, text: str) -> None:
        self.panel.set_status(_tr("Queue: {message}").format(message=text))

    def _result_ready(self, _run_dir: str) -> None:
        workspace = self.window.workspace
        if workspace is not None:
            workspace.refresh_history()  # the job's result joins the history strip

    # --- the start-up offer
    def offer_to_continue(self) -> None:
        self.model.refresh()
        unfinished = self.model.counts.waiting  # the whole queue's, from its indexes
        # A queue the user paused stays paused: it is not offered at every start.
        if not unfinished or self.model.running or self.model.paused:
            return
        answer = QMessageBox.question(
            self.window if isinstance(self.window, QWidget) else None,
            _tr("Continue the queue?"),
            _tr(
                "The queue has {count} unfinished jobs (an interrupted one resumes from its "
                "last finished step). Continue the queue now?"
            ).format(count=unfinished),
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.model.start()

    # --- comparing
    def open_compare(self, dirs: list[Path]) -> CompareDialog | None:
        pipeline = self.generation.session.pipeline
        runs: list[RunSnapshot] = []
        for folder in dirs:
            try:
                snap = pipeline.snapshot(Path(folder))
            except Exception as exc:
                log.info("not comparing %s: %s", folder, exc)
                continue
            if snap.result is not None and Path(snap.result).is_file():
                runs.append(snap)
        if not runs:
            return None
        parent = self.window if isinstance(self.window, QWidget) else None
        dialog = CompareDialog(runs, parent)
        dialog.use_requested.connect(lambda run: self._use(dialog, run))
        dialog.save_requested.connect(self._save)
        dialog.discard_requested.connect(lambda rest: self._discard(dialog, rest))
        self.compare = dialog
        dialog.show()
        return dialog

    def _show_result(self, run: RunSnapshot) -> Any:
        workspace = self.window.workspace
        if workspace is None:
            return None
        from app.ui.workspace.history_strip import entries_of

        results = [e for e in entries_of(run) if e.kind == "result"]
        if not results:
            return None
        workspace.show_entry(results[-1], at_once=True)  # Use / Save take it next
        return workspace

    def _use(self, dialog: CompareDialog, run: RunSnapshot) -> None:
        workspace = self._show_result(run)
        if workspace is not None and workspace.use_as_new_image():
            dialog.accept()

    def _save(self, run: RunSnapshot) -> Path | None:
        workspace = self._show_result(run)
        return workspace.save_as() if workspace is not None else None

    def _discard(self, dialog: CompareDialog, rest: list[RunSnapshot]) -> None:
        names = "\n".join(
            _tr("{prompt} (seed {seed})").format(prompt=r.spec.prompt, seed=r.spec.seed)
            for r in rest
        )
        answer = QMessageBox.question(
            dialog,
            _tr("Discard the rest?"),
            _tr("Move {count} other runs to the trash?\n{names}").format(
                count=len(rest), names=names
            ),
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        for run in rest:
            try:
                if not self.generation.discard_run(Path(run.dir)):
                    continue
            except Exception as exc:
                self.panel.set_status(_tr("Queue: {message}").format(message=user_text(exc)))
                continue
            job_id = Path(run.dir).name
            if self.model.has_job(job_id):
                self.model.remove(job_id)
        self.model.refresh()
        dialog.accept()

    def shutdown(self) -> bool:
        return self.model.shutdown()


def install(window: WindowHost, panel: GenerationPanel, paths: AppPaths) -> QueueController:
    """The Queue dock, "Add to queue" beside Run all, and the start-up offer."""
    controller = QueueController(window, panel, paths)
    controller.dock = window.add_side_panel(
        controller.queue_panel, _tr("Queue"), object_name=QUEUE_DOCK_NAME
    )
    if isinstance(window, QObject):
        FirstShow(window, controller.offer_to_continue)
    app = QCoreApplication.instance()
    if app is not None:
        app.aboutToQuit.connect(controller.shutdown)
    remember_random_seeds(controller, window.settings, panel)
    return controller


def remember_random_seeds(
    controller: QueueController, settings: Settings, panel: GenerationPanel
) -> None:
    """The "random seeds" choice starts as saved; each click is saved at once (the whole
    settings file, atomically, through the job form's saver, as the Setup sections are)."""
    controller.random_seeds.setChecked(settings.queue_random_seeds)

    def toggled(checked: bool) -> None:
        settings.queue_random_seeds = checked
        panel.model.form.save_now()

    controller.random_seeds.toggled.connect(toggled)

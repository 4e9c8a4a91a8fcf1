"""The generation model: the job form, the job's inputs, the current run and its state, and the
actions on it. Widgets (app/ui/generation/) bind to this and decide nothing themselves: whether
a start continues the current run or makes a new one, which stage is next, what the engine
warns about — all here, testable with a QCoreApplication.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.jobs.call_runner import CallRunner
from app.jobs.eta import StageTimes
from app.jobs.job_form import JobForm
from app.jobs.job_inputs import InputFiles, InputWriter, JobInputs
from app.jobs.job_notes import mask_empty, notes_of, repaints_everything
from app.jobs.model_input import job_model_input
from app.jobs.run_session import RunSession
from app.jobs.run_state import TERMINAL_STATES, RunState, next_stage
from app.jobs.values import carried_values, neutral_changes, same_job, spec_changes
from app.pipeline import failure_for
from app.pipeline.api import DeviceInfo, EngineCatalog, RunSnapshot
from app.pipeline.failures import Failure, FailureKind, Note
from app.pipeline.job.params import (
    DIFFUSION_MODEL,
    EXPAND,
    LLM_MODEL,
    LORA_DIR,
    PROMPT,
    VAE_MODEL,
)
from app.pipeline.job.presets import outpaint_prompt
from app.pipeline.job.spec import JobSpec, spec_from_values, values_from_spec

log = logging.getLogger(__name__)

INPUTS_FOLDER = "inputs"


class GenerationModel(QObject):
    """One owner for the job form, the run state and the actions (QtCore only)."""

    state_changed = Signal(object)  # RunState
    run_changed = Signal(object)  # RunSnapshot | None
    notes_changed = Signal(list)  # list[Note]
    catalog_changed = Signal(object)  # EngineCatalog
    devices_changed = Signal(list)  # list[DeviceInfo]
    devices_failed = Signal(str)
    refused = Signal(list)  # the names of the fields a start needs (Param.name), nothing ran
    failed = Signal(object)  # Failure: a run stopped with one, or the pipeline refused a start
    runner_started = Signal(object, str)  # CallRunner, "execute" | "decode"
    runner_ended = Signal(str)  # the terminal kind

    def __init__(self, form: JobForm, session: RunSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.form = form
        self.session = session
        self.inputs = JobInputs(self)
        self.state = RunState.IDLE
        # A start (Run all, Add to queue) held until the memory plan says the job fits
        # (ui/generation/fit_guard.FitGate sets it; nothing runs meanwhile).
        self.start_held = False
        # This computer's stage times (app/jobs/eta.py), from the runs that end here; the
        # queue shares them. The Run tab's time left counts the stages after diffuse with them.
        self.stage_times = StageTimes()
        self.runner_ended.connect(self._learn_stage_times)
        self.catalog: EngineCatalog | None = None
        self.devices: list[DeviceInfo] = [DeviceInfo("cpu", "CPU")]
        self.notes: list[Note] = []
        self.only: str | None = None  # the one stage a "Run next stage" runs
        self.decoding: int | None = None  # the step being decoded
        self.last_failure: Failure | None = None
        self._writer: InputWriter | None = None
        self._state_before_decode = RunState.IDLE
        # A branch not run yet: a change of the form updates it instead of making a new run.
        self._fresh_branch: Path | None = None
        self.model_input = job_model_input(form, self.inputs, self)  # panes and the plan listen
        form.changed.connect(self._update_notes)
        self.inputs.changed.connect(self._update_notes)
        session.run_changed.connect(self.run_changed)
        session.runner_started.connect(self._bind_runner)
        session.runner_ended.connect(self._runner_ended)
        self._update_notes()

    # --- reading ------------------------------------------------------------------------------

    @property
    def run(self) -> RunSnapshot | None:
        return self.session.run

    @property
    def runner(self) -> CallRunner | None:
        return self.session.runner

    def missing(self) -> list[str]:
        """The fields a start needs that are empty or name no file (an outpaint runs with
        klein's fixed instruction when its prompt is empty: presets.outpaint_prompt)."""
        out = []
        for p in (DIFFUSION_MODEL, LLM_MODEL, VAE_MODEL):
            value = self.form.get(p)
            if not value or not Path(value).is_file():
                out.append(p.name)
        lora = self.form.get(LORA_DIR)
        if lora and not Path(lora).is_dir():
            out.append(LORA_DIR.name)
        if not outpaint_prompt(self.form.get(PROMPT), self.form.get(EXPAND)).strip():
            out.append(PROMPT.name)
        return out

    def spec(self, files: InputFiles | None) -> JobSpec:
        """The job the form and the inputs describe."""
        values = self.form.values()
        values[PROMPT.name] = values[PROMPT.name].strip()
        if files is None:
            return spec_from_values(values)
        image = str(files.image) if files.image is not None else None
        mask = str(files.mask) if files.mask is not None else None
        refs = tuple(str(p) for p in files.refs)
        return spec_from_values(values, image=image, mask=mask, refs=refs)

    def can_resume(self) -> bool:
        """Paused, or stopped (suspended, failed) with finished work to go on from; not while
        idle or finished, and not after Cancel: then Run all is the one way on (as its status
        line says), not three buttons that do the same."""
        if self.state in (RunState.PAUSED, RunState.PAUSING):
            return True
        run = self.run
        stopped = self.state in (RunState.SUSPENDED, RunState.FAILED)
        return stopped and run is not None and run.resumable

    # --- engine facts -------------------------------------------------------------------------

    def probe_engine(self) -> None:
        """Asks the engine (off the UI thread) for its devices and its samplers."""
        self.session.probe_engine(
            self._devices_found, self._catalog_found, self.devices_failed.emit
        )

    def set_catalog(self, catalog: EngineCatalog) -> None:
        self._catalog_found(catalog)

    def _devices_found(self, devices: list[DeviceInfo]) -> None:
        cpu = [d for d in devices if d.name == "cpu"] or [DeviceInfo("cpu", "CPU")]
        self.devices = cpu + [d for d in devices if d.name != "cpu"]
        self.devices_changed.emit(list(self.devices))

    def _catalog_found(self, catalog: EngineCatalog) -> None:
        self.catalog = catalog
        self.catalog_changed.emit(catalog)
        self._update_notes()

    def _learn_stage_times(self, _kind: str) -> None:
        if self.run is not None:
            self.stage_times.record_run(self.run)

    def rest_after_diffuse(self) -> float | None:
        """The seconds the stages after diffuse take (this computer's times; None: unknown)."""
        run = self.run
        if run is None:
            return None
        total = 0.0
        for stage in ("vae-decode", "composite"):
            seconds = self.stage_times.estimate(stage, run.spec)
            if seconds is None:
                return None if stage == "vae-decode" else total
            total += seconds
        return total

    def mask_empty(self) -> bool:
        """A picture is open and its mask repaints nothing (job_notes.mask_empty)."""
        return mask_empty(self.inputs)

    def repaints_everything(self) -> bool:
        """A start would repaint the whole picture only because its mask is empty."""
        return repaints_everything(self.inputs, self.form.values())

    def _update_notes(self, *_: Any) -> None:
        notes = notes_of(self.inputs, self.form.values(), self.catalog)
        if notes != self.notes:
            self.notes = notes
            self.notes_changed.emit(list(notes))

    # --- state --------------------------------------------------------------------------------

    def _set_state(self, state: RunState) -> None:
        if state is not self.state:
            self.state = state
            self.state_changed.emit(state)

    # --- actions ------------------------------------------------------------------------------

    def run_all(self) -> None:
        self._start(None)

    def run_next_stage(self) -> None:
        self._start("next")

    def _start(self, only: str | None) -> None:
        if self.state.busy or self.session.busy:
            return
        missing = self.missing()
        if missing:
            self.refused.emit(missing)
            return
        self.last_failure = None
        self._set_state(RunState.PREPARING)
        if self.inputs.image is None and not self.inputs.refs:
            self._launch(only, None)
            return
        folder = self.session.paths.cache_dir / INPUTS_FOLDER
        writer = self.inputs.writer(folder, self)
        writer.written.connect(lambda files: self._launch(only, files))
        writer.failed.connect(
            lambda text: self._refuse(Failure(FailureKind.INPUT, "", text))  # before any stage
        )
        writer.finished.connect(self._writer_done)
        self._writer = writer
        writer.start()

    def _writer_done(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.wait()
            writer.deleteLater()

    def _refuse_exc(self, exc: BaseException, stage: str) -> None:
        """An action raised: its failure; a bug is logged with its traceback."""
        failure = failure_for(exc, stage)
        if failure.kind is FailureKind.BUG:
            log.error("%s failed unexpectedly", stage or "an action", exc_info=exc)
        else:
            log.info("The pipeline refused (%s): %s", failure.kind, failure.detail)
        self._refuse(failure)

    def _refuse(self, failure: Failure) -> None:
        self.last_failure = failure
        self._set_state(RunState.FAILED if self.run is not None else RunState.IDLE)
        self.failed.emit(self.last_failure)

    def _launch(self, only: str | None, files: InputFiles | None) -> None:
        try:
            run = self._run_for(self.spec(files), files.photo_name if files else None)
        except Exception as exc:  # the pipeline refused the job up front: no stage ran
            self._refuse_exc(exc, "")
            return
        stage = None
        if only == "next":
            stage = next_stage(run)
            if stage is None:
                self._set_state(RunState.FINISHED if run.finished else RunState.IDLE)
                return
        self._execute(stage)

    def _run_for(self, spec: JobSpec, photo: str | None) -> RunSnapshot:
        """The current run when it describes the same result and is not finished (changes that
        do not change the result, e.g. devices, are applied to it); else a new run. `photo`:
        the name of the document the job's image is a copy of."""
        run = self.session.run
        if (
            run is not None
            and not run.finished
            and (same_job(run.spec, spec) or self._updatable(run))
        ):
            changes = spec_changes(run.spec, spec)
            return self.session.update_run(changes, photo) if changes else run
        return self.session.create_run(spec, photo)

    def _updatable(self, run: RunSnapshot) -> bool:
        """A run with no work of its own takes any change (no orphaned run is left behind):
        a branch not run since it was made, or a run nothing has been done for yet."""
        if self._fresh_branch is not None and Path(run.dir) == self._fresh_branch:
            return True
        return not run.resumable and all(s.state not in ("done", "cached") for s in run.stages)

    def _execute(self, stage: str | None) -> None:
        self.only = stage
        self.decoding = None
        self._fresh_branch = None
        try:
            self.session.execute(only=stage)
        except Exception as exc:
            self._refuse_exc(exc, stage or "")

    def pause(self) -> None:
        runner = self.runner
        if runner is not None and self.state is RunState.RUNNING and self.decoding is None:
            runner.pause()
            self._set_state(RunState.PAUSING)

    def resume(self) -> None:
        """Continues a paused run, or starts the current run again from where it stopped."""
        runner = self.runner
        if runner is not None and self.state in (RunState.PAUSED, RunState.PAUSING):
            runner.resume()
            self._set_state(RunState.RUNNING)
        elif not self.state.busy and self.run is not None and not self.run.finished:
            self.last_failure = None
            self._set_state(RunState.PREPARING)
            # The run goes on as it is, on the devices the form names now (from its checkpoint).
            changes = neutral_changes(self.run.spec, self.form.values())
            if changes:
                try:
                    self.session.update_run(changes)
                except Exception as exc:  # the pipeline refused: say why
                    self._refuse_exc(exc, "")
                    return
            self._execute(None)

    def suspend(self) -> None:
        runner = self.runner
        if runner is not None and self.state.busy and self.decoding is None:
            runner.suspend()
            self._set_state(RunState.SUSPENDING)

    def cancel(self) -> None:
        runner = self.runner
        if runner is not None and self.state.busy:
            runner.cancel()
            self._set_state(RunState.CANCELLING)

    def decode_step(self, step: int) -> None:
        """Decodes the checkpoint after `step` (the run's result is unchanged)."""
        if self.state.busy or self.run is None:
            return
        self._state_before_decode = self.state
        self.decoding = step
        self._set_state(RunState.RUNNING)
        try:
            self.session.decode_step(step)
        except Exception as exc:
            self.decoding = None
            self._refuse_exc(exc, "vae-decode")

    def accept_step(self, step: int) -> None:
        """Finishes the run from `step`: its x0 decoded and composited, no later step run."""
        if self.state.busy or self.session.busy or self.run is None:
            return
        self.last_failure = None
        self._set_state(RunState.RUNNING)
        try:
            self.session.accept_step(step)
        except Exception as exc:  # the pipeline refused: say why
            self._refuse_exc(exc, "vae-decode")

    def branch(self, step: int, changes: Mapping[str, Any] | None = None) -> RunSnapshot | None:
        """A new run sharing steps 1..step; `changes` (JobSpec fields) default to what the form
        changed since the run was made (its seed kept)."""
        run = self.run
        if self.state.busy or run is None:
            return None
        if changes is None:
            spec = spec_from_values(
                self.form.values(), image=run.spec.image, mask=run.spec.mask, refs=run.spec.refs
            )
            changes = spec_changes(run.spec, spec)
        try:
            branched = self.session.branch(step, changes)
        except Exception as exc:
            self._refuse_exc(exc, "diffuse")
            return None
        self._fresh_branch = Path(branched.dir)
        self.form.update(values_from_spec(branched.spec))  # the form describes the branch
        self._set_state(RunState.IDLE)
        return branched

    def open_run(self, run_dir: Path, *, take_settings: bool = True) -> RunSnapshot | None:
        """Makes a run current (to resume it or show its result). With `take_settings` its job's
        settings go into the form by the rule of every saved job (values.carried_values), less
        its model files: the devices and models the user chose stay (the run goes on with its
        own models, on the devices the form names). Without, the form is left alone (the UI
        offers the settings, app/ui/runs/)."""
        if self.state.busy:
            return None
        try:
            run = self.session.open_run(run_dir)
        except Exception as exc:
            self._refuse_exc(exc, "")
            return None
        self._fresh_branch = None
        self.last_failure = None
        if take_settings:
            here = self.form.values()
            self.form.update(carried_values(run.spec, here, models=False, frame=True))
        if run.finished:
            self._set_state(RunState.FINISHED)
        else:
            self._set_state(RunState.SUSPENDED if run.resumable else RunState.IDLE)
        return run

    open_unfinished = open_run

    def discard_run(self, run_dir: Path) -> bool:
        """Moves a run folder to the trash (or deletes it). False for the current run while it
        works; the pipeline's refusal (RunBusy, a folder that is no run) is raised."""
        current = self.run is not None and Path(self.run.dir) == Path(run_dir)
        if current and (self.state.busy or self.session.busy):
            return False
        self.session.discard_run(Path(run_dir))
        if current:
            self._fresh_branch = None
            self._set_state(RunState.IDLE)
        return True

    def new_run(self) -> None:
        """Forgets the current run: the next start makes a new one."""
        if self.state.busy:
            return
        self.session.clear_run()
        self._set_state(RunState.IDLE)

    def shutdown(self) -> bool:
        if self._writer is not None:
            self._writer.wait()
        return self.session.shutdown()

    # --- the runner ---------------------------------------------------------------------------

    def _bind_runner(self, runner: CallRunner) -> None:
        runner.paused.connect(lambda _step: self._set_state(RunState.PAUSED))
        runner.resumed.connect(lambda _step: self._set_state(RunState.RUNNING))
        runner.run_failed.connect(self._run_failed)
        if self.state in (RunState.PREPARING, RunState.IDLE) or self.decoding is not None:
            self._set_state(RunState.RUNNING)
        self.runner_started.emit(runner, "decode" if self.decoding is not None else "execute")

    def _run_failed(self, failure: Failure) -> None:
        self.last_failure = failure
        self.failed.emit(failure)

    def _runner_ended(self, kind: str) -> None:
        decoded = self.decoding is not None
        self.decoding = None
        run = self.run
        if decoded and kind == "finished":
            self._set_state(self._state_before_decode)
        elif kind == "finished":
            done = run is not None and run.finished
            self._set_state(RunState.FINISHED if done else RunState.IDLE)
        else:
            self._set_state(TERMINAL_STATES.get(kind, RunState.FAILED))
        self.runner_ended.emit(kind)

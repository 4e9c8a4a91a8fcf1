"""The jobs layer's handle on the pipeline: the current run (a frozen RunSnapshot), one runner at
a time, devices, the engine's catalog and the unfinished runs to offer at start-up. Nothing above
jobs/ imports app.engine or holds a live run object; runs are named by their folder."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Signal

from app.core.paths import AppPaths
from app.jobs.call_runner import CallRunner
from app.jobs.run_history import RunLister, move_to_trash
from app.jobs.workers import EngineWorker, suspend_and_wait
from app.pipeline.api import DeviceInfo, EngineCatalog, PipelineAPI, RunSnapshot, RunSummary
from app.pipeline.job.spec import JobSpec

log = logging.getLogger(__name__)

SHUTDOWN_WAIT_MS = 15_000


class EngineProbe(EngineWorker):
    """Asks the pipeline (and through it the engine) for its devices and catalog, off the UI
    thread; either may fail on its own (no engine yet, an old engine)."""

    devices_found = Signal(list)  # list[DeviceInfo]
    catalog_found = Signal(object)  # EngineCatalog
    probe_failed = Signal(str)

    def __init__(self, pipeline: PipelineAPI, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("EngineProbe")
        self._pipeline = pipeline

    def work(self) -> None:
        try:
            self.catalog_found.emit(self._pipeline.catalog())
        except Exception as exc:  # the engine is missing or broken
            log.warning("Asking the engine for its samplers failed: %s", exc)
        try:
            found = self._pipeline.devices()
        except Exception as exc:  # the UI then offers the CPU only
            log.warning("Listing devices failed: %s", exc)
            self.probe_failed.emit(str(exc))
            return
        self.devices_found.emit(list(found))


def make_pipeline(
    paths: AppPaths, engine: Path | None, cache_limit_mb: int | None = None
) -> PipelineAPI:
    """The real pipeline, behind the PipelineAPI protocol (None: the saved cache limit)."""
    from app.pipeline import Pipeline

    return Pipeline(paths, engine, cache_limit_mb)


class RunSession(QObject):
    """Owns the pipeline, the current run's snapshot and the active CallRunner."""

    run_changed = Signal(object)  # RunSnapshot | None
    runner_started = Signal(object)  # CallRunner, already connected and started
    runner_ended = Signal(str)  # the terminal kind of the runner that ended

    def __init__(
        self,
        paths: AppPaths,
        *,
        engine: Path | None = None,
        pipeline: PipelineAPI | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.paths = paths
        self.engine = engine
        self.cache_limit_mb: int | None = None  # None: the settings file's
        self._pipeline = pipeline
        self._pipeline_lock = threading.Lock()
        self.run: RunSnapshot | None = None
        self.runner: CallRunner | None = None
        self._probe: EngineProbe | None = None
        self._listers: list[RunLister] = []
        # Where a discarded run goes; tests replace it (the real trash is the user's).
        self.trash: Callable[[Path], bool] | None = move_to_trash

    # --- the pipeline ------------------------------------------------------------------------

    @property
    def pipeline(self) -> PipelineAPI:
        with self._pipeline_lock:
            if self._pipeline is None:
                self._pipeline = make_pipeline(self.paths, self.engine, self.cache_limit_mb)
            return self._pipeline

    def engine_binary(self) -> Path:
        """The sd-stage this session's pipeline runs (PipelineAPI.engine_binary)."""
        return self.pipeline.engine_binary()

    def set_engine(self, engine: Path | None) -> None:
        """A different sd-stage (settings); the next call builds a new pipeline."""
        if engine != self.engine:
            self.engine = engine
            with self._pipeline_lock:
                self._pipeline = None

    def set_cache_limit(self, limit_mb: int) -> None:
        """A new stage-cache size (settings): the next call builds a pipeline with it, so it
        applies now, not after a restart."""
        if limit_mb != self.cache_limit_mb:
            self.cache_limit_mb = limit_mb
            with self._pipeline_lock:
                self._pipeline = None

    def unfinished_runs(self) -> list[RunSummary]:
        try:
            return list(self.pipeline.unfinished_runs())
        except Exception as exc:  # no offer rather than no start
            log.warning("Could not list unfinished runs: %s", exc)
            return []

    def list_runs(self, *, unfinished_only: bool = False) -> RunLister:
        """Starts listing the runs off the UI thread; connect to the lister's `listed`."""
        lister = RunLister(self.pipeline, unfinished_only=unfinished_only, parent=self)
        lister.finished.connect(lister.deleteLater)
        self._listers.append(lister)
        lister.finished.connect(lambda: self._listers.remove(lister))
        return lister

    def run_inputs(self, run_dir: Path) -> tuple[Path | None, Path | None]:
        return self.pipeline.run_inputs(Path(run_dir))

    def discard_run(self, run_dir: Path) -> None:
        """Moves the run folder to the OS trash (else deletes it); never the busy current run."""
        run_dir = Path(run_dir)
        current = self.run is not None and Path(self.run.dir) == run_dir
        if current:
            self._require_idle()
        self.pipeline.discard_run(run_dir, trash=self.trash)
        if current:
            self._set_run(None)

    def probe_engine(
        self,
        on_devices: Callable[[list[DeviceInfo]], None],
        on_catalog: Callable[[EngineCatalog], None],
        on_failed: Callable[[str], None],
    ) -> EngineProbe:
        """Starts an engine probe (one at a time) with its callbacks connected first."""
        if self._probe is not None and self._probe.isRunning():
            return self._probe
        self._probe = EngineProbe(self.pipeline, self)
        self._probe.devices_found.connect(on_devices)
        self._probe.catalog_found.connect(on_catalog)
        self._probe.probe_failed.connect(on_failed)
        self._probe.start()
        return self._probe

    # --- runs --------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.runner is not None and self.runner.isRunning()

    def _set_run(self, run: RunSnapshot | None) -> RunSnapshot | None:
        self.run = run
        self.run_changed.emit(run)
        return run

    def create_run(self, spec: JobSpec, photo_name: str | None = None) -> RunSnapshot:
        """A new run; `photo_name`: the document's file name (the job's image is a copy)."""
        self._require_idle()
        run = self.pipeline.create_run(spec, photo_name=photo_name)
        self._set_run(run)
        return run

    def open_run(self, run_dir: Path | str) -> RunSnapshot:
        self._require_idle()
        run = self.pipeline.snapshot(Path(run_dir))
        self._set_run(run)
        return run

    def update_run(self, changes: Mapping[str, Any], photo_name: str | None = None) -> RunSnapshot:
        """The current run's job changed in ways only some stages depend on."""
        self._require_idle()
        if self.run is None:
            raise RuntimeError("no run to update")
        run = self.pipeline.update_run(self.run.dir, changes, photo_name=photo_name)
        self._set_run(run)
        return run

    def reload_run(self) -> RunSnapshot | None:
        """Re-reads the run after a runner ended (the worker updated it on disk)."""
        if self.run is None or self.busy:
            return self.run
        try:
            self._set_run(self.pipeline.snapshot(self.run.dir))
        except Exception as exc:  # keep the last snapshot
            log.warning("Could not re-read %s: %s", self.run.dir, exc)
        return self.run

    def branch(self, from_step: int, changes: Mapping[str, Any]) -> RunSnapshot:
        self._require_idle()
        if self.run is None:
            raise RuntimeError("no run to branch from")
        run = self.pipeline.branch(self.run.dir, from_step, changes)
        self._set_run(run)
        return run

    def clear_run(self) -> None:
        self._require_idle()
        self._set_run(None)

    # --- runners -----------------------------------------------------------------------------

    def execute(self, *, only: str | None = None) -> CallRunner:
        """Starts PipelineAPI.execute(run_dir, only=...) in a new runner."""
        self._require_idle()
        if self.run is None:
            raise RuntimeError("no run")
        return self._start(
            CallRunner.for_execute(self.pipeline, self.run.dir, only=only, parent=self)
        )

    def decode_step(self, step: int) -> CallRunner:
        self._require_idle()
        if self.run is None:
            raise RuntimeError("no run")
        return self._start(
            CallRunner.for_decode_step(self.pipeline, self.run.dir, step, parent=self)
        )

    def accept_step(self, step: int) -> CallRunner:
        """Finishes the run from `step` without its later steps (PipelineAPI.accept_step)."""
        from app.pipeline.control import RunControl

        self._require_idle()
        if self.run is None:
            raise RuntimeError("no run")
        pipeline, run_dir = self.pipeline, self.run.dir
        return self._start(
            CallRunner(
                lambda c: pipeline.accept_step(run_dir, step, c), RunControl(), self, name="accept"
            )
        )

    def _start(self, runner: CallRunner) -> CallRunner:
        self.runner = runner
        runner.run_ended.connect(self._runner_ended)
        self.runner_started.emit(runner)
        runner.start()
        return runner

    def _runner_ended(self, kind: str) -> None:
        runner = self.sender()
        if isinstance(runner, CallRunner):
            # run_ended is the thread's last act; let it exit before the run is re-read.
            runner.wait(SHUTDOWN_WAIT_MS)
            if runner is self.runner:
                self.runner = None
            runner.deleteLater()
        self.reload_run()
        self.runner_ended.emit(kind)

    def _require_idle(self) -> None:
        if self.busy:
            raise RuntimeError("a run is in progress")

    def shutdown(self, wait_ms: int = SHUTDOWN_WAIT_MS) -> bool:
        """Suspends an active diffuse (the GPU is freed, the run stays resumable) and waits.

        Called when the window closes; returns False if the runner did not stop in time.
        """
        runner = self.runner
        ok = runner is None or suspend_and_wait(runner, runner, wait_ms)
        if self._probe is not None:
            ok = self._probe.stop(wait_ms) and ok  # its engine child is ended, not waited for
        for lister in list(self._listers):
            if shiboken6.isValid(lister):  # a finished one may be deleted before it is removed
                ok = lister.wait(wait_ms) and ok
        return ok

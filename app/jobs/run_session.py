"""The UI's handle on the pipeline: the current run, one runner at a time, devices, and the
unfinished runs to offer at start-up. The UI never imports app.engine or drives the pipeline
itself; it asks this object and binds to the StageRunner it hands out."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal

from app.core.paths import AppPaths
from app.jobs.stage_runner import StageRunner

log = logging.getLogger(__name__)

SHUTDOWN_WAIT_MS = 15_000


class DeviceProbe(QThread):
    """Asks the pipeline (and through it the engine) which devices exist, off the UI thread."""

    devices_found = Signal(list)  # [(name, description), ...]
    probe_failed = Signal(str)

    def __init__(self, list_devices: Callable[[], list[Any]], parent: QObject | None = None):
        super().__init__(parent)
        self.setObjectName("DeviceProbe")
        self._list_devices = list_devices

    def run(self) -> None:  # noqa: D102 - QThread entry point
        try:
            found = self._list_devices()
        except Exception as exc:  # the engine is missing or broken: the UI offers CPU only
            log.warning("Listing devices failed: %s", exc)
            self.probe_failed.emit(str(exc))
            return
        self.devices_found.emit([_device_pair(d) for d in found])


def _device_pair(device: Any) -> tuple[str, str]:
    if isinstance(device, tuple | list) and device:
        name = str(device[0])
        return name, str(device[1]) if len(device) > 1 else name
    if isinstance(device, dict):
        name = str(device.get("name", ""))
        return name, str(device.get("description", name))
    if isinstance(device, str):
        return device, device
    name = str(getattr(device, "name", device))
    return name, str(getattr(device, "description", name))


class RunSession(QObject):
    """Owns the Pipeline, the current Run and the active StageRunner."""

    run_changed = Signal(object)  # the current Run (or None)
    runner_started = Signal(object)  # StageRunner, already connected and started
    runner_ended = Signal(str)  # the terminal kind of the runner that ended

    def __init__(
        self,
        paths: AppPaths,
        *,
        engine: Path | None = None,
        pipeline: Any = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.paths = paths
        self.engine = engine
        self._pipeline = pipeline
        self._pipeline_lock = threading.Lock()
        self.run: Any = None
        self.runner: StageRunner | None = None
        self._finished_runners: list[StageRunner] = []
        self._probe: DeviceProbe | None = None

    # --- the pipeline ------------------------------------------------------------------------

    @property
    def pipeline(self) -> Any:
        with self._pipeline_lock:
            if self._pipeline is None:
                from app.pipeline.runner import Pipeline

                self._pipeline = Pipeline(self.paths, self.engine)
            return self._pipeline

    def set_engine(self, engine: Path | None) -> None:
        """A different sd-stage (settings); the next call builds a new Pipeline."""
        if engine != self.engine:
            self.engine = engine
            with self._pipeline_lock:
                self._pipeline = None

    def unfinished_runs(self) -> list[Any]:
        try:
            return list(self.pipeline.unfinished_runs())
        except Exception as exc:
            log.warning("Could not list unfinished runs: %s", exc)
            return []

    def can_list_devices(self) -> bool:
        return callable(self._device_lister())

    def _device_lister(self) -> Callable[[], list[Any]] | None:
        pipeline = self.pipeline
        lister = getattr(pipeline, "devices", None) or getattr(pipeline, "list_devices", None)
        return lister if callable(lister) else None

    def probe_devices(
        self, on_found: Callable[[list], None], on_failed: Callable[[str], None]
    ) -> DeviceProbe | None:
        """Starts a device probe (one at a time) with its callbacks connected first; None when
        the pipeline cannot list devices."""
        if self._probe is not None and self._probe.isRunning():
            return self._probe
        lister = self._device_lister()
        if lister is None:
            return None
        self._probe = DeviceProbe(lister, self)
        self._probe.devices_found.connect(on_found)
        self._probe.probe_failed.connect(on_failed)
        self._probe.start()
        return self._probe

    # --- runs --------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.runner is not None and self.runner.isRunning()

    def create_run(self, spec: Any) -> Any:
        self._require_idle()
        self.run = self.pipeline.create_run(spec)
        self.run_changed.emit(self.run)
        return self.run

    def open_run(self, run_dir: Path | str) -> Any:
        self._require_idle()
        self.run = self.pipeline.open_run(Path(run_dir))
        self.run_changed.emit(self.run)
        return self.run

    def reload_run(self) -> Any:
        """Re-reads run.json after a runner ended (the worker updated it on disk)."""
        if self.run is None or self.busy:
            return self.run
        try:
            self.run = self.pipeline.open_run(self.run.dir)
        except Exception as exc:
            log.warning("Could not re-read %s: %s", self.run.dir, exc)
        return self.run

    def branch(self, from_step: int, **changes: Any) -> Any:
        self._require_idle()
        if self.run is None:
            raise RuntimeError("no run to branch from")
        self.run = self.pipeline.branch(self.run, from_step, **changes)
        self.run_changed.emit(self.run)
        return self.run

    def clear_run(self) -> None:
        self._require_idle()
        self.run = None
        self.run_changed.emit(None)

    # --- runners -----------------------------------------------------------------------------

    def execute(self, *, only: str | None = None) -> StageRunner:
        """Starts Pipeline.execute(run, only=...) in a new runner."""
        self._require_idle()
        if self.run is None:
            raise RuntimeError("no run")
        return self._start(StageRunner.for_execute(self.pipeline, self.run, only=only, parent=self))

    def decode_step(self, step: int) -> StageRunner:
        self._require_idle()
        if self.run is None:
            raise RuntimeError("no run")
        return self._start(StageRunner.for_decode_step(self.pipeline, self.run, step, parent=self))

    def start_runner(self, runner: StageRunner) -> StageRunner:
        """Starts a runner built elsewhere (tests, benches)."""
        self._require_idle()
        return self._start(runner)

    def _start(self, runner: StageRunner) -> StageRunner:
        self.runner = runner
        runner.run_ended.connect(self._runner_ended)
        self.runner_started.emit(runner)
        runner.start()
        return runner

    def _runner_ended(self, kind: str) -> None:
        runner = self.sender()
        if isinstance(runner, StageRunner):
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
        ok = True
        if self.runner is not None and self.runner.isRunning():
            self.runner.suspend()
            ok = self.runner.wait(wait_ms)
            if not ok:
                self.runner.cancel()
                ok = self.runner.wait(wait_ms)
        if self._probe is not None and self._probe.isRunning():
            ok = self._probe.wait(wait_ms) and ok
        return ok

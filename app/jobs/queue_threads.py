"""The queue's threads for the GUI (app/jobs/queue_model.py): the worker (`run_queue`) and the
adder (the painted inputs written, the variations made and added), each off the UI thread."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Signal

from app.jobs.job_inputs import InputFiles, write_inputs
from app.jobs.run_state import log_error, user_text
from app.jobs.workers import AppThread
from app.pipeline import (
    JobQueue,
    QueuedJob,
    Sources,
    WorkGate,
    check_new_jobs,
    run_queue,
    variations,
)
from app.pipeline import events as ev
from app.pipeline.api import PipelineAPI
from app.pipeline.control import RunControl
from app.pipeline.job.spec import JobSpec
from app.pipeline.work_policy import IDLE, WorkPolicy

log = logging.getLogger(__name__)


class QueueWorker(AppThread):
    """`run_queue` off the UI thread; `ended(reason)` once, with the worker's reason."""

    job_event = Signal(str, object)  # job id, app.pipeline.events event
    work_state = Signal(object)  # app.pipeline.work_policy.Verdict: waiting (why) / working
    ended = Signal(str)

    def __init__(
        self,
        pipeline: PipelineAPI,
        queue: JobQueue,
        parent: QObject | None = None,
        gate: WorkGate | None = None,
    ):
        super().__init__(parent)
        self.setObjectName("QueueWorker")
        self.control = RunControl()
        self._pipeline, self._queue = pipeline, queue
        self.gate = gate or WorkGate()
        self.gate.on_state = self.work_state.emit

    def run(self) -> None:  # QThread entry point
        def on_event(job: QueuedJob, _run_dir: Path | None, event: ev.Event) -> None:
            self.job_event.emit(job.id, event)

        reason = "failed"
        try:
            report = run_queue(self._pipeline, self._queue, self.control, on_event, gate=self.gate)
            reason = report.reason
        except Exception:  # logged; the dock shows the jobs as they are
            log.exception("the queue worker failed")
        finally:
            self.gate.close()
        self.ended.emit(reason)


def system_sources(policy: WorkPolicy) -> Sources:
    return Sources.system() if policy.mode == IDLE else Sources()


class QueueAdder(AppThread):
    """Writes the painted inputs, makes the variations and adds them, off the UI thread."""

    added = Signal(int)
    failed = Signal(str)

    def __init__(
        self,
        queue: JobQueue,
        folder: Path,
        pictures: tuple[np.ndarray | None, np.ndarray | None, tuple[np.ndarray, ...]],
        spec_of: Callable[[InputFiles | None], JobSpec],
        count: int,
        random_seeds: bool,
        parent: QObject | None = None,
        photo_name: str | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("QueueAdder")
        self._photo_name = photo_name
        self._queue, self._folder, self._pictures = queue, folder, pictures
        self._spec_of, self._count, self._random = spec_of, count, random_seeds

    def run(self) -> None:  # QThread entry point
        image, mask, refs = self._pictures
        try:
            files = None
            if image is not None or refs:
                files = write_inputs(self._folder, image, mask, refs)
            spec = self._spec_of(files)
            # The seeds the queue's jobs of these settings hold (one indexed query).
            used = self._queue.seeds_in_use(spec, [spec.prompt]) if self._count > 1 else set()
            specs, tags = variations(spec, self._count, self._random, None, used)
            check_new_jobs(specs)  # what a run checks before any stage, as `queue add` does
            added = self._queue.add(specs, tags, photo_name=self._photo_name)
        except Exception as exc:  # said to the user with the file named
            log_error(log, "adding to the queue failed", exc)
            self.failed.emit(user_text(exc))
            return
        self.added.emit(len(added))

"""The queue for the GUI: adding the current job (or N variations of it), the worker on its own
thread, the jobs' states and each job's and the whole queue's ETA from every stage
(app/jobs/eta.py: the job in hand's measured stages, the stage times of the queue's finished
runs on this computer, scaled by the pixels for a size never measured).

The store and the worker are the pipeline's (app/pipeline/queue/jobs.py, queue/worker.py; the
CLI's `queue` commands use the same ones), so the GUI and a `queue run` in a terminal share one
queue and never run the same job. The worker has a Pipeline of its own (the stage cache is
shared through its folder); the GPU is free between jobs, every stage being its own process.

The dock reads the queue by pages (issue 38: reading all of 100,000 jobs took 17.6 s): the
first PAGE jobs with their run folders, one page more each time the list is scrolled to its
end, and the jobs after them as counts and per-settings groups (the ETA) from the database's
indexes (JobQueue.page).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

from app.core.paths import AppPaths
from app.jobs.eta import JobLeft, StageTimes, job_seconds, queue_seconds
from app.jobs.job_inputs import InputFiles
from app.jobs.queue_threads import QueueAdder, QueueWorker, system_sources
from app.jobs.run_session import make_pipeline
from app.jobs.run_state import log_error, user_text
from app.jobs.workers import suspend_and_wait
from app.pipeline import (
    JobQueue,
    JobView,
    QueueRest,
    Sources,
    WorkGate,
)
from app.pipeline import events as ev
from app.pipeline.api import RunSnapshot
from app.pipeline.job.spec import JobSpec
from app.pipeline.work_policy import Verdict, WorkPolicy

log = logging.getLogger(__name__)

QUEUE_INPUTS_FOLDER = "queue-inputs"  # the picture as painted, written before it is queued
REFRESH_MS = 1000
OPEN_STATES = ("queued", "running", "interrupted")
PAGE = 100  # jobs read at a time (their documents and run folders); a dock shows ~10


@dataclass(frozen=True)
class QueueCounts:
    """The whole queue's figures: the page's from its views, the rest's from the indexes."""

    total: int = 0
    open: int = 0  # queued, running or interrupted
    running: int = 0
    failed: int = 0

    @property
    def waiting(self) -> int:
        """Queued or interrupted: what Run queue would start."""
        return self.open - self.running

    @property
    def done(self) -> int:
        return self.total - self.open - self.failed


def counts_of(views: Sequence[JobView], rest: QueueRest) -> QueueCounts:
    return QueueCounts(
        len(views) + rest.total,
        sum(v.state in OPEN_STATES for v in views) + rest.open,
        sum(v.state == "running" for v in views) + rest.running,
        sum(v.state == "failed" for v in views) + rest.failed,
    )


@dataclass(frozen=True)
class Progress:
    """The worker's job in hand: its step of its steps at the measured seconds per step."""

    job_id: str
    step: int
    steps: int
    seconds_per_step: float


class QueueModel(QObject):
    """The queue as the Queue dock shows it and what its buttons do."""

    changed = Signal()  # views / paused / running / progress
    added = Signal(int)
    failed = Signal(str)
    result_ready = Signal(str)  # a job's run folder, finished

    def __init__(
        self,
        paths: AppPaths,
        engine: Callable[[], Path | None] = lambda: None,
        parent: QObject | None = None,
        policy: Callable[[], WorkPolicy] = WorkPolicy,
        sources: Callable[[WorkPolicy], Sources] | None = None,
        snapshot: Callable[[Path], RunSnapshot] | None = None,
        times: StageTimes | None = None,
    ) -> None:
        super().__init__(parent)
        self.paths = paths
        # This computer's stage times (the ETA), from the job in hand's events and the queue's
        # finished runs (read once each through `snapshot`: a run folder's record).
        self.times = times if times is not None else StageTimes()
        self._snapshot = snapshot
        self._runs_read: set[str] = set()
        self._done_stages: dict[str, set[str]] = {}  # the job in hand's stages done
        self._steps_seen: dict[str, int] = {}  # steps the job in hand ran in this diffuse
        # The work policy (Settings.work) read at each start, its sources (tests: a fake idle
        # source), and the worker's verdict while it runs (None: no worker).
        self.policy_of, self.sources_of = policy, sources or system_sources
        self.work_state: Verdict | None = None
        self.queue = JobQueue(paths)
        self._engine = engine
        self.views: list[JobView] = []  # the jobs read: the first `_limit` of the queue
        self.rest = QueueRest()  # the jobs after them, counted
        self._limit = PAGE
        self._in_hand: dict[str, JobView | None] = {}  # the worker's job when not in `views`
        self._read_once = False
        self.paused = False
        self.progress: Progress | None = None
        self._last_step_seconds: float | None = None
        self.worker: QueueWorker | None = None
        self._adders: list[QueueAdder] = []
        self._timer = QTimer(self)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh)

    # --- reading
    def refresh(self) -> None:
        self._read_once = True
        try:
            page = self.queue.page(self._limit)
            self.paused, self.views, self.rest = page.paused, list(page.views), page.rest
        except Exception as exc:  # a damaged queue file: said, not raised
            log_error(log, "reading the queue failed", exc)
            self.failed.emit(user_text(exc))
            self.views, self.rest = [], QueueRest()
        self._read_history()
        self.changed.emit()

    @property
    def counts(self) -> QueueCounts:
        return counts_of(self.views, self.rest)

    @property
    def has_more(self) -> bool:
        """Jobs after those read (`more` reads the next page)."""
        return self.rest.total > 0

    def more(self) -> None:
        """One page more of the queue (the list was scrolled to its end)."""
        if self.has_more:
            self._limit = len(self.views) + PAGE
            self.refresh()

    def _read_history(self) -> None:
        """The stage times of finished runs not read yet (their run folders' records)."""
        for v in self.views:
            if v.state != "done" or v.run_dir is None or v.job.id in self._runs_read:
                continue
            self._runs_read.add(v.job.id)
            try:
                self.times.record_run(self._read_run(Path(v.run_dir)))
            except Exception as exc:  # a run deleted or damaged: no history from it
                log.info("no stage times from %s: %s", v.run_dir, exc)

    def _read_run(self, folder: Path) -> RunSnapshot:
        if self._snapshot is None:
            reader = make_pipeline(self.paths, self._engine())
            self._snapshot = reader.snapshot
        return self._snapshot(folder)

    @property
    def running(self) -> bool:
        return self.worker is not None

    def has_job(self, job_id: str) -> bool:
        """Whether the queue holds the job `job_id` (its run folder is named by its id): the
        jobs read, else one look in the database when more are there."""
        if not self._read_once:
            self.refresh()
        if any(v.job.id == job_id for v in self.views):
            return True
        if not self.has_more:
            return False
        try:
            return self.queue.find(job_id) is not None
        except Exception as exc:  # a damaged queue file: said by the next refresh
            log.info("the queue could not be read: %s", exc)
            return False

    def variation_views(self, variation_set: str, count: int) -> list[JobView]:
        """The jobs of one set of variations: those read when all `count` are, else read."""
        mine = [v for v in self.views if v.job.variation and v.job.variation.set == variation_set]
        if len(mine) >= count or not self.has_more:
            return mine
        try:
            return self.queue.variation_views(variation_set)
        except Exception as exc:  # a damaged queue file: the jobs read are compared
            log.info("the queue could not be read: %s", exc)
            return mine

    def job_left(self, v: JobView) -> JobLeft:
        """What is left of one job: the stages the job in hand finished (its events), else
        those before diffuse once a step is done (an interrupted job resumes there)."""
        step, steps = v.last_completed_step, v.steps
        done = self._done_stages.get(v.job.id)
        if self.progress is not None and self.progress.job_id == v.job.id:
            step, steps = self.progress.step, self.progress.steps
        if done is None:
            done = set() if step == 0 else {"prepare", "vae-encode", "llm-encode"}
        return JobLeft(v.job.spec, frozenset(done), step, steps)

    def job_eta(self, v: JobView) -> float | None:
        """One job's time left (0 when it is finished; None: a stage never measured here)."""
        if v.state not in OPEN_STATES:
            return 0.0
        return job_seconds(self.times, self.job_left(v))

    def eta_seconds(self) -> float | None:
        """The whole queue's remaining time from every stage (app/jobs/eta.py); None while a
        stage a job still runs was never measured on this computer (an honest "unknown")."""
        shown = queue_seconds(
            self.times, [self.job_left(v) for v in self.views if v.state in OPEN_STATES]
        )
        total = shown
        for job, count in self.rest.groups:  # the jobs not read: one of each settings, × count
            one = job_seconds(self.times, JobLeft(job.spec))
            if one is None or total is None:
                return None
            total += one * count
        return total

    @property
    def seconds_per_step(self) -> float | None:
        """The newest measured seconds per step (any size); None before one was measured."""
        return self._last_step_seconds

    # --- changing
    def add(
        self,
        pictures: tuple[np.ndarray | None, np.ndarray | None, tuple[np.ndarray, ...]],
        spec_of: Callable[[InputFiles | None], JobSpec],
        count: int = 1,
        random_seeds: bool = False,
        photo_name: str | None = None,
    ) -> QueueAdder:
        """Adds `count` jobs off the UI thread; `photo_name`: the picture's file name, which
        their runs are titled by."""
        folder = self.paths.cache_dir / QUEUE_INPUTS_FOLDER
        adder = QueueAdder(
            self.queue,
            folder,
            pictures,
            spec_of,
            count,
            random_seeds,
            self,
            photo_name,
        )
        adder.added.connect(self._added)
        adder.failed.connect(self.failed)
        adder.finished.connect(lambda: self._adder_done(adder))
        self._adders.append(adder)
        adder.start()
        return adder

    def _added(self, count: int) -> None:
        self.refresh()
        self.added.emit(count)

    def _adder_done(self, adder: QueueAdder) -> None:
        if adder in self._adders:
            adder.wait()
            self._adders.remove(adder)
            adder.deleteLater()

    def _act(self, action: Callable[[], object]) -> None:
        try:
            action()
        except Exception as exc:  # a running job, a damaged file: said
            log_error(log, "a queue action failed", exc)
            self.failed.emit(user_text(exc))
        self.refresh()

    def remove(self, job_id: str) -> None:
        self._act(lambda: self.queue.remove(job_id))

    def move(self, job_id: str, position: int) -> None:
        self._act(lambda: self.queue.move(job_id, position))

    def pause(self) -> None:
        """The worker stops after the job in hand."""
        self._act(lambda: self.queue.set_paused(True))

    def resume(self) -> None:
        self._act(lambda: self.queue.set_paused(False))

    def start(self) -> QueueWorker | None:
        """Runs the queue (not paused any more) on a worker thread."""
        if self.worker is not None:
            return self.worker
        self._act(lambda: self.queue.set_paused(False))
        policy = self.policy_of()
        gate = WorkGate(policy, self.sources_of(policy), status_dir=self.queue.dir)
        worker = QueueWorker(make_pipeline(self.paths, self._engine()), self.queue, self, gate)
        worker.job_event.connect(self._job_event)
        worker.work_state.connect(self._work_state)
        worker.ended.connect(self._ended)
        self.worker = worker
        self._timer.start()
        worker.start()
        self.changed.emit()
        return worker

    def suspend(self) -> None:
        """Frees the GPU now: the job in hand stops after its current step (it resumes)."""
        if self.worker is not None:
            self.worker.control.suspend()

    def apply_policy(self) -> None:
        """The work policy changed (Settings OK, the Queue dock): a waiting or running worker
        takes it at once (it asks the new policy now; a job in hand that the new policy no
        longer allows is suspended by the gate's watch and resumes when it allows again)."""
        worker = self.worker
        if worker is not None:
            policy = self.policy_of()
            worker.gate.sources = self.sources_of(policy)
            worker.gate.policy = policy
            worker.gate.poke()
        self.changed.emit()

    @property
    def policy(self) -> WorkPolicy:
        """The policy in force: the running worker's, else the one a start would take."""
        return self.worker.gate.policy if self.worker is not None else self.policy_of()

    def poke(self) -> None:
        """The worker asks its policy now (a test's fake idle source changed)."""
        if self.worker is not None:
            self.worker.gate.poke()

    def _work_state(self, now: Verdict) -> None:
        self.work_state = now
        self.changed.emit()

    def _job_view(self, job_id: str) -> JobView | None:
        """The worker's job: as read, else read once from the queue (not on the page)."""
        view = next((v for v in self.views if v.job.id == job_id), None)
        if view is not None or not self.has_more:
            return view
        if job_id not in self._in_hand:
            try:
                self._in_hand = {job_id: self.queue.find(job_id)}
            except Exception as exc:  # a damaged queue file: its times are not recorded
                log.info("the queue could not be read: %s", exc)
                self._in_hand = {job_id: None}
        return self._in_hand[job_id]

    def _job_event(self, job_id: str, event: ev.Event) -> None:
        view = self._job_view(job_id)
        if isinstance(event, ev.StepProgressed):
            if view is not None:
                self.times.record_step(view.job.spec, event.seconds_per_step)
            self._steps_seen[job_id] = self._steps_seen.get(job_id, 0) + 1
            self._last_step_seconds = event.seconds_per_step
            self.progress = Progress(job_id, event.step, event.steps, event.seconds_per_step)
            self.changed.emit()
        elif isinstance(event, ev.StageStarted):
            self._done_stages.setdefault(job_id, set())
            if event.stage == "diffuse":
                self._steps_seen[job_id] = 0
        elif isinstance(event, ev.StageFinished):
            self._done_stages.setdefault(job_id, set()).add(event.stage)
            if view is not None and not event.cached:
                steps = self._steps_seen.get(job_id) if event.stage == "diffuse" else None
                self.times.record(event.stage, view.job.spec, event.seconds, steps)
            self.changed.emit()
        elif isinstance(event, ev.RunFinished):
            self._job_over(job_id)
            self.refresh()
            self.result_ready.emit(str(Path(event.result_path).parent))
        elif isinstance(event, ev.TERMINAL_EVENTS):
            self._job_over(job_id)
            self.refresh()

    def _job_over(self, job_id: str) -> None:
        self.progress = None
        self._in_hand.pop(job_id, None)
        self._done_stages.pop(job_id, None)
        self._steps_seen.pop(job_id, None)

    def _ended(self, _reason: str) -> None:
        worker, self.worker = self.worker, None
        self._timer.stop()
        if worker is not None:
            worker.wait()
            worker.deleteLater()
        self.progress = None
        self.work_state = None
        self.refresh()

    def shutdown(self, wait_ms: int = 15_000) -> bool:
        """Suspends the job in hand and waits for the worker (quitting the app)."""
        for adder in list(self._adders):
            adder.wait(wait_ms)
        worker = self.worker
        if worker is None:
            return True
        done = suspend_and_wait(worker, worker.control, wait_ms)
        if done:
            self._ended("suspended")
        return done

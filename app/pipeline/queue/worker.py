"""The queue's worker: runs its jobs one after another through the same pipeline as one run.

Each job is claimed (its lock, app/pipeline/queue/jobs.py), its run folder made or found again,
and executed by `PipelineAPI.execute` (which resumes from the last valid checkpoint); one
Pipeline serves the whole queue, so its stage cache is shared (a prompt is encoded once). The
GPU is free between jobs: every stage is its own engine process. Used by `queue run` (app/cli)
and by the GUI's jobs layer on its worker thread.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from app.core import platform
from app.core.errors import DiskFullError, OutputError, StepwiseError, error_text
from app.core.program import typed
from app.core.safe_files import FOLDER_REFUSED, check_entry, check_folder
from app.engine.stage import Stage
from app.pipeline import events as ev
from app.pipeline.api import PipelineAPI
from app.pipeline.control import RunControl
from app.pipeline.execute.failure_kinds import failure_for
from app.pipeline.failures import FailureKind
from app.pipeline.job.spec import JobSpec
from app.pipeline.queue.jobs import STAGING, JobQueue, Outcome, QueuedJob
from app.pipeline.queue.work_gate import WorkGate
from app.pipeline.run.folder import RUN_FILE

log = logging.getLogger(__name__)

# Failures that leave the job interrupted, not failed: another process executes its run folder
# (the GUI's Resume), or the engine or the device went away (a driver reset, no engine built
# yet); a later worker resumes the job from its last checkpoint.
LEFT_TO_RESUME = frozenset(
    {
        FailureKind.BUSY,
        FailureKind.ENGINE_CRASHED,
        FailureKind.ENGINE_HUNG,
        FailureKind.DEVICE,
        FailureKind.ENGINE_MISSING,
    }
)

# Why a worker stopped.
EMPTY = "empty"  # no job left to run (the others are done, failed or held by another worker)
PAUSED = "paused"  # the queue was paused: it stopped after the job in hand
SUSPENDED = "suspended"  # the job in hand was suspended (resumes with the next worker)
CANCELLED = "cancelled"
NO_ROOM = "no-room"  # the disk is full: the job in hand and the rest stay queued
BLOCKED = "blocked"  # a folder the queue works in is a file (or a link): the jobs stay queued


def no_room(event: ev.Event | None) -> bool:
    """A failure because the disk is full (the job is not at fault: it waits for room)."""
    return isinstance(event, ev.RunFailed) and event.kind is FailureKind.NO_ROOM


@dataclass
class WorkerReport:
    reason: str = EMPTY
    finished: list[str] = field(default_factory=list)  # job ids, in order
    failed: list[str] = field(default_factory=list)
    interrupted: list[str] = field(default_factory=list)  # left to resume (LEFT_TO_RESUME)
    seconds: dict[str, float] = field(default_factory=dict)  # job id → wall time in this worker


JobEvent = Callable[[QueuedJob, Path | None, ev.Event], None]


def run_queue(
    pipeline: PipelineAPI,
    queue: JobQueue,
    control: RunControl,
    on_event: JobEvent | None = None,
    *,
    max_jobs: int | None = None,
    gate: WorkGate | None = None,
) -> WorkerReport:
    """Runs the queue's jobs until none is left, the queue is paused, or the job in hand is
    suspended or cancelled (through `control`). `gate`: the work policy (app/pipeline/
    work_gate.py; none: always) holds the worker before each job and suspends the job in hand
    when it stops allowing work; that job then runs again when it allows."""
    report = WorkerReport()
    skip: set[str] = set()
    gate = gate or WorkGate()
    while (
        max_jobs is None
        or len(report.finished) + len(report.failed) + len(report.interrupted) < max_jobs
    ):
        if not gate.wait(control) or control.cancel_requested or control.suspend_requested:
            report.reason = CANCELLED if control.cancel_requested else SUSPENDED
            return report
        claim = queue.claim_next(skip)
        if claim is None:
            report.reason = PAUSED if queue.read().paused else EMPTY
            return report
        with claim:
            job = claim.job
            started = time.monotonic()
            with gate.watching(control):
                terminal = run_claimed_job(pipeline, queue, job, control, on_event)
            report.seconds[job.id] = report.seconds.get(job.id, 0) + time.monotonic() - started
            if isinstance(terminal, ev.RunFinished):
                report.finished.append(job.id)
            elif no_room(terminal):
                report.reason = NO_ROOM
                return report
            elif isinstance(terminal, ev.RunFailed) and terminal.template == FOLDER_REFUSED:
                report.reason = BLOCKED
                return report
            elif isinstance(terminal, ev.RunFailed) and terminal.kind in LEFT_TO_RESUME:
                report.interrupted.append(job.id)  # it stays interrupted, not failed
                skip.add(job.id)  # not this worker again; the next one resumes it
            elif isinstance(terminal, ev.RunFailed):
                report.failed.append(job.id)
            elif isinstance(terminal, ev.RunSuspended):
                if gate.took_back(control):
                    continue  # the policy's suspend: wait, then the job resumes
                report.reason = SUSPENDED
                return report
            elif isinstance(terminal, ev.RunCancelled):
                report.reason = CANCELLED
                return report
    return report


def run_claimed_job(
    pipeline: PipelineAPI,
    queue: JobQueue,
    job: QueuedJob,
    control: RunControl,
    on_event: JobEvent | None,
) -> ev.Event | None:
    """Runs one claimed job to its terminal event and records done / failed in the queue."""

    def say(run_dir: Path | None, event: ev.Event) -> None:
        if on_event is not None:
            on_event(job, run_dir, event)

    run_dir: Path | None = None
    try:  # not the job's fault: it stays queued, and the worker stops (issue 38, item 10)
        check_folder(queue.dir / STAGING)
    except StepwiseError as exc:
        blocked = ev.RunFailed.of(failure_for(exc, Stage.PREPARE))
        say(None, blocked)
        return blocked
    try:
        run_dir = make_run_folder(
            queue,
            job,
            lambda spec, folder: pipeline.create_run(spec, folder, photo_name=job.photo_name),
        )
    except StepwiseError as exc:
        # The job cannot become a run (an input changed, a bad value): it failed. No room on
        # the disk is not the job's fault: it stays queued and the worker stops.
        failure = failure_for(exc, Stage.PREPARE)
        failed = ev.RunFailed.of(failure)
        if isinstance(exc, DiskFullError):
            return failed
        queue.record(job.id, Outcome("failed", "", f"{failure.kind}: {error_text(exc)}", _now()))
        say(None, failed)
        return failed
    terminal: ev.Event | None = None
    events = pipeline.execute(run_dir, control)
    try:
        for event in events:
            say(run_dir, event)
            if isinstance(event, ev.TERMINAL_EVENTS):
                terminal = event
    finally:
        events.close()
    if isinstance(terminal, ev.RunFinished):
        queue.record(job.id, Outcome("done", str(run_dir), None, _now()))
    elif (
        isinstance(terminal, ev.RunFailed)
        and terminal.kind not in LEFT_TO_RESUME
        and not no_room(terminal)
    ):
        detail = f"{terminal.kind}: {terminal.message}" if terminal.message else str(terminal.kind)
        queue.record(job.id, Outcome("failed", str(run_dir), detail, _now()))
    return terminal


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def make_run_folder(
    queue: JobQueue, job: QueuedJob, create: Callable[[JobSpec, Path], object]
) -> Path:
    """The job's run folder: the one made before (a kill came later), or a new one made in
    staging/ and renamed into the runs folder whole. `create(spec, folder)` makes a run
    (Pipeline.create_run). Call it only while holding the job's claim."""
    final = queue.run_dir_of(job.id)
    if os.path.isdir(final) and not os.path.islink(final):
        if check_entry(final / RUN_FILE) or check_entry(final / f"{RUN_FILE}.bak"):
            return final
    staging = queue.staging_dir_of(job.id)
    shutil.rmtree(staging, ignore_errors=True)  # ours: a kill in the middle of making it
    if os.path.lexists(final):
        _clear_place(final)
    create(queue.job_spec(job), staging)
    final.parent.mkdir(parents=True, exist_ok=True)
    os.replace(staging, final)
    platform.fsync_dir(final.parent)
    return final


def _clear_place(final: Path) -> None:
    """The job's run folder's place holds something without a run: an empty folder is removed
    (nothing is lost); anything else is the user's and stays (the job fails, saying so)."""
    if os.path.isdir(final) and not os.path.islink(final):
        try:
            os.rmdir(final)
            return
        except OSError:
            pass
    raise OutputError(
        "{path} already holds files that are not a Stepwise run; the job's run folder goes there.",
        path=final,
        fix="Move that folder or file away (Stepwise never deletes it), then queue the job "
        "again with `{command}`.",
        values={"id": final.name, "command": typed("queue", "retry", final.name)},
    )

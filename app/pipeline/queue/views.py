"""A queued job's state as `queue list` and the Queue dock show it, derived from its run folder
(`queue list`: a finished job's from the progress kept with its outcome while its run.json is
the one it was taken from)."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from app.core.errors import DamagedFileError, StepwiseError
from app.core.safe_files import check_entry
from app.pipeline.queue.records import (
    JobView,
    ListedJob,
    ListedView,
    Outcome,
    QueuedJob,
    RunProgress,
)
from app.pipeline.run.folder import RUN_FILE, open_run, remove_leftover_temps
from app.pipeline.run.lock import RunBusy, RunLock


def _has_run(folder: Path) -> bool:
    """A run.json (or its .bak) is there; one that is not a regular file is a message."""
    if not folder.is_dir() or folder.is_symlink():
        return False
    return check_entry(folder / RUN_FILE) or check_entry(folder / f"{RUN_FILE}.bak")


def finished_run(folder: Path) -> Path | None:
    """`folder` when it holds a finished run with its result (its leftover temps removed); a
    damaged or forged one is not (the worker's make_run_folder says what is wrong)."""
    try:
        if not _has_run(folder):
            return None
        run = open_run(folder)
    except (DamagedFileError, OSError):
        return None
    if not (run.finished and run.result is not None and run.result.is_file()):
        return None
    with contextlib.suppress(RunBusy), RunLock(folder):
        remove_leftover_temps(folder)
    return folder


def view_of(job: QueuedJob, folder: Path, held: bool, made: bool = True) -> JobView:
    """The job's state: its outcome, else what its run folder says (`made`: it exists), else
    whether it is held."""
    return JobView(job, *_state(job.outcome, folder, held, made))


def listed_view(job: ListedJob, folder: Path, held: bool, made: bool = True) -> ListedView:
    """view_of for a job read from its listing entry (`queue list`): a finished job's run is
    not read while its run.json is the one its progress was taken from (one stat)."""
    if job.outcome is not None and job.run is not None and made:
        steps, last, accepted, mtime, size = job.run
        if _stamp(folder) == (mtime, size):
            return ListedView(job, job.outcome.state, folder, steps, last, accepted)
    return ListedView(job, *_state(job.outcome, folder, held, made))


def _stamp(folder: Path) -> tuple[int, int] | None:
    try:
        found = os.stat(folder / RUN_FILE, follow_symlinks=False)
    except OSError:
        return None
    return (found.st_mtime_ns, found.st_size) if stat.S_ISREG(found.st_mode) else None


def run_progress(folder: Path) -> RunProgress | None:
    """A run's steps, last completed and accepted step, with its run.json's mtime and size
    (None: no readable run there)."""
    stamp = _stamp(folder)
    with contextlib.suppress(StepwiseError, OSError):
        if stamp is not None and _has_run(folder):
            run = open_run(folder)
            if _stamp(folder) == stamp:  # not rewritten while read
                return (run.steps, run.last_completed_step, run.accepted_step, *stamp)
    return None


def _state(
    outcome: Outcome | None, folder: Path, held: bool, made: bool
) -> tuple[str, Path | None, int | None, int, int | None]:
    run = None
    with contextlib.suppress(StepwiseError, OSError):
        if made and _has_run(folder):
            run = open_run(folder)
    steps = run.steps if run is not None else None
    last = run.last_completed_step if run is not None else 0
    accepted = run.accepted_step if run is not None else None
    if outcome is not None:
        state = outcome.state
    elif run is not None and run.finished:
        state = "done"
    elif held:
        state = "running"
    elif run is not None:
        state = "interrupted"
    else:
        state = "queued"
    return state, folder if run is not None else None, steps, last, accepted

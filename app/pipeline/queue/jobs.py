"""The job queue: ordered jobs kept in the app data folder, safe against kills and a second worker.

Why the pipeline layer: the headless `queue` commands (app/cli, which may not import jobs/)
and the GUI (through jobs/) share this store, and it needs no Qt.

Layout (under AppPaths.data_dir / "queue"):

    queue.json, queue.json.bak  the queue (below); the .bak is the previous good copy
    .lock                       held for each read-modify-write of queue.json (moments)
    inputs/<sha256><suffix>     the jobs' images, masks and references, by content hash
    locks/<job id>.lock         held by the worker running that job, for as long as it runs
    staging/<job id>/           a job's run folder while it is made; renamed into the runs folder

queue.json, format 1:

    {"format": 1, "paused": bool,
     "jobs": [{"id": str, "created": iso-8601,
               "spec": JobSpec as a dict with no image, mask or refs (those are "inputs"),
               "inputs": {"image": {"file": name in inputs/, "sha256": hex, "source": str} | null,
                          "mask": ... | null, "refs": [...]},
               "variation": {"set": str, "index": int, "count": int,
                             "seeds": "given"|"consecutive"|"random", "prompt_line": int|null}
                            | null,
               "outcome": {"state": "done"|"failed", "run_dir": str, "failure": str|null,
                           "finished": iso-8601} | null,
               "photo_name": the picture's file name (run.json's inputs.image.name) | null
                             (absent: none; queues written before it)}, ...],  # queue order
     "checksum": sha256 of the canonical JSON of everything else}

A job's run folder is the runs folder's `<job id>` (so a job is found again after any kill);
its state is derived: an outcome recorded → done / failed; else a finished run folder → done
(the worker was killed before recording it); else the job's lock held → running; else a run
folder → interrupted (the next worker resumes it from its last checkpoint); else queued.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import logging
import os
import secrets
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from app.core.atomic import write_text_atomic
from app.core.errors import DamagedFileError, InputError, StepwiseError
from app.core.paths import AppPaths
from app.engine.tensorfile import file_sha256
from app.pipeline.job.spec import JobSpec
from app.pipeline.queue.lock import FileLock, JobClaim
from app.pipeline.queue.records import (
    QUEUE_FORMAT,
    JobView,
    Outcome,
    QueuedInput,
    QueuedJob,
    QueueState,
    Variation,
    state_of,
    verify_queue,
)
from app.pipeline.run.folder import RUN_FILE, new_run_id, open_run, remove_leftover_temps
from app.pipeline.run.format import checksum
from app.pipeline.run.inputs import check_spec_inputs, copy_atomic
from app.pipeline.run.lock import RunBusy, RunLock
from app.pipeline.runner import SEED_RANGE  # the seeds the pipeline draws for -1

log = logging.getLogger(__name__)

QUEUE_FILE = "queue.json"
QUEUE_BACKUP = "queue.json.bak"
QUEUE_LOCK = ".lock"
INPUTS = "inputs"
LOCKS = "locks"
STAGING = "staging"
LOCK_WAIT_S = 30.0
LOCK_POLL_S = 0.01


class QueueBusy(StepwiseError):
    """Another process holds the queue (or one job) longer than a moment."""


# ---------------------------------------------------------------------------- the store


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class JobQueue:
    """The queue of one installation (AppPaths.data_dir / "queue")."""

    def __init__(self, paths: AppPaths) -> None:
        self.paths = paths
        self.dir = paths.data_dir / "queue"

    # --- files
    @property
    def file(self) -> Path:
        return self.dir / QUEUE_FILE

    def input_path(self, item: QueuedInput) -> Path:
        return self.dir / INPUTS / item.file

    def run_dir_of(self, job_id: str) -> Path:
        return self.paths.runs_dir / job_id

    def staging_dir_of(self, job_id: str) -> Path:
        return self.dir / STAGING / job_id

    # --- reading
    def read(self) -> QueueState:
        """The queue as last written (an empty one when there is none yet)."""
        return state_of(self._load())

    def _load(self) -> dict[str, Any]:
        main, backup = self.file, self.dir / QUEUE_BACKUP
        if not main.exists() and not backup.exists():
            return {"format": QUEUE_FORMAT, "paused": False, "jobs": []}
        for candidate in (main, backup):
            try:
                raw = candidate.read_bytes()
            except OSError:
                continue
            data = verify_queue(raw)
            if data is not None:
                if candidate != main:
                    log.warning("%s is damaged or missing; using the copy %s", main, backup)
                return data
        raise DamagedFileError(
            "The queue file {path} is damaged.",
            path=main,
            fix="Move it (and {backup}) away to start an empty queue; finished runs stay in the "
            "runs folder.",
            values={"backup": backup},
        )

    def _save(self, data: dict[str, Any]) -> None:
        data["checksum"] = checksum(data)
        text = json.dumps(data, indent=1, ensure_ascii=False)
        if self.file.exists():
            try:
                previous = self.file.read_bytes()
                if verify_queue(previous) is not None:
                    write_text_atomic(self.dir / QUEUE_BACKUP, previous.decode("utf-8"))
            except OSError:
                pass
        write_text_atomic(self.file, text)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, Any]]:
        """The queue's data for a read-modify-write under the queue lock; saved on success."""
        lock = FileLock(self.dir / QUEUE_LOCK)
        deadline = time.monotonic() + LOCK_WAIT_S
        while not lock.try_acquire():
            if time.monotonic() > deadline:
                raise QueueBusy(
                    "The queue {path} is held by another Stepwise process.",
                    path=self.file,
                    fix="Wait a moment and try again.",
                )
            time.sleep(LOCK_POLL_S)
        try:
            remove_leftover_temps(self.dir)  # safe: every write here holds this lock
            data = self._load()
            before = copy.deepcopy(data)
            yield data
            if data != before:
                self._save(data)
        finally:
            lock.release()

    # --- changing
    def add(
        self,
        specs: Sequence[JobSpec],
        variations: Sequence[Variation | None] | None = None,
        *,
        photo_name: str | None = None,
    ) -> list[QueuedJob]:
        """Appends one job per spec (inputs copied in by hash); seeds of -1 drawn now.
        `photo_name`: the name the user knows the picture by (its copy here is a hash), which
        each job's run records (Pipeline.create_run)."""
        if variations is not None and len(variations) != len(specs):
            raise ValueError("one variation per spec")
        for spec in specs:
            check_spec_inputs(spec)
        added: list[QueuedJob] = []
        with self._locked() as data:
            stored: dict[str, QueuedInput] = {}
            for i, spec in enumerate(specs):

                def store(src: str | None) -> QueuedInput | None:
                    if src is None:
                        return None
                    if src not in stored:
                        stored[src] = self._store_input(Path(src))
                    return stored[src]

                image, mask = store(spec.image), store(spec.mask)
                refs = tuple(q for q in (store(r) for r in spec.refs) if q is not None)
                if spec.seed < 0:
                    spec = dataclasses.replace(spec, seed=secrets.randbelow(SEED_RANGE))
                bare = dataclasses.replace(spec, image=None, mask=None, refs=())
                job = QueuedJob(
                    id=_new_job_id({j["id"] for j in data["jobs"]}),
                    created=_now(),
                    spec=bare,
                    image=image,
                    mask=mask,
                    refs=refs,
                    variation=None if variations is None else variations[i],
                    photo_name=Path(photo_name).name or None if image and photo_name else None,
                )
                data["jobs"].append(job.to_json())
                added.append(job)
        return added

    def _store_input(self, src: Path) -> QueuedInput:
        digest = file_sha256(src)
        name = digest + (src.suffix.lower() or ".png")
        dest = self.dir / INPUTS / name
        try:
            ok = dest.is_file() and file_sha256(dest) == digest
        except (OSError, StepwiseError):
            ok = False
        if not ok:
            copy_atomic(src, dest)
            if file_sha256(dest) != digest:
                raise InputError(
                    "{path} changed while it was being queued.",
                    path=src,
                    fix="Add the job again once the file is written.",
                )
        return QueuedInput(name, digest, str(src))

    def remove(self, job_id: str) -> QueuedJob:
        """Takes a job out of the queue (not while a worker runs it); its run folder stays."""
        with self._locked() as data:
            state = state_of(data)
            job = state.job(job_id)
            lock = FileLock(self._lock_path(job_id))
            if not lock.try_acquire():
                raise QueueBusy(
                    "The job {id} is running.",
                    fix="Pause the queue (it stops after this job) or suspend the worker first.",
                    values={"id": job_id},
                )
            try:
                data["jobs"] = [j for j in data["jobs"] if j["id"] != job_id]
                self._drop_unused_inputs(state_of(data).jobs)
            finally:
                lock.release()
        self._lock_path(job_id).unlink(missing_ok=True)
        return job

    def move(self, job_id: str, position: int) -> None:
        """Puts a job at `position` (0 = first; clipped to the queue's length)."""
        with self._locked() as data:
            state_of(data).job(job_id)
            jobs = data["jobs"]
            moved = next(j for j in jobs if j["id"] == job_id)
            jobs.remove(moved)
            jobs.insert(max(0, min(position, len(jobs))), moved)

    def set_paused(self, paused: bool) -> None:
        """Paused: a worker stops after its current job (and starts none)."""
        with self._locked() as data:
            data["paused"] = bool(paused)

    def record(self, job_id: str, outcome: Outcome) -> None:
        with self._locked() as data:
            for j in data["jobs"]:
                if j["id"] == job_id:
                    j["outcome"] = outcome.to_json()

    def _drop_unused_inputs(self, jobs: Iterable[QueuedJob]) -> None:
        used = {f.file for job in jobs for f in job.inputs()}
        folder = self.dir / INPUTS
        if not folder.is_dir():
            return
        for name in os.listdir(folder):
            if name not in used and not name.startswith("."):
                with contextlib.suppress(OSError):
                    (folder / name).unlink()

    # --- the worker's side
    def _lock_path(self, job_id: str) -> Path:
        return self.dir / LOCKS / f"{job_id}.lock"

    def claim_next(self, skip: Iterable[str] = ()) -> JobClaim | None:
        """The first job to run that no other worker holds, with its lock; None when there is
        none or the queue is paused. A run folder found finished is recorded as done."""
        skipped = set(skip)
        with self._locked() as data:
            if data["paused"]:
                return None
            for job in state_of(data).jobs:
                if job.outcome is not None or job.id in skipped:
                    continue
                lock = FileLock(self._lock_path(job.id))
                if not lock.try_acquire():
                    continue  # another worker runs it
                finished = self._finished_run(job.id)
                if finished is not None:
                    _record_in(data, job.id, Outcome("done", str(finished), None, _now()))
                    lock.release()
                    continue
                return JobClaim(job, lock)
        return None

    def _finished_run(self, job_id: str) -> Path | None:
        folder = self.run_dir_of(job_id)
        if not (folder / RUN_FILE).exists():
            return None
        try:
            run = open_run(folder)
        except DamagedFileError:
            return None
        if not (run.finished and run.result is not None and run.result.is_file()):
            return None
        try:
            with RunLock(folder):
                remove_leftover_temps(folder)
        except RunBusy:
            pass
        return folder

    def job_spec(self, job: QueuedJob) -> JobSpec:
        """The job's complete spec with its inputs verified against their hashes."""

        def path_of(item: QueuedInput) -> str:
            path = self.input_path(item)
            try:
                digest = file_sha256(path)
            except (OSError, StepwiseError) as exc:
                raise DamagedFileError(
                    "The queued copy {path} of {source} cannot be read.",
                    path=path,
                    fix="Remove the job and add it again with the original file.",
                    values={"source": item.source},
                ) from exc
            if digest != item.sha256:
                raise DamagedFileError(
                    "The queued copy {path} of {source} changed since it was queued.",
                    path=path,
                    fix="Remove the job and add it again with the original file.",
                    values={"source": item.source},
                )
            return str(path)

        return dataclasses.replace(
            job.spec,
            image=None if job.image is None else path_of(job.image),
            mask=None if job.mask is None else path_of(job.mask),
            refs=tuple(path_of(r) for r in job.refs),
        )

    # --- views
    def views(self) -> tuple[bool, list[JobView]]:
        """Whether the queue is paused, and every job with its derived state, in queue order.
        Under the queue lock: probing a job's lock must not make a worker's claim skip it."""
        with self._locked() as data:
            state = state_of(data)
            return state.paused, [self._view(job) for job in state.jobs]

    def _view(self, job: QueuedJob) -> JobView:
        folder = self.run_dir_of(job.id)
        run = None
        if (folder / RUN_FILE).exists() or (folder / f"{RUN_FILE}.bak").exists():
            with contextlib.suppress(DamagedFileError, OSError):
                run = open_run(folder)
        steps = run.steps if run is not None else None
        last = run.last_completed_step if run is not None else 0
        accepted = run.accepted_step if run is not None else None
        if job.outcome is not None:
            state = job.outcome.state
        elif run is not None and run.finished:
            state = "done"
        elif self._held(job.id):
            state = "running"
        elif run is not None:
            state = "interrupted"
        else:
            state = "queued"
        return JobView(job, state, folder if run is not None else None, steps, last, accepted)

    def _held(self, job_id: str) -> bool:
        if not self._lock_path(job_id).exists():
            return False
        lock = FileLock(self._lock_path(job_id))
        if lock.try_acquire():
            lock.release()
            return False
        return True


def _record_in(data: dict[str, Any], job_id: str, outcome: Outcome) -> None:
    for j in data["jobs"]:
        if j["id"] == job_id:
            j["outcome"] = outcome.to_json()


def _new_job_id(taken: set[str]) -> str:
    while True:
        job_id = "q" + new_run_id()
        if job_id not in taken:
            return job_id

"""The job queue: ordered jobs kept in the app data folder, safe against kills and a second worker.

Why the pipeline layer: the headless `queue` commands (app/cli, which may not import jobs/)
and the GUI (through jobs/) share this store, and it needs no Qt.

Layout (under AppPaths.data_dir / "queue"):

    queue.db (-wal, -shm)       the queue: an SQLite database (format in app/pipeline/queue/db.py);
                                one transaction per add / claim / outcome / move / remove
    inputs/<sha256><suffix>     the jobs' images, masks and references, by content hash
    staging/<job id>/           a job's run folder while it is made; renamed into the runs folder
    damaged/<time>/             a damaged database (or queue.json) moved aside, with a note
    queue.json.imported         the queue before the database, imported once (queue/legacy_json.py)

A job's run folder is the runs folder's `<job id>` (so a job is found again after any kill);
its state is derived: an outcome recorded → done / failed; else a finished run folder → done
(the worker was killed before recording it); else a live worker's claim → running; else a run
folder → interrupted (the next worker resumes it from its last checkpoint); else queued.

JobQueue adds, changes and claims jobs; queue/listing.py answers what the queue shows (`queue
list`, the seeds in use, the views, the Queue dock's page); queue/store.py keeps the database
under both.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import os
import secrets
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from app.core.errors import DamagedFileError, InputError, StepwiseError
from app.core.safe_files import check_entry
from app.engine.tensorfile import file_sha256
from app.pipeline.job.spec import JobSpec
from app.pipeline.queue import db as queue_db
from app.pipeline.queue.claim import JobClaim
from app.pipeline.queue.listing import QueueListing
from app.pipeline.queue.records import (
    Outcome,
    QueuedInput,
    QueuedJob,
    QueueState,
    Variation,
)
from app.pipeline.queue.store import QueueBusy, my_start
from app.pipeline.queue.views import finished_run, run_progress
from app.pipeline.run.folder import new_run_id, remove_leftover_temps
from app.pipeline.run.inputs import check_spec_inputs, copy_atomic
from app.pipeline.runner import SEED_RANGE  # the seeds the pipeline draws for -1

log = logging.getLogger(__name__)

INPUTS = "inputs"
STAGING = "staging"


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class JobQueue(QueueListing):
    """The queue of one installation (AppPaths.data_dir / "queue")."""

    # --- files
    def input_path(self, item: QueuedInput) -> Path:
        return self.dir / INPUTS / item.file

    def staging_dir_of(self, job_id: str) -> Path:
        return self.dir / STAGING / job_id

    # --- reading
    def read(self) -> QueueState:
        """The queue as last written (an empty one when there is none yet)."""
        return self._do(lambda c: QueueState(self._paused(c), tuple(self._jobs(c))), write=False)

    # --- changing
    def add(
        self,
        specs: Sequence[JobSpec],
        variations: Sequence[Variation | None] | None = None,
        *,
        photo_name: str | None = None,
    ) -> list[QueuedJob]:
        """Appends one job per spec (inputs copied in by hash), all in one transaction; seeds of
        -1 drawn now. `photo_name`: the name the user knows the picture by (its copy here is a
        hash), which each job's run records (Pipeline.create_run)."""
        if variations is not None and len(variations) != len(specs):
            raise ValueError("one variation per spec")
        for spec in {(s.image, s.mask, s.refs): s for s in specs}.values():
            check_spec_inputs(spec)

        def work(conn: sqlite3.Connection) -> list[QueuedJob]:
            remove_leftover_temps(self.dir)  # safe: every input copy holds the write lock
            stored: dict[str, QueuedInput] = {}

            def store(src: str | None) -> QueuedInput | None:
                if src is not None and src not in stored:
                    stored[src] = self._store_input(Path(src))
                return None if src is None else stored[src]

            added: list[QueuedJob] = []
            for i, spec in enumerate(specs):
                image, mask = store(spec.image), store(spec.mask)
                refs = tuple(q for q in (store(r) for r in spec.refs) if q is not None)
                if spec.seed < 0:
                    spec = dataclasses.replace(spec, seed=secrets.randbelow(SEED_RANGE))
                bare = dataclasses.replace(spec, image=None, mask=None, refs=())
                added.append(
                    QueuedJob(
                        id="q" + new_run_id() + secrets.token_hex(2),
                        created=_now(),
                        spec=bare,
                        image=image,
                        mask=mask,
                        refs=refs,
                        variation=None if variations is None else variations[i],
                        photo_name=Path(photo_name).name or None if image and photo_name else None,
                    )
                )
            rows = [queue_db.encode(job) for job in added]
            queue_db.insert(conn, rows, queue_db.next_position(conn))
            return added

        added = self._do(work)
        self._count_added()  # the queue is known to hold them (a later empty file is damage)
        return added

    def _store_input(self, src: Path) -> QueuedInput:
        digest = file_sha256(src)
        name = digest + (src.suffix.lower() or ".png")
        dest = self.dir / INPUTS / name
        try:
            ok = check_entry(dest) and file_sha256(dest) == digest
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

        def work(conn: sqlite3.Connection) -> QueuedJob:
            job = self._job(conn, job_id)
            if job_id in self._live_claims(conn):
                raise QueueBusy(
                    "The job {id} is running.",
                    fix="Pause the queue (it stops after this job) or suspend the worker first.",
                    values={"id": job_id},
                )
            conn.execute("DELETE FROM jobs WHERE id = ?", (job_id,))
            conn.execute("DELETE FROM listing WHERE id = ?", (job_id,))
            self._drop_unused_inputs(conn)
            self._write_count(conn)
            return job

        return self._do(work)

    def retry(self, job_id: str) -> QueuedJob:
        """A failed (or done) job queued again: its outcome cleared; its run folder, when it
        has one, is resumed from its last checkpoint by the next worker."""

        def work(conn: sqlite3.Connection) -> QueuedJob:
            job = dataclasses.replace(self._job(conn, job_id), outcome=None)
            row = queue_db.encode(job)
            conn.execute(
                "UPDATE jobs SET doc = ?, copy = ?, sha256 = ?, open = 1 WHERE id = ?",
                (row.doc, row.doc, row.sha256, job.id),
            )
            queue_db.put_listing(conn, [row])
            return job

        return self._do(work)

    def remove_refused(self) -> int:
        """Takes every refused row out of the queue; how many."""

        def work(conn: sqlite3.Connection) -> int:
            good = {job.id for job in self._jobs(conn)}
            bad = [r for (r,) in conn.execute("SELECT id FROM jobs") if r not in good]
            conn.executemany("DELETE FROM jobs WHERE id = ?", [(r,) for r in bad])
            conn.executemany("DELETE FROM listing WHERE id = ?", [(r,) for r in bad])
            self.refused = []
            self._write_count(conn)
            return len(bad)

        return self._do(work)

    def move(self, job_id: str, position: int) -> int:
        """Puts a job at `position` (0 = first; clipped to the queue's length); the place it got."""
        return self._do(lambda c: self._renumber(c, job_id, position))

    def _renumber(self, conn: sqlite3.Connection, job_id: str, position: int) -> int:
        order = [r for (r,) in conn.execute("SELECT id FROM jobs ORDER BY position")]
        if job_id not in order:
            self._job(conn, job_id)  # the message
        order.remove(job_id)
        new = max(0, min(position, len(order)))
        order.insert(new, job_id)
        conn.executemany(
            "UPDATE jobs SET position = ? WHERE id = ?", [(n, i) for n, i in enumerate(order)]
        )
        return new

    def set_paused(self, paused: bool) -> None:
        """Paused: a worker stops after its current job (and starts none)."""
        value = "1" if paused else "0"
        self._do(lambda c: c.execute("UPDATE meta SET value = ? WHERE key = 'paused'", (value,)))

    def record(self, job_id: str, outcome: Outcome) -> None:
        self._do(lambda c: self._record_in(c, job_id, outcome))

    def _record_in(self, conn: sqlite3.Connection, job_id: str, outcome: Outcome) -> None:
        rowid = self._rowid_of(conn, job_id)
        job = None if rowid is None else next(self._jobs(conn, "WHERE rowid = ?", (rowid,)), None)
        if job is None:
            return  # removed meanwhile (or refused): nothing to record
        folder = self.run_dir_of(job.id)  # its progress kept: `queue list` need not read it
        progress = run_progress(folder) if outcome.run_dir == str(folder) else None
        row = queue_db.encode(dataclasses.replace(job, outcome=outcome), progress)
        conn.execute(
            "UPDATE jobs SET doc = ?, copy = ?, sha256 = ?, open = 0 WHERE rowid = ?",
            (row.doc, row.doc, row.sha256, rowid),
        )
        queue_db.put_listing(conn, [row])

    def _job(self, conn: sqlite3.Connection, job_id: str) -> QueuedJob:
        rowid = self._rowid_of(conn, job_id)
        job = None if rowid is None else next(self._jobs(conn, "WHERE rowid = ?", (rowid,)), None)
        if job is None:
            raise InputError(
                "There is no job {id} in the queue.",
                fix="`queue list` shows the queue's jobs.",
                values={"id": queue_db.shown_id(job_id)},
            )
        return job

    def _drop_unused_inputs(self, conn: sqlite3.Connection) -> None:
        used = {  # as bytes: a damaged byte in the column is no error that stops the remove
            name
            for (files,) in conn.execute("SELECT CAST(files AS BLOB) FROM jobs")
            for name in bytes(files or b"").decode("utf-8", "replace").split()
        }
        if not all(queue_db_input(name) for name in used):
            return  # a damaged name: which inputs are used is unsure, so none is removed
        folder = self.dir / INPUTS
        try:
            names = os.listdir(folder)
        except OSError:
            return
        for name in names:
            if name not in used and queue_db_input(name):
                with contextlib.suppress(OSError):
                    if check_entry(folder / name):
                        (folder / name).unlink()

    # --- the worker's side
    def claim_next(self, skip: Iterable[str] = ()) -> JobClaim | None:
        """The first job to run that no other worker holds, with its claim; None when there is
        none or the queue is paused. A run folder found finished is recorded as done."""
        skipped = set(skip)

        def work(conn: sqlite3.Connection) -> JobClaim | None:
            if self._paused(conn):
                return None
            live = self._live_claims(conn, release=True)
            for attempt in (1, 2):
                for rowid, job in self._open_jobs(conn, skipped | live):
                    finished = finished_run(self.run_dir_of(job.id))
                    if finished is not None:
                        self._record_in(conn, job.id, Outcome("done", str(finished), None, _now()))
                        continue
                    if self._rowid_of(conn, job.id) != rowid:
                        self._reindex(conn)  # its id's index entry is another row's
                    token = secrets.token_hex(8)
                    conn.execute(
                        "INSERT INTO claims VALUES (?, ?, ?, ?)",
                        (job.id, os.getpid(), my_start(), token),
                    )
                    return JobClaim(job, functools.partial(self._unclaim, job.id, token))
                if attempt == 2 or not self._repair_open_flags(conn):
                    break
            return None

        return self._do(work)

    def _open_jobs(
        self, conn: sqlite3.Connection, exclude: set[str]
    ) -> Iterator[tuple[int, QueuedJob]]:
        """The jobs flagged open, in queue order, read by their row (not through the id index);
        one whose document has its outcome gets its flag repaired and is not given."""
        query = (
            "SELECT rowid, id, position FROM jobs WHERE open = 1 AND position > ? "
            "ORDER BY position LIMIT 64"
        )  # a page at a time through the index jobs_open: a claim reads no more than it needs
        after = -(2**63)
        while True:
            page = conn.execute(query, (after,)).fetchall()
            if not page:
                return
            for rowid, job_id, position in page:
                after = position
                if job_id in exclude:
                    continue
                job = next(self._jobs(conn, "WHERE rowid = ?", (rowid,)), None)
                if job is None:
                    continue  # refused (said by the read)
                if job.outcome is not None:
                    conn.execute("UPDATE jobs SET open = 0 WHERE rowid = ?", (rowid,))
                    continue
                yield rowid, job

    def _repair_open_flags(self, conn: sqlite3.Connection) -> int:
        """Rows flagged closed whose checksummed document has no outcome (a flipped bit):
        flagged open again, so the job is claimed, not left queued for ever. How many."""
        wrong: list[tuple[int]] = []
        query = "SELECT rowid, doc, copy, sha256 FROM jobs WHERE open = 0"
        for rowid, doc, copy, digest in conn.execute(query):
            if queue_db.has_no_outcome(doc, copy, digest):
                wrong.append((rowid,))
        if wrong:
            log.warning("%d queued job(s) were flagged finished; flagged open again", len(wrong))
            conn.executemany("UPDATE jobs SET open = 1 WHERE rowid = ?", wrong)
        return len(wrong)

    def job_spec(self, job: QueuedJob) -> JobSpec:
        """The job's complete spec with its inputs verified against their hashes."""

        def path_of(item: QueuedInput) -> str:
            path = self.input_path(item)
            try:
                check_entry(path, missing_ok=False)
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


def queue_db_input(name: str) -> bool:
    from app.pipeline.queue.records import INPUT_NAME

    return INPUT_NAME.fullmatch(name) is not None

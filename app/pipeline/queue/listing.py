"""What the queue shows without changing a job (under JobQueue, app/pipeline/queue/jobs.py):
`queue list`'s rows and the seeds in use, answered from the listing table without reading the
job documents (a row whose entry is missing or stale is read from its document); every job
with its state derived from its run folder (`views`); and the Queue dock's page (`page`): the
first jobs with their run folders, the rest counted by indexed queries."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections import Counter
from collections.abc import Sequence

from app.core.errors import StepwiseError
from app.engine.tensorfile import file_sha256
from app.pipeline.job.spec import JobSpec
from app.pipeline.queue import db as queue_db
from app.pipeline.queue.records import (
    JobView,
    ListedJob,
    ListedView,
    QueuedJob,
    QueuePage,
    QueueRest,
    job_settings_key,
    settings_key,
    summary_of,
)
from app.pipeline.queue.store import QueueStore
from app.pipeline.queue.views import listed_view, view_of


class QueueListing(QueueStore):
    """The queue as `queue list`, `queue add --variations` and the Queue dock ask for it."""

    # --- what `queue list` shows, and the seeds in use, without reading the documents
    def listing(self) -> tuple[bool, list[ListedView]]:
        """Whether the queue is paused, and every job as `queue list` shows it, in queue order:
        read from each job's listing entry (a row whose entry is missing or stale is read
        from its document, refused rows said as by `read`)."""

        def work(conn: sqlite3.Connection) -> tuple[bool, list[tuple[ListedJob, bool]]]:
            live = self._live_claims(conn)
            self.refused = []
            entries = {
                row_id: (digest, summary)
                for row_id, digest, summary in conn.execute(
                    "SELECT id, sha256, summary FROM listing"
                )
            }
            out: list[tuple[ListedJob, bool]] = []
            for row_id, digest in self._order(conn):
                listed = None
                digest_listed, summary = entries.get(row_id, (None, None))
                if summary and digest_listed == digest:
                    try:
                        listed = ListedJob.of(json.loads(summary))
                    except (ValueError, KeyError, TypeError, IndexError):
                        listed = None
                if listed is None:
                    job = self._job_by_id(conn, row_id)
                    if job is None:
                        continue  # refused: said
                    listed = ListedJob.of(summary_of(job))
                    missing.append(queue_db.listing_row(job, digest))
                out.append((listed, listed.id in live))
            return self._paused(conn), out

        missing: list[queue_db.Encoded] = []
        paused, jobs = self._do(work, write=False)
        if missing:  # a queue from before the listing, or salvaged: entries made once
            refused = self.refused
            with contextlib.suppress(StepwiseError):
                self._do(lambda c: self._put_current(c, missing))
            self.refused = refused
        try:
            made = set(os.listdir(self.paths.runs_dir))  # one listing, not a look per job
        except OSError:
            made = set()
        runs = self.paths.runs_dir  # a job's folder is looked at only when it was made
        return paused, [
            listed_view(
                job, self.run_dir_of(job.id) if job.id in made else runs, held, job.id in made
            )
            for job, held in jobs
        ]

    @staticmethod
    def _put_current(conn: sqlite3.Connection, rows: list[queue_db.Encoded]) -> None:
        """Listing entries for rows whose document is still the one they were made from."""
        current = dict(conn.execute("SELECT id, sha256 FROM jobs").fetchall())
        queue_db.put_listing(conn, [r for r in rows if current.get(r.id) == r.sha256])

    @staticmethod
    def _order(conn: sqlite3.Connection) -> list[tuple[str, str]]:
        """(id, sha256) of every row in queue order, from the covering index jobs_list."""
        return conn.execute("SELECT id, sha256 FROM jobs ORDER BY position").fetchall()

    def _job_by_id(self, conn: sqlite3.Connection, job_id: str) -> QueuedJob | None:
        """One job read from its document (a refused one said, None)."""
        rowid = self._rowid_of(conn, job_id)
        if rowid is None:
            return None
        return next(self._jobs(conn, "WHERE rowid = ?", (rowid,), fresh=False), None)

    def seeds_in_use(
        self, spec: JobSpec, prompts: Sequence[str] | None = None
    ) -> set[tuple[str, int]]:
        """(prompt, seed) of every job whose settings are `spec`'s but for prompt and seed
        (variations avoid them): one indexed query on the settings key, not a read of every
        job (rows without a current listing entry are read from their documents). `prompts`:
        only those prompts' seeds (the prompts of the add)."""
        inputs = tuple(_digest(p) for p in (spec.image, spec.mask, *spec.refs))
        key = settings_key(spec, inputs)

        def work(conn: sqlite3.Connection) -> set[tuple[str, int]]:
            query = (
                "SELECT l.prompt, l.seed FROM listing l JOIN jobs j ON j.id = l.id "
                "WHERE l.settings = ? AND j.sha256 = l.sha256"
            )
            if prompts is not None:
                query += f" AND l.prompt IN ({', '.join('?' * len(prompts))})"
            used = set(conn.execute(query, (key, *(prompts or ()))).fetchall())
            stale = (  # rows with no current entry: read from their documents
                "SELECT j.id FROM jobs j LEFT JOIN listing l ON l.id = j.id "
                "WHERE l.sha256 IS NULL OR l.sha256 != j.sha256"
            )
            for (row_id,) in conn.execute(stale).fetchall():
                job = self._job_by_id(conn, row_id)
                if job is not None and job_settings_key(job) == key:
                    used.add((job.spec.prompt, job.spec.seed))
            return used

        return self._do(work, write=False)

    # --- views
    def views(self) -> tuple[bool, list[JobView]]:
        """Whether the queue is paused, and every job with its derived state, in queue order."""

        def work(conn: sqlite3.Connection) -> tuple[bool, list[tuple[QueuedJob, bool]]]:
            live = self._live_claims(conn)
            return self._paused(conn), [(j, j.id in live) for j in self._jobs(conn)]

        paused, jobs = self._do(work, write=False)
        return paused, self._views_of(jobs)

    # --- the Queue dock: a page of jobs, the rest as counts (issue 38: views() of 100,000 jobs
    # read every document and run folder)
    def page(self, limit: int) -> QueuePage:
        """Whether the queue is paused, its first `limit` jobs with their derived states (their
        documents and run folders read), and the jobs after them as counts and, for the ETA,
        one open job per settings with how many share them (indexed queries: none of their
        documents or run folders is read)."""

        def work(conn: sqlite3.Connection) -> tuple[bool, list[tuple[QueuedJob, bool]], QueueRest]:
            live = self._live_claims(conn)
            first = "WHERE rowid IN (SELECT rowid FROM jobs ORDER BY position LIMIT ?)"
            jobs = list(self._jobs(conn, first, (max(0, limit),)))
            rest = self._rest(conn, max(0, limit), jobs, live)
            return self._paused(conn), [(j, j.id in live) for j in jobs], rest

        paused, jobs, rest = self._do(work, write=False)
        return QueuePage(paused, tuple(self._views_of(jobs)), rest)

    def _rest(
        self, conn: sqlite3.Connection, limit: int, page: list[QueuedJob], live: set[str]
    ) -> QueueRest:
        """The whole queue's counts less the page's own: through the indexes jobs_order,
        jobs_open and listing_state (the open jobs grouped by settings, one of each read)."""

        def one(query: str, *params: object) -> int:
            return int(conn.execute(query, params).fetchone()[0])

        total = one("SELECT count(*) FROM jobs")
        if total <= limit:
            return QueueRest()
        mine = [j for j in page if j.outcome is None]  # the page's open jobs
        held = sorted(live)
        marks = ", ".join("?" * len(held))
        running = one(f"SELECT count(*) FROM jobs WHERE open = 1 AND id IN ({marks})", *held)
        failed = one(f"SELECT count(*) FROM listing WHERE {queue_db.STATE_OF} = 'failed'")
        found = conn.execute(
            f"SELECT settings, count(*), min(id) FROM listing WHERE {queue_db.STATE_OF} IS NULL "
            "GROUP BY settings"
        ).fetchall()
        on_page = Counter(job_settings_key(j) for j in mine)
        groups = []
        for key, count, some_id in found:
            left = int(count) - on_page.get(key, 0)
            job = self._job_by_id(conn, some_id) if left > 0 else None
            if job is not None:
                groups.append((job, left))
        return QueueRest(
            total - limit,
            max(0, one("SELECT count(*) FROM jobs WHERE open = 1") - len(mine)),
            max(0, running - sum(j.id in live for j in mine)),
            max(
                0, failed - sum(j.outcome is not None and j.outcome.state == "failed" for j in page)
            ),
            tuple(groups),
        )

    def _views_of(self, jobs: Sequence[tuple[QueuedJob, bool]]) -> list[JobView]:
        """Each job's view, its run folder read only when it was made (one listing of runs/)."""
        if not jobs:
            return []
        try:
            made = set(os.listdir(self.paths.runs_dir))  # one listing, not a look per job
        except OSError:
            made = set()
        return [view_of(j, self.run_dir_of(j.id), held, j.id in made) for j, held in jobs]

    def find(self, job_id: str) -> JobView | None:
        """One job with its derived state (None: not in the queue): its document and its run
        folder only."""

        def work(conn: sqlite3.Connection) -> tuple[QueuedJob, bool] | None:
            job = self._job_by_id(conn, job_id)
            return None if job is None else (job, job.id in self._live_claims(conn))

        found = self._do(work, write=False)
        return None if found is None else self._views_of([found])[0]

    def variation_views(self, variation_set: str) -> list[JobView]:
        """The jobs of one set of variations with their states, in queue order (the index
        listing_set: only their documents and run folders are read)."""

        def work(conn: sqlite3.Connection) -> list[tuple[QueuedJob, bool]]:
            live = self._live_claims(conn)
            rows = conn.execute(
                f"SELECT j.rowid FROM listing l JOIN jobs j ON j.id = l.id "
                f"WHERE {queue_db.SET_OF} = ? ORDER BY j.position",
                (variation_set,),
            ).fetchall()
            jobs = [
                job
                for (rowid,) in rows
                for job in self._jobs(conn, "WHERE rowid = ?", (rowid,), fresh=False)
            ]
            return [
                (j, j.id in live) for j in jobs if j.variation and j.variation.set == variation_set
            ]

        return self._views_of(self._do(work, write=False))


def _digest(path: str | None) -> str | None:
    try:
        return None if path is None else file_sha256(path)
    except (OSError, StepwiseError):
        return path  # unreadable: the add says so; no queued job matches it

"""The queue's store under JobQueue (app/pipeline/queue/jobs.py): the database opened (made,
queue.json imported), one transaction per operation, a damaged database moved aside and
salvaged, rows read with the refused ones said (found by id past a damaged index), workers'
claims by pid and start time."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from app.core import platform
from app.core.errors import DamagedFileError, StepwiseError
from app.core.paths import AppPaths
from app.core.program import typed
from app.core.safe_files import check_entry, check_folder
from app.pipeline.queue import db as queue_db
from app.pipeline.queue import legacy_json as queue_import
from app.pipeline.queue import salvage as queue_salvage
from app.pipeline.queue.records import QueuedJob

log = logging.getLogger(__name__)

QUEUE_FILE = queue_db.DB_FILE
SIDE_FILES = ("-wal", "-shm", "-journal")  # SQLite's, beside queue.db (checked as it is)
LOCK_WAIT_S = 30.0
T = TypeVar("T")


class QueueBusy(StepwiseError):
    """Another process holds the queue (or one job) longer than a moment."""


class QueueStore:
    """The database of one installation's queue (AppPaths.data_dir / "queue")."""

    def __init__(self, paths: AppPaths) -> None:
        self.paths = paths
        self.dir = paths.data_dir / "queue"
        self.refused: list[StepwiseError] = []  # the rows the last read refused, one each

    @property
    def file(self) -> Path:
        return self.dir / QUEUE_FILE

    def run_dir_of(self, job_id: str) -> Path:
        """A job's run folder: the runs folder's `<job id>`."""
        return self.paths.runs_dir / job_id

    def notices(self) -> list[StepwiseError]:
        """What every command says until the user acts: damaged files kept in damaged/, and
        each job row the last read refused."""
        return queue_db.notes(self.dir) + list(self.refused)

    # --- the database
    def _open(self, *, checked: bool = True) -> sqlite3.Connection:
        check_folder(self.dir.parent)  # a file where the data folder or the queue goes
        check_folder(self.dir)
        check_entry(self.file)  # a FIFO, folder or link at queue.db: a message, not a hang
        for side in SIDE_FILES:  # SQLite's journal and its lock (-shm), written in place
            check_entry(self.dir / (QUEUE_FILE + side), in_place=True)
        how = self._gone() if checked else None
        if how is not None:  # a queue known to exist found empty or missing: damage
            self._quarantine(how)
        elif checked and queue_db.header_damaged(self.file):  # e.g. byte 18: read-only
            self._quarantine()
        self.dir.mkdir(parents=True, exist_ok=True)
        conn = queue_db.connect(self.file, LOCK_WAIT_S)
        try:
            conn.execute("BEGIN IMMEDIATE")
            made = queue_db.make_schema(conn)
            imported = queue_import.import_legacy(conn, self.dir) if made else None
            if imported is not None:
                conn.execute("INSERT INTO meta VALUES ('imported', ?)", (imported[0],))
            if checked:
                self._check_count(conn)
            conn.execute("COMMIT")
        except BaseException:
            conn.close()
            raise
        leftover = queue_import.legacy_files(self.dir)
        if leftover:  # imported (now or by a process killed before it renamed them)
            found = conn.execute("SELECT value FROM meta WHERE key = 'imported'").fetchone()
            if found is not None:
                count = conn.execute("SELECT count(*) FROM jobs").fetchone()[0]
                queue_import.put_aside(self.dir, str(found[0]), int(count))
        return conn

    def _do(self, work: Callable[[sqlite3.Connection], T], *, write: bool = True) -> T:
        """`work` in one transaction; a damaged database is moved aside, salvaged, and `work`
        done again on the salvaged one."""
        for attempt in (1, 2):
            try:
                conn = self._open()
            except sqlite3.Error as exc:
                if attempt == 1 and queue_db.is_corrupt(exc):
                    self._quarantine()
                    continue
                raise self._sqlite_error(exc) from exc
            try:
                conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                result = work(conn)
                conn.execute("COMMIT")
                return result
            except sqlite3.Error as exc:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                conn.close()
                if attempt == 1 and queue_db.is_corrupt(exc):
                    self._quarantine()
                    continue
                raise self._sqlite_error(exc) from exc
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise
            finally:
                conn.close()
        raise AssertionError("unreachable")

    def _sqlite_error(self, exc: sqlite3.Error) -> StepwiseError:
        if queue_db.is_busy(exc):
            return QueueBusy(
                "The queue {path} is held by another Stepwise process.",
                path=self.file,
                fix="Wait a moment and try again.",
            )
        return DamagedFileError(
            "The queue {path} cannot be used: {reason}.",
            path=self.file,
            fix="Check that the data folder is writable and has free space.",
            values={"reason": str(exc)},
        )

    def _gone(self) -> str | None:
        """ "empty" or "missing" when queue.db is a 0-byte file or absent while the queue is
        known to exist (its job count kept beside it, or its inputs/); else None. SQLite would
        open either as a new, empty queue."""
        try:
            if os.lstat(self.file).st_size > 0:
                return None
            how = "empty"
        except FileNotFoundError:
            how = "missing"
        if queue_import.legacy_files(self.dir):
            return None  # the queue before the database: imported when the database is made
        if queue_db.read_count(self.dir) > 0:
            return how
        try:
            return how if any(os.scandir(self.dir / "inputs")) else None
        except OSError:
            return None

    def _check_count(self, conn: sqlite3.Connection) -> None:
        """Under the write lock: fewer jobs than the count kept beside the database means the
        database lost committed changes (its -wal removed or replaced while open). Said."""
        expected = queue_db.read_count(self.dir)
        if not expected:
            return
        held = int(conn.execute("SELECT count(*) FROM jobs").fetchone()[0])
        if held < expected:
            where = queue_db.aside_folder(self.dir)
            log.warning("the queue lost %d job(s) (its -wal changed under it)", expected - held)
            queue_db.write_note(where, "lost", held, expected)
            queue_db.write_count(self.dir, held)

    def _write_count(self, conn: sqlite3.Connection) -> None:
        """Keeps the job count beside the database (call it inside a write transaction: after
        a removal before its commit, so the count never exceeds what the database holds)."""
        held = int(conn.execute("SELECT count(*) FROM jobs").fetchone()[0])
        if held != queue_db.read_count(self.dir):
            queue_db.write_count(self.dir, held)

    def _count_added(self) -> None:
        """The count after an add, written under the write lock in its own transaction."""
        self._do(self._write_count)

    def _quarantine(self, how: str = "database") -> None:
        """The damaged (or empty, or missing) database moved aside (never written again); what
        it still holds, through SQLite and by a scan of its bytes, copied into a new one; a
        note that every command shows."""
        expected = queue_db.read_count(self.dir)
        where = queue_db.move_aside(self.file)
        log.warning("the queue database was %s; moved to %s", how, where)
        kept_file = where / QUEUE_FILE
        scanned = queue_salvage.scan_file(kept_file)  # first: SQLite drops a 0-byte file's -wal
        paused: bool | None = None
        found: list[tuple[int | None, queue_db.Row]] = []
        if os.path.isfile(kept_file) and os.path.getsize(kept_file) > 0:
            paused, found = queue_salvage.sqlite_rows(kept_file)
        rows = queue_salvage.merge_salvage(scanned, found)
        conn = self._open(checked=False)
        try:
            conn.execute("BEGIN IMMEDIATE")
            kept: dict[str, queue_db.Row] = {}
            for row in rows:
                kept.setdefault(row[0], row)  # one row per id, the first in queue order
            conn.executemany(
                "INSERT OR IGNORE INTO jobs VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(*row[:1], n, *row[1:], *_index_of(row)) for n, row in enumerate(kept.values())],
            )
            listed = []
            for row in kept.values():
                with contextlib.suppress(queue_db.RowRefused):
                    listed.append(queue_db.listing_row(queue_db.decode(*row), row[3]))
            queue_db.put_listing(conn, listed)
            if paused is not False:  # unreadable: paused, so nothing runs before the user looks
                conn.execute("UPDATE meta SET value = '1' WHERE key = 'paused'")
            queue_db.write_note(where, how, len(kept), expected)
            queue_db.write_count(self.dir, len(kept))
            conn.execute("COMMIT")
        finally:
            conn.close()

    def _jobs(
        self,
        conn: sqlite3.Connection,
        where: str = "",
        params: tuple[object, ...] = (),
        *,
        fresh: bool = True,
    ) -> Iterator[QueuedJob]:
        """The readable jobs in queue order; each refused row said once in `self.refused`
        (`fresh`: the list starts anew)."""
        if fresh:
            self.refused = []
        query = f"SELECT {queue_db.JOB_COLUMNS} FROM jobs {where} ORDER BY position"
        for row_id, doc, copy, digest in conn.execute(query, params):
            try:
                yield queue_db.decode(row_id, doc, copy, digest)
            except queue_db.RowRefused as exc:
                self.refused.append(
                    DamagedFileError(
                        "The queue's job {id} is refused: {reason}.",
                        path=self.file,
                        fix="Remove the refused jobs with `{command}` (the other jobs stay).",
                        values={
                            "id": queue_db.shown_id(row_id),
                            "reason": str(exc),
                            "command": typed("queue", "remove", "--refused"),
                        },
                    )
                )

    @staticmethod
    def _paused(conn: sqlite3.Connection) -> bool:
        found = conn.execute("SELECT value FROM meta WHERE key = 'paused'").fetchone()
        return found is None or found[0] != "0"  # unreadable: paused, the safe side

    def _rowid_of(self, conn: sqlite3.Connection, job_id: str) -> int | None:
        """The row of a job id through its index; when the index misses, through the table
        (`+id` reads no index), and the indexes rebuilt from the table if it is there: a
        damaged index entry never hides a job (issue 38, item 3)."""
        found = conn.execute("SELECT rowid FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if found is not None:
            return int(found[0])
        found = conn.execute("SELECT rowid FROM jobs WHERE +id = ?", (job_id,)).fetchone()
        if found is None:
            return None
        self._reindex(conn)
        return int(found[0])

    def _reindex(self, conn: sqlite3.Connection) -> None:
        log.warning("the queue's index disagreed with its rows; rebuilt from the rows")
        if conn.in_transaction and self._writing(conn):
            conn.execute("REINDEX jobs")

    @staticmethod
    def _writing(conn: sqlite3.Connection) -> bool:
        try:
            conn.execute("UPDATE meta SET value = value WHERE key = 'format'")
        except sqlite3.OperationalError:
            return False
        return True

    # --- reading
    def _live_claims(self, conn: sqlite3.Connection, *, release: bool = False) -> set[str]:
        """The jobs a live worker holds; with `release`, the claims of gone workers are taken
        away (a pid whose process started at another time is another process)."""
        live: set[str] = set()
        gone: list[tuple[str]] = []
        for job_id, pid, started in conn.execute("SELECT job_id, pid, started FROM claims"):
            info = platform.process_info(int(pid))
            if info is not None and platform.same_start(info.started, float(started)):
                live.add(job_id)
            else:
                gone.append((job_id,))
        if release and gone:
            conn.executemany("DELETE FROM claims WHERE job_id = ?", gone)
        return live

    def _unclaim(self, job_id: str, token: str) -> None:
        self._do(
            lambda c: c.execute(
                "DELETE FROM claims WHERE job_id = ? AND token = ?", (job_id, token)
            )
        )


def _index_of(row: tuple[str, bytes, bytes, str]) -> tuple[int, str]:
    """A salvaged row's helper columns (open, files) from its job; a refused row uses none."""
    try:
        job = queue_db.decode(*row)
    except queue_db.RowRefused:
        return 1, ""
    return int(job.outcome is None), " ".join(f.file for f in job.inputs())


_START: list[float] = []


def my_start() -> float:
    """This process's start time (with its pid, the identity a claim records)."""
    if not _START:
        _START.append(platform.process_started(os.getpid()) or time.time())
    return _START[0]

"""The queue's database (app/pipeline/queue/db.py, queue/jobs.py): nothing lost at any size, a
flipped byte, a damaged file moved aside and said, forged rows refused one by one, a killed
worker's claim released, queue.json imported once (issue 29, defects 1, 2, 8)."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.errors import InputError
from app.core.paths import app_paths
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.queue import db as queue_db
from app.pipeline.queue.jobs import JobQueue
from app.pipeline.queue.legacy_json import IMPORTED, LEGACY_BACKUP, LEGACY_FILE
from app.pipeline.queue.records import QUEUE_FORMAT
from app.pipeline.queue.variations import MAX_JOBS_PER_ADD, variations
from app.pipeline.run.format import checksum
from tests.cli.conftest import cli_here


def _spec(prompt: str = "a red house", seed: int = 7) -> JobSpec:
    return JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt=prompt, seed=seed)


@pytest.fixture()
def queue() -> JobQueue:
    return JobQueue(app_paths())


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return cli_here("queue", *args)


def _rows(queue: JobQueue) -> sqlite3.Connection:
    return sqlite3.connect(queue.file, isolation_level=None)


def test_the_store_is_sqlite_in_wal_mode(queue: JobQueue) -> None:
    queue.add([_spec("a")])
    with _rows(queue) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT value FROM meta WHERE key='format'").fetchone()[0] == "2"
    assert not (queue.dir / "queue.json").exists() and not (queue.dir / "queue.json.bak").exists()


def test_a_flipped_byte_in_a_job_loses_nothing(queue: JobQueue) -> None:
    """Defect 2: one damaged byte dropped the last change; each row keeps two copies."""
    a, b = queue.add([_spec("a"), _spec("b")])
    with _rows(queue) as conn:
        doc = bytearray(conn.execute("SELECT doc FROM jobs WHERE id=?", (b.id,)).fetchone()[0])
        doc[len(doc) // 2] ^= 0x10
        conn.execute("UPDATE jobs SET doc=? WHERE id=?", (bytes(doc), b.id))
    assert [j.spec.prompt for j in queue.read().jobs] == ["a", "b"]
    assert queue.notices() == []


def test_a_damaged_database_is_moved_aside_salvaged_and_said_until_removed(
    queue: JobQueue,
) -> None:
    """Defect 2: a damaged store is never overwritten; what can be read is kept; every
    command says so until the user removes the copy kept aside."""
    queue.add([_spec(f"p{i}") for i in range(300)])
    data = bytearray(queue.file.read_bytes())
    data[:16] = b"not a database!!"  # the header: SQLite refuses the whole file
    queue.file.write_bytes(bytes(data))
    first = _cli("list")
    assert first.returncode == 0, first.stderr
    assert "Traceback" not in first.stderr
    assert "The queue's database was damaged; it was moved to" in first.stderr
    aside = queue.dir / "damaged"
    (kept,) = aside.iterdir()
    assert (kept / "queue.db").read_bytes()[:16] == b"not a database!!"  # never written
    again = _cli("list")
    assert "was damaged" in again.stderr  # said again, until the user acts
    import shutil

    shutil.rmtree(aside)
    assert "damaged" not in _cli("list").stderr


def _middle_table_leaf(db: Path) -> tuple[int, int]:
    """Offset and size of the first table b-tree leaf page (type byte 0x0D) from the middle of
    the file on: job rows live there, so every read of the jobs meets the damage (random
    garbage over a page of an index the query does not use went unseen, 1 run in 40)."""
    data = db.read_bytes()
    size = int.from_bytes(data[16:18], "big")  # the page size, from the file's header
    pages = len(data) // size
    for page in range(pages // 2, pages):
        if data[page * size] == 0x0D:
            return page * size, size
    raise AssertionError(f"no table leaf page in the second half of {db}")


def test_a_database_damaged_inside_keeps_every_row_it_can_read(queue: JobQueue) -> None:
    queue.add([_spec(f"p{i}") for i in range(2000)])
    with open(queue.file, "r+b") as f:  # garbage over a page of job rows in the middle
        offset, size = _middle_table_leaf(queue.file)
        f.seek(offset)
        f.write(random.Random(29).randbytes(size))
    views = queue.views()[1]  # no traceback: moved aside, every row still readable kept
    (notice,) = [str(n) for n in queue.notices()]
    assert f"and {len(views)} job(s) were salvaged" in notice
    assert len(views) >= 1900  # a 4 KiB page holds a few rows of 2000


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("id", "..", "job id"),
        ("id", "q\0x", "job id"),
        ("id", "q" * 301, "job id"),
        ("image", "/etc/passwd", "inputs/"),
        ("state", "running", "not done or failed"),
        ("spec", "deep", "cannot be read"),
    ],
)
def test_a_forged_row_is_refused_with_its_reason(
    queue: JobQueue, field: str, value: str, reason: str
) -> None:
    """Defects 2 and 8: a row with a valid checksum but a refused field is said per row; the
    others run; `queue remove --refused` takes it out."""
    (good,) = queue.add([_spec("good")])
    job = queue.read().jobs[0].to_json()
    row_id = good.id
    if field == "id":
        job["id"] = row_id = value
    elif field == "image":
        job["inputs"]["image"] = {"file": value, "sha256": "0" * 64, "source": value}
    elif field == "state":
        job["outcome"] = {"state": value, "run_dir": "", "failure": None, "finished": ""}
    raw = json.dumps(job).encode()
    if field == "spec":
        raw = b"[" * 100_000 + b"]" * 100_000
    import hashlib
    import zlib

    doc = zlib.compress(raw)
    with _rows(queue) as conn:
        conn.execute(
            "INSERT OR REPLACE INTO jobs VALUES (?, 5, ?, ?, ?, 1, '')",
            (row_id + ("" if field == "id" else "x"), doc, doc, hashlib.sha256(doc).hexdigest()),
        )
    listed = _cli("list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "Traceback" not in listed.stderr
    assert "is refused" in listed.stderr and reason in listed.stderr
    assert [j["id"] for j in json.loads(listed.stdout)] == [good.id]
    claim = queue.claim_next()
    assert claim is not None and claim.job.id == good.id
    claim.release()
    removed = _cli("remove", "--refused")
    assert removed.returncode == 0 and "removed 1 refused job(s)" in removed.stdout
    assert "refused" not in _cli("list").stderr


def test_a_killed_workers_claim_is_released_by_pid_and_start_time(queue: JobQueue) -> None:
    a, b = queue.add([_spec("a"), _spec("b")])
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    with _rows(queue) as conn:  # a worker that died, and a live pid that started later
        conn.execute("INSERT INTO claims VALUES (?, ?, 0, 't')", (a.id, gone.pid))
        conn.execute("INSERT INTO claims VALUES (?, ?, 1.0, 't')", (b.id, os.getpid()))
    assert [v.state for v in queue.views()[1]] == ["queued", "queued"]
    first, second = queue.claim_next(), queue.claim_next()
    assert first is not None and second is not None
    assert (first.job.id, second.job.id) == (a.id, b.id)
    first.release()
    second.release()


def _legacy(jobs: list[dict], paused: bool = False) -> str:
    data = {"format": QUEUE_FORMAT, "paused": paused, "jobs": jobs}
    data["checksum"] = checksum(data)
    return json.dumps(data)


def test_a_queue_json_over_16_mib_is_imported_whole_once_and_kept(queue: JobQueue) -> None:
    """Defect 1: 9000 jobs made an 18 MB queue.json that the reader refused (it fell back to
    the one-job backup). The import keeps every job and renames the file aside."""
    made = queue.add([_spec("x")])[0].to_json()
    queue.file.unlink()
    jobs = []
    for i in range(9000):
        one = json.loads(json.dumps(made))
        one["id"] = f"q{i:08d}"
        one["spec"]["prompt"] = f"prompt {i} " + "words " * 250
        jobs.append(one)
    text = _legacy(jobs, paused=True)
    assert len(text) > 16 * 1024 * 1024
    (queue.dir / LEGACY_FILE).write_text(text)
    (queue.dir / LEGACY_BACKUP).write_text(_legacy(jobs[:1]))
    state = queue.read()
    assert len(state.jobs) == 9000 and state.paused
    assert (queue.dir / (LEGACY_FILE + IMPORTED)).is_file()
    assert not (queue.dir / LEGACY_FILE).exists()
    queue.remove(state.jobs[0].id)
    assert len(JobQueue(app_paths()).read().jobs) == 8999  # imported once, not again


def test_a_damaged_queue_json_is_read_from_its_backup_and_said(queue: JobQueue) -> None:
    made = queue.add([_spec("x")])[0].to_json()
    queue.file.unlink()
    (queue.dir / LEGACY_FILE).write_text(_legacy([made])[:-5])
    (queue.dir / LEGACY_BACKUP).write_text(_legacy([made]))
    assert [j.id for j in queue.read().jobs] == [made["id"]]
    (notice,) = queue.notices()
    assert "The old queue file was damaged" in str(notice) and "1 job(s)" in str(notice)


def test_a_huge_variations_count_is_bounded_with_a_message() -> None:
    """Defect 1: lines × variations had no bound (9 × 1000 added 9000 jobs the reader lost)."""
    lines = [(n, f"p{n}") for n in range(1, 1001)]
    with pytest.raises(InputError, match="at most"):
        variations(_spec(), 1000, False, lines)
    specs, _ = variations(_spec(), 100, False, lines[: MAX_JOBS_PER_ADD // 100])
    assert len(specs) == MAX_JOBS_PER_ADD


def test_moving_past_the_end_says_the_place_it_got(queue: JobQueue) -> None:
    """Defect 12: `queue move ID 99` said "place 99" in a 3-job queue."""
    a, _, _ = queue.add([_spec("a"), _spec("b"), _spec("c")])
    moved = _cli("move", a.id, "99")
    assert moved.returncode == 0 and f"moved {a.id} to place 3" in moved.stdout


def test_a_fifo_or_folder_at_queue_db_is_a_message(queue: JobQueue) -> None:
    queue.dir.mkdir(parents=True)
    queue.file.mkdir()
    done = _cli("list")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "is a folder, where Stepwise keeps a file of its own" in done.stderr
    assert queue_db.notes(queue.dir) == []

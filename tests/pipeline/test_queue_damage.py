"""A queue left alone all night (issue 38, items 1-5): a queue known to exist that opens
empty, missing or damaged is said and salvaged from what the file still holds (a scan of its
bytes for the checksummed job documents, beyond SQLite's b-tree); a row whose `open` flag or
index disagrees with its document is repaired; a `-wal` removed under the queue is said."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.paths import app_paths
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.queue import db as queue_db
from app.pipeline.queue.jobs import JobQueue, Outcome

JOBS = 30


def _spec(prompt: str) -> JobSpec:
    return JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt=prompt, seed=7)


@pytest.fixture()
def queue() -> JobQueue:
    return JobQueue(app_paths())


def _filled(queue: JobQueue) -> list[str]:
    return [j.id for j in queue.add([_spec(f"prompt {i}") for i in range(JOBS)])]


def _digests(queue: JobQueue) -> list[str]:
    with sqlite3.connect(queue.file) as conn:
        return [d for (d,) in conn.execute("SELECT sha256 FROM jobs ORDER BY position")]


HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA wal_autocheckpoint=0")
conn.execute("SELECT 1 FROM jobs").fetchall()
print("ready", flush=True)
sys.stdin.read()
"""


@contextlib.contextmanager
def _held(queue: JobQueue) -> Iterator[None]:
    """Another process with the queue open (its -wal is not checkpointed away meanwhile)."""
    queue.read()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(queue.file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "ready\n"
        yield
    finally:
        holder.communicate("", timeout=60)


def _said(queue: JobQueue) -> str:
    return "\n".join(str(n) for n in queue.notices())


def test_a_zero_byte_queue_db_of_a_known_queue_is_damage_said_and_kept(queue: JobQueue) -> None:
    _filled(queue)
    with open(queue.file, "wb"):
        pass  # cut to 0 bytes (a crash of the file system, a bad restore)
    state = queue.read()
    said = _said(queue)
    assert f"{JOBS} job(s)" in said and "queue.db" in said, said
    assert "empty" in said
    assert state.jobs == ()
    (kept,) = (queue.dir / queue_db.DAMAGED).iterdir()
    assert (kept / "queue.db").stat().st_size == 0  # moved aside as it was
    assert "empty" in _said(JobQueue(app_paths()))  # said again by the next command


def test_a_zero_byte_queue_db_salvages_what_its_wal_holds(queue: JobQueue) -> None:
    """A live run's queue.db cut to 0 bytes: the jobs its -wal still holds come back."""
    with _held(queue):
        ids = _filled(queue)
        with open(queue.file, "r+b") as f:
            f.truncate(0)
        state = queue.read()
    assert sorted(j.id for j in state.jobs) == sorted(ids)
    assert f"{JOBS} job(s) were salvaged" in _said(queue)


def test_a_missing_queue_db_of_a_known_queue_is_said(queue: JobQueue) -> None:
    _filled(queue)
    queue.file.unlink()
    queue.read()
    said = _said(queue)
    assert "missing" in said and f"{JOBS} job(s)" in said, said


def test_a_new_queue_is_no_damage(queue: JobQueue) -> None:
    assert queue.read().jobs == ()
    queue.add([_spec("a")])
    queue.remove(queue.read().jobs[0].id)
    assert queue.read().jobs == () and queue.notices() == []


@pytest.mark.parametrize("offset", [0, 16, 28])
def test_a_damaged_header_byte_salvages_every_job(queue: JobQueue, offset: int) -> None:
    ids = _filled(queue)
    data = bytearray(queue.file.read_bytes())
    data[offset] ^= 0xFF
    queue.file.write_bytes(bytes(data))
    state = queue.read()
    assert [j.id for j in state.jobs] == ids  # every job, in queue order
    assert f"{JOBS} job(s) were salvaged" in _said(queue)


def test_a_cut_last_page_salvages_every_intact_job(queue: JobQueue) -> None:
    ids = _filled(queue)
    with sqlite3.connect(queue.file) as conn:  # everything in the main file
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    digests = _digests(queue)
    data = queue.file.read_bytes()[:-4096]
    intact = [i for i, d in zip(ids, digests, strict=True) if d.encode() in data]
    assert len(intact) >= JOBS // 2
    with open(queue.file, "r+b") as f:
        f.truncate(len(data))
    got = [j.id for j in queue.read().jobs]
    assert set(intact) <= set(got), (len(intact), len(got))


def _set(queue: JobQueue, sql: str, *args: object) -> None:
    with sqlite3.connect(queue.file, isolation_level=None) as conn:
        conn.execute(sql, args)


def test_a_queued_job_whose_open_flag_flipped_is_still_claimed(queue: JobQueue) -> None:
    a, b = queue.add([_spec("a"), _spec("b")])
    _set(queue, "UPDATE jobs SET open = 0 WHERE id = ?", a.id)
    first, second = queue.claim_next(), queue.claim_next()  # b held: a is found all the same
    assert first is not None and second is not None
    assert {first.job.id, second.job.id} == {a.id, b.id}
    first.release()
    second.release()


def test_a_done_job_whose_open_flag_flipped_is_repaired(queue: JobQueue) -> None:
    a, b = queue.add([_spec("a"), _spec("b")])
    queue.record(a.id, Outcome("failed", "", "x", "now"))
    _set(queue, "UPDATE jobs SET open = 1 WHERE id = ?", a.id)
    claim = queue.claim_next()
    assert claim is not None and claim.job.id == b.id
    claim.release()
    with sqlite3.connect(queue.file) as conn:
        assert conn.execute("SELECT open FROM jobs WHERE id = ?", (a.id,)).fetchone() == (0,)


def _flip_in_index(db: Path, text: str) -> None:
    """One bit of `text` flipped where it sits in an index page (not in the table's row)."""
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db.read_bytes())
    size = int.from_bytes(data[16:18], "big")
    at = data.find(text.encode())
    while at >= 0:
        page = at // size * size
        header = page + (100 if page == 0 else 0)
        if data[header] in (0x0A, 0x02):  # an index page (leaf or interior)
            data[at + len(text) - 1] ^= 0x01
            db.write_bytes(bytes(data))
            return
        at = data.find(text.encode(), at + 1)
    raise AssertionError(f"{text} is in no index page")


def test_a_job_whose_id_flipped_in_the_index_is_claimed_and_recorded(queue: JobQueue) -> None:
    a, b = queue.add([_spec("a"), _spec("b")])
    _flip_in_index(queue.file, a.id)
    claim = queue.claim_next()
    assert claim is not None and claim.job.id == a.id
    queue.record(a.id, Outcome("done", "", None, "now"))
    claim.release()
    claim = queue.claim_next()
    assert claim is not None and claim.job.id == b.id  # a is recorded: not run twice
    claim.release()
    assert [j.outcome is not None for j in queue.read().jobs] == [True, False]


def test_a_wal_removed_while_the_queue_is_open_is_said(queue: JobQueue) -> None:
    queue.add([_spec("before")])
    with _held(queue):
        queue.add([_spec(f"late {i}") for i in range(6)])
        for side in ("-wal", "-shm"):
            os.unlink(str(queue.file) + side)
        state = queue.read()
    said = _said(queue)
    assert "holds 1 job(s) where 7 were recorded" in said and "-wal" in said, said
    assert len(state.jobs) == 1
    assert "-wal" in _said(JobQueue(app_paths()))  # said until the user acts


def test_list_seeds_and_claim_read_no_document(
    queue: JobQueue, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Flat at scale (issue 38, item 9): `queue list`, the seeds in use and a claim are
    answered by the listing entries and indexes, not by reading every job's document."""
    from app.pipeline.queue.variations import used_seeds, variations

    specs, tags = variations(_spec("a red house"), 200, False, [(1, "a"), (2, "b")])
    queue.add(specs, tags)
    queue.add([_spec("other"), dataclasses.replace(_spec("a"), steps=5)])
    expected = used_seeds(_spec("a"), queue.read().jobs)
    reads: list[str] = []
    real = queue_db.decode
    monkeypatch.setattr(queue_db, "decode", lambda *row: reads.append(row[0]) or real(*row))
    paused, listed = queue.listing()
    assert len(listed) == 402 and [v.state for v in listed[:2]] == ["queued", "queued"]
    assert listed[0].job.prompt == "a" and listed[-1].job.steps == 5
    assert queue.seeds_in_use(_spec("a")) == expected and len(expected) == 401
    claim = queue.claim_next()
    assert claim is not None
    claim.release()
    assert len(reads) <= 1, len(reads)  # the claimed job's own document


def test_header_byte_18_is_damage_moved_aside_not_read_only_for_good(queue: JobQueue) -> None:
    ids = _filled(queue)
    with sqlite3.connect(queue.file) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(queue.file.read_bytes())
    data[18] = 0x7F  # a write version SQLite does not know: it opens the file read-only
    queue.file.write_bytes(bytes(data))
    queue.add([_spec("after")])  # writable again: the damaged file was moved aside
    assert [j.id for j in queue.read().jobs][:JOBS] == ids
    assert "were salvaged" in _said(queue)


def test_a_meta_table_of_another_schema_is_damage(queue: JobQueue) -> None:
    ids = _filled(queue)
    _set(queue, "DROP TABLE meta")
    _set(queue, "CREATE TABLE meta(k TEXT, v TEXT)")
    assert [j.id for j in queue.read().jobs] == ids
    assert "were salvaged" in _said(queue)


def test_a_damaged_files_column_does_not_break_remove(queue: JobQueue) -> None:
    a, b = queue.add([_spec("a"), _spec("b")])
    _set(queue, "UPDATE jobs SET files = CAST(X'FF00FE' AS TEXT) WHERE id = ?", a.id)
    queue.remove(b.id)
    assert [j.id for j in queue.read().jobs] == [a.id]


def test_a_queue_without_listing_entries_gets_them_once(
    queue: JobQueue, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = _filled(queue)
    _set(queue, "DELETE FROM listing")  # a queue from before the listing
    reads: list[str] = []
    real = queue_db.decode
    monkeypatch.setattr(queue_db, "decode", lambda *row: reads.append(row[0]) or real(*row))
    assert [v.job.id for v in queue.listing()[1]] == ids
    assert len(reads) == JOBS
    assert [v.job.id for v in queue.listing()[1]] == ids
    assert len(reads) == JOBS  # entries made by the first list

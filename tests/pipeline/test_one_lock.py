"""One hardened file lock (issue 29, defect 8; issue 28's one file-lock class): core/file_lock
.FileLock, which the run lock is; the queue's own lock is SQLite's (queue.db and its -wal and
-shm files), checked the same way before SQLite opens them. A folder, a link, a FIFO or a
second name at a lock path is a clear message naming the entry, never a traceback, and nothing
is created or written outside the data folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.errors import DamagedFileError, StepwiseError
from app.core.file_lock import FileLock, LockBusy
from app.core.paths import app_paths
from app.pipeline.queue.jobs import JobQueue
from app.pipeline.run.lock import RunBusy, RunLock

OUTSIDE = "the user's own file\n"


def _plant(where: Path, kind: str, outside: Path) -> None:
    where.parent.mkdir(parents=True, exist_ok=True)
    if kind == "folder":
        where.mkdir()
    elif kind == "symlink":
        where.symlink_to(outside)
    elif kind == "dangling":
        where.symlink_to(outside.with_name("made-by-no-one.txt"))
    elif kind == "fifo":
        os.mkfifo(where)
    elif kind == "hardlink":
        os.link(outside, where)


KINDS = ("folder", "symlink", "dangling", "fifo", "hardlink")


@pytest.mark.parametrize("kind", KINDS)
def test_the_file_lock_refuses_what_is_not_its_file(tmp_path: Path, kind: str) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text(OUTSIDE)
    where = tmp_path / "data" / "thing.lock"
    _plant(where, kind, outside)
    with pytest.raises(DamagedFileError, match="thing.lock") as caught:
        FileLock(where).__enter__()
    assert "Traceback" not in caught.value.user_message()
    assert outside.read_text() == OUTSIDE
    assert not outside.with_name("made-by-no-one.txt").exists()


def test_a_held_lock_is_busy_and_the_run_lock_is_one(tmp_path: Path) -> None:
    with FileLock(tmp_path / "x.lock"):
        with pytest.raises(LockBusy, match="x.lock is held by another"):
            FileLock(tmp_path / "x.lock").__enter__()
    assert issubclass(RunLock, FileLock) and issubclass(RunBusy, LockBusy)
    with RunLock(tmp_path), pytest.raises(RunBusy, match="another Stepwise process"):
        RunLock(tmp_path).__enter__()


@pytest.mark.parametrize("side", ["queue.db-wal", "queue.db-shm"])
@pytest.mark.parametrize("kind", KINDS)
def test_the_queues_lock_files_are_checked_before_sqlite(
    tmp_path: Path, side: str, kind: str
) -> None:
    queue = JobQueue(app_paths())
    assert queue.read().jobs == ()  # made; SQLite removes -wal and -shm on a clean close
    outside = tmp_path / "outside.txt"
    outside.write_text(OUTSIDE)
    for name in ("queue.db-wal", "queue.db-shm"):
        (queue.dir / name).unlink(missing_ok=True)
    _plant(queue.dir / side, kind, outside)
    with pytest.raises(StepwiseError, match=side.replace(".", r"\.")):
        JobQueue(app_paths()).read()
    assert outside.read_text() == OUTSIDE
    assert not outside.with_name("made-by-no-one.txt").exists()

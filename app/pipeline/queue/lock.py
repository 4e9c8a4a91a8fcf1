"""The queue's locks: a file lock the OS drops when the process dies, and a worker's claim."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from types import TracebackType

from app.core import platform
from app.pipeline.queue.records import QueuedJob


class FileLock:
    """An exclusive lock on a file (the OS drops it when the process dies)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def try_acquire(self) -> bool:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            platform.lock_fd(fd)
        except OSError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                platform.unlock_fd(self._fd)
            os.close(self._fd)
            self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None


class JobClaim:
    """The lock of one job, held while a worker runs it; `release()` (or `with`) lets it go."""

    def __init__(self, job: QueuedJob, lock: FileLock) -> None:
        self.job = job
        self._lock = lock

    def release(self) -> None:
        self._lock.release()

    def __enter__(self) -> JobClaim:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

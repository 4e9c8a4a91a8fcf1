"""A worker's claim on one queued job (kept in the queue's database with the worker's pid and
start time, app/pipeline/queue/jobs.py): `release()` (or `with`) lets it go."""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType

from app.pipeline.queue.records import QueuedJob


class JobClaim:
    """The claim of one job, held while a worker runs it."""

    def __init__(self, job: QueuedJob, release: Callable[[], None]) -> None:
        self.job = job
        self._release: Callable[[], None] | None = release

    def release(self) -> None:
        if self._release is not None:
            release, self._release = self._release, None
            release()

    def __enter__(self) -> JobClaim:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

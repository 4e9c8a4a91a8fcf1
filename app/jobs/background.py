"""File reads the UI asks for again and again (the history strip's run scan, a run's step
previews) done off the UI thread, the newest request's result only.

`LatestOnly.request(work, deliver)` runs `work()` in a worker thread (`jobs/workers.EngineWorker`,
so its owner can stop it like every worker) and calls `deliver(result)` on the UI thread, by a
queued signal, unless a newer request was made in between: the result of a scan for an older
run or an older photo is dropped, never shown. A failing `work` is logged with its traceback
and delivers nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.jobs.workers import EngineWorker

log = logging.getLogger(__name__)

FAILED = object()  # what a failed call delivers to its requester: nothing is shown


class BackgroundCall(EngineWorker):
    """Calls `work()` once in its thread and emits `done(token, result)`."""

    done = Signal(int, object)

    def __init__(self, token: int, work: Callable[[], Any], name: str) -> None:
        super().__init__()  # an AppThread: a window closed while it reads cannot destroy it
        self.setObjectName(name)
        self._token, self._work = token, work

    def work(self) -> None:
        try:
            result = self._work()
        except Exception:  # a read that fails shows nothing; the log has why
            log.exception("%s failed", self.objectName())
            result = FAILED
        self.done.emit(self._token, result)


class LatestOnly(QObject):
    """Requests of one kind; only the newest one's result is delivered."""

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._name = name
        self._token = 0
        self._deliver: Callable[[Any], None] | None = None
        self._workers: dict[int, BackgroundCall] = {}
        self.dropped = 0  # stale results not delivered (for tests and the log)

    @property
    def busy(self) -> bool:
        """A request's result is still to come."""
        return self._token in self._workers

    @property
    def pending(self) -> int:
        """Requests still running, the stale ones included."""
        return len(self._workers)

    def request(self, work: Callable[[], Any], deliver: Callable[[Any], None]) -> int:
        """Starts `work` in a worker; returns the request's token."""
        self._token += 1
        token, self._deliver = self._token, deliver
        worker = BackgroundCall(token, work, self._name)
        worker.done.connect(self._done)  # queued: runs on the UI thread
        self._workers[token] = worker
        worker.start()
        return token

    def cancel(self) -> None:
        """Whatever is in flight will not be delivered."""
        self._token += 1

    def stop(self, wait_ms: int = 5000) -> bool:
        """Drops every pending result and waits for the workers (at shutdown)."""
        self.cancel()
        ended = True
        for worker in list(self._workers.values()):
            ended = worker.stop(wait_ms) and ended
        return ended

    def _done(self, token: int, result: Any) -> None:
        self._workers.pop(token, None)
        if result is FAILED:
            return
        if token != self._token or self._deliver is None:
            self.dropped += 1
            log.debug("%s: stale result %d dropped (newest %d)", self._name, token, self._token)
            return
        self._deliver(result)

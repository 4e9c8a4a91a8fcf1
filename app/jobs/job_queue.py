"""A queue of jobs run one after another through a RunSession (several seeds or prompts)."""

from __future__ import annotations

from collections import deque
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.jobs.run_session import RunSession


class JobQueue(QObject):
    """Starts the next queued JobSpec whenever the session's runner ends; stop() lets the
    current job finish and starts no more."""

    job_started = Signal(int, object)  # job number, its Run
    job_ended = Signal(int, str)  # job number, terminal kind
    queue_finished = Signal()
    job_failed_to_start = Signal(int, str)  # job number, message

    def __init__(self, session: RunSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._pending: deque[tuple[int, Any]] = deque()
        self._next_number = 1
        self._current: int | None = None
        self._running = False
        session.runner_ended.connect(self._runner_ended)

    @property
    def pending(self) -> int:
        return len(self._pending)

    @property
    def running(self) -> bool:
        return self._running

    def add(self, spec: Any) -> int:
        number = self._next_number
        self._next_number += 1
        self._pending.append((number, spec))
        return number

    def start(self) -> None:
        if self._running:
            return
        self._running = True
        self._start_next()

    def stop(self) -> None:
        """No new jobs; the one running now finishes (cancel it through its runner)."""
        self._pending.clear()

    def _start_next(self) -> None:
        while self._pending:
            if self.session.busy:
                return  # a run started elsewhere; continue when it ends
            number, spec = self._pending.popleft()
            try:
                run = self.session.create_run(spec)
                self._current = number
                self.job_started.emit(number, run)
                self.session.execute()
                return
            except Exception as exc:  # a bad job must not stall the rest of the queue
                self._current = None
                message = getattr(exc, "user_message", None)
                self.job_failed_to_start.emit(number, message() if callable(message) else str(exc))
        self._running = False
        self.queue_finished.emit()

    def _runner_ended(self, kind: str) -> None:
        if not self._running:
            return
        if self._current is not None:
            number, self._current = self._current, None
            self.job_ended.emit(number, kind)
        self._start_next()

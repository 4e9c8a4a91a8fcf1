"""Pause / resume / suspend / cancel requests from the UI thread to the running pipeline."""

from __future__ import annotations

import threading
import time
from typing import Protocol

from app.engine.process import STOP_DEADLINE_S


class _Commandable(Protocol):
    def send(self, cmd: str) -> object: ...


class RunControl:
    """Thread-safe; the UI thread calls these while execute() runs in a worker.

    Requests reach the live engine process at once; between stages the pipeline checks them
    before starting the next one (a pause then waits there, a suspend or cancel ends the run).
    """

    def __init__(self, stop_deadline_s: float = STOP_DEADLINE_S) -> None:
        self._lock = threading.Condition()
        self._paused = False
        self._suspend = False
        self._cancel = False
        self._stop_asked: float | None = None  # time.monotonic() of the first suspend/cancel
        self._process: _Commandable | None = None
        # The engine must exit this long after a suspend/cancel, else it is terminated/killed.
        self.stop_deadline_s = stop_deadline_s

    # --- called by the UI ---
    def pause(self) -> None:
        with self._lock:
            self._paused = True
            self._send("pause")
            self._lock.notify_all()

    def resume(self) -> None:
        with self._lock:
            self._paused = False
            self._send("resume")
            self._lock.notify_all()

    def suspend(self) -> None:
        with self._lock:
            self._suspend = True
            self._stop_asked = self._stop_asked or time.monotonic()
            self._send("suspend")
            self._lock.notify_all()

    def cancel(self) -> None:
        with self._lock:
            self._cancel = True
            self._stop_asked = self._stop_asked or time.monotonic()
            self._send("cancel")
            self._lock.notify_all()

    @property
    def paused(self) -> bool:
        with self._lock:
            return self._paused

    @property
    def suspend_requested(self) -> bool:
        with self._lock:
            return self._suspend

    @property
    def cancel_requested(self) -> bool:
        with self._lock:
            return self._cancel

    def stop_overdue(self) -> bool:
        """A suspend/cancel was asked more than stop_deadline_s ago (the pipeline then forces
        the engine out: app/pipeline/execute/engine_stage.py)."""
        with self._lock:
            asked = self._stop_asked
        return asked is not None and time.monotonic() - asked > self.stop_deadline_s

    @property
    def process_id(self) -> int | None:
        """The pid of the live engine process, if one runs (logs, tests)."""
        with self._lock:
            return getattr(self._process, "pid", None)

    # --- called by the pipeline ---
    def attach(self, process: _Commandable) -> None:
        """The live engine process; a request made before it started is forwarded now."""
        with self._lock:
            self._process = process
            if self._cancel:
                self._send("cancel")
            elif self._suspend:
                self._send("suspend")
            elif self._paused:
                self._send("pause")

    def detach(self) -> None:
        with self._lock:
            self._process = None

    def wait_while_paused(self, timeout_s: float | None = None) -> None:
        """Blocks between stages while paused, until resumed, suspended or cancelled."""
        with self._lock:
            self._lock.wait_for(
                lambda: not self._paused or self._suspend or self._cancel, timeout=timeout_s
            )

    def _send(self, command: str) -> None:
        if self._process is None:
            return
        try:
            self._process.send(command)
        except (OSError, ValueError):
            pass  # the process is exiting; the pipeline sees its exit

"""The base of every worker thread that starts the engine: its owner can stop it, and the
engine children it started are ended and reaped before the worker is destroyed
(app/engine/children.py is the mechanism; issue 20)."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject, QThread

from app.engine.children import ChildGroup, WorkerStopped

__all__ = ["STOP_WAIT_MS", "EngineWorker", "WorkerStopped", "suspend_and_wait"]

STOP_WAIT_MS = 30_000  # the thread ends as soon as its engine child is gone: far below this


class EngineWorker(QThread):
    """Subclasses implement work(); run() calls it with this worker's children in scope."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine_children = ChildGroup(type(self).__name__)

    def run(self) -> None:  # noqa: D102 - QThread entry point
        with self.engine_children.scope():
            self.work()

    def work(self) -> None:
        raise NotImplementedError

    def stop(self, wait_ms: int = STOP_WAIT_MS) -> bool:
        """Ends the engine children (refusing new ones) and waits for the thread; True when it
        has ended. Safe to call more than once, and on a worker that never started."""
        self.engine_children.stop()
        self.requestInterruption()
        return self.wait(wait_ms)


class RunStopper(Protocol):
    """What stops a run a thread executes (pipeline/control.RunControl, StageRunner)."""

    def suspend(self) -> None: ...
    def cancel(self) -> None: ...


def suspend_and_wait(thread: QThread, run: RunStopper, wait_ms: int) -> bool:
    """Quitting the app: suspends the run `thread` executes (the GPU is freed, the run stays
    resumable) and waits; cancels it when the suspend has not ended it in time. True when the
    thread has ended."""
    if not thread.isRunning():
        return True
    run.suspend()
    if thread.wait(wait_ms):
        return True
    run.cancel()
    return thread.wait(wait_ms)

"""The app's worker threads.

`AppThread` is the base of every QThread of the app: it has no Qt parent and is kept alive
while it runs, so no owner (a window, a session, a test's model) destroyed while it runs can
destroy a running QThread, which makes Qt abort the whole process (`QThread: Destroyed while
thread is still running`; seen in CI: a Runs-panel listing started by a closed window's debounce
timer outlived the window). The owner still holds it, stops it and waits for it at shutdown;
once it has finished it lives as long as its owner holds it.

`EngineWorker` is the base of every worker that starts the engine: its owner can stop it, and the
engine children it started are ended and reaped before the worker is destroyed
(app/engine/children.py is the mechanism; issue 20)."""

from __future__ import annotations

import typing
from typing import Any, Protocol

import shiboken6
from PySide6.QtCore import QObject, QThread, QTimer, Slot

from app.engine.children import ChildGroup, WorkerStopped

__all__ = [
    "STOP_WAIT_MS",
    "AppThread",
    "EngineWorker",
    "WorkerStopped",
    "stop_every_app_thread",
    "suspend_and_wait",
]

STOP_WAIT_MS = 30_000  # the thread ends as soon as its engine child is gone: far below this

_RUNNING: set[QThread] = set()  # started and not yet released: what keeps them alive


class AppThread(QThread):
    """A QThread no owner can destroy while it runs (see the module's docstring).

    `owner` (who holds and stops it) is neither the Qt parent, as a parent deletes its children
    when it is destroyed, running or not, nor kept: a thread must not keep its owner alive.
    """

    def __init__(self, owner: QObject | None = None) -> None:
        del owner
        super().__init__(None)
        self.finished.connect(self._release)  # queued: runs on the thread that owns the object

    def start(self, *args: Any) -> None:  # QThread.start
        for thread in list(_RUNNING):  # those deleted before their `finished` was delivered
            if not shiboken6.isValid(thread):
                _RUNNING.discard(thread)
        _RUNNING.add(self)
        super().start(*args)

    @Slot()
    def _release(self) -> None:
        # Not here: dropping the last reference inside its own slot would delete the object
        # while Qt still dispatches to it. The next turn of the event loop lets it go.
        QTimer.singleShot(0, lambda: _RUNNING.discard(self))


def running_app_threads() -> int:
    """How many app threads are kept alive for running (tests)."""
    return len(_RUNNING)


class EngineWorker(AppThread):
    """Subclasses implement work(); run() calls it with this worker's children in scope."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine_children = ChildGroup(type(self).__name__)

    def run(self) -> None:  # QThread entry point
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


def stop_every_app_thread(wait_ms: int = STOP_WAIT_MS) -> list[str]:
    """The last thing before Qt goes (the application's exit): every app thread still running
    is asked to stop (an engine worker's children are ended) and waited for, so none is
    destroyed running (Qt aborts the process then: exit 134). The owners stopped theirs
    already; this catches work started on the way out (a queued signal delivered after a
    shutdown). Returns the names of the threads that did not end in time (logged)."""
    late: list[str] = []
    for thread in list(_RUNNING):
        if not shiboken6.isValid(thread) or not thread.isRunning():
            continue
        thread.requestInterruption()
        if isinstance(thread, EngineWorker):
            ended = thread.stop(wait_ms)
        elif all(callable(getattr(thread, name, None)) for name in ("suspend", "cancel")):
            ended = suspend_and_wait(thread, typing.cast(RunStopper, thread), wait_ms)  # a run
        else:
            ended = thread.wait(wait_ms)
        if not ended:
            late.append(thread.objectName() or type(thread).__name__)
    return late


class RunStopper(Protocol):
    """What stops a run a thread executes (pipeline/control.RunControl, CallRunner)."""

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

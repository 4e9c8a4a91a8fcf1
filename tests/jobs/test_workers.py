"""Quitting with a run in hand (jobs/workers.suspend_and_wait, shared by the GUI's run session
and its queue): suspend first; a run that a suspend does not end in time is cancelled."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from PySide6.QtCore import QThread

from app.jobs.workers import suspend_and_wait

CEILING_S = 30.0


class _Run:
    """A run that ends on cancel and, when `obeys_suspend`, on suspend too."""

    def __init__(self, obeys_suspend: bool) -> None:
        self.obeys_suspend = obeys_suspend
        self.asked: list[str] = []
        self.end = threading.Event()

    def suspend(self) -> None:
        self.asked.append("suspend")
        if self.obeys_suspend:
            self.end.set()

    def cancel(self) -> None:
        self.asked.append("cancel")
        self.end.set()


class _Thread(QThread):
    def __init__(self, run: _Run) -> None:
        super().__init__()
        self.started_ok = threading.Event()
        self._run = run

    def run(self) -> None:  # QThread entry point
        self.started_ok.set()
        self._run.end.wait(CEILING_S)


def _running(run: _Run) -> _Thread:
    thread = _Thread(run)
    thread.start()
    assert thread.started_ok.wait(CEILING_S)
    return thread


def test_a_run_that_suspends_is_only_suspended() -> None:
    run = _Run(obeys_suspend=True)
    thread = _running(run)
    assert suspend_and_wait(thread, run, int(CEILING_S * 1000))
    assert run.asked == ["suspend"] and thread.isFinished()


def test_a_run_that_ignores_the_suspend_is_cancelled() -> None:
    run = _Run(obeys_suspend=False)
    thread = _running(run)
    assert suspend_and_wait(thread, run, 200)  # the suspend's wait runs out, then cancel
    assert run.asked == ["suspend", "cancel"] and thread.isFinished()


def test_a_thread_that_is_not_running_is_asked_nothing() -> None:
    run = _Run(obeys_suspend=True)
    assert suspend_and_wait(_Thread(run), run, 200) and run.asked == []


# Run in a child process: a QThread destroyed while it runs aborts the whole process (qFatal),
# which is what this guards against; a pytest run would die with it.
_OWNER_GOES_FIRST = """
import sys, threading, time, weakref
import shiboken6
from PySide6.QtCore import QCoreApplication, QObject
from app.jobs.workers import AppThread, running_app_threads

app = QCoreApplication([])
began, go = threading.Event(), threading.Event()

class Reader(AppThread):
    def run(self):
        began.set()
        go.wait(30)

owner = QObject()
thread = Reader(owner)
thread.start()
assert began.wait(30)
shiboken6.delete(owner)  # the owner goes while the thread runs ...
held = weakref.ref(thread)
del thread  # ... and nobody else holds it
go.set()
assert held() is not None and held().wait(30_000)
deadline = time.monotonic() + 30
while held() is not None and time.monotonic() < deadline:
    app.processEvents()  # its `finished`, then the release
print("released" if held() is None else "kept", running_app_threads())
"""


def test_a_thread_outlives_an_owner_destroyed_while_it_runs() -> None:
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", _OWNER_GOES_FIRST],
        cwd=root, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["released", "0"]

"""The leak guard (tests/jobs/guard.py) fails a test that leaves a QThread or a child process."""

from __future__ import annotations

import subprocess
import sys

import pytest
from PySide6.QtCore import QThread

from tests.jobs import guard as conftest


class _Spinner(QThread):
    def run(self) -> None:
        while not self.isInterruptionRequested():
            self.msleep(5)


def _guard():
    return conftest.leak_check()


def test_guard_fails_on_a_running_qthread_and_stops_it(qapp, monkeypatch) -> None:
    monkeypatch.setattr(conftest, "GRACE_S", 0.2)
    guard = _guard()
    next(guard)
    thread = _Spinner()
    thread.start()
    with pytest.raises(pytest.fail.Exception, match="QThread _Spinner still running"):
        next(guard)
    assert thread.wait(3000)


def test_guard_fails_on_a_live_child_process_and_kills_it(monkeypatch) -> None:
    monkeypatch.setattr(conftest, "GRACE_S", 0.2)
    guard = _guard()
    next(guard)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    with pytest.raises(pytest.fail.Exception, match=f"child process {child.pid}"):
        next(guard)
    assert child.wait(timeout=5) != 0


def test_guard_passes_when_everything_ended(monkeypatch) -> None:
    guard = _guard()
    next(guard)
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    with pytest.raises(StopIteration):
        next(guard)

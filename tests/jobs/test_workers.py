"""Quitting with a run in hand (jobs/workers.suspend_and_wait, shared by the GUI's run session
and its queue): suspend first; a run that a suspend does not end in time is cancelled."""

from __future__ import annotations

import threading

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

    def run(self) -> None:  # noqa: D102 - QThread entry point
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

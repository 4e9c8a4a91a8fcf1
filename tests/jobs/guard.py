"""The one leak guard for tests: fail a test that leaves a QThread (a CallRunner, a probe, ...),
a QProcess, a Python thread or a child process running, then clean up so one leak doesn't
cascade. tests/jobs/conftest.py and tests/ui/conftest.py use it as an autouse fixture.

Threads and processes are tracked by wrapping QThread.start / QProcess.start here, so the
production classes keep no registry of their own.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any

import psutil
import pytest
from PySide6.QtCore import QProcess, QThread

GRACE_S = 3.0

_started_threads: weakref.WeakSet[QThread] = weakref.WeakSet()
_started_processes: weakref.WeakSet[QProcess] = weakref.WeakSet()


def child_pids(root: int | None = None) -> list[int]:
    """Live (non-zombie) descendants of this process (psutil: every OS)."""
    try:
        children = psutil.Process(os.getpid() if root is None else root).children(recursive=True)
    except psutil.Error:
        return []
    found: list[int] = []
    for child in children:
        try:
            if child.status() != psutil.STATUS_ZOMBIE:
                found.append(child.pid)
        except psutil.Error:
            continue
    return found


def track_starts() -> None:
    """Wraps QThread.start / QProcess.start once so every started one can be checked later."""
    if getattr(QThread.start, "_tracked", False):
        return
    thread_start, process_start = QThread.start, QProcess.start

    def start_thread(self: QThread, *args: Any) -> None:
        _started_threads.add(self)
        thread_start(self, *args)

    def start_process(self: QProcess, *args: Any) -> None:
        _started_processes.add(self)
        process_start(self, *args)

    start_thread._tracked = True  # type: ignore[attr-defined]
    QThread.start = start_thread  # type: ignore[method-assign]
    QProcess.start = start_process  # type: ignore[method-assign]


def running_threads() -> list[QThread]:
    alive = []
    for thread in list(_started_threads):
        try:
            if thread.isRunning():
                alive.append(thread)
        except RuntimeError:  # the C++ object is gone, so is its thread
            pass
    return alive


def _running_processes() -> list[QProcess]:
    alive = []
    for process in list(_started_processes):
        try:
            if process.state() != QProcess.ProcessState.NotRunning:
                alive.append(process)
        except RuntimeError:
            pass
    return alive


def _python_threads() -> set[int]:
    return {t.ident for t in threading.enumerate() if t.ident is not None}


def leak_check() -> Iterator[None]:
    """The guard as a plain generator: yield once around the code under watch."""
    track_starts()
    children_before = set(child_pids())
    threads_before = _python_threads()
    yield
    deadline = time.monotonic() + GRACE_S
    while True:
        qthreads = running_threads()
        processes = _running_processes()
        children = [p for p in child_pids() if p not in children_before]
        threads = [
            t
            for t in threading.enumerate()
            if t.ident not in threads_before
            and t.is_alive()
            and not t.daemon
            and not t.name.startswith("Dummy")  # QThreads seen from Python
        ]
        if not (qthreads or processes or children or threads) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    if not (qthreads or processes or children or threads):
        return
    problems = [f"QThread {t.objectName() or type(t).__name__} still running" for t in qthreads]
    problems += [f"QProcess {p.program()} still running" for p in processes]
    problems += [f"child process {pid} still alive" for pid in children]
    problems += [f"Python thread {t.name} still running" for t in threads]
    for thread in qthreads:
        cancel = getattr(thread, "cancel", None)
        if callable(cancel):
            cancel()
        thread.requestInterruption()
        thread.quit()
        thread.wait(5000)
    for process in processes:
        process.kill()
        process.waitForFinished(2000)
    for pid in children:
        try:
            psutil.Process(pid).kill()
        except psutil.Error:
            pass
    pytest.fail("; ".join(problems))


@pytest.fixture
def leak_guard() -> Iterator[None]:
    yield from leak_check()

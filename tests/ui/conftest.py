"""Qt UI test fixtures: no modal dialog can hang a test, and no test may leave a QThread running
or a child process alive."""

from __future__ import annotations

import os
import signal
import time
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from PySide6.QtCore import QProcess, QThread
from PySide6.QtWidgets import QColorDialog, QDialog, QFileDialog, QMessageBox

from tests.jobs.guard import child_pids

LEAK_GRACE_S = 3.0

_started_threads: weakref.WeakSet[QThread] = weakref.WeakSet()
_started_processes: weakref.WeakSet[QProcess] = weakref.WeakSet()


def _track_starts() -> None:
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


def _running_threads() -> list[QThread]:
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


@pytest.fixture(autouse=True)
def no_leftover_threads_or_processes() -> Iterator[None]:
    """Fails the test if it leaves a QThread running or a child process alive, then cleans up."""
    yield from leak_check()


def leak_check() -> Iterator[None]:
    """The guard as a plain generator: yield once around the code under watch."""
    _track_starts()
    children_before = set(child_pids())
    yield
    deadline = time.monotonic() + LEAK_GRACE_S
    while True:
        threads = _running_threads()
        processes = _running_processes()
        children = [p for p in child_pids() if p not in children_before]
        if not (threads or processes or children) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    if not (threads or processes or children):
        return
    problems = [f"QThread {t.objectName() or type(t).__name__} still running" for t in threads]
    problems += [f"QProcess {p.program()} still running" for p in processes]
    problems += [f"child process {pid} still alive" for pid in children]
    for thread in threads:
        thread.requestInterruption()
        thread.quit()
        thread.wait(2000)
    for process in processes:
        process.kill()
        process.waitForFinished(2000)
    for pid in children:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    pytest.fail("; ".join(problems))


@dataclass
class DialogRecorder:
    """What the code under test asked the user, and the scripted answers it gets."""

    shown: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, title, text)
    answers: list[QMessageBox.StandardButton] = field(default_factory=list)
    open_files: list[str] = field(default_factory=list)
    save_files: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)
    dialogs: list[QDialog] = field(default_factory=list)  # custom dialogs that were exec()'d

    def kinds(self) -> list[str]:
        return [kind for kind, _title, _text in self.shown]

    def texts(self) -> str:
        return "\n".join(f"{title}: {text}" for _kind, title, text in self.shown)


_FALLBACK_ORDER = (
    QMessageBox.StandardButton.Discard,
    QMessageBox.StandardButton.No,
    QMessageBox.StandardButton.Cancel,
    QMessageBox.StandardButton.Ok,
)


@pytest.fixture(autouse=True)
def dialogs(monkeypatch: pytest.MonkeyPatch) -> DialogRecorder:
    """Replaces modal message boxes and file dialogs: offscreen they would block forever."""
    rec = DialogRecorder()

    def box(kind: str):  # noqa: ANN202
        def show(
            parent: Any, title: str, text: str, buttons: Any = None, default: Any = None
        ) -> QMessageBox.StandardButton:
            rec.shown.append((kind, title, text))
            if rec.answers:
                return rec.answers.pop(0)
            if buttons is not None:
                for candidate in _FALLBACK_ORDER:
                    if buttons & candidate:
                        return candidate
            return QMessageBox.StandardButton.Ok

        return show

    for kind in ("question", "warning", "information", "critical"):
        monkeypatch.setattr(QMessageBox, kind, staticmethod(box(kind)))
    monkeypatch.setattr(
        QFileDialog,
        "getOpenFileName",
        staticmethod(lambda *a, **k: (rec.open_files.pop(0) if rec.open_files else "", "")),
    )
    monkeypatch.setattr(
        QFileDialog,
        "getSaveFileName",
        staticmethod(lambda *a, **k: (rec.save_files.pop(0) if rec.save_files else "", "")),
    )
    monkeypatch.setattr(
        QFileDialog,
        "getExistingDirectory",
        staticmethod(lambda *a, **k: rec.folders.pop(0) if rec.folders else ""),
    )
    monkeypatch.setattr(QColorDialog, "getColor", staticmethod(lambda *a, **k: a[0]))

    def exec_dialog(self: QDialog) -> int:
        rec.dialogs.append(self)
        return int(QDialog.DialogCode.Rejected)

    monkeypatch.setattr(QDialog, "exec", exec_dialog)
    return rec

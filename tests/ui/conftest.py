"""Qt UI test fixtures: no modal dialog can hang a test, and no test may leave a QThread running
or a child process alive (tests/jobs/guard.py)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QColorDialog, QDialog, QFileDialog, QMessageBox

from app.ui.words import i18n
from tests.jobs.guard import leak_check


@pytest.fixture(autouse=True)
def no_leftover_threads_or_processes() -> Iterator[None]:
    """Fails the test if it leaves a QThread running or a child process alive (the one guard,
    tests/jobs/guard.py), then cleans up."""
    yield from leak_check()


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

    def box(kind: str):
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


@pytest.fixture(params=["en", "zh_CN"])
def language(request: pytest.FixtureRequest, qapp: QApplication) -> Iterator[str]:
    """Both shipped languages, the translator installed for the test (a test file may define
    its own `language`)."""
    translator = i18n.install_translator(request.param)
    yield request.param
    if translator is not None:
        i18n.remove_translator(translator)


@pytest.fixture(params=[1.0, 1.25], ids=["font", "font125"])
def font_scale(request: pytest.FixtureRequest, qapp: QApplication) -> Iterator[float]:
    """The font as is, and a quarter larger (Windows' fonts at 125 %, Microsoft YaHei's lines)."""
    before = QFont(qapp.font())
    bigger = QFont(before)
    bigger.setPointSizeF(before.pointSizeF() * request.param)
    qapp.setFont(bigger)
    yield request.param
    qapp.setFont(before)


@pytest.fixture
def zh_cn(qapp: QApplication) -> Iterator[i18n.TsTranslator]:
    """简体中文 installed for the test."""
    translator = i18n.TsTranslator("zh_CN")
    QCoreApplication.installTranslator(translator)
    yield translator
    QCoreApplication.removeTranslator(translator)

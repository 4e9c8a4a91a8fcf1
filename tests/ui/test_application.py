"""The composition root and the ways a picture gets in: command line, drag and drop."""

from __future__ import annotations

import json
import sys

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication

from app.core.paths import app_paths
from app.ui import application
from tests.ui.painter import IMAGE_H, IMAGE_W, open_window, write_picture


def test_run_application_opens_the_argument_and_saves_settings(
    qapp, tmp_path, monkeypatch, stepwise_home
) -> None:  # noqa: ANN001
    picture = write_picture(tmp_path / "argument.png")
    seen = {}
    created = []

    class RecordingWindow(application.MainWindow):
        def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
            super().__init__(*args, **kwargs)
            created.append(self)

    def fake_exec() -> int:
        # Let the queued "open the argument" run, then look at the window and quit.
        for _ in range(20):
            QApplication.processEvents()
        (window,) = created
        seen["size"] = (window.document.width, window.document.height)
        seen["path"] = window.document.image_path
        window.paint_state.set_size_px(99)
        window.hide()
        return 0

    monkeypatch.setattr(application, "MainWindow", RecordingWindow)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    monkeypatch.setattr(QApplication, "exec", staticmethod(fake_exec))
    monkeypatch.setattr(application.QApplication, "instance", staticmethod(lambda: qapp))
    try:
        assert application.run_application([str(picture)]) == 0
    finally:
        qapp.setStyleSheet("")
    assert sys.excepthook is not sys.__excepthook__
    assert seen == {"size": (IMAGE_W, IMAGE_H), "path": picture}
    saved = json.loads(app_paths().settings_file.read_text(encoding="utf-8"))
    assert saved["paint"]["brush_size"] == 99
    assert str(picture) in saved["recent_files"]


def test_dropping_an_image_file_opens_it(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    dropped = write_picture(tmp_path / "dropped.png", 64, 48)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(dropped))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)
    assert window.document.image_path == dropped
    assert (window.document.width, window.document.height) == (64, 48)

"""Helpers for painter tests: a test picture, a shown main window, real mouse strokes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest

from app.core.settings import Settings
from app.imaging.io import save_png_atomic
from app.ui.painter.canvas_view import CanvasView
from app.ui.shell.main_window import MainWindow

IMAGE_W, IMAGE_H = 320, 240


def write_picture(path: Path, width: int = IMAGE_W, height: int = IMAGE_H) -> Path:
    y, x = np.mgrid[0:height, 0:width]
    image = np.stack([x * 255 // width, y * 255 // height, np.full_like(x, 90)], axis=2)
    save_png_atomic(path, image.astype(np.uint8))
    return path


def open_window(qtbot, tmp_path: Path, settings: Settings | None = None) -> MainWindow:
    window = MainWindow(settings or Settings())
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()
    qtbot.waitExposed(window)
    # Window shortcuts (Ctrl+Z, [ ], B, E) only reach an active window.
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    assert window.open_image(write_picture(tmp_path / "picture.png"))
    # One image pixel per widget pixel, image origin at the widget origin: widget point
    # (x, y) is image point (x, y).
    window.canvas_view.set_view(1.0, QPointF(0, 0))
    window.document.set_modified(False)
    window.canvas_view.setFocus()
    return window


def at(x: float, y: float) -> QPoint:
    return QPoint(int(x), int(y))


def click(
    view: CanvasView,
    x: int,
    y: int,
    modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier,
) -> None:
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, modifiers, at(x, y))


def stroke(
    view: CanvasView,
    points: list[tuple[int, int]],
    modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier,
) -> None:
    """Press at the first point, one move event per further point, release at the last."""
    QTest.mousePress(view, Qt.MouseButton.LeftButton, modifiers, at(*points[0]))
    for x, y in points[1:]:
        QTest.mouseMove(view, at(x, y))
    QTest.mouseRelease(view, Qt.MouseButton.LeftButton, modifiers, at(*points[-1]))

"""Holding `\\` shows the photo under the generated picture (before / after) wherever the focus
is in the window, not only on the canvas: right after a run the focus is in the Generate panel,
and a click on the canvas to give it focus would be taken for painting. Typing a backslash in
a text field stays typing."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from app.ui.painter.canvas_layer import CanvasLayer
from app.ui.painter.held_keys import BEFORE_AFTER_KEY

_KEYS = (QEvent.Type.KeyPress, QEvent.Type.KeyRelease)


def _typing(widget: QWidget) -> bool:
    if isinstance(widget, QComboBox):
        return widget.isEditable()
    return isinstance(widget, (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox))


class BeforeAfterKey(QObject):
    """An application-level event filter for the `\\` key of one window (`scope`'s)."""

    def __init__(self, scope: QWidget, layer: CanvasLayer) -> None:
        super().__init__(scope)
        self.scope = scope
        self.layer = layer
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() not in _KEYS or not isinstance(event, QKeyEvent):
            return False
        if event.key() != BEFORE_AFTER_KEY or event.isAutoRepeat():
            return False
        if not isinstance(obj, QWidget) or obj.window() is not self.scope.window():
            return False
        if _typing(obj):
            return False
        if event.type() == QEvent.Type.KeyPress:
            if not self.layer.visible:
                return False
            self.layer.set_before_held(True)
            return True
        if self.layer.before_held:
            self.layer.set_before_held(False)
            return True
        return False

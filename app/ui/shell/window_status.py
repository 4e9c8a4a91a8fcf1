"""The main window's status bar fields: brush, cursor position, picture size, zoom."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QPoint
from PySide6.QtWidgets import QLabel, QStatusBar

from app.canvas.document import MaskDocument
from app.canvas.tools import PaintState, ToolKind
from app.ui.painter.canvas_view import CanvasView


def _tr(text: str) -> str:
    return QCoreApplication.translate("MainWindow", text)


class StatusFields:
    """Permanent labels on the right of the status bar, kept up to date from their sources."""

    def __init__(
        self, bar: QStatusBar, canvas: CanvasView, state: PaintState, document: MaskDocument
    ) -> None:
        self.state, self.document = state, document
        self.cursor_label = QLabel()
        self.size_label = QLabel()
        self.brush_label = QLabel()
        self.zoom_label = QLabel()
        for label in (self.brush_label, self.cursor_label, self.size_label, self.zoom_label):
            label.setObjectName("statusField")
            bar.addPermanentWidget(label)
        canvas.cursor_moved.connect(self.show_cursor)
        canvas.zoom_changed.connect(self.show_zoom)
        state.brush_changed.connect(self.show_brush)
        state.tool_changed.connect(self.show_brush)
        document.image_changed.connect(self.show_size)
        self.show_cursor(QPoint(-1, -1))
        self.show_brush()
        self.show_zoom(canvas.zoom)
        self.show_size()

    def show_size(self) -> None:
        doc = self.document
        self.size_label.setText("" if doc.is_empty() else f"{doc.width} × {doc.height} px")

    def show_cursor(self, pos: QPoint) -> None:
        if pos.x() < 0:
            self.cursor_label.setText("—")
        else:
            self.cursor_label.setText(f"x {pos.x()}, y {pos.y()}")

    def show_zoom(self, zoom: float) -> None:
        self.zoom_label.setText(f"{zoom * 100:.0f} %")

    def show_brush(self, *_: object) -> None:
        state = self.state
        names = {
            ToolKind.BRUSH: _tr("Brush"),
            ToolKind.ERASER: _tr("Eraser"),
            ToolKind.LASSO: _tr("Lasso"),
            ToolKind.CONTEXT: _tr("Context area"),
        }
        if state.tool in (ToolKind.LASSO, ToolKind.CONTEXT):
            self.brush_label.setText(names[state.tool])
        else:
            self.brush_label.setText(
                _tr("{tool} {size} px · hardness {hardness} % · opacity {opacity} %").format(
                    tool=names[state.tool],
                    size=state.size_px,
                    hardness=round(state.hardness * 100),
                    opacity=round(state.opacity * 100),
                )
            )

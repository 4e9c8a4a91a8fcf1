"""The painting surface: shows the image with the mask overlay, zooms, pans and feeds the tools."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QImage,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QWidget

from app.canvas.document import MaskDocument
from app.canvas.tools import BrushTool, LassoTool, PaintState, ToolKind
from app.ui.canvas_paint import (
    ViewMode,
    image_to_qimage_rgb32,
    overlay_lut,
    paint_empty_hint,
    paint_picture,
    paint_tool_outlines,
)

ZOOM_MIN = 0.02
ZOOM_MAX = 32.0
ZOOM_STEP = 1.25
FIT_MARGIN_PX = 16
BACKGROUND = QColor("#1b1d21")
OVERLAY_BAND_PIXELS = 1 << 20


class CanvasView(QWidget):
    """Draws only what is exposed and keeps a cached overlay image updated per dirty rectangle."""

    zoom_changed = Signal(float)
    cursor_moved = Signal(QPoint)  # image pixel under the pointer; (-1, -1) when outside
    view_mode_changed = Signal(str)

    def __init__(
        self, document: MaskDocument, state: PaintState, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.state = state
        self.brush_tool = BrushTool(document, state)
        self.lasso_tool = LassoTool(document)
        self._zoom = 1.0
        self._offset = QPointF(0, 0)  # widget position of image pixel (0, 0)
        self._fit_pending = True
        self._view_mode = ViewMode.COMPOSITE
        self._overlay_color = QColor("#ff3050")
        self._overlay_opacity = 0.5
        self._image_qimage = QImage()
        self._overlay_buf = np.zeros((0, 0, 4), np.uint8)
        self._overlay_qimage = QImage()
        self._cursor_widget: QPointF | None = None
        self._painting_tool: BrushTool | LassoTool | None = None
        self._pan_anchor: QPointF | None = None
        self._space_down = False
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setMinimumSize(200, 200)
        document.image_changed.connect(self._on_image_changed)
        document.mask_changed.connect(self._on_mask_changed)
        state.brush_changed.connect(self._update_cursor_region)
        state.tool_changed.connect(self._on_tool_changed)
        self._on_image_changed()

    @property
    def zoom(self) -> float:
        return self._zoom

    def widget_to_image(self, pos: QPointF) -> QPointF:
        return QPointF(
            (pos.x() - self._offset.x()) / self._zoom, (pos.y() - self._offset.y()) / self._zoom
        )

    def image_to_widget(self, pos: QPointF) -> QPointF:
        return QPointF(
            pos.x() * self._zoom + self._offset.x(), pos.y() * self._zoom + self._offset.y()
        )

    def image_rect_to_widget(self, rect: QRect) -> QRect:
        top_left = self.image_to_widget(QPointF(rect.topLeft()))
        size = rect.size().toSizeF() * self._zoom
        return QRectF(top_left, size).toAlignedRect().adjusted(-2, -2, 2, 2)

    def set_zoom(self, zoom: float, anchor: QPointF | None = None) -> None:
        """Zooms keeping the image point under `anchor` (default: the centre) in place."""
        zoom = min(ZOOM_MAX, max(ZOOM_MIN, zoom))
        if anchor is None:
            anchor = QPointF(self.width() / 2, self.height() / 2)
        fixed = self.widget_to_image(anchor)
        self._zoom = zoom
        self._offset = QPointF(anchor.x() - fixed.x() * zoom, anchor.y() - fixed.y() * zoom)
        self._fit_pending = False
        self.zoom_changed.emit(zoom)
        self.update()

    def set_view(self, zoom: float, offset: QPointF) -> None:
        """Places image pixel (0, 0) at widget point `offset` at the given zoom."""
        self._zoom = min(ZOOM_MAX, max(ZOOM_MIN, zoom))
        self._offset = QPointF(offset)
        self._fit_pending = False
        self.zoom_changed.emit(self._zoom)
        self.update()

    def zoom_by(self, steps: float, anchor: QPointF | None = None) -> None:
        self.set_zoom(self._zoom * ZOOM_STEP**steps, anchor)

    def zoom_actual_size(self) -> None:
        self.set_zoom(1.0)

    def zoom_to_fit(self) -> None:
        if self.document.is_empty():
            return
        avail_w = max(1, self.width() - 2 * FIT_MARGIN_PX)
        avail_h = max(1, self.height() - 2 * FIT_MARGIN_PX)
        zoom = min(avail_w / self.document.width, avail_h / self.document.height, ZOOM_MAX)
        zoom = max(ZOOM_MIN, zoom)
        self._zoom = zoom
        self._offset = QPointF(
            (self.width() - self.document.width * zoom) / 2,
            (self.height() - self.document.height * zoom) / 2,
        )
        self._fit_pending = True
        self.zoom_changed.emit(zoom)
        self.update()

    def pan_by(self, dx: float, dy: float) -> None:
        self._offset += QPointF(dx, dy)
        self._fit_pending = False
        self.update()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self._fit_pending:
            self.zoom_to_fit()

    @property
    def view_mode(self) -> ViewMode:
        return self._view_mode

    def set_view_mode(self, mode: ViewMode | str) -> None:
        mode = ViewMode(mode)
        if mode != self._view_mode:
            self._view_mode = mode
            self._refresh_overlay(self.document.full_rect())
            self.view_mode_changed.emit(str(mode))
            self.update()

    @property
    def overlay_color(self) -> QColor:
        return QColor(self._overlay_color)

    @property
    def overlay_opacity(self) -> float:
        return self._overlay_opacity

    def set_overlay(self, color: QColor, opacity: float) -> None:
        self._overlay_color = QColor(color)
        self._overlay_opacity = min(1.0, max(0.0, opacity))
        self._refresh_overlay(self.document.full_rect())
        self.update()

    def overlay_pixels(self) -> np.ndarray:
        """The cached overlay (B, G, R, A premultiplied); for tests and diagnostics."""
        return self._overlay_buf

    def _on_image_changed(self) -> None:
        doc = self.document
        h, w = doc.image.shape[:2]
        size_changed = self._overlay_buf.shape[:2] != (h, w)
        self._image_qimage = image_to_qimage_rgb32(doc.image)
        if size_changed:
            self._overlay_buf = np.zeros((h, w, 4), np.uint8)
            self._overlay_qimage = (
                QImage(
                    self._overlay_buf.data, w, h, 4 * w, QImage.Format.Format_ARGB32_Premultiplied
                )
                if w and h
                else QImage()
            )
            # A new document's mask is empty, which the zeroed buffer already shows; a
            # mask_changed signal follows for anything else.
            if self.isVisible():
                self.zoom_to_fit()
            else:
                self._fit_pending = True
        self.update()

    def _on_mask_changed(self, rect: QRect) -> None:
        self._refresh_overlay(rect)
        self.update(self.image_rect_to_widget(rect))

    def _overlay_style(self) -> tuple[tuple[int, int, int], float]:
        if self._view_mode == ViewMode.MASK_ONLY:
            return (255, 255, 255), 1.0
        c = self._overlay_color
        return (c.red(), c.green(), c.blue()), self._overlay_opacity

    def _refresh_overlay(self, rect: QRect) -> None:
        rect = rect.intersected(self.document.full_rect())
        if rect.isEmpty() or self._overlay_buf.size == 0:
            return
        x0, y0, x1, y1 = rect.left(), rect.top(), rect.right() + 1, rect.bottom() + 1
        lut = overlay_lut(*self._overlay_style())
        pixels = self._overlay_buf.view(np.uint32)[..., 0]
        # Row bands keep the temporaries small on a 8192×8192 mask.
        band = max(1, OVERLAY_BAND_PIXELS // max(1, x1 - x0))
        for top in range(y0, y1, band):
            bottom = min(y1, top + band)
            levels = self.document.mask[top:bottom, x0:x1] * 255.0
            levels += 0.5
            pixels[top:bottom, x0:x1] = lut[levels.astype(np.uint8)]

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        exposed = event.rect()
        painter.fillRect(exposed, BACKGROUND)
        if self.document.is_empty():
            paint_empty_hint(painter, self.rect())
        else:
            self._paint_image(painter, exposed)
        self._paint_tool_overlay(painter)
        painter.end()

    def _paint_image(self, painter: QPainter, exposed: QRect) -> None:
        top_left = self.widget_to_image(QPointF(exposed.topLeft()))
        bottom_right = self.widget_to_image(QPointF(exposed.bottomRight()) + QPointF(1, 1))
        src = QRectF(top_left, bottom_right).toAlignedRect().adjusted(-1, -1, 1, 1)
        src = src.intersected(self.document.full_rect())
        if src.isEmpty():
            return
        paint_picture(
            painter,
            src,
            self._zoom,
            self._offset,
            self._view_mode,
            self._image_qimage,
            self._overlay_qimage,
        )

    def _paint_tool_overlay(self, painter: QPainter) -> None:
        lasso = None
        if self.lasso_tool.active():
            lasso = [self.image_to_widget(QPointF(x, y)) for x, y in self.lasso_tool.points]
            if self._cursor_widget is not None:
                lasso.append(self._cursor_widget)
        brush = None
        if self._cursor_widget is not None and self._shows_brush_outline():
            brush = (self._cursor_widget, self.state.size_px * self._zoom / 2)
        paint_tool_outlines(painter, lasso, brush)

    def _shows_brush_outline(self) -> bool:
        return (
            self.state.tool in (ToolKind.BRUSH, ToolKind.ERASER)
            and self._pan_anchor is None
            and not self._space_down
        )

    def _cursor_region(self, center: QPointF | None) -> QRect:
        if center is None:
            return QRect()
        radius = self.state.size_px * self._zoom / 2 + 8
        return QRectF(
            center.x() - radius, center.y() - radius, 2 * radius, 2 * radius
        ).toAlignedRect()

    def _update_cursor_region(self) -> None:
        # The outline's size may have changed: repaint generously around the pointer.
        if self._cursor_widget is not None:
            self.update(
                self._cursor_region(self._cursor_widget).adjusted(-400, -400, 400, 400)
                if self.state.size_px * self._zoom < 4000
                else self.rect()
            )

    def _on_tool_changed(self, _tool: str) -> None:
        self.lasso_tool.cancel()
        self._update_cursor()
        self.update()

    def _update_cursor(self) -> None:
        if self._pan_anchor is not None:
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
        elif self._space_down:
            self.setCursor(Qt.CursorShape.OpenHandCursor)
        elif self.state.tool == ToolKind.LASSO:
            self.setCursor(Qt.CursorShape.CrossCursor)
        else:
            self.setCursor(Qt.CursorShape.BlankCursor)

    def _move_cursor(self, pos: QPointF | None) -> None:
        old = self._cursor_widget
        self._cursor_widget = pos
        if self.lasso_tool.active():
            self.update()
        else:
            self.update(self._cursor_region(old))
            self.update(self._cursor_region(pos))
        if pos is None:
            self.cursor_moved.emit(QPoint(-1, -1))
            return
        p = self.widget_to_image(pos)
        x, y = math.floor(p.x()), math.floor(p.y())
        inside = 0 <= x < self.document.width and 0 <= y < self.document.height
        self.cursor_moved.emit(QPoint(x, y) if inside else QPoint(-1, -1))

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        pos = event.position()
        button = event.button()
        if button == Qt.MouseButton.MiddleButton or (
            button == Qt.MouseButton.LeftButton and self._space_down
        ):
            self._pan_anchor = pos
            self._update_cursor()
            return
        if button != Qt.MouseButton.LeftButton or self.document.is_empty():
            return
        tool = self._tool_for_state()
        self._painting_tool = tool
        tool.press(self.widget_to_image(pos))
        self.update()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        pos = event.position()
        if self._pan_anchor is not None:
            delta = pos - self._pan_anchor
            self._pan_anchor = pos
            self.pan_by(delta.x(), delta.y())
        elif self._painting_tool is not None:
            self._painting_tool.move(self.widget_to_image(pos))
        self._move_cursor(pos)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if self._pan_anchor is not None and event.button() in (
            Qt.MouseButton.MiddleButton,
            Qt.MouseButton.LeftButton,
        ):
            self._pan_anchor = None
            self._update_cursor()
            return
        tool, self._painting_tool = self._painting_tool, None
        if isinstance(tool, BrushTool):
            tool.release(self.widget_to_image(event.position()))
        elif isinstance(tool, LassoTool):
            tool.release(erase=self._lasso_erases(event.modifiers()))
        self.update()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if self.state.tool == ToolKind.LASSO and self.lasso_tool.active():
            self._painting_tool = None
            self.lasso_tool.close(erase=self._lasso_erases(event.modifiers()))
            self.update()
            return
        self.mousePressEvent(event)

    def _lasso_erases(self, modifiers: Qt.KeyboardModifier) -> bool:
        return bool(modifiers & Qt.KeyboardModifier.AltModifier)

    def leaveEvent(self, event) -> None:  # noqa: N802, ANN001
        self._move_cursor(None)
        super().leaveEvent(event)

    def enterEvent(self, event) -> None:  # noqa: N802, ANN001
        self._update_cursor()
        super().enterEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom_by(steps, event.position())
            self._move_cursor(event.position())
        event.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        key = event.key()
        if key == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space_down = True
            self._update_cursor()
            self.update(self._cursor_region(self._cursor_widget))
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.lasso_tool.active():
            self.lasso_tool.close(erase=self._lasso_erases(event.modifiers()))
            self.update()
        elif key in (Qt.Key.Key_BraceLeft, Qt.Key.Key_BraceRight):
            # Shift+[ arriving as "{" (a "{" shortcut would make X11's Shift+[ ambiguous).
            self.state.step_hardness(1 if key == Qt.Key.Key_BraceRight else -1)
        elif key == Qt.Key.Key_Escape and self.lasso_tool.active():
            self.lasso_tool.cancel()
            self.update()
        else:
            super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space_down = False
            self._pan_anchor = None
            self._update_cursor()
            self.update(self._cursor_region(self._cursor_widget))
        else:
            super().keyReleaseEvent(event)

    def _tool_for_state(self) -> BrushTool | LassoTool:
        return self.lasso_tool if self.state.tool == ToolKind.LASSO else self.brush_tool

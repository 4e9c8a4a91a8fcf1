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
from app.canvas.tools import BrushTool, ContextTool, LassoTool, PaintState, ToolKind
from app.imaging.frame import Expansion, format_context
from app.imaging.geometry import Rect
from app.ui.painter.canvas_layer import CanvasLayer
from app.ui.painter.canvas_paint import (
    OverlayCache,
    ViewMode,
    image_to_qimage_rgb32,
    paint_empty_hint,
    paint_frame_outlines,
    paint_picture,
    paint_tool_outlines,
)
from app.ui.painter.canvas_viewport import CanvasViewport
from app.ui.painter.held_keys import BEFORE_AFTER_KEY, PAN_KEY

BACKGROUND = QColor("#1b1d21")


class CanvasView(CanvasViewport):
    """Draws only what is exposed and keeps a cached overlay image updated per dirty rectangle."""

    cursor_moved = Signal(QPoint)  # image pixel under the pointer; (-1, -1) when outside
    view_mode_changed = Signal(str)
    layer_dismissed = Signal()  # the user started painting over a generated picture
    context_drawn = Signal(str)  # the context tool set ("X,Y,W,H") or cleared ("") the area

    def __init__(
        self, document: MaskDocument, state: PaintState, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.state = state
        self.brush_tool = BrushTool(document, state)
        self.lasso_tool = LassoTool(document)
        self.context_tool = ContextTool(document)
        self._context: Rect | None = None  # shown dashed (the job form's value)
        self._expansion: Expansion | None = None  # the expanded canvas, shown dashed
        self._view_mode = ViewMode.COMPOSITE
        self._overlay_color = QColor("#ff3050")
        self._overlay_opacity = 0.5
        self._image_qimage = QImage()
        self._overlay = OverlayCache()
        self.layer = CanvasLayer(self)  # the generated picture over the photo (workspace)
        self._cursor_widget: QPointF | None = None
        self._painting_tool: BrushTool | LassoTool | ContextTool | None = None
        self._pan_anchor: QPointF | None = None
        self._space_down = False
        self.layer.changed.connect(self._layer_changed)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setMinimumSize(200, 200)
        document.image_changed.connect(self._on_image_changed)
        document.mask_changed.connect(self._on_mask_changed)
        state.brush_changed.connect(self._update_cursor_region)
        state.tool_changed.connect(self._on_tool_changed)
        self._on_image_changed()

    def picture_rect(self) -> QRect:
        """What is shown (Fit, the split line use it), in image pixels: the photo with the
        expanded canvas and the layer's frame around it; without a photo, the layer's."""
        frame = self.layer.frame
        if self.document.is_empty() and frame is not None:
            return QRect(0, 0, frame.at.width, frame.at.height)
        rect = self.document.full_rect().united(self._expanded_rect())
        if frame is not None and not self.layer.standalone:
            c = frame.canvas
            rect = rect.united(QRect(c.x, c.y, c.width, c.height))
        return rect

    def resizeEvent(self, event: QResizeEvent) -> None:
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
        return self._overlay.pixels

    def _on_image_changed(self) -> None:
        doc = self.document
        h, w = doc.image.shape[:2]
        self._image_qimage = image_to_qimage_rgb32(doc.image)
        if self._overlay.resize(w, h):
            # A new document's mask is empty, which the zeroed buffer already shows; a
            # mask_changed signal follows for anything else.
            if self.isVisible():
                self.zoom_to_fit()
            else:
                self._fit_pending = True
        self.update()

    def _layer_changed(self) -> None:
        if self._fit_pending and self.picture_rect() != self._fitted_rect:
            self.zoom_to_fit()
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
        self._overlay.refresh(self.document.mask, rect, *self._overlay_style())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        exposed = event.rect()
        painter.fillRect(exposed, BACKGROUND)
        if self.document.is_empty() and self.layer.visible:
            self.layer.paint(painter, self._zoom, self._offset, self.picture_rect())
        elif self.document.is_empty():
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
            ViewMode.IMAGE_ONLY if self.layer.visible else self._view_mode,
            self._image_qimage,
            self._overlay.image,
        )
        self.layer.paint(painter, self._zoom, self._offset, self.document.full_rect())

    def set_frame(self, context: Rect | None, expansion: Expansion | None) -> None:
        """The context area and the canvas expansion to outline (None: not set)."""
        if (context, expansion) != (self._context, self._expansion):
            self._context, self._expansion = context, expansion
            if self._fit_pending:
                self.zoom_to_fit()  # the fitted view takes the expanded canvas in
            self.update()

    @property
    def context_rect(self) -> Rect | None:
        return self._context

    def _expanded_rect(self) -> QRect:
        """The expanded canvas in image pixels (empty: no expansion)."""
        e, doc = self._expansion, self.document
        if e is None:
            return QRect()
        return QRect(-e.left, -e.top, doc.width + e.left + e.right, doc.height + e.top + e.bottom)

    def _frame_outlines(self) -> list[tuple[QRectF, str]]:
        frames: list[tuple[QRectF, str]] = []
        if self.document.is_empty():
            return frames

        def widget_rect(x: float, y: float, w: float, h: float) -> QRectF:
            top_left = self.image_to_widget(QPointF(x, y))
            bottom_right = self.image_to_widget(QPointF(x + w, y + h))
            return QRectF(top_left, bottom_right)

        if self._expansion is not None:
            e = self._expanded_rect()
            frames.append((widget_rect(e.x(), e.y(), e.width(), e.height()), "expand"))
        rect = self.context_tool.dragged() if self.context_tool.active() else self._context
        if rect is not None:
            frames.append((widget_rect(*rect), "context"))
        return frames

    def _paint_tool_overlay(self, painter: QPainter) -> None:
        paint_frame_outlines(painter, self._frame_outlines())
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
        self.context_tool.cancel()
        self._update_cursor()
        self.update()

    def _grabs_split(self, pos: QPointF) -> bool:
        return self.layer.grabs_split(pos.x(), self._zoom, self._offset, self.picture_rect())

    def _update_cursor(self, pos: QPointF | None = None) -> None:
        if self.layer.dragging_split or (pos is not None and self._grabs_split(pos)):
            self.setCursor(Qt.CursorShape.SplitHCursor)
        elif self._pan_anchor is not None:
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
        elif self._space_down:
            self.setCursor(Qt.CursorShape.OpenHandCursor)
        elif self.state.tool in (ToolKind.LASSO, ToolKind.CONTEXT):
            self.setCursor(Qt.CursorShape.CrossCursor)
        else:
            self.setCursor(Qt.CursorShape.BlankCursor)

    def _move_cursor(self, pos: QPointF | None) -> None:
        old = self._cursor_widget
        self._cursor_widget = pos
        if self.layer.split is not None:
            self._update_cursor(pos)
        if self.lasso_tool.active() or self.context_tool.active():
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

    def mousePressEvent(self, event: QMouseEvent) -> None:
        pos = event.position()
        button = event.button()
        if button == Qt.MouseButton.MiddleButton or (
            button == Qt.MouseButton.LeftButton and self._space_down
        ):
            self._pan_anchor = pos
            self._update_cursor()
            return
        if button == Qt.MouseButton.LeftButton and self._grabs_split(pos):
            self.layer.dragging_split = True
            return
        if button != Qt.MouseButton.LeftButton or self.document.is_empty():
            return
        if self.layer.visible:  # painting again: back to the photo and its mask
            self.layer.clear()
            self.layer_dismissed.emit()
        tool = self._tool_for_state()
        self._painting_tool = tool
        tool.press(self.widget_to_image(pos))
        self.update()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        pos = event.position()
        if self._pan_anchor is not None:
            delta = pos - self._pan_anchor
            self._pan_anchor = pos
            self.pan_by(delta.x(), delta.y())
        elif self.layer.dragging_split:
            self.layer.drag_split(pos.x(), self._zoom, self._offset, self.picture_rect())
        elif self._painting_tool is not None:
            self._painting_tool.move(self.widget_to_image(pos))
        self._move_cursor(pos)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._pan_anchor is not None and event.button() in (
            Qt.MouseButton.MiddleButton,
            Qt.MouseButton.LeftButton,
        ):
            self._pan_anchor = None
            self._update_cursor()
            return
        self.layer.dragging_split = False
        tool, self._painting_tool = self._painting_tool, None
        if isinstance(tool, BrushTool):
            tool.release(self.widget_to_image(event.position()))
        elif isinstance(tool, LassoTool):
            tool.release(erase=self._lasso_erases(event.modifiers()))
        elif isinstance(tool, ContextTool):
            done, rect = tool.release(self.widget_to_image(event.position()))
            if done:
                self.context_drawn.emit(format_context(rect))
        self.update()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if self.state.tool == ToolKind.LASSO and self.lasso_tool.active():
            self._painting_tool = None
            self.lasso_tool.close(erase=self._lasso_erases(event.modifiers()))
            self.update()
            return
        self.mousePressEvent(event)

    def _lasso_erases(self, modifiers: Qt.KeyboardModifier) -> bool:
        return bool(modifiers & Qt.KeyboardModifier.AltModifier)

    def leaveEvent(self, event) -> None:
        self._move_cursor(None)
        super().leaveEvent(event)

    def enterEvent(self, event) -> None:
        self._update_cursor()
        super().enterEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom_by(steps, event.position())
            self._move_cursor(event.position())
        event.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key == BEFORE_AFTER_KEY and not event.isAutoRepeat():
            self.layer.set_before_held(True)  # before / after: the photo while held
        elif key == PAN_KEY and not event.isAutoRepeat():
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
        elif key == Qt.Key.Key_Escape and self.context_tool.active():
            self._painting_tool = None
            self.context_tool.cancel()
            self.update()
        else:
            super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        if event.key() == BEFORE_AFTER_KEY and not event.isAutoRepeat():
            self.layer.set_before_held(False)
        elif event.key() == PAN_KEY and not event.isAutoRepeat():
            self._space_down = False
            self._pan_anchor = None
            self._update_cursor()
            self.update(self._cursor_region(self._cursor_widget))
        else:
            super().keyReleaseEvent(event)

    def _tool_for_state(self) -> BrushTool | LassoTool | ContextTool:
        if self.state.tool == ToolKind.CONTEXT:
            return self.context_tool
        return self.lasso_tool if self.state.tool == ToolKind.LASSO else self.brush_tool

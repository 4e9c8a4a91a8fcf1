"""The generated layer of the canvas: a step preview, a decoded step or a result drawn over the
photo at the canvas's zoom, never written into the document.

Before / after: while `\\` is held the photo shows alone; the split slider shows the photo left
of a vertical line and the generated picture right of it (drag the line). Without a photo (text
to image) the layer is the picture and is drawn on its own.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QPointF, QRect, QRectF, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QTransform

from app.canvas.generated import PlacedFrame
from app.ui.painter.canvas_paint import image_to_qimage_rgb32

SPLIT_GRAB_PX = 8
HANDLE_RADIUS_PX = 9


class CanvasLayer(QObject):
    """State of the generated layer; the canvas view asks it to paint and hands it the mouse."""

    changed = Signal()  # content, caption, before/after or split changed: repaint

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.frame: PlacedFrame | None = None
        self.image = QImage()
        self.caption = ""
        self.standalone = False  # drawn on its own: no photo under it (or another size)
        self.before_held = False
        self.split: float | None = None  # 0..1 of the picture's width; None: no split
        self.dragging_split = False

    @property
    def visible(self) -> bool:
        return self.frame is not None

    def show(self, frame: PlacedFrame, caption: str, *, standalone: bool = False) -> None:
        self.frame = frame
        self.image = image_to_qimage_rgb32(frame.pixels)
        self.caption = caption
        self.standalone = standalone
        self.changed.emit()

    def clear(self) -> None:
        if self.frame is not None:
            self.frame = None
            self.image = QImage()
            self.caption = ""
            self.dragging_split = False
            self.changed.emit()

    def set_before_held(self, held: bool) -> None:
        if held != self.before_held:
            self.before_held = held
            self.changed.emit()

    def set_split(self, split: float | None) -> None:
        split = None if split is None else min(1.0, max(0.0, split))
        if split != self.split:
            self.split = split
            self.changed.emit()

    def shows_photo_only(self) -> bool:
        return self.frame is None or (self.before_held and not self.standalone)

    # --- painting ---------------------------------------------------------------------------

    def paint(self, painter: QPainter, zoom: float, offset: QPointF, picture: QRect) -> None:
        """Draws the layer over the photo (picture = the photo's rect in image pixels)."""
        frame = self.frame
        if frame is None or self.shows_photo_only():
            return
        painter.save()
        painter.setTransform(QTransform(zoom, 0, 0, zoom, offset.x(), offset.y()))
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, zoom < 1.0)
        at = QRectF(frame.at.x, frame.at.y, frame.at.width, frame.at.height)
        split_x = self.split_x(picture)
        if split_x is not None and not self.standalone:
            painter.setClipRect(QRectF(split_x, at.y(), at.right() - split_x, at.height()))
        painter.drawImage(at, self.image)
        painter.restore()
        if split_x is not None and not self.standalone:
            self._paint_split(painter, zoom, offset, picture, split_x)

    def split_x(self, picture: QRect) -> float | None:
        """The split line in image pixels, or None."""
        if self.split is None:
            return None
        return picture.x() + self.split * picture.width()

    def _paint_split(
        self, painter: QPainter, zoom: float, offset: QPointF, picture: QRect, split_x: float
    ) -> None:
        x = split_x * zoom + offset.x()
        top = picture.y() * zoom + offset.y()
        bottom = (picture.y() + picture.height()) * zoom + offset.y()
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(QColor(0, 0, 0, 160), 3))
        painter.drawLine(QPointF(x, top), QPointF(x, bottom))
        painter.setPen(QPen(QColor(255, 255, 255), 1))
        painter.drawLine(QPointF(x, top), QPointF(x, bottom))
        middle = QPointF(x, (top + bottom) / 2)
        painter.setBrush(QColor(255, 255, 255, 230))
        painter.setPen(QPen(QColor(0, 0, 0, 180), 1))
        painter.drawEllipse(middle, HANDLE_RADIUS_PX, HANDLE_RADIUS_PX)
        painter.setPen(QPen(QColor(40, 40, 40), 2))
        for sign in (-1, 1):
            tip = middle + QPointF(sign * 6, 0)
            painter.drawLine(tip, middle + QPointF(sign * 2, -4))
            painter.drawLine(tip, middle + QPointF(sign * 2, 4))
        painter.restore()

    # --- the split handle -------------------------------------------------------------------

    def grabs_split(self, widget_x: float, zoom: float, offset: QPointF, picture: QRect) -> bool:
        split_x = self.split_x(picture)
        if split_x is None or self.frame is None or self.standalone:
            return False
        return abs(split_x * zoom + offset.x() - widget_x) <= SPLIT_GRAB_PX

    def drag_split(self, widget_x: float, zoom: float, offset: QPointF, picture: QRect) -> None:
        if picture.width() > 0:
            image_x = (widget_x - offset.x()) / zoom
            self.set_split((image_x - picture.x()) / picture.width())

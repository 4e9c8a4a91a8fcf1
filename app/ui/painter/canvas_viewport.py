"""The canvas's viewport: zoom and pan, and the mapping between widget and image pixels."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRect, QRectF, Signal
from PySide6.QtWidgets import QWidget

ZOOM_MIN = 0.02
ZOOM_MAX = 32.0
ZOOM_STEP = 1.25
FIT_MARGIN_PX = 16


class CanvasViewport(QWidget):
    """Image pixel (0, 0) sits at widget point `_offset`; one image pixel is `_zoom` widget px.
    Subclasses say what is shown (`picture_rect`)."""

    zoom_changed = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._zoom = 1.0
        self._offset = QPointF(0, 0)  # widget position of image pixel (0, 0)
        self._fit_pending = True
        self._fitted_rect = QRect()  # what the last fit took in

    def picture_rect(self) -> QRect:
        """What is shown, in image pixels (empty: nothing)."""
        return QRect()

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
        picture = self.picture_rect()
        if picture.isEmpty():
            return
        avail_w = max(1, self.width() - 2 * FIT_MARGIN_PX)
        avail_h = max(1, self.height() - 2 * FIT_MARGIN_PX)
        zoom = min(avail_w / picture.width(), avail_h / picture.height(), ZOOM_MAX)
        zoom = max(ZOOM_MIN, zoom)
        self._zoom = zoom
        self._offset = QPointF(
            (self.width() - picture.width() * zoom) / 2 - picture.x() * zoom,
            (self.height() - picture.height() * zoom) / 2 - picture.y() * zoom,
        )
        self._fit_pending = True
        self._fitted_rect = QRect(picture)
        self.zoom_changed.emit(zoom)
        self.update()

    def pan_by(self, dx: float, dy: float) -> None:
        self._offset += QPointF(dx, dy)
        self._fit_pending = False
        self.update()

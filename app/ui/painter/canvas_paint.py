"""What the canvas paints besides the picture: the mask overlay's colours, the empty-canvas
hint and the tool outlines (lasso, brush circle)."""

from __future__ import annotations

from enum import StrEnum

import numpy as np
from PySide6.QtCore import QCoreApplication, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QPolygonF, QTransform

OVERLAY_BAND_PIXELS = 1 << 20


class ViewMode(StrEnum):
    COMPOSITE = "composite"
    IMAGE_ONLY = "image"
    MASK_ONLY = "mask"


def image_to_qimage_rgb32(image: np.ndarray) -> QImage:
    """HxWx3 uint8 RGB to an RGB32 QImage that owns its pixels (Qt's converter is fast)."""
    h, w = image.shape[:2]
    if not (h and w):
        return QImage()
    data = np.ascontiguousarray(image)
    wrapped = QImage(data.data, w, h, 3 * w, QImage.Format.Format_RGB888)
    return wrapped.convertToFormat(QImage.Format.Format_RGB32)


def overlay_lut(rgb: tuple[int, int, int], opacity: float) -> np.ndarray:
    """Mask level 0..255 -> premultiplied ARGB32 pixel (as uint32) for the overlay colour."""
    level = np.arange(256, dtype=np.float64)
    alpha = np.rint(level * opacity).astype(np.uint32)
    r, g, b = ((alpha * c + 127) // 255 for c in rgb)
    return (alpha << 24) | (r << 16) | (g << 8) | b


class OverlayCache:
    """The mask overlay as a premultiplied ARGB32 image of the mask's size, refreshed per dirty
    rectangle (B, G, R, A in `pixels`)."""

    def __init__(self) -> None:
        self.pixels = np.zeros((0, 0, 4), np.uint8)
        self.image = QImage()

    def resize(self, w: int, h: int) -> bool:
        """Zeroes the buffer for a new mask size; False when the size is unchanged."""
        if self.pixels.shape[:2] == (h, w):
            return False
        self.pixels = np.zeros((h, w, 4), np.uint8)
        fmt = QImage.Format.Format_ARGB32_Premultiplied
        self.image = QImage(self.pixels.data, w, h, 4 * w, fmt) if w and h else QImage()
        return True

    def refresh(self, mask: np.ndarray, rect: QRect, rgb: tuple[int, int, int], opacity: float):
        """Recolours `rect` (already clipped to the mask) from the mask's levels."""
        if rect.isEmpty() or self.pixels.size == 0:
            return
        x0, y0, x1, y1 = rect.left(), rect.top(), rect.right() + 1, rect.bottom() + 1
        lut = overlay_lut(rgb, opacity)
        pixels = self.pixels.view(np.uint32)[..., 0]
        # Row bands keep the temporaries small on a 8192×8192 mask.
        band = max(1, OVERLAY_BAND_PIXELS // max(1, x1 - x0))
        for top in range(y0, y1, band):
            bottom = min(y1, top + band)
            levels = mask[top:bottom, x0:x1] * 255.0
            levels += 0.5
            pixels[top:bottom, x0:x1] = lut[levels.astype(np.uint8)]


def paint_picture(
    painter: QPainter,
    src: QRect,
    zoom: float,
    offset: QPointF,
    mode: ViewMode,
    image: QImage,
    overlay: QImage,
) -> None:
    """The part `src` of the picture (in image pixels) and its mask overlay, as `mode` says."""
    painter.save()
    painter.setTransform(QTransform(zoom, 0, 0, zoom, offset.x(), offset.y()))
    # Smooth when shrinking (no aliasing sparkle); sharp pixels when zoomed in.
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, zoom < 1.0)
    target = QRectF(src)
    if mode == ViewMode.MASK_ONLY:
        painter.fillRect(target, Qt.GlobalColor.black)
    else:
        painter.drawImage(target, image, QRectF(src))
    if mode != ViewMode.IMAGE_ONLY:
        painter.drawImage(target, overlay, QRectF(src))
    painter.restore()


def empty_hint_text() -> str:
    """What the empty canvas says (its menu path with app/ui/words/sentences.py's arrow)."""
    return QCoreApplication.translate(
        "CanvasView",
        "Open a picture (Ctrl+O) or drop one here\nPNG, JPEG, WebP or BMP\n\n"
        "New here? Help → Try with demo models runs the whole workflow in seconds",
    )


def paint_empty_hint(painter: QPainter, rect: QRect) -> None:
    painter.setPen(QColor("#7d8590"))
    font = painter.font()
    font.setPointSizeF(font.pointSizeF() * 1.3)
    painter.setFont(font)
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, empty_hint_text())


def paint_tool_outlines(
    painter: QPainter, lasso: list[QPointF] | None, brush: tuple[QPointF, float] | None
) -> None:
    """The lasso polyline (widget coordinates) and the brush circle (centre, radius)."""
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    if lasso is not None:
        poly = QPolygonF(lasso)
        for color, width, style in (
            (QColor(0, 0, 0, 200), 3, Qt.PenStyle.SolidLine),
            (QColor(255, 255, 255), 1, Qt.PenStyle.DashLine),
        ):
            painter.setPen(QPen(color, width, style))
            painter.drawPolyline(poly)
    if brush is not None:
        c, radius = brush
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(QColor(0, 0, 0, 180), 3))
        painter.drawEllipse(c, radius, radius)
        painter.setPen(QPen(QColor(255, 255, 255), 1))
        painter.drawEllipse(c, radius, radius)
        if radius < 4:  # too small to see: add a crosshair
            painter.drawLine(c + QPointF(-6, 0), c + QPointF(-3, 0))
            painter.drawLine(c + QPointF(3, 0), c + QPointF(6, 0))
            painter.drawLine(c + QPointF(0, -6), c + QPointF(0, -3))
            painter.drawLine(c + QPointF(0, 3), c + QPointF(0, 6))


FRAME_COLORS = {"context": QColor(80, 220, 255), "expand": QColor(255, 210, 60)}


def paint_frame_outlines(painter: QPainter, frames: list[tuple[QRectF, str]]) -> None:
    """Dashed outlines (widget coordinates): the context area ("context") and the expanded
    canvas ("expand"), each over a dark line so it shows on any picture."""
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    for rect, kind in frames:
        painter.setPen(QPen(QColor(0, 0, 0, 200), 3))
        painter.drawRect(rect)
        painter.setPen(QPen(FRAME_COLORS[kind], 1, Qt.PenStyle.DashLine))
        painter.drawRect(rect)

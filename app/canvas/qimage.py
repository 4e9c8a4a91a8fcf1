"""numpy arrays to QImage (copies, so the QImage owns its pixels and may outlive the array)."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QImage


def array_to_qimage(array: np.ndarray) -> QImage:
    """uint8 HxWx3 (RGB) or HxW (grey), or float HxW in [0, 1] (a mask), to a QImage."""
    if array.dtype != np.uint8:
        array = np.round(np.clip(array, 0.0, 1.0) * 255.0).astype(np.uint8)
    array = np.ascontiguousarray(array)
    h, w = array.shape[:2]
    if array.ndim == 2:
        fmt, bpl = QImage.Format.Format_Grayscale8, w
    elif array.shape[2] == 3:
        fmt, bpl = QImage.Format.Format_RGB888, 3 * w
    else:
        raise ValueError("expected HxW or HxWx3")
    return QImage(array.data, w, h, bpl, fmt).copy()


def qimage_to_array(image: QImage) -> np.ndarray:
    """A QImage (any format) to a uint8 HxWx3 RGB array that owns its pixels."""
    if image.isNull():
        return np.zeros((0, 0, 3), np.uint8)
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    h, w, bpl = rgb.height(), rgb.width(), rgb.bytesPerLine()
    rows = np.frombuffer(rgb.constBits(), np.uint8, count=bpl * h).reshape(h, bpl)
    return rows[:, : 3 * w].reshape(h, w, 3).copy()

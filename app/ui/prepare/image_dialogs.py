"""Dialogs that show pictures: a composited result (the prepared input: prepare/preview.py)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.canvas.qimage import array_to_qimage

PREVIEW_MIN_PX = 240


class ImageLabel(QLabel):
    """A QLabel that shows a picture scaled to fit, keeping its aspect ratio."""

    def __init__(self, array: np.ndarray, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._pixmap = QPixmap.fromImage(array_to_qimage(array))
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setMinimumSize(PREVIEW_MIN_PX, PREVIEW_MIN_PX)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setObjectName("imagePreview")

    def sizeHint(self) -> QSize:
        return (
            self._pixmap.size()
            .boundedTo(QSize(560, 560))
            .expandedTo(QSize(PREVIEW_MIN_PX, PREVIEW_MIN_PX))
        )

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.setPixmap(
            self._pixmap.scaled(
                self.size() - QSize(8, 8),
                Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
        )


class ResultDialog(QDialog):
    """A generated image composited into the original: save it, or keep painting on it."""

    save_requested = Signal()
    use_requested = Signal()

    def __init__(self, image: np.ndarray, details: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Result"))
        self.image_label = ImageLabel(image)
        info = QLabel(details)
        info.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        save = QPushButton(self.tr("Save As…"))
        use = QPushButton(self.tr("Continue Painting on It"))
        use.setToolTip(self.tr("Replace the picture under the mask with this result"))
        buttons.addButton(save, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(use, QDialogButtonBox.ButtonRole.ActionRole)
        save.clicked.connect(self.save_requested)
        use.clicked.connect(self.use_requested)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.image_label, 1)
        layout.addWidget(info)
        layout.addWidget(buttons)
        self.resize(900, 700)

"""Mask operations as the user reaches them: each is one undo step, files errors become messages."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from app.canvas.document import MaskDocument
from app.core.errors import StepwiseError
from app.imaging import io, mask_ops
from app.ui.messages import show_error

log = logging.getLogger(__name__)


def mask_to_float(mask: np.ndarray) -> np.ndarray:
    if mask.dtype == np.uint8:
        return mask.astype(np.float32) / 255.0
    return np.clip(mask.astype(np.float32), 0.0, 1.0)


class MaskController(QObject):
    """Runs mask operations on the document and reports problems in message boxes."""

    mask_saved = Signal(str)
    mask_loaded = Signal(str)

    def __init__(self, document: MaskDocument, dialog_parent: QWidget) -> None:
        super().__init__(dialog_parent)
        self.document = document
        self.dialog_parent = dialog_parent

    # Labels are stored untranslated in the history and translated when shown.

    def clear(self) -> bool:
        return self.document.apply_operation("Clear mask", mask_ops.clear)

    def fill(self) -> bool:
        return self.document.apply_operation("Fill mask", mask_ops.fill)

    def invert(self) -> bool:
        return self.document.apply_operation("Invert mask", mask_ops.invert)

    def grow(self, px: int) -> bool:
        return self.document.apply_operation("Grow mask", lambda m: mask_ops.grow(m, px))

    def shrink(self, px: int) -> bool:
        return self.document.apply_operation("Shrink mask", lambda m: mask_ops.shrink(m, px))

    def blur(self, px: int) -> bool:
        return self.document.apply_operation("Blur mask", lambda m: mask_ops.blur(m, px))

    def load_mask(self, path: Path) -> bool:
        """Loads a mask PNG; a different size is offered a scale to fit, never silently applied."""
        doc = self.document
        if doc.is_empty():
            return False
        size = (doc.width, doc.height)
        try:
            mask = io.load_mask(path, size)
        except io.MaskSizeError as exc:
            answer = QMessageBox.question(
                self.dialog_parent,
                self.tr("Mask size does not match"),
                self.tr(
                    "The mask {file} is {mw}×{mh} pixels, but the image is {iw}×{ih}.\n\n"
                    "Scale the mask to the image size?"
                ).format(
                    file=path.name, mw=exc.mask_size[0], mh=exc.mask_size[1], iw=size[0], ih=size[1]
                ),
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Yes,
            )
            if answer != QMessageBox.StandardButton.Yes:
                return False
            try:
                mask = io.scale_mask(io.load_mask(path, None), size)
            except (StepwiseError, OSError, ValueError) as exc2:
                show_error(self.dialog_parent, self.tr("Could not load the mask"), exc2, path)
                return False
        except (StepwiseError, OSError, ValueError) as exc:
            show_error(self.dialog_parent, self.tr("Could not load the mask"), exc, path)
            return False
        doc.replace_mask("Load mask", mask_to_float(mask))
        doc.mask_path = path
        self.mask_loaded.emit(str(path))
        return True

    def save_mask(self, path: Path) -> bool:
        """Writes the mask as an 8-bit PNG (white = repaint), atomically."""
        if self.document.is_empty():
            return False
        data = np.round(self.document.mask * 255.0).astype(np.uint8)
        try:
            io.save_png_atomic(path, data)
        except (StepwiseError, OSError) as exc:
            show_error(self.dialog_parent, self.tr("Could not save the mask"), exc, path)
            return False
        self.document.mask_path = path
        self.document.set_modified(False)
        self.mask_saved.emit(str(path))
        return True

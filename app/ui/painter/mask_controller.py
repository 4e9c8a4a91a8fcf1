"""Mask operations as the user reaches them: each is one undo step, files errors become messages."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from app.canvas import files, operations
from app.canvas.document import MaskDocument
from app.core.errors import StepwiseError
from app.ui.kit.messages import show_error

log = logging.getLogger(__name__)


class MaskController(QObject):
    """Runs mask operations on the document and reports problems in message boxes."""

    mask_saved = Signal(str)
    mask_loaded = Signal(str)

    def __init__(self, document: MaskDocument, dialog_parent: QWidget) -> None:
        super().__init__(dialog_parent)
        self.document = document
        self.dialog_parent = dialog_parent

    def clear(self) -> bool:
        return operations.clear_mask(self.document)

    def fill(self) -> bool:
        return operations.fill_mask(self.document)

    def invert(self) -> bool:
        return operations.invert_mask(self.document)

    def grow(self, px: int) -> bool:
        return operations.grow_mask(self.document, px)

    def shrink(self, px: int) -> bool:
        return operations.shrink_mask(self.document, px)

    def blur(self, px: int) -> bool:
        return operations.blur_mask(self.document, px)

    def load_mask(self, path: Path) -> bool:
        """Loads a mask PNG; a different size is offered a scale to fit, never silently applied."""
        doc = self.document
        if doc.is_empty():
            return False
        size = (doc.width, doc.height)
        try:
            mask = files.read_mask(path, size)
        except files.MaskSizeError as exc:
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
                mask = files.read_mask_scaled(path, size)
            except (StepwiseError, OSError, ValueError) as exc2:
                show_error(self.dialog_parent, self.tr("Could not load the mask"), exc2, path)
                return False
        except (StepwiseError, OSError, ValueError) as exc:
            show_error(self.dialog_parent, self.tr("Could not load the mask"), exc, path)
            return False
        doc.replace_mask("Load mask", mask)
        doc.mask_path = path
        self.mask_loaded.emit(str(path))
        return True

    def save_mask(self, path: Path) -> bool:
        """Writes the mask as an 8-bit PNG (white = repaint), atomically."""
        if self.document.is_empty():
            return False
        try:
            files.write_mask(path, self.document.mask)
        except (StepwiseError, OSError) as exc:
            show_error(self.dialog_parent, self.tr("Could not save the mask"), exc, path)
            return False
        self.document.mask_path = path
        self.document.set_modified(False)
        self.mask_saved.emit(str(path))
        return True

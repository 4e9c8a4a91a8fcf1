"""The Prepare preview: what the model sees and what is blended back, side by side.

Left, the model's input at its real size with the mask as the engine gets it, from the same
prepare record: in soft mode (the default) the feathered weights diffuse is given
(imaging.soft_mask.soft_engine_mask, what the pipeline writes as the run's soft mask); in hard
mode binarised and rounded up to whole 16-px cells (imaging.mask_ops.engine_cells). Right, the
same part of the photo with the feathered weights the composite will use
(imaging.composite.feather_weights).
"Over the picture" tints the pictures; "Mask only" shows the two masks themselves.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from app.canvas.qimage import array_to_qimage
from app.imaging.composite import feather_weights
from app.imaging.mask_ops import binarise, engine_cells
from app.imaging.prepare import Prepared
from app.imaging.soft_mask import soft_engine_mask
from app.ui.prepare.image_dialogs import ImageLabel

TINT_RGB = np.array([255, 60, 60], np.float32)
TINT_ALPHA = 0.55


def tinted(image: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """`image` with red laid over it in proportion to `weights` (uint8 0..255)."""
    alpha = weights.astype(np.float32)[:, :, None] * (TINT_ALPHA / 255.0)
    out = image.astype(np.float32) * (1.0 - alpha) + TINT_RGB * alpha
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def grey_rgb(mask: np.ndarray) -> np.ndarray:
    return np.repeat(mask[:, :, None], 3, axis=2)


def preview_masks(
    prepared: Prepared, mask_mode: str = "soft"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the engine's mask in the input's frame — soft weights, or in hard mode 16-px cells —,
    the region of the photo, the feathered weights over that region): what the two panes
    show."""
    assert prepared.mask is not None and prepared.original_mask is not None
    if mask_mode == "soft":
        cells = soft_engine_mask(prepared.mask, prepared.record)
    else:
        cells = engine_cells(prepared.mask)
    region = prepared.record.region
    binary = binarise(prepared.original_mask)
    # The weights of the region only (plus the feather's reach, which the region holds).
    weights = feather_weights(binary[region.slices()], prepared.record.feather_px)
    return cells, prepared.original_image[region.slices()], weights


class PictureLabel(ImageLabel):
    """An ImageLabel whose picture can be swapped."""

    def set_array(self, array: np.ndarray) -> None:
        self._pixmap = QPixmap.fromImage(array_to_qimage(np.ascontiguousarray(array)))
        self.setPixmap(
            self._pixmap.scaled(
                self.size() - QSize(8, 8),
                Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
        )


class PreparePreviewDialog(QDialog):
    """What the model will receive and what will be composited, with the numbers."""

    export_requested = Signal()

    def __init__(
        self,
        prepared: Prepared,
        details: str,
        parent: QWidget | None = None,
        mask_mode: str = "soft",
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Prepared input"))
        self.prepared = prepared
        self.mask_mode = mask_mode
        # The engine's mask (soft weights or 16-px cells), the photo's part, the composite's.
        self.cells, self.photo_part, self.weights = preview_masks(prepared, mask_mode)
        self.model_label = PictureLabel(prepared.image)
        self.composite_label = PictureLabel(self.photo_part)
        record = prepared.record
        w, h = record.input_size
        if mask_mode == "soft":
            model_caption = self.tr(
                "What the model sees: {w}×{h} px, the mask soft: full inside, fading over "
                "the feather"
            ).format(w=w, h=h)
        else:
            model_caption = self.tr(
                "What the model sees: {w}×{h} px, the mask in whole 16-px cells"
            ).format(w=w, h=h)
        rw, rh = record.region.size
        composite_caption = self.tr(
            "What is blended back: {w}×{h} px of the photo, the mask feathered by {f} px"
        ).format(w=rw, h=rh, f=record.feather_px)
        pictures = QHBoxLayout()
        for label, caption in (
            (self.model_label, model_caption),
            (self.composite_label, composite_caption),
        ):
            box = QVBoxLayout()
            text = QLabel(caption)
            text.setObjectName("captionLabel")
            text.setWordWrap(True)
            box.addWidget(text)
            box.addWidget(label, 1)
            pictures.addLayout(box, 1)
        self.over_button = QRadioButton(self.tr("Over the picture"))
        self.mask_button = QRadioButton(self.tr("Mask only"))
        self.plain_button = QRadioButton(self.tr("Picture only"))
        self.view_group = QButtonGroup(self)
        modes = QHBoxLayout()
        for button in (self.over_button, self.mask_button, self.plain_button):
            self.view_group.addButton(button)
            modes.addWidget(button)
            button.toggled.connect(self._show)
        modes.addStretch(1)
        self.details_label = QLabel(details)
        self.details_label.setWordWrap(True)
        self.details_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        export = QPushButton(self.tr("Export…"))
        buttons.addButton(export, QDialogButtonBox.ButtonRole.ActionRole)
        export.clicked.connect(self.export_requested)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(modes)
        layout.addLayout(pictures, 1)
        layout.addWidget(self.details_label)
        layout.addWidget(buttons)
        self.over_button.setChecked(True)
        self.resize(1000, 620)

    def shown(self) -> tuple[np.ndarray, np.ndarray]:
        """The two pictures for the chosen view (model pane, composite pane)."""
        if self.mask_button.isChecked():
            return grey_rgb(self.cells), grey_rgb(self.weights)
        if self.plain_button.isChecked():
            return self.prepared.image, self.photo_part
        return tinted(self.prepared.image, self.cells), tinted(self.photo_part, self.weights)

    def _show(self, checked: bool = True) -> None:
        if not checked:
            return
        model, composite = self.shown()
        self.model_label.set_array(model)
        self.composite_label.set_array(composite)

"""Options that prepare the image for inference, shown before anything runs."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.core.settings import PaintSettings
from app.ui.action_button import action_button

PADDING_MAX_PX = 1024
FEATHER_MAX_PX = 256


class PreparePanel(QWidget):
    """Align to 16 px, fill, only-masked region with padding, feather; preview, export, apply."""

    options_changed = Signal()

    def __init__(self, actions: dict[str, QAction], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        box = QGroupBox(self.tr("Prepare for inference"))
        form = QFormLayout(box)
        self.align_combo = QComboBox()
        for value, text in (
            ("pad", self.tr("Pad to 16 px")),
            ("crop", self.tr("Crop to 16 px")),
            ("scale", self.tr("Scale to 16 px")),
        ):
            self.align_combo.addItem(text, value)
        self.align_combo.setToolTip(
            self.tr(
                "The model needs sides that are multiples of 16 px. Padding is undone "
                "exactly when the result is put back."
            )
        )
        self.fill_combo = QComboBox()
        for value, text in (
            ("grey", self.tr("Grey (50 %)")),
            ("blur", self.tr("Blurred")),
            ("none", self.tr("None (keep pixels)")),
        ):
            self.fill_combo.addItem(text, value)
        self.fill_combo.setToolTip(
            self.tr("What the masked area holds before generation; grey hides the old content")
        )
        self.only_masked_check = QCheckBox(self.tr("Only the masked area"))
        self.only_masked_check.setToolTip(
            self.tr("Generate just the mask's bounding box plus padding, at full detail")
        )
        self.padding_spin = QSpinBox()
        self.padding_spin.setRange(0, PADDING_MAX_PX)
        self.padding_spin.setSuffix(" px")
        self.feather_spin = QSpinBox()
        self.feather_spin.setRange(0, FEATHER_MAX_PX)
        self.feather_spin.setSuffix(" px")
        self.feather_spin.setToolTip(
            self.tr("Soft edge used when the result is blended back into the original")
        )
        form.addRow(self.tr("Align"), self.align_combo)
        form.addRow(self.tr("Fill"), self.fill_combo)
        form.addRow(self.only_masked_check)
        form.addRow(self.tr("Padding"), self.padding_spin)
        form.addRow(self.tr("Feather"), self.feather_spin)
        self.summary_label = QLabel()
        self.summary_label.setObjectName("hintLabel")
        self.summary_label.setWordWrap(True)
        form.addRow(self.summary_label)
        buttons = QHBoxLayout()
        buttons.addWidget(action_button(actions["preview_prepared"]))
        buttons.addWidget(action_button(actions["export_prepared"]))
        form.addRow(buttons)
        form.addRow(action_button(actions["apply_result"]))

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(box)

        for combo in (self.align_combo, self.fill_combo):
            combo.currentIndexChanged.connect(self.options_changed)
        self.only_masked_check.toggled.connect(self._only_masked_toggled)
        self.padding_spin.valueChanged.connect(self.options_changed)
        self.feather_spin.valueChanged.connect(self.options_changed)

    def _only_masked_toggled(self) -> None:
        self.padding_spin.setEnabled(self.only_masked_check.isChecked())
        self.options_changed.emit()

    def load_settings(self, paint: PaintSettings) -> None:
        self.align_combo.setCurrentIndex(max(0, self.align_combo.findData(paint.align_mode)))
        self.fill_combo.setCurrentIndex(max(0, self.fill_combo.findData(paint.fill_mode)))
        self.only_masked_check.setChecked(paint.only_masked)
        self.padding_spin.setValue(paint.region_padding)
        self.feather_spin.setValue(paint.feather)
        self.padding_spin.setEnabled(paint.only_masked)

    def store_settings(self, paint: PaintSettings) -> None:
        paint.align_mode = self.align_combo.currentData()
        paint.fill_mode = self.fill_combo.currentData()
        paint.only_masked = self.only_masked_check.isChecked()
        paint.region_padding = self.padding_spin.value()
        paint.feather = self.feather_spin.value()

    def set_summary(self, text: str) -> None:
        self.summary_label.setText(text)
